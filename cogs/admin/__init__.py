"""The server's dice poker settings (`/poker settings`)."""

from ._cog import COMMANDS, AdminCog, parse_duration

__all__ = ["COMMANDS", "AdminCog", "parse_duration"]

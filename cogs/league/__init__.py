"""A server's games as a league: leaderboards, member stats, history, replay exports."""

from ._cog import COMMANDS, LeagueCog, replay_document, unique_names

__all__ = ["COMMANDS", "LeagueCog", "replay_document", "unique_names"]

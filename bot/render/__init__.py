"""What players see: embeds as plain data, dice faces, scorecard text and pictures.

Pure: engine objects plus a display-name mapping (engine player name → the name shown, as
typed) and a language in; `Embed`s, strings and PNG bytes out. Every word comes from the
catalog (`bot.i18n`); every embed fits Discord's limits (`embed.Embed.to_dict`).
"""

from .embed import Embed, Field, plain, safe
from .text import (
    FACES,
    card_embed,
    cell,
    dice_text,
    lobby_embed,
    number,
    opening_embed,
    opening_text,
    option_label,
    rules_embed,
    scorecard_embed,
    scorecard_table,
    standings_embed,
    summary_line,
    turn_embed,
)

__all__ = [
    "FACES",
    "Embed",
    "Field",
    "card_embed",
    "cell",
    "dice_text",
    "lobby_embed",
    "number",
    "opening_embed",
    "opening_text",
    "option_label",
    "plain",
    "rules_embed",
    "safe",
    "scorecard_embed",
    "scorecard_table",
    "standings_embed",
    "summary_line",
    "turn_embed",
]

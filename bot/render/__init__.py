"""What players see: embeds, dice faces, scorecard text. No database, no state.

Every function takes the engine's objects plus a display-name mapping (engine player
name → name shown) and a language; every word comes from the catalog (`bot.i18n`).
"""

from .text import (
    FACES,
    card_embed,
    dice_text,
    lobby_embed,
    opening_embed,
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
    "card_embed",
    "dice_text",
    "lobby_embed",
    "opening_embed",
    "option_label",
    "rules_embed",
    "scorecard_embed",
    "scorecard_table",
    "standings_embed",
    "summary_line",
    "turn_embed",
]

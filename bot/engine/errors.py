"""Domain errors: a code and its parameters; every language has a sentence for each code.

The sentences live in the catalogs (`bot/i18n/*.toml`, section `refusal`); `str(error)`
is the English one (logs and the replay command line). Text taken from the input (a
player's or a row's name) is cut to `QUOTE_MAX` characters, so one line stays one line.
"""

from __future__ import annotations

from bot.i18n import t

QUOTE_MAX = 80


def quote(value: object) -> str:
    """`value` as shown inside a message: at most QUOTE_MAX characters of it."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= QUOTE_MAX else text[: QUOTE_MAX - 1] + "…"


class GameError(ValueError):
    """An action the rules do not allow; the game is left unchanged.

    `code` names the sentence (`refusal.<code>` in every catalog); `params` fill it in.
    A parameter named `player` holds an engine player name, which an edge may show under
    the player's display name instead.
    """

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params: dict[str, str | int] = {
            k: v if isinstance(v, int) and not isinstance(v, bool) else quote(v)
            for k, v in params.items()
        }
        super().__init__(code)

    def message(self, lang: str, **overrides: object) -> str:
        """The sentence in `lang`; `overrides` replace parameters (display names)."""
        return t(f"refusal.{self.code}", lang, **{**self.params, **overrides})

    def __str__(self) -> str:
        return self.message("en")

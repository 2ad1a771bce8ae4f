"""Domain errors: a code and its parameters; every language has a sentence for each code.

The sentences live in the catalogs (`bot/i18n/*.toml`, section `refusal`); `str(error)`
is the English one (logs and the replay command line). Text taken from the input (a
player's or a row's name) is cut to `QUOTE_MAX` characters, so one line stays one line.
"""

from __future__ import annotations

from bot.i18n import t

QUOTE_MAX = 80
# The parameters that come from a game's input (a replay file, a select value): quoted.
_FROM_INPUT = frozenset({"player", "row", "rules", "field"})


def quote(value: object) -> str:
    """`value` as shown inside a message: at most QUOTE_MAX characters of it."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= QUOTE_MAX else text[: QUOTE_MAX - 1] + "…"


class GameError(ValueError):
    """An action the rules do not allow; the game is left unchanged.

    `code` names the sentence: the engine's codes are `refusal.<code>` in every catalog,
    a code with a dot (`errors.lobby_full`) is a catalog key of its own (the table's and
    the bot's refusals). `params` fill it in. A parameter named `player` holds an engine
    player name, which an edge may show under the player's display name instead.
    """

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params: dict[str, object] = {
            k: quote(v) if k in _FROM_INPUT and "." not in code else v for k, v in params.items()
        }
        super().__init__(code)

    @property
    def key(self) -> str:
        return self.code if "." in self.code else f"refusal.{self.code}"

    def message(self, lang: str, **overrides: object) -> str:
        """The sentence in `lang`; `overrides` replace parameters (display names). A list
        (the rows a joker may take) is shown as its keys, comma-separated, unless an edge
        names them in `lang`."""
        params = {
            k: ", ".join(map(str, v)) if isinstance(v, tuple) else v
            for k, v in {**self.params, **overrides}.items()
        }
        return t(self.key, lang, **params)

    def __str__(self) -> str:
        return self.message("en")

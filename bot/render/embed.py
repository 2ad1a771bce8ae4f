"""Embeds as plain data, always inside Discord's limits; and text safe to show.

Render builds `Embed`s; the Discord edge turns `Embed.to_dict()` into a `discord.Embed`.
`to_dict` is where every limit is enforced, for every embed the bot builds: a title of at
most 256 characters, a description of 4,096, at most 25 fields of 256 (name) and 1,024
(value), a footer of 2,048 and 6,000 in all. Whatever is too long is shortened with "…"
(the description and the last fields first), never refused by Discord.

User text (display names) is shown, never interpreted: `safe` escapes markdown, mentions
(`<@…>`, `@everyone`), channel and role mentions and links for markdown contexts; `plain`
makes text safe inside a code block, where a backtick would end the block.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
TOTAL_MAX = 6000
ELLIPSIS = "…"

# Colours (Discord's palette values, as discord.Colour names them).
BLURPLE = 0x5865F2
GREEN = 0x2ECC71
DARK_TEAL = 0x11806A
GOLD = 0xF1C40F
DARK_GREY = 0x607D8B
YELLOW = 0xFEE75C

# Every ASCII character markdown, mentions or links could start with: escaped with a
# backslash (Discord then shows the character itself). `:` stops a URL being linked, `.`
# a line starting "1." becoming a list.
_MARKDOWN = re.compile(r"([\\*_~`|>#\[\]()<@:\-.])")


@lru_cache(maxsize=4096)
def _printable(text: str) -> str:
    """Without control characters (a name is one line) and without lone surrogates.
    Names are drawn again at every click (titles, the seat order): ASCII without controls
    is returned as it is, the rest remembered (bounded)."""
    if text.isascii() and text.isprintable():
        return text
    text = text.encode("utf-8", "replace").decode("utf-8")
    return "".join(
        ch
        for ch in text
        if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp") or ch == "\u200d"
    )  # fmt: skip  (keeps emoji sequences whole)


@lru_cache(maxsize=4096)
def safe(text: str) -> str:
    """User text for a markdown context (content, descriptions, field values, titles):
    shown exactly as typed, never formatting, mentioning or linking anything. Remembered
    (bounded) as `_printable`: the same names are escaped at every click."""
    return _MARKDOWN.sub(r"\\\1", _printable(text))


def plain(text: str) -> str:
    """User text inside a code block: nothing can end the block or break its lines."""
    return _printable(text).replace("`", "ˋ")


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, "…" marking a cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


FENCE = "```"


def cut_value(text: str, limit: int) -> str:
    """`cut` for a field value: a code block cut short is closed again (else the rest of
    the embed would show as code)."""
    if len(text) <= limit:
        return text
    shortened = cut(text, limit)
    if shortened.count(FENCE) % 2:
        shortened = cut(text, max(0, limit - len(FENCE) - 1)) + "\n" + FENCE
    return shortened


@dataclass(frozen=True)
class Field:
    name: str
    value: str
    inline: bool = False


@dataclass
class Embed:
    title: str | None = None
    description: str | None = None
    colour: int | None = None
    fields: list[Field] = field(default_factory=list)
    footer: str | None = None
    image: str | None = None  # "attachment://name.png"

    def add_field(self, name: str, value: str, *, inline: bool = False) -> Embed:
        self.fields.append(Field(name, value, inline))
        return self

    def to_dict(self) -> dict[str, Any]:
        """Discord's embed JSON, shortened to fit every limit."""
        title = cut(self.title, TITLE_MAX) if self.title else None
        description = cut(self.description, DESCRIPTION_MAX) if self.description else None
        footer = cut(self.footer, FOOTER_MAX) if self.footer else None
        fields = [
            Field(
                cut(f.name or "\u200b", FIELD_NAME_MAX),
                cut_value(f.value or "\u200b", FIELD_VALUE_MAX),
                f.inline,
            )
            for f in self.fields[:FIELDS_MAX]
        ]
        fixed = len(title or "") + len(footer or "")
        room = TOTAL_MAX - fixed
        # Fields keep their room first (they carry the tables); the description yields.
        used = sum(len(f.name) + len(f.value) for f in fields)
        while fields and used > room:
            last = fields[-1]
            over = used - room
            if len(last.value) - over >= 20:
                fields[-1] = Field(
                    last.name, cut_value(last.value, len(last.value) - over), last.inline
                )
            else:
                fields.pop()
            used = sum(len(f.name) + len(f.value) for f in fields)
        if description is not None and len(description) > room - used:
            description = cut(description, max(1, room - used))
        out: dict[str, Any] = {"type": "rich"}
        if title:
            out["title"] = title
        if description:
            out["description"] = description
        if self.colour is not None:
            out["color"] = self.colour
        if fields:
            out["fields"] = [{"name": f.name, "value": f.value, "inline": f.inline} for f in fields]
        if footer:
            out["footer"] = {"text": footer}
        if self.image:
            out["image"] = {"url": self.image}
        return out


def length(data: dict[str, Any]) -> int:
    """What Discord counts towards the 6,000 characters of an embed."""
    total = len(data.get("title", "")) + len(data.get("description", ""))
    total += len(data.get("footer", {}).get("text", ""))
    total += sum(len(f["name"]) + len(f["value"]) for f in data.get("fields", ()))
    return total

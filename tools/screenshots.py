"""Regenerate the README pictures: `make screenshots` (docs/lobby.png, turn, scorecard, final).

Plays a real game with the real bot against simcord's simulated Discord (seeded dice, so
the pictures only change when the bot's messages do) and photographs the bot's actual
messages through simcord's preview in a headless Chromium. Needs the `screenshots` extra
(`simcord[screenshot]`, i.e. playwright without its browser download) and Debian's
`chromium`; `make screenshots` installs both.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout, installed or not
    sys.path.insert(0, str(ROOT))
DOCS = ROOT / "docs"
SEED = 20
CHROMIUM = "/usr/bin/chromium"
# simcord launches Chromium without arguments; these keep it headless, offline and quiet.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def use_system_chromium() -> None:
    from playwright.async_api import BrowserType  # noqa: PLC0415 - optional dependency

    launch = BrowserType.launch

    async def patched(self: BrowserType, **kw: Any) -> Any:
        kw.setdefault("executable_path", CHROMIUM)
        kw.setdefault("args", ARGS)
        return await launch(self, **kw)

    BrowserType.launch = patched  # type: ignore[method-assign]


def _title(message: Any) -> str:
    embeds = message.embeds
    return str(embeds[0].title or "") if embeds else ""


async def shoot(out: Path, database: Path, *, rules: str, language: str | None) -> list[Path]:
    import simcord  # noqa: PLC0415 - optional dependency

    from bot.app import DicePokerBot  # noqa: PLC0415
    from bot.demo import control_id, play_out, play_turn  # noqa: PLC0415
    from bot.i18n import t  # noqa: PLC0415
    from bot.settings import Settings  # noqa: PLC0415

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]  # never the developer's .env
        discord_token=None,
        database_path=database,
        dev_guild_id=None,
        log_level="WARNING",
    )
    bot = DicePokerBot(settings, dice=random.Random(SEED), sync_globally=True)
    lang = language or "en"
    written: list[Path] = []
    async with simcord.run(bot) as env:
        guild = env.create_guild("Dice Club")
        channel = guild.create_text_channel("dice-poker")
        ann = guild.add_member(env.create_user("ann", global_name="Ann"))
        bob = guild.add_member(env.create_user("bob", global_name="Bob"))
        members = [ann, bob]
        assert bot.store is not None
        await bot.store.update_settings(guild.id, {"images": True})
        async with env.preview(
            channel, viewers=members, layout="message", display="fixed", width=760, height=900
        ) as preview:

            async def snap(name: str, target: Any) -> None:
                path = out / f"{name}.png"
                await preview.screenshot(path, target=target, mode="surface")
                written.append(path)

            # The lobby, with Bob joined and the Start button waiting for Ann.
            options: dict[str, Any] = {"rules": rules}
            if language is not None:
                options["language"] = language
            res = await ann.slash(channel, "poker new", **options)
            join = control_id(res.response, "join")
            await bob.click(res.response, custom_id=join)
            await snap("lobby", res)
            await ann.click(res.response, custom_id=control_id(res.response, "start"))

            # A turn: a few turns in, a throw made and a die held.
            for _ in range(3):
                await play_turn(channel, members)
            turn = channel.last_message
            player = next(m for m in members if f"<@{m.id}>" in (turn.content or ""))
            await player.click(turn, custom_id=control_id(turn, "roll"))
            thrown = channel.last_message
            await player.click(thrown, custom_id=control_id(thrown, "hold"))
            await snap("turn", channel.last_message)

            # A scorecard half way through the game, picture included.
            for _ in range(13):
                await play_turn(channel, members, hold_first=False)
            card = next(
                m for m in reversed(channel.history()) if _title(m) == t("card.title", lang)
            )
            await snap("scorecard", card)

            # The final standings, after the game is played out.
            await play_out(channel, members)
            await snap("final", channel.last_message)
        if not bot.is_closed():
            await bot.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DOCS, help="where the PNGs go (docs/)")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--language", default=None, help="the game's language (default: en)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not Path(CHROMIUM).exists():
        print(f"screenshots need Debian's chromium at {CHROMIUM}: apt-get install -y chromium")
        return 1
    use_system_chromium()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dicepoker-shots-") as tmp:
        written = asyncio.run(
            shoot(args.out, Path(tmp) / "shots.sqlite3", rules=args.rules, language=args.language)
        )
    for path in written:
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

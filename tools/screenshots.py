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
PHONE = 420  # px: the pictures are taken at a phone's width
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


async def shoot(out: Path, folder: Path, *, rules: str, language: str | None) -> list[Path]:
    """Play a game of two members and a perfect computer player, at a phone's width."""
    import simcord  # noqa: PLC0415 - optional dependency

    from bot.app import DicePokerBot  # noqa: PLC0415
    from bot.settings import Settings  # noqa: PLC0415
    from bot.strategy import EXACT, compute, save  # noqa: PLC0415

    # The analysis and the perfect computer player need the rule set's table: classic is
    # solved in a fraction of a second, so every machine shows them. Banked has no exact
    # table: its computer player plays its own policy, with no analysis.
    if rules in EXACT:
        save(compute(rules), folder / "strategy")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]  # never the developer's .env
        discord_token=None,
        database_path=folder / "shots.sqlite3",
        strategy_dir=folder / "strategy",
        dev_guild_id=None,
        log_level="WARNING",
        bot_pause=0.0,
    )
    bot = DicePokerBot(settings, dice=random.Random(SEED), sync_globally=True)
    lang = language or "en"
    written: list[Path] = []
    try:
        await _play(bot, simcord, out, written, rules=rules, language=language, lang=lang)
    finally:
        if not bot.is_closed():  # also when something failed: no thread outlives the run
            await bot.close()
    return written


async def _play(bot: Any, simcord: Any, out: Path, written: list[Path], *, rules: str,  # noqa: PLR0913 - a picture's game, by keyword
                language: str | None, lang: str) -> None:  # fmt: skip
    from bot.demo import control_id, play_turn  # noqa: PLC0415
    from bot.i18n import t  # noqa: PLC0415

    async with simcord.run(bot) as env:
        guild = env.create_guild("Dice Club")
        channel = guild.create_text_channel("dice-poker")
        ana = guild.add_member(env.create_user("ana", global_name="Ana"))
        boris = guild.add_member(env.create_user("boris", global_name="Boris"))
        members = [ana, boris]
        assert bot.store is not None
        await bot.store.update_settings(guild.id, {"images": True})
        async with env.preview(
            channel, viewers=members, layout="message", display="fixed", width=PHONE, height=900
        ) as preview:

            async def snap(name: str, target: Any) -> None:
                path = out / f"{name}.png"
                await preview.screenshot(path, target=target, mode="surface")
                written.append(path)

            async def humans_turn() -> Any:
                """The turn message once it is a member's turn (the computer plays its own)."""
                for _ in range(200):
                    turn = channel.last_message
                    if control_id(turn, "roll") is None or "<@" in (turn.content or ""):
                        return turn
                    await env.advance_time(1)
                raise RuntimeError("the computer player never finished its turn")

            # The lobby: Boris joined, a perfect computer player added, Start waiting.
            options: dict[str, Any] = {"rules": rules}
            if language is not None:
                options["language"] = language
            res = await ana.slash(channel, "poker new", **options)
            await boris.click(res.response, custom_id=control_id(res.response, "join"))
            addbot = control_id(res.response, "addbot")
            assert addbot is not None
            await ana.select(res.response, ["perfect"], custom_id=addbot)
            await snap("lobby", res)
            await ana.click(res.response, custom_id=control_id(res.response, "start"))

            # A turn: a few turns in, a throw made and a die held.
            for _ in range(4):
                await humans_turn()
                await play_turn(channel, members)
            turn = await humans_turn()
            player = next(m for m in members if f"<@{m.id}>" in (turn.content or ""))
            await player.click(turn, custom_id=control_id(turn, "roll"))
            thrown = channel.last_message  # the message as it is now, its dice thrown
            await player.click(thrown, custom_id=control_id(thrown, "hold"))
            await snap("turn", channel.last_message)

            # A turn's summary carrying the scorecard picture, half way through the game.
            while True:
                turn = await humans_turn()
                if control_id(turn, "roll") is None:
                    break
                await play_turn(channel, members, hold_first=False)
                card = next(
                    (m for m in reversed(channel.history()) if _title(m) == t("card.title", lang)),
                    None,
                )
                if card is not None and _round(card) >= 8 and "scorecard" not in _shot(written):
                    await snap("scorecard", card)

            # The final standings, with each member's points lost against perfect play.
            await env.advance_time(1)  # the analysis is added a moment after the standings
            await snap("final", channel.last_message)


def _round(message: Any) -> int:
    footer = message.embeds[0].footer.text if message.embeds and message.embeds[0].footer else ""
    digits = [int(w) for w in str(footer).replace("#", " ").split() if w.isdigit()]
    return digits[-1] if digits else 0


def _shot(written: list[Path]) -> set[str]:
    return {p.stem for p in written}


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
        written = asyncio.run(shoot(args.out, Path(tmp), rules=args.rules, language=args.language))
    for path in written:
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

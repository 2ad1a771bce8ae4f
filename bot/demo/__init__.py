"""Try the bot without Discord: `make demo` (or `python -m bot.demo`).

Starts the real `DicePokerBot` against simcord's simulated Discord, in a guild with one
channel and a few members, and serves simcord's preview on 127.0.0.1: open the printed
address in a browser, type `/poker new` in the composer, and play, switching between the
members to join and take turns. No token, no network; the game is stored in a temporary
database that disappears when the demo stops (Ctrl-C).

Needs the `demo` extra (`simcord[preview]`), which the default test install leaves out.
What the demo changes in simcord's preview so that it behaves like the bot on Discord (a
clock in real seconds, pages that follow the game, the channel's scrolling, pictures
checked once) is in `bot.demo.live`, each change with its cause.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import discord

from bot.i18n import LANGUAGES

log = logging.getLogger(__name__)

# Ordinary people's names (a member called "you" read "you starts"); Ana manages the server,
# so /poker settings can be tried. Usernames and the display names shown in the games.
MEMBERS = ("ana", "boris", "chitra", "dan")
DISPLAY = {"ana": "Ana", "boris": "Boris", "chitra": "Chitra", "dan": "Dan"}
LOCALES = {"en": "en-US", "ru": "ru", "ro": "ro", "hi": "hi"}


# --- scripted play through simcord (the screenshots and the language tests use it) ---------


def controls(message: Any) -> list[dict[str, Any]]:
    """Every button and select of a message as Discord's component dicts."""
    rows = message.components
    raw = [row if isinstance(row, dict) else row.to_dict() for row in rows]
    return [c for row in raw for c in row.get("components", [])]


def control_id(message: Any, action: str) -> str | None:
    """The custom_id of the enabled control for `action` (`poker:<action>:…`), if any."""
    for c in controls(message):
        cid = c.get("custom_id", "")
        if cid.startswith(f"poker:{action}:") and not c.get("disabled"):
            return str(cid)
    return None


def current_player(message: Any, members: Sequence[Any]) -> Any:
    """The member a turn message mentions."""
    found = re.search(r"<@!?(\d+)>", message.content or "")
    if found is None:
        raise LookupError("the turn message mentions nobody")
    user_id = int(found.group(1))
    return next(m for m in members if m.id == user_id)


async def open_game(
    channel: Any, host: Any, guests: Sequence[Any], *, rules: str, language: str | None
) -> Any:
    """`/poker new`, every guest joins, the host starts; returns the lobby's result."""
    options: dict[str, Any] = {"rules": rules}
    if language is not None:
        options["language"] = language
    res = await host.slash(channel, "poker new", **options)
    lobby = res.response
    for guest in guests:
        join = control_id(lobby, "join")
        assert join is not None, "the lobby has no Join button"
        await guest.click(lobby, custom_id=join)
    start = control_id(lobby, "start")
    assert start is not None, "the lobby has no Start button"
    await host.click(lobby, custom_id=start)
    return res


async def play_turn(channel: Any, members: Sequence[Any], *, hold_first: bool = True) -> Any:
    """The current player throws (twice, holding the pair they like) and records a row."""
    turn = channel.last_message
    player = current_player(turn, members)
    await player.click(turn, custom_id=control_id(turn, "roll"))
    turn = channel.last_message
    if hold_first and (hold := control_id(turn, "hold")) is not None:
        await player.click(turn, custom_id=hold)
        turn = channel.last_message
        if (again := control_id(turn, "roll")) is not None:
            await player.click(turn, custom_id=again)
            turn = channel.last_message
    select = next(
        (c for c in controls(turn) if c.get("custom_id", "").startswith("poker:score:")), None
    )
    if select is not None and select.get("options"):
        # The option worth most: the label ends with its points.
        best = max(select["options"], key=lambda o: _points(o["label"]))
        await player.select(turn, [best["value"]], custom_id=select["custom_id"])
    else:
        await player.click(turn, custom_id=control_id(turn, "pass"))
    return turn


def _points(label: str) -> int:
    numbers = re.findall(r"[−-]?\d+", label)
    return int(numbers[-1].replace("−", "-")) if numbers else 0


async def play_out(channel: Any, members: Sequence[Any], *, limit: int = 400) -> int:
    """Play turns until no turn message is left; returns how many turns were played."""
    for played in range(limit):
        if control_id(channel.last_message, "roll") is None:
            return played
        await play_turn(channel, members)
    raise RuntimeError(f"the game did not end in {limit} turns")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bot.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765, help="loopback port (0: any free one)")
    parser.add_argument(
        "--language",
        choices=sorted(LANGUAGES),
        default="en",
        help="the server's preferred language (the default language of new games)",
    )
    parser.add_argument("--no-images", action="store_true", help="turn the scorecard pictures off")
    parser.add_argument(
        "--no-tables",
        dest="tables",
        action="store_false",
        help="do not load or compute the strategy tables (no hints, no perfect computer players)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="stop by itself after this many seconds (default: run until Ctrl-C)",
    )
    return parser.parse_args(argv)


async def serve(  # noqa: PLR0915 - the demo world set up and run, one step after another
    args: argparse.Namespace,
    database: Path,
    *,
    ready: Callable[[Any, Any, list[Any]], Awaitable[None]] | None = None,
) -> None:
    """Run the demo world until the preview closes, `args.seconds` pass, or we are cancelled.

    `ready(preview, channel, members)` is awaited once the preview serves (tests use it).
    """
    # simcord checks discord.py's internals at import by building a throwaway client, whose
    # start-up warnings (no voice libraries, no intents) say nothing about this bot.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    state_log = logging.getLogger("discord.state")
    level = state_log.level
    state_log.setLevel(logging.ERROR)
    try:
        import simcord  # noqa: PLC0415 - only the demo needs simcord at run time
        from simcord.preview import _require_preview_runtime  # noqa: PLC0415
    except ImportError:  # pragma: no cover - the demo extra is missing
        raise SystemExit("the demo needs simcord's preview: run `make demo`") from None
    finally:
        state_log.setLevel(level)
    try:
        _require_preview_runtime()
    except simcord.SetupError as exc:
        raise SystemExit(f"the demo needs simcord's preview: run `make demo` ({exc})") from None

    from bot.app import DicePokerBot  # noqa: PLC0415 - after the check above
    from bot.demo import live  # noqa: PLC0415 - needs simcord's preview
    from bot.settings import Settings  # noqa: PLC0415

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]  # never the developer's .env
        discord_token=None,
        database_path=database,
        dev_guild_id=None,
        log_level="INFO",
        # Hints and perfect computer players: the tables cached in data/strategy, the
        # missing ones computed in a worker process (about 10 s once).
        strategy_precompute=args.tables,
    )
    bot = DicePokerBot(settings, sync_globally=True)
    world = simcord.run(bot, check_errors=False)
    live.on_wall_clock(world._env)  # before it starts: see bot/demo/live.py
    try:
        async with world as env, contextlib.AsyncExitStack() as stack:
            guild = env.create_guild("Dice Club", preferred_locale=LOCALES[args.language])
            channel = guild.create_text_channel("dice-poker")
            organiser = guild.create_role(
                "Organiser", permissions=discord.Permissions(manage_guild=True)
            )
            members = [
                guild.add_member(
                    env.create_user(name, global_name=DISPLAY[name]),
                    roles=[organiser] if name == MEMBERS[0] else [],
                )
                for name in MEMBERS
            ]
            store: Any = bot.store
            if store is not None:
                await store.update_settings(guild.id, {"images": not args.no_images})
            view = env.preview(channel, viewers=members, layout="channel", port=args.port)
            live.patch_preview(view)
            try:
                await stack.enter_async_context(view)
            except simcord.SetupError as exc:  # the port is taken: another demo running?
                raise SystemExit(
                    f"{exc}: is another demo running? Stop it, or choose another port:"
                    " make demo DEMO_ARGS='--port 0' (any free one)"
                ) from None
            await stack.enter_async_context(live.following(env, view))
            print(f"Dice poker demo: open {view.url}", flush=True)
            print(
                "Type /poker new in the message box, join as the other members, and play"
                f" ({DISPLAY[MEMBERS[0]]} manages the server: /poker settings). Ctrl-C"
                " stops the demo.",
                flush=True,
            )
            if ready is not None:
                await ready(view, channel, members)
            if args.seconds is None:
                await view.wait_closed()
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(view.wait_closed(), args.seconds)
    finally:
        # Also on Ctrl-C: the store's thread would keep the process alive otherwise.
        if not bot.is_closed():
            await bot.close()


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # The game lives in a temporary folder, removed however the demo stops.
    with (
        tempfile.TemporaryDirectory(prefix="dicepoker-demo-") as tmp,
        contextlib.suppress(KeyboardInterrupt),  # Ctrl-C: the way to stop it
    ):
        asyncio.run(serve(args, Path(tmp) / "demo.sqlite3"))
    print("demo stopped", flush=True)
    return 0

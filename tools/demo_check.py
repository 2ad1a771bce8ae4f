"""Try `make demo` as a new admin would, on a phone: `.venv/bin/python tools/demo_check.py`.

Starts the demo (`python -m bot.demo`, its own process), opens its page in a headless
Chromium at a phone's size (412×915, touch) and, tapping like a person: sets a 30 s turn
time, opens the daily's record menu, opens a game with computer players, plays Ana's
turns through the record menu (never pressing the preview's Refresh), lets one turn time
out and switches the viewer back and forth. It prints what it measured, leaves
screenshots in --out and exits 1 when the demo did not behave like the bot (about eight
minutes with the defaults: 25 turns, a hundred pictures). Needs the `screenshots` extra
(playwright) and Debian's chromium, which `make screenshots` installs; not in `make test`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.screenshots import ARGS, CHROMIUM  # noqa: E402 - after the path above

PHONE = {"width": 412, "height": 915}
TURN_SECONDS = 30  # the shortest turn time: its timeout is seen within a minute

TIMELINE = "#channel-timeline"
PICTURES = f"{TIMELINE} .media-lightbox-trigger img"
OPEN_LIST = ".preview-select.is-open .select-list"
SCROLL = f"() => document.querySelector('{TIMELINE}').scrollTop"
LAYOUT = f"""() => {{
  const t = document.querySelector('{TIMELINE}');
  const pictures = [...document.querySelectorAll('{PICTURES}')];
  return [t.scrollTop, t.scrollHeight, pictures.every((i) => i.complete && i.naturalWidth)];
}}"""
SHOWN = f"""() => {{
  const all = [...document.querySelectorAll('{PICTURES}')];
  return [all.length, all.filter((i) => i.src && i.complete && i.naturalWidth).length];
}}"""
LAST = f"() => [...document.querySelectorAll('{TIMELINE} .channel-message')].pop()?.innerText || ''"


class Demo:
    """`python -m bot.demo` in its own process, on a free port."""

    def __init__(self, pause: float, log: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "BOT_PAUSE": str(pause)}
        self.log = log.open("w")  # its warnings, if any (a pipe nobody reads would fill up)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.demo", "--port", "0", "--no-tables"],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"open (\S+)", line)
        if found is None:
            self.stop()
            raise SystemExit(f"the demo did not start: {line}")
        self.url = found.group(1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        self.log.close()


class Check:
    def __init__(self, page: Any, out: Path) -> None:
        self.page = page
        self.out = out
        self.failures: list[str] = []

    def expect(self, ok: bool, what: str) -> None:
        print(("ok    " if ok else "FAIL  ") + what, flush=True)
        if not ok:
            self.failures.append(what)

    async def shot(self, name: str) -> None:
        await self.page.screenshot(path=str(self.out / f"{name}.png"))

    # --- typing commands, as in Discord's message box ------------------------------------

    async def command(self, name: str, option: str | None = None, value: str = "") -> None:
        page = self.page
        await page.locator("#channel-composer-input").tap()
        await page.keyboard.type(f"/{name}", delay=20)
        await page.get_by_text(f"/{name}").first.tap()
        if option is not None:
            await page.get_by_text(option, exact=True).first.tap()
            await page.keyboard.type(value, delay=20)
        await page.locator("#send-message").tap()
        await page.wait_for_timeout(1500)

    async def last(self) -> str:
        return str(await self.page.evaluate(LAST))

    async def anas_turn(self) -> bool:
        text = await self.last()
        return "@Ana" in text and "Roll" in text

    async def wait_for_anas_turn(self, limit: float = 120) -> tuple[str, float]:
        """("turn", seconds) once the last message is Ana's turn; ("ended", …) when the game
        is over; ("nothing", …) when nothing of the kind appeared within `limit`."""
        began = time.monotonic()
        while time.monotonic() - began < limit:
            if await self.anas_turn():
                return "turn", time.monotonic() - began
            if "🏁" in await self.last():
                return "ended", time.monotonic() - began
            await self.page.wait_for_timeout(200)
        return "nothing", limit

    async def settle(self) -> None:
        """Until the channel stands still: pictures drawn, no scrolling for 0.6 s."""
        seen: list[Any] = []
        for _ in range(100):
            seen = [*seen[-2:], await self.page.evaluate(LAYOUT)]
            if len(seen) == 3 and seen[0] == seen[1] == seen[2] and seen[2][2]:
                return
            await self.page.wait_for_timeout(300)

    def last_message(self) -> Any:
        return self.page.locator(f"{TIMELINE} .channel-message").last

    # --- the checks -----------------------------------------------------------------------

    async def open_game(self, computers: int) -> None:
        await self.command("poker new")
        await self.last_message().get_by_role("button", name="Start").wait_for()
        lobby_id = await self.last_message().get_attribute("data-message-id")
        lobby = self.page.locator(f'{TIMELINE} [data-message-id="{lobby_id}"]')
        for n in range(computers):
            await lobby.locator(".select-trigger").tap()
            # the preview keeps the last choice shown: alternate easy and normal
            await self.page.locator(f"{OPEN_LIST} [role=option]").nth(n % 2).tap()
            # as a person would: until the lobby lists the new player ("Players (2/8)")
            await lobby.get_by_text(f"Players ({n + 2}/").wait_for()
        await lobby.get_by_role("button", name="Start").tap()

    async def countdown(self) -> None:
        stamp = self.last_message().locator("time.discord-timestamp").first
        first = await stamp.inner_text()
        await self.page.wait_for_timeout(3000)
        later = await stamp.inner_text()
        seconds = [int(n) for n in re.findall(r"\d+", first + " " + later)]
        self.expect(
            len(seconds) == 2 and 2 <= seconds[0] - seconds[1] <= 4,
            f"the turn timer counts down in real seconds: {first!r}, 3 s later {later!r}",
        )

    async def open_menu(self, trigger: Any, what: str, *, above_bar: bool = True) -> bool:
        """Tap `trigger`; True when its list opened, in view (above the message bar) and
        the channel did not move."""
        page = self.page
        await self.settle()
        before = await page.evaluate(SCROLL)
        await trigger.tap()
        await page.wait_for_timeout(800)
        after = await page.evaluate(SCROLL)
        listed = page.locator(OPEN_LIST)
        box = await listed.bounding_box() if await listed.count() else None
        bar = await page.locator("#channel-composer-input").bounding_box()
        assert bar is not None
        bottom = bar["y"] if above_bar else PHONE["height"]
        seen = box is not None and box["y"] >= 0 and box["y"] + box["height"] <= bottom
        self.expect(
            seen and before == after,
            f"{what}: the record menu opens by tap{', above the message bar' if above_bar else ''}"
            f" ({'open' if box else 'closed'}; the channel scrolled {after - before:+.0f} px)",
        )
        return box is not None

    async def play_anas_turn(self, turn: int) -> None:
        page, message = self.page, self.last_message()
        await message.get_by_role("button", name=re.compile("^Roll")).tap()
        trigger = self.last_message().locator(".select-trigger", has_text="Record")
        await trigger.wait_for()
        opened = await self.open_menu(trigger, f"turn {turn}")
        if turn == 2:
            await self.shot("record-menu-turn-2")
        if not opened:  # record through it all the same, to go on
            await trigger.tap()
            await page.wait_for_timeout(500)
        await page.locator(f"{OPEN_LIST} [role=option]").first.tap()
        while await self.anas_turn():  # until the page shows her row recorded
            await page.wait_for_timeout(100)

    async def daily(self) -> None:
        """The daily's private message and its record menu (it already worked: unchanged)."""
        await self.command("poker daily play")
        daily = self.page.locator(f"{TIMELINE} .channel-message", has_text="Daily dice").last
        message = self.page.locator(
            f'{TIMELINE} [data-message-id="{await daily.get_attribute("data-message-id")}"]'
        )
        await message.get_by_role("button", name=re.compile("^Roll")).tap()
        trigger = message.locator(".select-trigger", has_text="Record")
        await trigger.wait_for()
        # A private message is the channel's last: its list may open over the message bar.
        await self.open_menu(trigger, "the daily", above_bar=False)
        await self.shot("daily-menu")
        await self.page.keyboard.press("Escape")

    async def switch_viewer(self, who: str) -> float:
        began = time.monotonic()
        await self.page.select_option("#viewer-picker", label=who)
        await self.page.wait_for_timeout(300)
        while time.monotonic() - began < 180:
            total, shown = await self.page.evaluate(SHOWN)
            if total and shown == total:
                break
            await self.page.wait_for_timeout(100)
        seconds = time.monotonic() - began
        print(f"      switched to {who}: {shown} of {total} pictures shown in {seconds:.1f} s")
        return seconds


async def run(args: argparse.Namespace) -> int:
    from playwright.async_api import async_playwright  # noqa: PLC0415 - optional dependency

    demo = Demo(args.pause, args.out / "demo.log")
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
            page = await context.new_page()
            await page.goto(demo.url)
            await page.wait_for_selector("#channel-composer-input")
            check = Check(page, args.out)
            try:
                await play(check, args)
            except Exception:
                await check.shot("failed")
                raise
            await browser.close()
    finally:
        demo.stop()
    print(f"screenshots in {args.out}")
    return 1 if check.failures else 0


async def play(check: Check, args: argparse.Namespace) -> None:
    page = check.page
    await check.command("poker settings", "turn_timeout", f"{TURN_SECONDS}s")
    await check.daily()  # while the channel is quiet: a game's messages would move it away
    await check.open_game(args.computers)
    turns = 0
    while turns < args.turns:
        state, waited = await check.wait_for_anas_turn()
        if state == "ended":  # another game
            await check.open_game(args.computers)
            continue
        if turns:
            check.expect(
                state == "turn",
                f"the computer players' moves appeared without Refresh: Ana's turn"
                f" {turns + 1} came {waited:.1f} s after her row",
            )
        if state != "turn":
            await check.shot("stuck")
            return
        turns += 1
        if turns == 2:
            await check.countdown()
        await check.play_anas_turn(turns)
    await check.shot("after-turns")
    if (await check.wait_for_anas_turn())[0] == "turn":
        began = time.monotonic()
        while await check.anas_turn() and time.monotonic() - began < 120:
            await page.wait_for_timeout(200)
        late = time.monotonic() - began
        check.expect(
            TURN_SECONDS - 1 <= late <= TURN_SECONDS + 7,  # the bot's timers tick every 5 s
            f"a {TURN_SECONDS} s turn was played for Ana after {late:.0f} real seconds",
        )
    total, _ = await page.evaluate(SHOWN)
    print(f"      {total} pictures on the page after {turns} of Ana's turns")
    seconds = max([await check.switch_viewer("Boris"), await check.switch_viewer("Ana")])
    check.expect(seconds < 10, f"switching the viewer took {seconds:.1f} s at most")
    await check.shot("after-switch")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=25, help="Ana's turns to play")
    parser.add_argument("--computers", type=int, default=3, help="computer players per game")
    parser.add_argument("--pause", type=float, default=0.8, help="BOT_PAUSE of the demo")
    parser.add_argument("--out", type=Path, default=None, help="folder for the screenshots")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not Path(CHROMIUM).exists():
        print(f"this check needs Debian's chromium at {CHROMIUM}: make screenshots installs it")
        return 1
    args.out = args.out or Path(tempfile.mkdtemp(prefix="demo-check-"))
    args.out.mkdir(parents=True, exist_ok=True)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())

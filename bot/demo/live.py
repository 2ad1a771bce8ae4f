"""What the demo changes in simcord's preview so that it behaves like the bot on Discord.

simcord (pinned, not ours) is built for tests: its time moves when a test says so, and its
browser page shows what was published after the page's own last action. A new admin
trying the bot met four things a Discord server never does; each is worked around here,
where simcord causes it, without touching simcord's files:

1. Turn timers. simcord's clock is virtual and starts on 1 Jan 2026. A waiting loop (the
   bot's turn timers) wakes only when the clock is advanced; a plain timer (a computer
   player's pause) advances the clock to its own instant when it falls due in real time.
   So the clock stood still while nobody played (a 30 s turn never timed out: 0 s passed
   in 200 s) and lurched on with the computer players' pauses; and the page drew "in 5
   minutes" once, against the clock of its last publication. Here the clock starts at
   the wall clock's time, simcord's real-time fallbacks are off and `follow` moves the
   clock in step with the wall clock (a 30 s turn times out after 30-35 s: the bot's
   timers look every 5 s), and the page counts relative timestamps down each second
   against the browser's clock (the `text.js` patch).
2. Computer players' moves. The page polls a snapshot that simcord republishes only after
   the page's own action, so moves made afterwards waited for Refresh, and a click waited
   for every paced step of the computer players before answering (over five seconds with
   two of them: "Action outcome uncertain", the page stale). With the fallbacks off, a
   click answers as soon as the bot has; `follow` republishes the pages whenever the
   simulated Discord received or sent something; and a click on a page published a moment
   before still reaches the bot (whose custom_id versions refuse a stale one), as on
   Discord, where simcord refused it ("stale revision").
3. The channel's scrolling. Opening a menu re-renders every message, and each picture was
   drawn anew 0 px high until decoded: the channel shrank, its scroll position was
   clamped and, at full height again, the menu's box lay under the message bar, where the
   preview closes it. The same clamps (and the browser's scroll anchoring) made the page
   forget that it was at the latest message, so new ones stayed below "New messages".
   The `media.js` patch shows a decoded picture at once, at its size; the `timeline.js`
   and `preview.css` patches keep the channel at its latest message until the person
   scrolls it.
4. Speed after many pictures. The preview checks each picture in a new Python process,
   and again for every page (switching the viewer opens one): 32-36 s to switch after 100
   pictures here. `PictureCache` checks each picture once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import simcord.preview
from aiohttp import web
from simcord.preview._media import MediaInfo, MediaWorker

log = logging.getLogger(__name__)

TICK = 0.1  # seconds between two steps of the clock (and looks for something to publish)
CACHED_PICTURES = 256  # pictures whose check is kept (50-150 KB each); a page shows 50 messages

# Text replacements in the preview's page files: (file, anchor, replacement), numbered as in
# the docstring. Each anchor occurs once in simcord 3.2.1's file; `patched_file` refuses a
# file without it, so a newer simcord stops the demo at start instead of half-patching it.
PAGE_PATCHES: tuple[tuple[str, str, str], ...] = (
    # 1. Relative timestamps against the browser's clock (simcord's clock follows it), each
    # one marked so that the ticker below redraws it every second.
    (
        "text.js",
        "const basis = new Date(options.presentationTime || 0);",
        "const basis = new Date(); // bot/demo/live.py: the clock follows the wall clock",
    ),
    (
        "text.js",
        '  const time = node("time", "discord-timestamp", rendered);\n',
        '  const time = node("time", "discord-timestamp", rendered);\n'
        '  if (style === "R" && valid) Object.assign(time.dataset,'
        ' { relative: String(token.unix), locale: options.locale || "en-US" });\n',
    ),
    # 3. The channel opens at its latest message (not at the oldest of the 50 it holds) and
    # keeps to it until the person scrolls it away.
    (
        "timeline.js",
        "scrollIntent: null, dropdown: null, ready: false };",
        'scrollIntent: { policy: "bottom" }, dropdown: null, ready: false };',
    ),
    (
        "timeline.js",
        "    state.scrollIntent = null;\n",
        '    state.scrollIntent = { policy: "bottom" }; // bot/demo/live.py\n',
    ),
    (
        "timeline.js",
        "  function captureScrollIntent() {\n",
        "  function captureScrollIntent() {\n"
        '    const kept = state.scrollIntent?.policy === "bottom" && !scrolledByHand();\n'
        "    if (kept) return state.scrollIntent; // bot/demo/live.py\n",
    ),
    # 3. A picture already decoded is shown at once, at its size, when its message is drawn
    # again; the picture's own load still follows and replaces it.
    (
        "media.js",
        "  const pending = [Promise.resolve(options.loadAsset(\n",
        "  const shown = capture ? undefined : DECODED.get(assetId); // bot/demo/live.py\n"
        "  if (shown) Object.assign(image, shown);\n"
        "  const pending = [Promise.resolve(options.loadAsset(\n",
    ),
    (
        "media.js",
        "    image.height = displayHeight;\n",
        "    image.height = displayHeight;\n"
        "    DECODED.set(assetId, { width: displayWidth, height: displayHeight, src: url });\n",
    ),
)
PAGE_ENDINGS = {
    "text.js": """
// bot/demo/live.py: Discord counts relative timestamps down; the preview drew them once.
setInterval(() => {
  for (const time of document.querySelectorAll("time.discord-timestamp[data-relative]")) {
    const fresh = document.createElement("span");
    const token = { unix: time.dataset.relative, style: "R" };
    renderTimestamp(fresh, token, { locale: time.dataset.locale });
    if (time.textContent !== fresh.textContent) time.textContent = fresh.textContent;
  }
}, 1000);
""",
    "media.js": """
// bot/demo/live.py: the pictures this page decoded, by asset: size and address.
const DECODED = new Map();
""",
    "timeline.js": """
// bot/demo/live.py: "at the latest message?" was read again at every scroll event, and one
// came whenever a message drawn anew (its picture 0 px until decoded) clamped the channel
// for an instant; only a person's own scrolling leaves the latest message now.
let handScrolled = -Infinity;
const SCROLL_KEYS = ["PageUp", "PageDown", "Home", "End", "ArrowUp", "ArrowDown", " "];
const byHand = (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const scrolls = event.type === "keydown"
    ? SCROLL_KEYS.includes(event.key) && !target?.closest("input, textarea, select, [role=listbox]")
    : event.type === "pointerdown" // on the channel itself: its scroll bar
      ? target?.id === "channel-timeline"
      : Boolean(target?.closest("#channel-timeline"));
  if (scrolls) handScrolled = performance.now();
};
for (const kind of ["wheel", "touchmove", "pointerdown", "keydown"]) {
  document.addEventListener(kind, byHand, { capture: true, passive: true });
}
function scrolledByHand() { return performance.now() - handScrolled < 1000; }
""",
    # 3. The browser's own scroll anchoring moved the channel when a message above changed,
    # before the preview's "keep to the latest message" could: from then on new messages
    # stayed below, behind "New messages". Only the preview scrolls the channel.
    "preview.css": """
/* bot/demo/live.py: only the preview's own logic scrolls the channel. */
.channel-timeline { overflow-anchor: none; }
""",
}


def patched_file(name: str, text: str) -> str:
    """`text` of the preview's page file `name` with the demo's changes."""
    for file, anchor, replacement in PAGE_PATCHES:
        if file != name:
            continue
        if text.count(anchor) != 1:
            raise RuntimeError(f"simcord's preview changed: {name} no longer has {anchor!r}")
        text = text.replace(anchor, replacement)
    return text + PAGE_ENDINGS.get(name, "")


def static_folder() -> Path:
    return Path(simcord.preview.__file__).with_name("static")


# --- before the simulated Discord starts ---------------------------------------------------


def on_wall_clock(env: Any) -> None:
    """Call before `env` starts: its clock reads the wall clock's time and moves only when
    `follow` moves it (simcord's real-time fallback moved it to a plain timer's instant when
    that fell due), and a click never waits for a paced step of the bot: a computer
    player's pause is parked, like every timer, until the clock reaches it."""
    clock = env.backend.clock
    clock._epoch = datetime.now(UTC) - timedelta(seconds=clock.elapsed)
    env._schedule_timer = _no_fallback  # read by simcord when it attaches the bot


def _no_fallback(*_: Any) -> None:
    """In place of simcord's `Env._schedule_timer`: no real-time fallback for bot timers."""


# --- the preview -----------------------------------------------------------------------------


def patch_preview(preview: Any) -> None:
    """Call before entering `preview`: patched page scripts, pictures checked once, clicks
    not refused for a publication they had not seen yet."""
    server = preview._server
    serve_static = server._static  # simcord binds its routes to the instance at start
    files = {
        f"/{name}": patched_file(name, (static_folder() / name).read_text(encoding="utf-8"))
        for name in PAGE_ENDINGS
    }

    async def static(request: web.Request) -> web.StreamResponse:
        response: web.StreamResponse = await serve_static(request)
        if request.path in files and isinstance(response, web.Response):
            response.text = files[request.path]
        return response

    server._static = static
    preview._media_worker = PictureCache()

    act = preview._action

    async def action(context_id: str | None, body: Any) -> dict[str, Any]:
        # simcord refuses an action sent against an older publication ("stale revision");
        # with pages republished as the game goes on, that would be any click made just
        # after a computer player moved. Discord delivers it, and the bot checks the
        # version in the control's custom_id itself.
        page = preview._pages.get(context_id)
        if page is not None and isinstance(body, dict) and "published_revision" in body:
            body = {**body, "published_revision": page.revision}
        result: dict[str, Any] = await act(context_id, body)
        return result

    preview._action = action


class PictureCache(MediaWorker):
    """simcord's picture check once per picture, not once per picture and page.

    simcord checks each picture in a new, memory-limited Python process (a guard against
    hostile media), one at a time, and again for every page: switching the viewer opens
    one, so it took half a minute after a hundred pictures. The key is the picture's
    content digest, so a kept answer is the answer."""

    def __init__(self) -> None:
        super().__init__()
        self.checked: dict[tuple[str, float | None], MediaInfo] = {}

    async def validate(
        self, key: str, blob: bytes, *, media_time: float | None = None
    ) -> MediaInfo:
        found = self.checked.get((key, media_time))
        if found is None:
            found = await super().validate(key, blob, media_time=media_time)
            if len(self.checked) >= CACHED_PICTURES:
                del self.checked[next(iter(self.checked))]  # the oldest
            self.checked[(key, media_time)] = found
        return found


# --- while the preview runs ------------------------------------------------------------------


@contextlib.asynccontextmanager
async def following(env: Any, preview: Any) -> AsyncIterator[None]:
    """`follow` runs for the body of the block."""
    task = asyncio.get_running_loop().create_task(follow(env, preview), name="demo-clock")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def follow(env: Any, preview: Any, *, tick: float = TICK) -> None:
    """Move simcord's clock in step with the wall clock (running the bot's timers that fall
    due, as simcord's `advance_time` does), and republish the preview's pages whenever the
    simulated Discord received or sent something since the last publication."""
    clock = env.backend.clock
    seen = -1
    while True:
        await asyncio.sleep(tick)
        behind = (datetime.now(UTC) - clock.now()).total_seconds()
        if behind > 0 and env._advance_task is None:
            # In a task of its own, as simcord's own real-time advance runs: a click being
            # settled meanwhile waits for it, and nothing waits for this loop.
            await asyncio.get_running_loop().create_task(_advance(env, clock.elapsed + behind))
        now = len(env.backend.transcript)  # every request and gateway event is written there
        if now != seen and preview._active_action is None and not preview._closed:
            seen = now
            preview._advance_presentation_time()
            preview._publish_message_pages(reason="refresh")


async def _advance(env: Any, target: float) -> None:
    try:
        await env._advance_to(target, asyncio.get_running_loop().time() + env.settle_timeout)
    except Exception:  # a slow bot: the next step catches up (simcord keeps what ran)
        log.debug("the demo clock could not keep up", exc_info=True)

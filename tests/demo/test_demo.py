"""`make demo`: the real bot in a simulated guild, served on loopback for a browser."""

from __future__ import annotations

import pytest

from bot.demo import MEMBERS, parse, serve

aiohttp = pytest.importorskip(
    "aiohttp", reason="the demo extra (simcord[preview]) is not installed"
)


def preview_installed() -> bool:
    import simcord

    try:
        from simcord.preview import _require_preview_runtime

        _require_preview_runtime()
    except (ImportError, simcord.SetupError):
        return False
    return True


pytestmark = pytest.mark.skipif(not preview_installed(), reason="simcord[preview] is missing")


async def test_the_demo_serves_a_world_where_a_game_can_start(tmp_path):
    seen: dict[str, object] = {}

    async def ready(preview, channel, members):
        url = preview.url
        seen["url"] = url
        async with aiohttp.ClientSession() as http, http.get(url.split("#")[0]) as page:
            seen["status"] = page.status
            seen["html"] = await page.text()
        # The world is playable: a member opens a lobby with the real slash command.
        res = await members[0].slash(channel, "poker new")
        seen["lobby"] = res.response.embeds[0].title
        seen["members"] = [m.name for m in members]
        store = preview.env.bot.store
        seen["images"] = (await store.guild_settings(channel.guild.id)).images

    args = parse(["--port", "0", "--seconds", "0", "--language", "ru"])
    await serve(args, tmp_path / "demo.sqlite3", ready=ready)
    assert str(seen["url"]).startswith("http://127.0.0.1:")
    assert seen["status"] == 200
    assert "<html" in str(seen["html"]).lower()
    assert seen["members"] == list(MEMBERS)
    assert "Покер на костях" in str(seen["lobby"])  # the server's preferred locale is Russian
    assert seen["images"] is True

"""The league tests' server: guild "Casino", channel "dice", four members, ann a manager."""

from __future__ import annotations

import discord
import pytest


@pytest.fixture
async def league(simcord_env):
    """Guild "Casino" with channel "dice"; ann, bob, cid, dan; ann manages the server."""
    env = simcord_env
    guild = env.create_guild("Casino")
    channel = guild.create_text_channel("dice")
    boss = guild.create_role("boss", permissions=discord.Permissions(manage_guild=True))
    ann = guild.add_member(env.create_user("ann"), roles=[boss])
    bob = guild.add_member(env.create_user("bob"))
    cid = guild.add_member(env.create_user("cid"))
    dan = guild.add_member(env.create_user("dan"))
    yield env, guild, channel, (ann, bob, cid, dan)
    if not env.bot.is_closed():
        await env.bot.close()

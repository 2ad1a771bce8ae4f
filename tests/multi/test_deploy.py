"""The deployment: compose.yaml and the Dockerfile run the very commands tested here.

Docker is not run (no engine on these machines): compose.yaml is read as data and its
steps' commands are run as they are written, with its environment, against this test's
PostgreSQL database: `python -m bot migrate` by two processes at once (the schema is
migrated once), `python -m bot solve --all` into the shared strategy directory, and
`python -m bot` with each bot's shard variables (which shards it holds, in its log lines).
Two bot processes starting at once on an empty database also migrate it once.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import yaml

from bot.settings import Settings
from bot.strategy import BY_SPEED, EXACT, save
from db import latest_version
from tests.multi.test_health import free_port
from tests.multi.worlds import World, layout
from tests.strategy.test_shared_cache import placeholder

ROOT = Path(__file__).resolve().parents[2]
MIGRATE = ["python", "-m", "bot", "migrate"]
SOLVE = ["python", "-m", "bot", "solve", "--all"]
RUN = ["python", "-m", "bot"]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def bots(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose["services"].items() if name.startswith("bot-")}


def environment(service: dict[str, Any], **override: str) -> dict[str, str]:
    """The service's variables with compose's `${NAME:?…}` left for the test to fill."""
    values = {k: str(v) for k, v in service.get("environment", {}).items()}
    values.update(override)
    return values


def run(
    command: list[str], env: dict[str, str], cwd: Path, *, hook: Path | None = None
) -> subprocess.Popen[str]:
    """`command` as the image runs it (its `python` is this interpreter, its tree this one;
    `hook`: a folder with a sitecustomize.py loaded first)."""
    assert command[0] == "python"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "DATABASE"))}
    path = f"{hook}{os.pathsep}{ROOT}" if hook else str(ROOT)
    return subprocess.Popen(
        [sys.executable, *command[1:]],
        cwd=cwd,
        env={**base, "PYTHONPATH": path, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_compose_runs_postgres_the_steps_and_two_bots_splitting_the_shards(compose) -> None:
    services = compose["services"]
    assert services["migrate"]["command"] == MIGRATE
    assert services["solve"]["command"] == SOLVE
    assert set(bots(compose)) == {"bot-0", "bot-1"}
    held: list[frozenset[int]] = []
    ports = []
    for service in bots(compose).values():
        assert service["command"] == RUN
        for step in ("migrate", "solve"):
            assert service["depends_on"][step]["condition"] == "service_completed_successfully"
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        env = environment(service)
        shards = Settings(  # type: ignore[call-arg]
            _env_file=None, shard_count=env["SHARD_COUNT"], cluster_index=env["CLUSTER_INDEX"],
            cluster_count=env["CLUSTER_COUNT"],
        ).shards  # fmt: skip
        assert shards is not None
        held.append(shards.ids)
        port = env["METRICS_PORT"]
        assert service["ports"] == [f"127.0.0.1:{port}:{port}"]  # the host's loopback only
        assert f"127.0.0.1:{port}/healthz" in " ".join(service["healthcheck"]["test"])
        ports.append(port)
        assert env["STRATEGY_DIR"] == "/app/data/strategy"
        assert "strategy:/app/data/strategy" in service["volumes"]
    # Every shard is held, by one process.
    assert held[0] | held[1] == frozenset(range(int(env["SHARD_COUNT"])))
    assert not held[0] & held[1]
    assert len(set(ports)) == 2
    assert "strategy:/app/data/strategy" in services["solve"]["volumes"]


def test_the_dockerfile_runs_the_bot_from_its_tree() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    cmd = re.search(r"^CMD (.+)$", text, re.MULTILINE)
    assert cmd is not None
    assert yaml.safe_load(cmd[1]) == RUN
    for folder in ("bot", "cogs", "db", "docs"):
        assert re.search(rf"^COPY {folder} \./{folder}$", text, re.MULTILINE)
        assert (ROOT / folder).is_dir()
    for step in (MIGRATE, SOLVE):
        assert shlex.join(step) in text  # documented where the image is made


async def test_two_migrate_steps_at_once_migrate_once(compose, pg_database, tmp_path) -> None:
    env = environment(compose["services"]["migrate"], DATABASE_URL=pg_database)
    steps = [run(compose["services"]["migrate"]["command"], env, tmp_path) for _ in range(2)]
    done = [await asyncio.to_thread(step.communicate, timeout=120) for step in steps]
    assert [step.returncode for step in steps] == [0, 0], done
    latest = latest_version()
    assert all(f"schema version {latest}" in err for _, err in done)
    conn = await asyncpg.connect(pg_database)
    try:
        rows = await conn.fetch("SELECT version_num FROM alembic_version")
    finally:
        await conn.close()
    assert [r["version_num"] for r in rows] == [f"{latest:04d}"]  # made once, at the head


def test_the_solve_step_fills_the_shared_directory(compose, tmp_path) -> None:
    shared = tmp_path / "strategy"
    for rules in EXACT:
        if rules != "classic":  # only classic (under a second) is computed here
            save(placeholder(rules), shared)
    env = environment(compose["services"]["solve"], STRATEGY_DIR=str(shared))
    out, err = run(compose["services"]["solve"]["command"], env, tmp_path).communicate(timeout=300)
    assert [line.split()[0] for line in out.splitlines()] == list(BY_SPEED), err
    assert "computed" in out.splitlines()[0]


@pytest.mark.parametrize("name", ["bot-0", "bot-1"])
def test_each_bot_process_holds_its_half(compose, pg_database, tmp_path, name) -> None:
    service = bots(compose)[name]
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(  # a Discord nobody answers
        "import discord.http\ndiscord.http.Route.BASE = 'http://127.0.0.1:9/api/v10'\n",
        encoding="utf-8",
    )
    env = environment(
        service,
        DISCORD_TOKEN="fake.token",
        DATABASE_URL=pg_database,
        STRATEGY_DIR=str(tmp_path / "strategy"),
        STRATEGY_PRECOMPUTE="false",
        METRICS_HOST="127.0.0.1",
        METRICS_PORT=str(free_port()),  # (the published port may be taken on this machine)
    )
    _, err = run(service["command"], env, tmp_path, hook=hook).communicate(timeout=120)
    index, count, every = (int(env[k]) for k in ("CLUSTER_INDEX", "SHARD_COUNT", "CLUSTER_COUNT"))
    ids = ",".join(str(i) for i in range(index, count, every))
    logged = [line for line in err.splitlines() if " INFO " in line]
    assert logged, err
    assert all(f" shards {ids}/{count}] " in line for line in logged)
    assert err.strip().splitlines()[-1].startswith("Cannot reach Discord")


async def test_two_bots_starting_at_once_on_an_empty_database_migrate_it_once(
    bot_factory, pg_database
) -> None:
    where = layout(1)
    worlds = [World("a", bot_factory("0-1"), where, {}), World("b", bot_factory("1-3"), where, {})]
    try:
        await asyncio.gather(*(w.start() for w in worlds))  # each opens and migrates its store
    finally:
        await asyncio.gather(*(w.stop() for w in worlds))
    conn = await asyncpg.connect(pg_database)
    try:
        rows = await conn.fetch("SELECT version_num FROM alembic_version")
    finally:
        await conn.close()
    assert [r["version_num"] for r in rows] == [f"{latest_version():04d}"]

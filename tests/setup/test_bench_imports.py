"""Every benchmark module `make bench` runs can be imported (one imported names another
module's figures and helpers: a rename there must not break `make bench` at its end)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import bench

MODULES = sorted(m.name for m in pkgutil.iter_modules([str(Path(bench.__file__).parent)]))


@pytest.mark.parametrize("name", [m for m in MODULES if m.startswith("bench_")])
def test_benchmark_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert callable(module.main)

"""Run every benchmark module (`python -m bench [name …]`)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]))
    chosen = [n for n in names if n.startswith("bench_") and (not argv or n[6:] in argv)]
    for name in chosen:
        print(f"== {name[6:]} ==", flush=True)
        entry = importlib.import_module(f"bench.{name}").main
        result = entry()
        if inspect.isawaitable(result):
            asyncio.run(result)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

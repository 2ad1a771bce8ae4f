"""Run every benchmark module (`python -m bench [name …] [--option …]`): the options, from
the first argument that starts with "-", go to the one benchmark named (`bench load
--games 2000`)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import pkgutil
import sys
import time
from pathlib import Path


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv: list[str]) -> int:
    split = next((i for i, a in enumerate(argv) if a.startswith("-")), len(argv))
    wanted, options = argv[:split], argv[split:]
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]))
    known = [n[6:] for n in names if n.startswith("bench_")]
    unknown = [w for w in wanted if w not in known]
    if unknown:  # a typo would otherwise run nothing and say nothing
        print(f"no benchmark {unknown[0]!r} (known: {', '.join(known)})", file=sys.stderr)
        return 2
    chosen = [f"bench_{n}" for n in known if not wanted or n in wanted]
    if options and len(chosen) != 1:
        print("options go to one benchmark: python -m bench NAME --option …", file=sys.stderr)
        return 2
    for name in chosen:
        print(f"== {name[6:]} ==", flush=True)
        entry = importlib.import_module(f"bench.{name}").main
        began, cpu = time.perf_counter(), _cpu()
        result = entry(options) if options else entry()
        if inspect.isawaitable(result):
            asyncio.run(result)  # type: ignore[arg-type]
        # CPU beside wall time: on a shared machine a slow wall time with little CPU is a
        # busy neighbour, not this code.
        print(f"({name[6:]}: {time.perf_counter() - began:.1f} s wall, {_cpu() - cpu:.1f} s "
              "CPU of this process and the children it waited for)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

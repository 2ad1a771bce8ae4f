"""The store's size (`python -m bench db`): lines of Python in db/ without the migrations
(db/migrations/: Alembic's environment and revisions), per file, and the runs of six or
more lines db/ repeats (`duplicates --repo db`, where that tool is installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

DB = Path(__file__).resolve().parents[1] / "db"
TARGET = 1_500


def main() -> None:
    files = sorted(p for p in DB.rglob("*.py") if "migrations" not in p.relative_to(DB).parts)
    total = 0
    for path in files:
        lines = len(path.read_text(encoding="utf-8").splitlines())
        total += lines
        print(f"{path.relative_to(DB.parent).as_posix():<28}{lines:>6}")
    verdict = "ok" if total <= TARGET else "OVER TARGET"
    print(f"{'lines of Python in db/':<28}{total:>6} (target <= {TARGET:,}: {verdict})")
    tool = shutil.which("duplicates")
    if tool is None:
        print("duplicates: not installed here")
        return
    done = subprocess.run([tool, "--repo", str(DB)], capture_output=True, text=True, check=False)  # noqa: S603
    print(f"duplicates --repo db: {(done.stdout.strip().splitlines() or ['?'])[0]}")


if __name__ == "__main__":
    main()

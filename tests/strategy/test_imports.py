"""The strategy package's imports: no cycle, none hidden in a function, a pure core."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "bot" / "strategy"
MODULES = {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in PACKAGE.glob("*.py")}
# The bot's layers and the event loop; only the table cache (tables.py, to leave the pure
# core) runs on the loop's side.
IMPURE = ("discord", "asyncio", "db", "cogs")


def _imports(tree: ast.Module) -> list[tuple[ast.stmt, str]]:
    """(statement, imported module) for every import, a relative one as its module name."""
    out: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.module:
                    out.append((node, "." + node.module))
                else:  # from . import x
                    out.extend((node, "." + alias.name) for alias in node.names)
            else:
                out.append((node, node.module or ""))
    return out


def test_every_import_is_at_module_level():
    for name, tree in MODULES.items():
        top = set(map(id, tree.body))
        hidden = [node.lineno for node, _ in _imports(tree) if id(node) not in top]
        assert not hidden, f"{name}.py imports inside a function or block at lines {hidden}"


def test_the_modules_import_no_cycle():
    graph = {
        name: {mod[1:] for _, mod in _imports(tree) if mod.startswith(".")}
        for name, tree in MODULES.items()
    }
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            pytest.fail("import cycle: " + " -> ".join([*path[path.index(name) :], name]))
        state[name] = "open"
        for dep in sorted(graph.get(name, ())):
            visit(dep, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        visit(name, [])


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"tables"}))
def test_the_core_imports_nothing_of_the_bot_or_the_event_loop(name):
    for _, mod in _imports(MODULES[name]):
        root = mod.split(".")[0]
        assert root not in IMPURE, f"{name}.py imports {mod}"
        assert not mod.startswith(".tables"), f"{name}.py imports the table cache"


def test_importing_the_core_loads_none_of_them_indirectly():
    core = sorted(set(MODULES) - {"tables", "__init__"})
    loaded = f"sorted(m for m in sys.modules if m.split('.')[0] in {IMPURE!r})"
    code = "; ".join(
        ["import sys", *(f"import bot.strategy.{n}" for n in core), f"print({loaded})"]
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parents[1],
    )
    assert done.stdout.strip() == "[]"

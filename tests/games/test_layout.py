"""The house style of the games (service/games/kit.py, service/games/README.md), checked.

Every game package has its rules, data and view modules; games import nothing of the server,
no randomness, clock or I/O; no module of service/games imports inside a function or takes
part in an import circle; every game's evolver table and evolvers follow one naming
convention. The import graph is read from the source with `ast`, so a circle that happens to
work at run time (an import hidden in a function, a half-initialised module) is still found.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from service.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "service" / "games"
GAME_IDS = sorted(p.parent.name for p in GAMES_DIR.glob("*/__init__.py"))
REQUIRED = ("rules.py", "data.py", "view.py")
TABLE = "_APPLY"
PREFIX = "_on_"
SHARE = "APPLY"  # a module's own evolvers, in a game whose rules span modules
OLD_TABLE_NAMES = ("_EVOLVE", "_EVOLVERS", "_HANDLERS")

# What a game may import besides service.games: pure standard-library modules. No `random`
# (the rng is an argument), no `time`, nothing that reads or writes outside the process.
PURE_STDLIB = frozenset({
    "__future__", "bisect", "collections", "copy", "dataclasses", "enum", "fractions", "functools",
    "heapq", "itertools", "math", "operator", "re", "string", "types", "typing",
})
# data.py alone may read the game's own data files, once, at import.
DATA_FILE_READERS = frozenset({"json", "pathlib"})


def modules() -> dict[str, Path]:
    """Every module under service/games by dotted name."""
    out = {}
    for path in sorted(GAMES_DIR.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = modules()


def tree(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))


def imported(node: ast.Import | ast.ImportFrom, importer: str) -> list[str]:
    """The modules an import statement loads, as dotted names (relative imports resolved)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    # `from package import submodule` loads the submodule; `from module import name` the module.
    subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
    names = [alias.name for alias in node.names if f"{base}.{alias.name}" not in MODULES]
    return subs + ([base] if names else [])


def imports(name: str) -> list[tuple[ast.stmt, list[str]]]:
    return [(node, imported(node, name)) for node in tree(name).body if isinstance(node, ast.Import | ast.ImportFrom)]


def game_modules(game: str) -> list[str]:
    return [m for m in MODULES if m == f"service.games.{game}" or m.startswith(f"service.games.{game}.")]


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_game_has_its_rules_data_and_view(game):
    missing = [f for f in REQUIRED if not (GAMES_DIR / game / f).is_file()]
    assert not missing, f"{game} lacks {', '.join(missing)}"


def test_every_game_package_is_a_registered_game():
    assert sorted(GAMES) == GAME_IDS


def test_no_module_of_the_games_imports_the_server():
    bad = [f"{name}: {target}" for name in MODULES for _, targets in imports(name) for target in targets
           if target.split(".")[0] == "service" and not target.startswith("service.games")]
    assert not bad, "service/games imports the server:\n" + "\n".join(bad)


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_game_imports_no_randomness_clock_or_io(game):
    bad = []
    for name in game_modules(game):
        allowed = PURE_STDLIB | (DATA_FILE_READERS if MODULES[name].name == "data.py" else frozenset())
        for node, targets in imports(name):
            for target in targets:
                if not target.startswith("service.games.") and target.split(".")[0] not in allowed:
                    bad.append(f"{name} line {node.lineno}: {target}")
    assert not bad, "\n".join(bad)


def test_what_the_games_build_on_imports_no_clock_or_io():
    """The shared modules a game imports hold to the games' own rule; only the registry (which
    finds the packages), chance (the server's seeds) and playout (random play) go beyond it, and
    shapes names the rng's type."""
    beyond = {"service.games", "service.games.chance", "service.games.playout"}
    bad = []
    for name, path in MODULES.items():
        if name in beyond or path.parent != GAMES_DIR:
            continue
        allowed = PURE_STDLIB | ({"random"} if name == "service.games.shapes" else frozenset())
        bad += [f"{name}: {target}" for node, targets in imports(name) for target in targets
                if not target.startswith("service.games.") and target.split(".")[0] not in allowed]
    assert not bad, "\n".join(bad)


def test_no_import_inside_a_function_or_block():
    """An import below module level is how a circle hides; every import sits at the top level."""
    bad = []
    for name in MODULES:
        module = tree(name)
        top = {id(node) for node in module.body}
        bad += [f"{name} line {node.lineno}" for node in ast.walk(module)
                if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top]
    assert not bad, "imports below module level:\n" + "\n".join(bad)


def test_no_import_circle_among_the_games_modules():
    graph = {name: sorted({t for _, targets in imports(name) for t in targets if t in MODULES} - {name})
             for name in MODULES}
    circles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(sorted(c)) for c in circles)


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_evolver_table_and_its_evolvers_follow_the_convention(game):
    """rules.py holds the game's `_APPLY`: stored event name -> `_on_<name>`. A game whose rules
    span modules joins there the `APPLY` table each module keeps of its own evolvers."""
    rules = f"service.games.{game}.rules"
    for name in game_modules(game):
        assigned = {t.id for node in tree(name).body if isinstance(node, ast.Assign | ast.AnnAssign)
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                    if isinstance(t, ast.Name)}
        assert not assigned & set(OLD_TABLE_NAMES), f"{name}: the evolver table is named {TABLE}"
        assert TABLE not in assigned or name == rules, f"{name}: the game's {TABLE} is in rules.py"
    table = getattr(importlib.import_module(rules), TABLE, None)
    assert isinstance(table, dict) and table, f"{rules}.{TABLE} is a plain dict of evolvers"
    for event, evolver in table.items():
        assert evolver.__name__ == PREFIX + event, f"{game}: event {event!r} is applied by {evolver.__name__}"
        assert evolver.__module__ in MODULES and evolver.__module__.startswith(f"service.games.{game}."), \
            f"{game}: {evolver.__name__} lives in the game's package"
    for name in game_modules(game):
        module = importlib.import_module(name)
        here = {f for n, f in inspect.getmembers(module, inspect.isfunction)
                if n.startswith(PREFIX) and f.__module__ == name}
        listed = set(table.values()) if name == rules else set(getattr(module, SHARE, {}).values())
        listed = {f for f in listed if f.__module__ == name}
        assert here == listed, f"{name}: its evolvers and its {TABLE if name == rules else SHARE} differ: " \
                               f"{sorted(f.__name__ for f in here ^ listed)}"
        assert here <= set(table.values()), f"{name}: evolvers missing from {rules}.{TABLE}"


def test_the_gate_finds_what_it_looks_for():
    """The checks above see imports at every depth, relative imports and circles."""
    source = "import os\ndef f():\n    from service.games import kit\n"
    module = ast.parse(source)
    inner = [n for n in ast.walk(module) if isinstance(n, ast.ImportFrom)]
    assert inner and inner[0] not in module.body
    assert imported(ast.parse("from . import data").body[0], "service.games.pixies") == ["service.games.pixies.data"]
    assert imported(ast.parse("from .rules import x").body[0], "service.games.pixies.view") == \
        ["service.games.pixies.rules"]
    assert [sorted(c) for c in _strongly_connected({"a": ["b"], "b": ["a"], "c": ["a"]}) if len(c) > 1] == \
        [["a", "b"]]


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of a directed graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            out.append(component)

    for v in graph:
        if v not in index:
            visit(v)
    return out

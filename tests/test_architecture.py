"""The engine stays pure: no transport, CLI or presentation libraries (SPEC: internals are ours)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
FORBIDDEN = frozenset({"flask", "typer", "requests", "marshmallow", "werkzeug", "click", "rich"})
ENGINE_FILES = sorted(ENGINE.rglob("*.py"))


def _top(name: str) -> str:
    return name.split(".", 1)[0]


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, anywhere in it (functions too), with its line; for
    ``from package import name``, also ``package.name`` (it may be a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.lineno, node.module)]
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            found += [(node.lineno, node.args[0].value)]
    return found


def _forbidden_imports(path: Path) -> list[str]:
    return [f"line {line}: {name}" for line, name in _imports(path) if _top(name) in FORBIDDEN]


def test_engine_has_sources() -> None:
    assert ENGINE_FILES, f"no Python files under {ENGINE}"


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_file_imports_no_transport_library(path: Path) -> None:
    assert _forbidden_imports(path) == []


def test_importing_engine_loads_no_transport_library() -> None:
    code = f"""
import importlib, json, pkgutil, sys
import engine
for info in pkgutil.walk_packages(engine.__path__, "engine."):
    importlib.import_module(info.name)
forbidden = {sorted(FORBIDDEN)!r}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set(forbidden))))
"""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def _fresh(code: str) -> list[str]:
    """The last line ``code`` prints in a fresh interpreter, as JSON."""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


SOLVER_ONLY = ("numpy", "scipy", "highspy")
REMOTE_ONLY = ("requests", "urllib3")


def test_what_never_solves_starts_without_the_solver_libraries() -> None:
    """The service's app, the CLI and every engine module outside the solver import neither
    numpy nor scipy (half a second and 60 MB of every CLI command and worker), and the CLI
    imports requests only for ``--server``."""
    code = f"""
import json, sys
import cli.main, service.app, service.server, engine.loose, engine.replay, engine.svg
from engine.solver import OBJECTIVES, Suggestion
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({SOLVER_ONLY + REMOTE_ONLY!r}))))
"""
    assert _fresh(code) == []


def test_no_budget_pays_for_loading_the_solver() -> None:
    """After ``engine.solver.prepare()`` a suggestion (a play, its change list, the least-change
    tie break), a loose verify and an analysed replay import no module: what loads once (scipy's
    matching took ~0.4 s of a first suggestion's 1 s budget) is loaded before any clock starts."""
    code = """
import json, sys
from engine import solver
from engine.generate import generate_game
from engine.loose import verify_loose_turn
from engine.replay import parse_game_record, replay_game
from engine.rules import PRESETS
from engine.sets import TableSet
from engine.tiles import parse_tiles
record = parse_game_record(generate_game(3, 2))
solver.prepare()
before = set(sys.modules)
table = [parse_tiles("R5 R6 R7"), parse_tiles("K9 B9 O9")]
move = solver.suggest(table, parse_tiles("R8 B9 K2"), True, PRESETS["sabra"], "tiles", 5.0)
assert move.played and move.changes is not None
verify_loose_turn([TableSet(tuple(s)) for s in table], parse_tiles("R5 R6 R7 R8 K9 B9 O9"), parse_tiles("R8"), True)
replay_game(record, analyze=True)
print(json.dumps(sorted(set(sys.modules) - before)))
"""
    assert _fresh(code) == []


def test_the_solver_loads_when_first_used() -> None:
    """``engine.solver.suggest`` and ``arrange`` are the functions however the package was first
    reached: by the name, or through one of its modules imported directly."""
    for first in ("from engine.solver import suggest", "import engine.solver.best_move, engine.solver.arrangement"):
        code = f"""
import json, sys, types
{first}
import engine.solver
from engine.solver import arrange, suggest
found = [engine.solver.suggest, engine.solver.arrange, arrange, suggest]
print(json.dumps([f.__name__ if isinstance(f, types.FunctionType) else repr(f) for f in found] + ["scipy" in sys.modules]))
"""
        assert _fresh(code) == ["suggest", "arrange", "arrange", "suggest", True], first


# --- what `make test-lowest` leaves out ------------------------------------------------------------

OURS = ("engine", "service", "cli", "tests")
TEST_TOOLS = frozenset({"pytest", "_pytest", "hypothesis"})  # at their newest in test-lowest too


def _source(module: str) -> Path | None:
    """Our own module's file (engine, service, cli, tests), or None for any other module."""
    if _top(module) not in OURS:
        return None
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _dependencies_reached(path: Path) -> set[str]:
    """The installed packages (neither the standard library, nor ours, nor the test tools) that
    ``path`` imports, directly or through our own modules (every import statement counted,
    those inside functions too)."""
    seen: set[Path] = set()
    todo = [path]
    reached: set[str] = set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for _line, name in _imports(current):
            parts = name.split(".")
            todo += [p for p in (_source(".".join(parts[:i])) for i in range(1, len(parts) + 1)) if p]
            top = _top(name)
            if top not in sys.stdlib_module_names and top not in OURS and top not in TEST_TOOLS:
                reached.add(top)
    return reached


def _engine_only() -> list[str]:
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^ENGINE_ONLY := ((?:.*\\\n)*.*)$", make, re.MULTILINE)
    assert found, "ENGINE_ONLY is not in the Makefile"
    return found.group(1).replace("\\\n", " ").split()


def test_files_left_out_of_test_lowest_run_no_dependency() -> None:
    """`make test-lowest` skips the files of ENGINE_ONLY: the dependencies' lowest versions cannot
    change what their tests run. So none of them may reach a runtime dependency."""
    names = _engine_only()
    assert names == ["vectors_copy"], names  # the verdicts reach HiGHS (engine.meld_value), session 35
    reached = {name: _dependencies_reached(ROOT / "tests" / f"test_{name}.py") for name in names}
    assert {name: deps for name, deps in reached.items() if deps} == {}
    # and the check sees a dependency where there is one:
    assert _dependencies_reached(ROOT / "tests" / "test_solver.py") >= {"scipy", "highspy"}
    assert "flask" in _dependencies_reached(ROOT / "tests" / "test_api.py")


PACKAGES = ("engine", "service", "cli")
PACKAGE_FILES = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_names_from_other_modules(path: Path) -> list[str]:
    """The underscore names ``path`` takes from another module of the project: imported by
    name, or read as ``module._name`` off a module it imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    modules: set[str] = set()  # local names bound to a project module
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _top(node.module or "") in PACKAGES:
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                elif (ROOT / (node.module or "").replace(".", "/") / f"{alias.name}.py").is_file():
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _top(alias.name) in PACKAGES:
                    modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = ast.unparse(node.value)
            if base in modules:
                found.append(f"line {node.lineno}: {base}.{node.attr}")
    return found


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_use_only_each_others_public_names(path: Path) -> None:
    """A leading underscore means "used only in this module": what another module of the
    project needs has a public name (tests may still reach in)."""
    assert _private_names_from_other_modules(path) == []

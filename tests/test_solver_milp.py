"""The integer programme of the solver's portfolio agrees with the exact search (issue 15)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

import pytest

import engine.solver  # noqa: F401  (loads the package's modules)
from engine.generate import generate_game
from engine.rules import PRESETS
from engine.sets import read_set
from engine.tiles import parse_tiles

suggest_module = sys.modules["engine.solver.suggest"]
milp = sys.modules["engine.solver.milp"]
search = sys.modules["engine.solver.search"]

RULES = PRESETS["free-joker"]


def _positions(seed: int, count: int) -> list[tuple[list[tuple[object, ...]], tuple[object, ...]]]:
    record = generate_game(seed, players=2, rules=RULES)
    racks = {p["name"]: list(parse_tiles(p["rack"])) for p in record["players"]}
    out = []
    for turn in record["turns"][: count * 3 : 3]:
        if "table" in turn:
            out.append(([tuple(parse_tiles(s)) for s in turn["table"]], tuple(racks[turn["player"]])))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("objective", ["tiles", "value"])
def test_milp_matches_the_search(seed: int, objective: str) -> None:
    for table, rack in _positions(seed, 6):
        deadline = time.perf_counter() + 30
        solver = suggest_module._Suggester(table, [None] * len(table), rack, True, RULES, objective, deadline)
        problem, _ = solver._problem(dissolve=set(range(len(table))))
        exact = search._Search(problem, deadline).solve()
        found = milp.solve_milp(problem, deadline)
        assert (found is None) == (exact is None)
        if found is None:
            continue
        assert found[0] == exact
        assert found[3]  # proven optimal
        laid = Counter(t.undeclared().key for s in found[1] for t in s)
        table_keys = Counter(t.undeclared().key for s in table for t in s)
        assert not (table_keys - laid)  # every table tile is laid
        assert not (laid - table_keys - Counter(t.key for t in rack))  # the rest comes from the rack
        assert all(read_set(s, RULES).valid for s in found[1])


def test_milp_writes_nothing_to_stdout() -> None:
    """The integer programme goes through public APIs only and is silent: a fresh process
    solving with it writes nothing to its file descriptor 1 (the CLI's --json output)."""
    code = (
        "import sys, time\n"
        "import engine.solver\n"
        "from engine.rules import PRESETS\n"
        "from engine.tiles import parse_tiles\n"
        "s = sys.modules['engine.solver.suggest']\n"
        "milp = sys.modules['engine.solver.milp']\n"
        "table = [tuple(parse_tiles('R5 R6 R7')), tuple(parse_tiles('K9 B9 O9 J'))]\n"
        "rack = tuple(parse_tiles('R8 J B10 B11 B12 K1'))\n"
        "d = time.perf_counter() + 30\n"
        "solver = s._Suggester(table, [None] * 2, rack, True, PRESETS['free-joker'], 'tiles', d)\n"
        "problem, _ = solver._problem(dissolve={0, 1})\n"
        "assert milp.solve_milp(problem, d) is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == ""

"""The integer programme of the solver's portfolio agrees with the exact search (issue 15)."""

from __future__ import annotations

import contextlib
import dataclasses
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import engine.solver
from engine.generate import check_turn, generate_game, walk_record
from engine.rules import PRESETS
from engine.sets import TableSet, read_set
from engine.solver import best_move as suggest_module
from engine.solver import choices, fate_tree, milp, pass_problems, reconstruction, search, variant_passes
from engine.solver.model import OutOfTime
from engine.tiles import Tile, parse_tiles
from engine.turns import verify_turn

RULES = PRESETS["free-joker"]


def _positions(seed: int, count: int) -> list[tuple[list[tuple[object, ...]], tuple[object, ...]]]:
    record = generate_game(seed, players=2, rules=RULES)
    racks = {p["name"]: list(parse_tiles(p["rack"])) for p in record["players"]}
    out = []
    for turn in record["turns"][: count * 3 : 3]:
        if "table" in turn:
            out.append(([tuple(parse_tiles(s)) for s in turn["table"]], tuple(racks[turn["player"]])))
    return out


def _game_positions(seed: int, count: int) -> list[tuple[list[tuple[Tile, ...]], tuple[Tile, ...]]]:
    """Positions of a generated game where the player on turn has opened: the table before
    the turn and the player's rack then (``_positions`` pairs later tables with the dealt
    racks, which may hold more of a tile than the tile set has: problems for the passes, no
    position ``suggest`` takes)."""
    record = generate_game(seed, players=2, rules=RULES)
    states = [s for s in walk_record(record, RULES) if s.opened][::3][:count]
    return [([tuple(s) for s in state.before], tuple(state.rack)) for state in states]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("objective", ["tiles", "value"])
def test_milp_matches_the_search(seed: int, objective: str) -> None:
    for table, rack in _positions(seed, 6):
        deadline = time.perf_counter() + 30
        solver = suggest_module.Suggester(table, [None] * len(table), rack, True, RULES, objective, deadline)
        problem, _ = pass_problems.pass_problem(solver, dissolve=set(range(len(table))))
        exact = search.Search(problem, deadline).solve()
        found = milp.solve_milp(problem, deadline)
        assert (found is None) == (exact is None)
        if found is None:
            continue
        assert found[0] == exact
        assert found[2]  # proven optimal
        bound = milp.linear_bound(problem)
        assert bound is not None and bound[0] + 1e-6 >= exact  # the relaxation bounds it
        laid = Counter(t.undeclared().key for s in found[1].plain_sets() for t in s)
        table_keys = Counter(t.undeclared().key for s in table for t in s)
        assert not (table_keys - laid)  # every table tile is laid
        assert not (laid - table_keys - Counter(t.key for t in rack))  # the rest comes from the rack
        assert all(read_set(s, RULES).valid for s in found[1].plain_sets())


def _block_problems(seed: int, rules_name: str, objective: str) -> list[object]:
    """The problems with blocks that ``suggest`` solves on positions of a generated game
    (table sets holding a joker kept whole, or every set whole), under ``rules_name``."""
    rules = PRESETS[rules_name]
    problems = []
    for table, rack in _positions(seed, 5):
        deadline = time.perf_counter() + 30
        solver = suggest_module.Suggester(table, [None] * len(table), rack, True, rules, objective, deadline)
        problems.append(pass_problems.pass_problem(solver, dissolve=set())[0])
        problems.append(pass_problems.pass_problem(solver, dissolve=solver.plain)[0])
    return problems


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("rules_name", ["sabra", "free-joker"])
@pytest.mark.parametrize("objective", ["tiles", "value"])
def test_milp_with_blocks_matches_the_search(seed: int, rules_name: str, objective: str) -> None:
    """Blocks (table sets kept whole, growing only) in the programme: its optimum is the
    search's, its relaxation bounds it, and the blocks it lays grow from their tiles."""
    checked = 0
    for problem in _block_problems(seed, rules_name, objective):
        deadline = time.perf_counter() + 30
        exact = search.Search(problem, deadline).solve()
        found = milp.solve_milp(problem, deadline)
        bound = milp.linear_bound(problem)
        assert (found is None) == (exact is None)
        if found is None:
            continue
        checked += 1
        assert found[0] == exact
        assert bound is not None and bound[0] + 1e-6 >= exact
        laid = found[1]
        grown = {run.block.index: run.tiles for run in laid.done_runs if run.block is not None}
        assert set(grown) == {b.index for b in problem.run_blocks}  # every run block is laid
        for b in problem.run_blocks:
            tiles = grown[b.index]
            assert read_set(tiles, RULES).valid
            start = tiles.index(b.tiles[0])
            assert tuple(tiles[start : start + len(b.tiles)]) == b.tiles  # the block's tiles, in place
        for g in problem.group_blocks:
            assert read_set(g.tiles + tuple(laid.group_blocks.get(g.index, ())), RULES).valid
    assert checked


def test_milp_writes_nothing_to_stdout() -> None:
    """The integer programme goes through public APIs only and is silent: a fresh process
    solving with it writes nothing to its file descriptor 1 (the CLI's --json output)."""
    code = (
        "import sys, time\n"
        "import engine.solver.best_move\n"
        "from engine.rules import PRESETS\n"
        "from engine.tiles import parse_tiles\n"
        "s = sys.modules['engine.solver.best_move']\n"
        "milp = sys.modules['engine.solver.milp']\n"
        "table = [tuple(parse_tiles('R5 R6 R7')), tuple(parse_tiles('K9 B9 O9 J'))]\n"
        "rack = tuple(parse_tiles('R8 J B10 B11 B12 K1'))\n"
        "d = time.perf_counter() + 30\n"
        "solver = s.Suggester(table, [None] * 2, rack, True, PRESETS['free-joker'], 'tiles', d)\n"
        "p = sys.modules['engine.solver.pass_problems']\n"
        "problem, _ = p.pass_problem(solver, dissolve={0, 1})\n"
        "assert milp.solve_milp(problem, d) is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == ""


portfolio = sys.modules["engine.solver.portfolio"]


@pytest.mark.parametrize("seed", [4, 6])
@pytest.mark.parametrize("rules_name", ["sabra", "free-joker"])
@pytest.mark.parametrize("mode", ["default", "tiny", "no small programme"])
def test_goal_mode_and_portfolio_match_the_search(
    seed: int, rules_name: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Goal mode finds the optimum when aimed at it and nothing above it; the portfolio (the
    search, the linear bound, goal mode, the integer programme) answers the plain search's
    optimum, with and without blocks. ``tiny``: every search step gets one call's work, so
    the integer programme answers; ``no small programme``: every programme is treated as a
    big one (goal mode's full rounds before the integer programme)."""
    if mode == "tiny":
        for name in ("PORTFOLIO_CALLS", "GOAL_CALLS", "CLOSING_CALLS", "_SMALL_GOAL_CALLS", "_SOON_GOAL_CALLS"):
            monkeypatch.setattr(portfolio, name, 1)
        monkeypatch.setattr(search, "CHECK_EVERY", 0)  # the work caps checked at every call
    if mode == "no small programme":
        monkeypatch.setattr(portfolio, "_SMALL_PROGRAMME", 0)
    checked = 0
    for problem in _block_problems(seed, rules_name, "tiles"):
        deadline = time.perf_counter() + 30
        exact = search.Search(problem, deadline).solve()
        if exact is None:
            continue
        checked += 1
        assert search.Search(problem, deadline).solve(exact, goal=True) == exact
        assert search.Search(problem, deadline).solve(exact + 1, goal=True) is None
        for hard in (False, True):  # the search first, or the linear bound first
            runner = portfolio.Portfolio(deadline)
            runner.hard = hard
            solved = runner.solve(problem, 0)
            assert solved is not None and solved.score == exact and solved.proven
            assert runner.solve(problem, exact + 1) is None  # nothing scores more
    assert checked


def _joker_positions(seed: int, rules_name: str) -> list[tuple[list[list[Tile]], list[Tile]]]:
    """The positions of a generated game where the player on turn has opened and the table
    holds a joker (table and rack before the turn), every other one."""
    rules = PRESETS[rules_name]
    record = generate_game(seed, players=4, rules=rules)
    names = [p["name"] for p in record["players"]]
    racks = [list(parse_tiles(p["rack"])) for p in record["players"]]
    opened = [False] * len(racks)
    table: list[list[Tile]] = []
    out = []
    for turn in record["turns"]:
        p = names.index(turn["player"])
        if opened[p] and racks[p] and any(t.color is None for s in table for t in s):
            out.append(([list(s) for s in table], list(racks[p])))
        if "draw" in turn:
            racks[p].extend(parse_tiles([turn["draw"]]))
            continue
        after = [list(parse_tiles(s)) for s in turn["table"]]
        verdict = check_turn(table, after, racks[p], opened[p], rules, turn.get("elapsed_seconds"))
        racks[p], opened[p], table = list(verdict.rack_after), verdict.opened_after, after
    return out[::2]


@pytest.mark.parametrize(("seed", "rules_name"), [(7, "sabra"), (8, "sabra"), (4, "xp")])
def test_variants_at_once_match_the_passes(seed: int, rules_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The joker sets' variants solved at once (one integer programme, ``choices``) find the
    moves the passes one by one find: same tiles and value, proven, legal. The programme is
    forced from the first variant pass on; the rack's jokers are left out (it serves racks
    without one)."""
    rules = PRESETS[rules_name]
    solved: list[object] = []
    real_solve = choices.solve

    def counted(*args: Any, **kwargs: Any) -> Any:
        solved.append(real_solve(*args, **kwargs))
        return solved[-1]

    monkeypatch.setattr(choices, "solve", counted)
    # no joker pinned: pinned relaxed problems settle these positions before the variants
    monkeypatch.setattr(pass_problems, "pinned", lambda solver: {})
    # nor do their fates first, alone or as one programme: the variants' passes run
    monkeypatch.setattr(suggest_module, "_FATES_FIRST", 0)
    monkeypatch.setattr(fate_tree, "_JOINT_FATES", 10**9)
    proven = 0
    for table, rack in _joker_positions(seed, rules_name)[:14]:
        plain_rack = [t for t in rack if t.color is not None]
        with monkeypatch.context() as m:
            m.setattr(variant_passes, "_ONE_BY_ONE", 0)
            at_once = engine.solver.suggest(table, plain_rack, True, rules, budget_seconds=60, tie_break="any")
        with monkeypatch.context() as m:
            m.setattr(variant_passes, "_variants_settled", lambda solver: False)
            passes = engine.solver.suggest(table, plain_rack, True, rules, budget_seconds=60, tie_break="any")
        assert (len(at_once.played), at_once.value) == (len(passes.played), passes.value), (table, rack)
        # the same best move meets the same fates of the table's jokers (``check_fates``)
        assert at_once.optimal_proven == passes.optimal_proven, (table, rack)
        proven += at_once.optimal_proven
        before = [TableSet(tuple(s)) for s in table]
        verdict = verify_turn(before, [TableSet(s) for s in at_once.after], plain_rack, True, rules)
        assert verdict.valid, [(v.code, v.at) for v in verdict.violations]
    assert any(s is not None for s in solved), "the programme never found a move"
    assert proven >= 6


@pytest.mark.parametrize(("seed", "rules_name"), [(7, "sabra"), (3, "xp"), (7, "strict-joker"), (4, "pressman-2009")])
def test_the_fates_as_one_programme_keep_the_answers(
    seed: int, rules_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fates tried first as one integer programme (``_fates_settled_at_once``) change no
    answer: the same tiles, value and proof as the tree of relaxed problems alone, and legal,
    on positions of generated games (the rack's jokers left out: it serves racks without
    one), where the programme settles some trees."""
    rules = PRESETS[rules_name]
    settled: list[bool] = []
    real = fate_tree._fates_settled_at_once

    def recorded(solver: suggest_module.Suggester, *args: Any) -> bool:
        settled.append(real(solver, *args))
        return settled[-1]

    monkeypatch.setattr(fate_tree, "_fates_settled_at_once", recorded)
    for table, rack in _joker_positions(seed, rules_name)[:14]:
        plain_rack = [t for t in rack if t.color is not None]
        joint = engine.solver.suggest(table, plain_rack, True, rules, budget_seconds=60, tie_break="any")
        with monkeypatch.context() as m:
            m.setattr(fate_tree, "_JOINT_FATES", 10**9)
            tree = engine.solver.suggest(table, plain_rack, True, rules, budget_seconds=60, tie_break="any")
        assert (len(joint.played), joint.value, joint.optimal_proven) == (
            len(tree.played),
            tree.value,
            tree.optimal_proven,
        ), (table, rack)
        before = [TableSet(tuple(s)) for s in table]
        verdict = verify_turn(before, [TableSet(s) for s in joint.after], plain_rack, True, rules)
        assert verdict.valid, [(v.code, v.at) for v in verdict.violations]
    assert any(settled), "the programme never settled a tree"


@pytest.mark.parametrize(("seed", "rules_name"), [(7, "sabra"), (8, "sabra"), (4, "xp"), (5, "strict-joker")])
def test_pinned_jokers_keep_the_answers(seed: int, rules_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A joker whose tile has no copy on the table or the rack is placed as that tile in the
    relaxed problems (``pinned``): the answers are at least those found without pins (tiles,
    then value; equal when the unpinned answer is proven) and legal, on positions of generated games, some with a joker pinned."""
    rules = PRESETS[rules_name]
    pinned = proven = 0
    for table, rack in _joker_positions(seed, rules_name)[:14]:
        solver = suggest_module.Suggester(
            [tuple(s) for s in table], [None] * len(table), tuple(rack), True, rules, "tiles", time.perf_counter() + 60
        )
        pinned += bool(solver.pinned)
        found = engine.solver.suggest(table, rack, True, rules, budget_seconds=60, tie_break="any")
        with monkeypatch.context() as m:
            m.setattr(pass_problems, "pinned", lambda solver: {})
            unpinned = engine.solver.suggest(table, rack, True, rules, budget_seconds=60, tie_break="any")
        # never worse; sometimes better: a pinned relaxed move may be legal where the passes'
        # moves (the joker sets kept, trimmed or freed by their tiles) play fewer tiles
        assert (len(found.played), found.value) >= (len(unpinned.played), unpinned.value), (table, rack)
        if unpinned.optimal_proven:
            assert (len(found.played), found.value) == (len(unpinned.played), unpinned.value), (table, rack)
        proven += found.optimal_proven
        before = [TableSet(tuple(s)) for s in table]
        verdict = verify_turn(before, [TableSet(s) for s in found.after], rack, True, rules)
        assert verdict.valid, [(v.code, v.at) for v in verdict.violations]
    assert pinned, "no joker was pinned"
    assert proven >= 8


highs = sys.modules["engine.solver.highs"]


def _two_columns() -> tuple[Any, ...]:
    """Maximise 2x + 3y, x and y integers in 0..4, with 2x + 2y <= 3: optimum (0, 1), 3. As
    cost, upper bounds, matrix, row lower bounds, row upper bounds."""
    import numpy as np
    from scipy.sparse import csc_array

    return (
        np.array([2.0, 3.0]),
        np.array([4.0, 4.0]),
        csc_array(np.array([[2.0, 2.0]])),
        np.array([-np.inf]),
        np.array([3.0]),
    )


def test_an_integer_programme_seeks_only_solutions_reaching_at_least() -> None:
    """``at_least`` is a cutoff on the whole objective: at the optimum (3) it is found, one
    above it there is no solution (INFEASIBLE); a linear programme and the next run ignore it."""
    cost, upper, matrix, *rows = _two_columns()
    deadline = time.perf_counter() + 5.0
    reached = milp.solve_integer(cost, upper, matrix, *rows, deadline, at_least=3.0)
    assert reached.status == highs.OPTIMAL and reached.objective == 3.0
    assert milp.solve_integer(cost, upper, matrix, *rows, deadline, at_least=4.0).status == highs.INFEASIBLE
    relaxed = highs.maximise(cost, upper, matrix, *rows, False, False, 5.0, at_least=4.0)
    assert relaxed.status == highs.OPTIMAL and relaxed.objective == pytest.approx(4.5)
    assert milp.solve_integer(cost, upper, matrix, *rows, deadline).objective == 3.0


def test_highs_maximise_answers_optimal_integral_and_infeasible() -> None:
    """The HiGHS wrapper: an integer programme's optimum (not its relaxation's), the
    relaxation's, and an infeasible programme recognised as such."""
    import numpy as np

    cost, upper, matrix, *_ = _two_columns()  # 2x + 2y <= 3: x + y <= 1.5
    whole = highs.maximise(cost, upper, matrix, np.array([-np.inf]), np.array([3.0]), True, False, 5.0)
    assert whole.status == highs.OPTIMAL and list(whole.x) == [0.0, 1.0] and whole.objective == 3.0
    relaxed = highs.maximise(cost, upper, matrix, np.array([-np.inf]), np.array([3.0]), False, False, 5.0)
    assert relaxed.status == highs.OPTIMAL and relaxed.objective == pytest.approx(4.5)
    for integer, presolve in ((True, False), (True, True), (False, False)):
        none = highs.maximise(cost, upper, matrix, np.array([1.0]), np.array([1.5]), integer, presolve, 5.0)
        assert (none.status, none.x) == (highs.INFEASIBLE, None) or not integer  # 2x + 2y in [1, 1.5]
    # the time limit is each run's: HiGHS counts a linear programme's from the object's first
    # run (its runs' time adds up) and an integer programme's from the start of its run
    solver = highs._highs()
    for integer in (False, True):
        before = solver.getRunTime()
        assert before > 0  # the runs above
        highs.maximise(cost, upper, matrix, np.array([-np.inf]), np.array([3.0]), integer, False, 0.2)
        limit = solver.getOptionValue("time_limit")
        assert (limit[1] if isinstance(limit, tuple) else limit) == pytest.approx(0.2 if integer else before + 0.2)


def test_highs_maximise_stops_at_its_cpu_limit_and_only_there() -> None:
    """An integer programme stops at its CPU-time limit (HiGHS calls back before its first
    node), and the next run of the thread's object, with room, is not stopped by the flag the
    previous run's stop left set; without a limit no callback is left subscribed."""
    cost, upper, matrix, *rows = _two_columns()
    for _ in range(2):
        stopped = highs.maximise(cost, upper, matrix, *rows, True, False, 5.0, 0.0)
        assert stopped.status == highs.STOPPED
        whole = highs.maximise(cost, upper, matrix, *rows, True, False, 5.0, 60.0)
        assert whole.status == highs.OPTIMAL and list(whole.x) == [0.0, 1.0]
    assert not highs._highs().cbMipInterrupt.callbacks


def test_solve_integer_restarts_with_the_next_seed_and_twice_the_cpu_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """``solve_integer`` gives HiGHS's first run ``_FIRST_RUN`` seconds of CPU time without
    presolve; a run stopped there starts again with the next random seed and twice the
    limit, and a run that finishes is the answer."""
    runs: list[tuple[bool, float | None, int]] = []
    maximise = highs.maximise
    stop_first = False

    def spy(*args: Any) -> highs.Result:
        runs.append((args[6], args[8], args[9]))
        if stop_first and args[9] == 0:
            return maximise(*args[:8], 0.0, 0)  # stopped before its first node
        return maximise(*args)

    monkeypatch.setattr(highs, "maximise", spy)
    monkeypatch.setattr(milp, "_OWN_NODES", 0)  # straight to HiGHS
    cost, upper, matrix, *rows = _two_columns()
    solved = milp.solve_integer(cost, upper, matrix, *rows, time.perf_counter() + 5.0)
    assert solved.status == highs.OPTIMAL and runs == [(False, milp._FIRST_RUN, 0)]
    runs.clear()
    stop_first = True
    solved = milp.solve_integer(cost, upper, matrix, *rows, time.perf_counter() + 5.0)
    assert solved.status == highs.OPTIMAL and list(solved.x) == [0.0, 1.0]
    assert runs == [(False, milp._FIRST_RUN, 0), (False, 2 * milp._FIRST_RUN, 1)]
    seed = highs._highs().getOptionValue("random_seed")
    assert (seed[1] if isinstance(seed, tuple) else seed) == 1  # the seed reached HiGHS


def test_a_programme_stopped_below_the_floor_proves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``solve_milp`` stopped by the deadline with a move below the floor raises OutOfTime (the
    budget ran out): it must not answer None, "no move reaches the floor", which a pass reads
    as proven (and ``solve_pass`` remembers). Solved to the end below the floor, it answers None."""
    deadline = time.perf_counter() + 30
    table = [tuple(parse_tiles("R5 R6 R7")), tuple(parse_tiles("K9 B9 O9 J"))]
    rack = tuple(parse_tiles("R8 B10 B11 B12 K1"))
    solver = suggest_module.Suggester(table, [None] * len(table), rack, True, RULES, "tiles", deadline)
    problem, _ = pass_problems.pass_problem(solver, dissolve=set(range(len(table))))
    exact = milp.solve_milp(problem, deadline)
    assert exact is not None and exact[2] and exact[0] > 0
    assert milp.solve_milp(problem, deadline, exact[0] + 1) is None
    solve_integer = milp.solve_integer

    def stopped(*args: Any) -> highs.Result:
        result = solve_integer(*args)
        return result._replace(status=highs.STOPPED)

    monkeypatch.setattr(milp, "solve_integer", stopped)
    assert milp.solve_milp(problem, deadline, exact[0])[0] == exact[0]  # type: ignore[index]
    with pytest.raises(OutOfTime):
        milp.solve_milp(problem, deadline, exact[0] + 1)


def test_solve_integer_keeps_the_best_run_stopped_by_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the deadline stops every run, the answer is the best solution any run found (a
    later run may stop before it finds one)."""
    import numpy as np

    cost, upper, matrix, *rows = _two_columns()
    deadline = time.perf_counter() + 0.05
    found = highs.Result(highs.STOPPED, np.array([1.0, 0.0]), 1.0)
    nothing = highs.Result(highs.STOPPED, None, -np.inf)

    def stopped(*args: Any) -> highs.Result:
        if args[9] == 0:
            return found
        time.sleep(max(0.0, deadline - time.perf_counter()))
        return nothing

    monkeypatch.setattr(highs, "maximise", stopped)
    monkeypatch.setattr(milp, "_OWN_NODES", 0)  # straight to HiGHS
    assert milp.solve_integer(cost, upper, matrix, *rows, deadline) is found


def _knapsack(costs: list[float], weights: list[float], capacity: float) -> tuple[Any, ...]:
    """Maximise ``costs @ x`` over binary ``x`` with ``weights @ x <= capacity`` (as
    ``_two_columns``)."""
    import numpy as np
    from scipy.sparse import csc_array

    n = len(costs)
    return np.array(costs), np.ones(n), csc_array(np.array([weights])), np.array([-np.inf]), np.array([capacity])


def test_branch_and_bound_takes_the_best_nodes_first() -> None:
    """``highs.branch_and_bound`` solves 100 random binary knapsacks (4-6 items) to the brute
    force's optimum, taking the best open node first, the newest among equal bounds: 474
    relaxations in all. Solving the child rounded up right after its parent (a dive, whatever
    bound the other open nodes have) took 559."""
    import itertools
    import random

    rng = random.Random(7)
    relaxations = 0
    for _ in range(100):
        n = rng.randint(4, 6)
        costs = [float(rng.randint(1, 9)) for _ in range(n)]
        weights = [float(rng.randint(1, 6)) for _ in range(n)]
        capacity = float(rng.randint(4, 12))
        solved = highs.branch_and_bound(*_knapsack(costs, weights, capacity), 5.0)
        best = max(
            sum(c for c, x in zip(costs, pick, strict=True) if x)
            for pick in itertools.product((0, 1), repeat=n)
            if sum(w for w, x in zip(weights, pick, strict=True) if x) <= capacity
        )
        assert solved.status == highs.OPTIMAL and solved.objective == best
        relaxations += solved.nodes
    assert relaxations <= 500


def test_solve_integer_tries_its_own_branch_and_bound_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A programme that ``highs.branch_and_bound`` closes within ``_OWN_NODES`` relaxations
    never reaches HiGHS's integer solver; one it leaves open does, asked only for solutions
    better than the best the branch and bound found, which is the optimum when HiGHS finds
    none (INFEASIBLE there)."""
    runs: list[float] = []
    maximise = highs.maximise

    def spy(*args: Any) -> highs.Result:
        runs.append(args[10])  # at_least
        return maximise(*args)

    monkeypatch.setattr(highs, "maximise", spy)
    cost, upper, matrix, *rows = _two_columns()
    solved = milp.solve_integer(cost, upper, matrix, *rows, time.perf_counter() + 5.0)
    assert solved.status == highs.OPTIMAL and list(solved.x) == [0.0, 1.0] and runs == []
    # capped before any solution: HiGHS solves it whole, from ``at_least``
    monkeypatch.setattr(milp, "_OWN_NODES", 1)
    solved = milp.solve_integer(cost, upper, matrix, *rows, time.perf_counter() + 5.0, at_least=2.0)
    assert runs == [2.0] and solved.status == highs.OPTIMAL and solved.objective == 3.0
    # 2a + 5b + c with 3a + b + c <= 3: the search finds a = 1 (2) at the second relaxation,
    # the optimum b = c = 1 (6) is HiGHS's, sought above 2
    runs.clear()
    knapsack = _knapsack([2.0, 5.0, 1.0], [3.0, 1.0, 1.0], 3.0)
    monkeypatch.setattr(milp, "_OWN_NODES", 2)
    own = highs.branch_and_bound(*knapsack, 5.0, max_nodes=2)
    assert (own.status, own.objective) == (highs.STOPPED, 2.0)
    solved = milp.solve_integer(*knapsack, time.perf_counter() + 5.0)
    assert runs == [3.0] and solved.status == highs.OPTIMAL and solved.objective == 6.0
    # 3a + 5b + 4c + 5d with 4a + b + 4c + 2d <= 6: the optimum (10) found within five
    # relaxations but not proven (the seventh proves it); HiGHS finds nothing above it, so it
    # is the answer
    runs.clear()
    knapsack = _knapsack([3.0, 5.0, 4.0, 5.0], [4.0, 1.0, 4.0, 2.0], 6.0)
    monkeypatch.setattr(milp, "_OWN_NODES", 5)
    own = highs.branch_and_bound(*knapsack, 5.0, max_nodes=5)
    assert (own.status, own.objective) == (highs.STOPPED, 10.0)
    solved = milp.solve_integer(*knapsack, time.perf_counter() + 5.0)
    assert runs == [11.0] and solved.status == highs.OPTIMAL and solved.objective == 10.0
    assert list(solved.x) == list(own.x)  # (HiGHS answers OPTIMAL with another optimum, below its bound)
    runs.clear()
    monkeypatch.setattr(milp, "_OWN_NODES", 7)
    assert milp.solve_integer(*knapsack, time.perf_counter() + 5.0, at_least=11.0).status == highs.INFEASIBLE
    assert runs == []  # (the branch and bound proved it, in seven relaxations)
    # HiGHS may also answer OPTIMAL below its objective bound (with the empty solution): nothing
    # beats the branch and bound's either
    import numpy as np

    empty = highs.Result(highs.OPTIMAL, np.zeros(4), 0.0)
    monkeypatch.setattr(highs, "maximise", lambda *args: empty)
    solved = milp.solve_integer(*knapsack, time.perf_counter() + 5.0)
    assert solved.status == highs.OPTIMAL and solved.objective == 10.0


def test_branch_and_bound_answers_optimal_not_better_infeasible_and_stopped() -> None:
    """``highs.branch_and_bound`` on the two-column programme: the integer optimum (the
    relaxation's, 4.5 at (0, 1.5), is fractional), nothing better than a cutoff at the optimum
    (NOT_BETTER), the optimum above a lower cutoff, an infeasible programme, and a run with no
    time left."""
    import numpy as np

    cost, upper, matrix, lower_rows, upper_rows = _two_columns()
    whole = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0)
    assert whole.status == highs.OPTIMAL and list(whole.x) == [0.0, 1.0] and whole.objective == 3.0
    assert whole.nodes > 1
    assert highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, cutoff=3.0)[:2] == (
        highs.NOT_BETTER,
        None,
    )
    above = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, cutoff=2.0)
    assert above.status == highs.OPTIMAL and list(above.x) == [0.0, 1.0]
    none = highs.branch_and_bound(cost, upper, matrix, np.array([1.0]), np.array([1.5]), 5.0)
    assert (none.status, none.x) == (highs.INFEASIBLE, None)
    assert highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, -1.0).status == highs.STOPPED
    for most in range(1, whole.nodes):  # stopped after ``max_nodes`` relaxations
        capped = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, max_nodes=most)
        assert capped.status == highs.STOPPED and capped.nodes == most
    again = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, max_nodes=whole.nodes)
    assert again.status == highs.OPTIMAL and list(again.x) == [0.0, 1.0] and again.nodes == whole.nodes
    # branching on the row's activity (2x + 2y, whole at every solution) first
    by_row = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, rows=[0])
    assert by_row.status == highs.OPTIMAL and list(by_row.x) == [0.0, 1.0]


def test_branch_and_bound_branches_on_a_fractional_row_first() -> None:
    """A node branches on the most fractional of the rows whose activity must be whole while
    one is fractional, even when a column is more fractional; then on the columns."""
    import numpy as np

    x = np.array([0.5, 0.9])
    fractional = np.array([True, True])
    on_row = highs._branching(x, fractional, np.array([2.2, 3.6]), np.array([True, True]), np.array([4, 7]))
    assert on_row == (-1 - 7, 3.6)  # row 7 (3.6: the more fractional row), not column 0 (0.5)
    on_column = highs._branching(x, fractional, np.array([2.0]), np.array([False]), np.array([4]))
    assert on_column == (0, 0.5)


def test_branch_and_bound_runs_at_the_default_seed() -> None:
    """A restart in ``maximise`` leaves another random seed on the thread's HiGHS object; the
    branch and bound sets the default back (its relaxations, and so its answer, are the same
    whatever ran before it)."""
    cost, upper, matrix, *rows = _two_columns()
    highs.maximise(cost, upper, matrix, *rows, True, False, 5.0, None, 3)
    highs.branch_and_bound(cost, upper, matrix, *rows, 5.0)
    seed = highs._highs().getOptionValue("random_seed")
    assert (seed[1] if isinstance(seed, tuple) else seed) == 0


def test_branch_and_bound_stops_a_relaxation_at_its_cutoff_and_leaves_no_bound_behind() -> None:
    """With a cutoff no solution can beat, the root's dual simplex stops at HiGHS's objective
    bound: NOT_BETTER without solving the relaxation to the end (which takes more than ten
    iterations); the next ``maximise`` on the thread's HiGHS object solves that relaxation
    whole, not stopped by the bound left on it."""
    import highspy
    import numpy as np
    from scipy.sparse import csc_array

    rng = np.random.default_rng(1)
    matrix = csc_array((rng.random((40, 60)) < 0.2) * rng.integers(1, 5, (40, 60)))
    cost, upper = rng.integers(1, 10, 60).astype(float), np.ones(60)
    rows = np.full(40, -np.inf), np.full(40, 3.0)
    beyond = highs.branch_and_bound(cost, upper, matrix, *rows, 5.0, cutoff=1000.0)
    assert (beyond.status, beyond.nodes) == (highs.NOT_BETTER, 1)
    assert highs._local.highs.getModelStatus() == highspy.HighsModelStatus.kObjectiveBound
    relaxed = highs.maximise(cost, upper, matrix, *rows, False, False, 5.0)
    assert relaxed.status == highs.OPTIMAL and 44 < relaxed.objective < 45
    assert highs._local.highs.getInfo().simplex_iteration_count > 10


def test_branch_and_bound_keeps_only_better_solutions_at_large_objectives() -> None:
    """The relaxation's objective is trusted to a relative slack, which exceeds one unit on
    objectives of tens of millions: a whole solution is still taken only when it beats the
    best known, so a cutoff at the optimum is NOT_BETTER and the optimum is never traded for
    a worse one."""
    cost, upper, matrix, *rows = _two_columns()
    big = cost * 1e7  # optimum 3e7 at (0, 1)
    assert highs.branch_and_bound(big, upper, matrix, *rows, 5.0, cutoff=3e7).status == highs.NOT_BETTER
    found = highs.branch_and_bound(big, upper, matrix, *rows, 5.0, cutoff=3e7 - 1)
    assert found.status == highs.OPTIMAL and found.objective == 3e7


def _random_programme(rng: Any) -> tuple[Any, ...]:
    """A small random integer programme with whole coefficients and bounds, as
    ``_two_columns`` (``rng``: a ``random.Random``)."""
    import numpy as np
    from scipy.sparse import csc_array

    n, m = rng.randint(2, 9), rng.randint(1, 5)
    cost = np.array([float(rng.randint(-3, 6)) for _ in range(n)])
    upper = np.array([float(rng.randint(0, 3)) for _ in range(n)])
    matrix = csc_array(np.array([[float(rng.randint(-2, 4)) for _ in range(n)] for _ in range(m)]))
    lower_rows = np.array([float(rng.choice([-np.inf, rng.randint(0, 3)])) for _ in range(m)])
    upper_rows = np.array([float(rng.randint(3, 9)) for _ in range(m)])
    return cost, upper, matrix, lower_rows, upper_rows


@pytest.mark.parametrize("seed", range(3))
def test_branch_and_bound_matches_highs_integer_solver(seed: int) -> None:
    """Random small integer programmes (whole coefficients and bounds): the same optimum as
    HiGHS's integer solver, with or without rows and preferred columns to branch on, and with a
    cutoff just below the optimum (found) or at it (NOT_BETTER)."""
    import random

    import numpy as np

    rng = random.Random(seed)
    compared = 0
    for _ in range(40):
        cost, upper, matrix, lower_rows, upper_rows = _random_programme(rng)
        n, m = len(cost), len(lower_rows)
        expected = highs.maximise(cost, upper, matrix, lower_rows, upper_rows, True, False, 5.0)
        rows = [r for r in range(m) if rng.random() < 0.5]
        columns = np.array([rng.random() < 0.5 for _ in range(n)])
        got = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, columns=columns, rows=rows)
        assert got.status == expected.status
        if expected.status != highs.OPTIMAL:
            continue
        compared += 1
        assert got.objective == pytest.approx(expected.objective)
        assert got.x is not None and float(cost @ got.x) == got.objective
        assert np.all(lower_rows <= matrix @ got.x) and np.all(matrix @ got.x <= upper_rows)
        assert np.all(got.x == np.round(got.x)) and np.all((got.x >= 0) & (got.x <= upper))
        below = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, cutoff=got.objective - 1)
        assert below.status == highs.OPTIMAL and below.objective == got.objective
        at = highs.branch_and_bound(cost, upper, matrix, lower_rows, upper_rows, 5.0, cutoff=got.objective)
        assert at.status == highs.NOT_BETTER
    assert compared >= 20


@pytest.mark.parametrize("seed", range(3))
def test_solve_integer_matches_highs_whatever_its_own_share(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random small integer programmes (whole coefficients and bounds): ``solve_integer`` gives
    HiGHS's optimum (or INFEASIBLE) whether its own branch and bound gets no relaxation, one,
    two or its default share, without ``at_least``, at the optimum and one above it."""
    import random

    import numpy as np

    rng = random.Random(100 + seed)
    compared = 0
    for _ in range(25):
        programme = _random_programme(rng)
        cost, _, matrix, lower_rows, upper_rows = programme
        expected = highs.maximise(*programme, True, False, 5.0)
        rows = [r for r in range(len(lower_rows)) if rng.random() < 0.5]
        for share in (0, 1, 2, milp._OWN_NODES):
            monkeypatch.setattr(milp, "_OWN_NODES", share)
            got = milp.solve_integer(*programme, time.perf_counter() + 5.0, rows=rows)
            assert got.status == expected.status
            if expected.status != highs.OPTIMAL:
                continue
            compared += 1
            optimum = round(expected.objective)  # (HiGHS's objective within its tolerances)
            assert got.objective == pytest.approx(optimum) and float(cost @ got.x) == pytest.approx(optimum)
            assert np.all(lower_rows <= matrix @ got.x + 1e-9) and np.all(matrix @ got.x <= upper_rows + 1e-9)
            at = milp.solve_integer(*programme, time.perf_counter() + 5.0, optimum, rows)
            assert at.status == highs.OPTIMAL and at.objective == pytest.approx(optimum)
            above = milp.solve_integer(*programme, time.perf_counter() + 5.0, optimum + 1, rows)
            assert above.status == highs.INFEASIBLE
        monkeypatch.undo()
    assert compared >= 40


def test_highs_runs_on_one_thread_without_feasibility_jump() -> None:
    """The two options that cost 10-25 ms per integer programme when left at HiGHS's defaults."""
    solver = highs._highs()

    def option(name: str) -> object:
        value = solver.getOptionValue(name)
        return value[1] if isinstance(value, tuple) else value  # (status, value) in recent highspy

    assert option("threads") == 1
    # booleans read back as False, or as 0 in highspy 1.10 (the lowest version allowed)
    assert option("mip_heuristic_run_feasibility_jump") in (False, 0)
    assert option("output_flag") in (False, 0)


@pytest.mark.parametrize(("seed", "rules_name"), [(1, "free-joker"), (4, "sabra"), (5, "free-joker")])
def test_an_integral_relaxation_is_the_optimum(seed: int, rules_name: str) -> None:
    """When the linear relaxation's solution is integral the portfolio answers it without a
    search: its score is the exact search's, its sets are valid and lay every table tile."""
    rules = PRESETS[rules_name]
    checked = 0
    for table, rack in _positions(seed, 8):
        deadline = time.perf_counter() + 30
        solver = suggest_module.Suggester(table, [None] * len(table), rack, True, rules, "tiles", deadline)
        for problem in (
            pass_problems.pass_problem(solver, dissolve=set(range(len(table))))[0],
            pass_problems.pass_problem(solver, dissolve=solver.plain)[0],
        ):
            bound = milp.linear_bound(problem)
            if bound is None or bound.solution is None:
                continue
            checked += 1
            score, laid = bound.solution
            assert score == search.Search(problem, deadline).solve()
            sets = [*laid.plain_sets(), *(run.tiles for run in laid.done_runs if run.block is not None)]
            assert all(read_set(s, rules).valid for s in sets)
            laid_keys = Counter(t.undeclared().key for s in sets for t in s)
            block_keys = Counter(t.undeclared().key for b in problem.group_blocks for t in b.tiles)
            laid_keys += Counter(t.undeclared().key for g, extra in laid.group_blocks.items() for t in extra)
            table_keys = Counter(t.undeclared().key for s in table for t in s) - block_keys
            assert not (table_keys - laid_keys)  # every table tile is laid
    assert checked


def test_a_capped_bound_right_after_its_bound_starts_from_its_basis(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound with the tiles capped, asked right after the problem's plain bound, adds the
    cap to the relaxation HiGHS still holds and re-solves it from its basis
    (``highs.maximise_with_row``); after any other model (or a second cap) it is solved anew;
    both answer alike."""
    added: list[float] = []
    with_row = highs.maximise_with_row

    def spy(row: Any, lower: float, upper: float, cost: Any, time_limit: float) -> highs.Result:
        added.append(upper)
        return with_row(row, lower, upper, cost, time_limit)

    monkeypatch.setattr(highs, "maximise_with_row", spy)
    checked = 0
    for table, rack in _positions(3, 8):
        deadline = time.perf_counter() + 30
        solver = suggest_module.Suggester(table, [None] * len(table), rack, True, RULES, "tiles", deadline)
        problem = pass_problems.pass_problem(solver, dissolve=set(range(len(table))))[0]
        plain = milp.linear_bound(problem)
        if plain is None or plain.played < 2:
            continue
        cap = int(plain.played) - 1  # binding
        added.clear()
        warm = milp.linear_bound(problem, cap)
        assert len(added) == 1
        again = milp.linear_bound(problem, cap)  # (the model holds the row now: anew)
        milp.linear_bound(problem)
        highs._highs()  # another model
        cold = milp.linear_bound(problem, cap)
        assert len(added) == 1
        for other in (again, cold):
            assert warm is not None and other is not None
            assert warm.value == pytest.approx(other.value) and warm.played == pytest.approx(other.played)
            assert warm.played <= cap + 1e-6 and warm.value < plain.value
            assert (warm.solution is None) == (other.solution is None)
        checked += 1
    assert checked >= 3


def test_a_problems_bounds_and_programme_share_one_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """The linear bound, the bound with the tiles capped and the integer programme of one
    problem build its programme once (kept for the last problem), and answer as when each
    builds its own; another problem gets its own."""
    built: list[object] = []
    build = milp._built

    def counted(problem: Any, owners: Any) -> Any:
        built.append(problem)
        return build(problem, owners)

    checked = 0
    for table, rack in _positions(2, 8):
        deadline = time.perf_counter() + 30
        solver = suggest_module.Suggester(table, [None] * len(table), rack, True, RULES, "tiles", deadline)
        problem = pass_problems.pass_problem(solver, dissolve=set(range(len(table))))[0]
        fresh = []
        for cap in (None, 1):
            milp._last.built = None
            fresh.append(milp.linear_bound(problem, cap))
        milp._last.built = None
        fresh_exact = milp.solve_milp(problem, deadline)
        with monkeypatch.context() as m:
            m.setattr(milp, "_built", counted)
            milp._last.built = None
            built.clear()
            shared = [milp.linear_bound(problem, cap) for cap in (None, 1)]
            exact = milp.solve_milp(problem, deadline)
            assert built == [problem]
            other = pass_problems.pass_problem(solver, dissolve=set(range(len(table))))[0]
            milp.linear_bound(other)
            assert built == [problem, other]
        for one, two in zip(fresh, shared, strict=True):
            assert (one is None) == (two is None)
            if one is not None and two is not None:
                assert (one.value, one.played, one.columns) == (two.value, two.played, two.columns)
                checked += 1
        assert (fresh_exact is None) == (exact is None)
        if fresh_exact is not None and exact is not None:
            assert fresh_exact[0] == exact[0] and fresh_exact[2] == exact[2]
    assert checked


def test_highs_runs_in_a_thread_pool_made_by_another_user() -> None:
    """HiGHS's thread pool is global to a process: when another user of highspy made it with
    another size first, a run on one thread fails, and the wrapper runs in that pool instead."""
    code = (
        "import numpy as np, highspy\n"
        "from scipy.sparse import csc_array\n"
        "other = highspy.Highs()\n"
        "other.setOptionValue('output_flag', False)\n"
        "other.setOptionValue('threads', 2)\n"
        "other.run()\n"
        "from engine.solver import highs\n"
        "one = np.ones(1)\n"
        "result = highs.maximise(one, one, csc_array(np.ones((1, 1))), np.zeros(1), one, True, False, 5.0)\n"
        "assert result.status == highs.OPTIMAL and list(result.x) == [1.0], result\n"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


@pytest.fixture
def goal_mode_runs_out(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Goal mode gets one call and no programme is small, so the search for an arrangement
    gets ``_ARRANGING_CALLS`` (the work caps checked at every call); the integer programme fails
    the test if it runs. Yields, per search for an arrangement, whether it laid the tiles;
    one must have."""
    for name in ("PORTFOLIO_CALLS", "_SMALL_GOAL_CALLS", "_LAYING_ALL_GOAL_CALLS"):
        monkeypatch.setattr(portfolio, name, 1)
    monkeypatch.setattr(portfolio, "_SMALL_PROGRAMME", 0)
    monkeypatch.setattr(search, "CHECK_EVERY", 0)

    def no_programme(*args: Any) -> Any:
        raise AssertionError("the integer programme ran")

    monkeypatch.setattr(milp, "solve_milp", no_programme)
    laid: list[bool] = []
    arranged = portfolio.arranged

    def recording(*args: Any) -> Any:
        sets, calls = arranged(*args)
        laid.append(sets is not None)
        return sets, calls

    monkeypatch.setattr(portfolio, "arranged", recording)
    yield laid
    assert True in laid, "no search for an arrangement laid the tiles"


@pytest.mark.parametrize(
    ("table", "rack"),
    [
        (["R5 R6 R7", "K9 B9 O9 J"], "R8 B10 B11 B12"),
        (["R5 R6 R7", "K9 B9 O9 J", "K1 K2 K3 J"], "R8 B10 B11 B12 O1 O2"),
        (["B1 B2 B3", "O7 O8 J O10"], "B4 B5 O9 O11 K11 R11"),
    ],
)
@pytest.mark.usefixtures("goal_mode_runs_out")
def test_every_tile_arranged_when_goal_mode_runs_out(table: list[str], rack: str) -> None:
    """When the bound lets every tile be laid and goal mode runs out of work, the search for
    an arrangement of every tile answers (no integer programme): the optimum, proven, every
    table and rack tile laid in valid sets."""
    sets = [tuple(parse_tiles(s)) for s in table]
    tiles = tuple(parse_tiles(rack))
    deadline = time.perf_counter() + 30
    solver = suggest_module.Suggester(sets, [None] * len(sets), tiles, True, RULES, "tiles", deadline)
    problem, _ = pass_problems.pass_problem(solver, dissolve=set(range(len(sets))))
    exact = search.Search(problem, deadline).solve()
    assert exact is not None and [w[0] for w in portfolio._laying_all(problem, exact)] == [exact]
    solved = portfolio.Portfolio(deadline).solve(problem, 0)
    assert solved is not None and solved.score == exact and solved.proven
    laid = Counter(t.undeclared().key for s in solved.laid.plain_sets() for t in s)
    assert laid == Counter(t.key for s in sets for t in s) + Counter(t.key for t in tiles)
    assert all(read_set(s, RULES).valid for s in solved.laid.plain_sets())


@pytest.mark.parametrize(
    ("table", "rack", "bound_first"),
    [
        (["R5 R6 R7", "K9 B9 O9 J"], "R8 B10 B11 B12", False),
        (["R5 R6 R7", "K9 B9 O9 J", "K1 K2 K3 J"], "R8 B10 B11 B12 O1 O2", True),
    ],
)
def test_two_jokers_among_few_tiles_start_with_the_linear_bound(
    table: list[str], rack: str, bound_first: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A problem with two jokers or more among few tiles skips the first search, which most
    often runs out of work on such problems (``portfolio._likely_hard``): the linear bound
    comes first. Either way the answer is the search's optimum, proven."""
    bounds: list[int | None] = []
    bound = portfolio.Portfolio._bound

    def recorded(self: portfolio.Portfolio, problem: Any, primary_most: int | None = None) -> object:
        bounds.append(primary_most)
        return bound(self, problem, primary_most)

    monkeypatch.setattr(portfolio.Portfolio, "_bound", recorded)
    sets = [tuple(parse_tiles(s)) for s in table]
    deadline = time.perf_counter() + 30
    solver = suggest_module.Suggester(
        sets, [None] * len(sets), tuple(parse_tiles(rack)), True, RULES, "tiles", deadline
    )
    problem, _ = pass_problems.pass_problem(solver, dissolve=set(range(len(sets))))
    assert portfolio._likely_hard(problem) == bound_first
    exact = search.Search(problem, deadline).solve()
    solved = portfolio.Portfolio(deadline).solve(problem, 0)
    assert solved is not None and solved.score == exact and solved.proven
    assert bool(bounds) == bound_first


def _taken_apart(table: list[str], rack: str) -> tuple[Any, float]:
    """The problem of ``table`` (sets written as in the notation) taken apart with ``rack``
    (free-joker rules, opened), and a deadline 30 s away."""
    sets = [tuple(parse_tiles(s)) for s in table]
    deadline = time.perf_counter() + 30
    solver = suggest_module.Suggester(
        sets, [None] * len(sets), tuple(parse_tiles(rack)), True, RULES, "tiles", deadline
    )
    problem, _ = pass_problems.pass_problem(solver, dissolve=set(range(len(sets))))
    return problem, deadline


def test_search_for_an_arrangement_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search for an arrangement of every tile gets at most ``_ARRANGING_CALLS`` calls
    in all, whatever goal mode has left; then the integer programme decides, the same optimum,
    proven."""
    for name in ("PORTFOLIO_CALLS", "_SMALL_GOAL_CALLS", "_LAYING_ALL_GOAL_CALLS"):
        monkeypatch.setattr(portfolio, name, 1)
    monkeypatch.setattr(portfolio, "_SMALL_PROGRAMME", 0)
    monkeypatch.setattr(portfolio, "_ARRANGING_CALLS", 3)
    monkeypatch.setattr(search, "CHECK_EVERY", 0)
    allowed: list[int | None] = []

    def refusing(counts: Any, jokers: int, deadline: float, max_calls: int | None = None) -> Any:
        allowed.append(max_calls)
        return None, max_calls

    monkeypatch.setattr(portfolio, "arranged", refusing)
    problem, deadline = _taken_apart(["R5 R6 R7", "K9 B9 O9 J"], "R8 B10 B11 B12")
    exact = search.Search(problem, deadline).solve()
    solved = portfolio.Portfolio(deadline).solve(problem, 0)
    assert solved is not None and solved.score == exact and solved.proven
    assert allowed == [3]


@pytest.mark.usefixtures("goal_mode_runs_out")
def test_every_tile_but_one_arranged_when_goal_mode_runs_out() -> None:
    """A bound reached by laying every tile but one (K1 fits nowhere): the arrangement of the
    others answers, proven, without the integer programme."""
    sets = [tuple(parse_tiles("R5 R6 R7")), tuple(parse_tiles("K9 B9 O9 J"))]
    tiles = tuple(parse_tiles("R8 K1 B10 B11 B12"))
    problem, deadline = _taken_apart(["R5 R6 R7", "K9 B9 O9 J"], "R8 K1 B10 B11 B12")
    exact = search.Search(problem, deadline).solve()
    assert exact is not None and len(portfolio._laying_all(problem, exact)) == 1
    solved = portfolio.Portfolio(deadline).solve(problem, 0)
    assert solved is not None and solved.score == exact and solved.proven
    laid = Counter(t.undeclared().key for s in solved.laid.plain_sets() for t in s)
    played = Counter(t.key for t in tiles) - Counter(t.key for t in parse_tiles("K1"))
    assert laid == Counter(t.key for s in sets for t in s) + played


def test_every_tile_score_needs_jokers_of_no_weight() -> None:
    """Laying every tile is one score only when where the jokers stand weighs nothing: with a
    joker on the rack (its points count) there is none."""
    sets = [tuple(parse_tiles("R5 R6 R7"))]
    deadline = time.perf_counter() + 30
    for rack, scored in (("R8 J", False), ("R8 R9", True)):
        solver = suggest_module.Suggester(sets, [None], tuple(parse_tiles(rack)), True, RULES, "tiles", deadline)
        problem, _ = pass_problems.pass_problem(solver, dissolve={0})
        assert bool(portfolio._laying_all(problem, 10**9)) == scored


def _rack_problem(rack: str, groups_needed: tuple[tuple[int, tuple[int, ...]], ...]) -> Any:
    """The problem of laying tiles of ``rack`` (no table), with ``groups_needed``."""
    solver = suggest_module.Suggester([], [], tuple(parse_tiles(rack)), True, PRESETS["sabra"], "tiles", 1e18)
    return dataclasses.replace(pass_problems.pass_problem(solver, dissolve=set())[0], groups_needed=groups_needed)


def _solved_three_ways(problem: Any, tiles: int, value: int) -> list[list[tuple[Tile, ...]]]:
    """Solve ``problem`` by the search, the integer programme and the linear bound, check that
    they agree on ``tiles`` tiles worth ``value`` (0 tiles: no solution at all), and return the
    sets the search and the programme lay."""
    deadline = time.perf_counter() + 30
    searched = search.Search(problem, deadline)
    exact = searched.solve()
    found = milp.solve_milp(problem, deadline)
    bound = milp.linear_bound(problem)
    if not tiles:
        assert exact is None and found is None and bound is None
        return []
    assert found is not None and found[0] == exact == tiles * problem.tile_weight + value
    assert bound is not None and bound.value + 1e-6 >= exact
    builder = reconstruction.Builder(searched)
    builder.build()
    return [[tuple(r.tiles) for r in laid.done_runs] + list(laid.plain_sets()) for laid in (found[1], builder)]


_ALL = (0, 1, 2, 3)  # every colour


def _holds(tiles: tuple[Tile, ...], number: int, colours: tuple[int, ...]) -> bool:
    """Whether ``tiles`` is a group of ``number`` holding a joker or a tile of ``colours``."""
    if read_set(tiles).kind != "group" or any(t.color is not None and t.number != number for t in tiles):
        return False
    return any(t.color is None or "KBOR".index(t.color) in colours for t in tiles)


@pytest.mark.parametrize(
    ("rack", "needed", "tiles", "value"),
    [
        ("K5 K6 K7 B5 O5", (), 3, 18),  # the run scores more than the group
        ("K5 K6 K7 B5 O5", ((5, _ALL),), 3, 15),  # a group of 5 must be laid: the group
        ("K5 K6 K7 K8 B5 O5", ((5, _ALL),), 6, 36),  # the run from K6, the group of 5 with K5
        ("K5 K6 K7 B5 O5 J", ((5, _ALL),), 6, 36),  # K5 in the group, the joker ends the run as K8
        ("K5 K6 K7 B5 O5 R5", ((5, (0,)),), 4, 20),  # a group of 5 holding K5 (or a joker)
        ("K5 K6 K7 B5 O5 R5 J", ((5, (0,)),), 7, 41),  # K5 B5 O5 R5, the joker ends K6 K7 as K8
        ("K5 K6 K7 B5 O5", ((9, _ALL),), 0, 0),  # no tile of 9: nothing can be laid
    ],
)
def test_groups_needed_in_the_search_and_the_programme(
    rack: str, needed: tuple[tuple[int, tuple[int, ...]], ...], tiles: int, value: int
) -> None:
    """``groups_needed``: every solution lays a group of each such number; the search, the
    integer programme and the linear bound agree, and the sets laid hold such a group."""
    for sets in _solved_three_ways(_rack_problem(rack, needed), tiles, value):
        for number, colours in needed:
            assert any(_holds(s, number, colours) for s in sets), sets


@pytest.mark.parametrize(
    ("rack", "needed", "tiles", "value"),
    [
        ("K5 K6 K7 B7 R7", (), 3, 21),  # the group of 7s scores more than the run
        ("K5 K6 K7 B7 R7", ((0, 7, 1),), 3, 18),  # K7 in a run: K5 K6 K7
        ("K6 K7 K8 K7 B7 R7", ((0, 7, 1),), 6, 42),  # one K7 in the run, the other in the group
        ("K6 K7 K8 K7 B7 R7", ((0, 7, 2),), 0, 0),  # two K7 in runs: no way
        ("K7 B7 R7 J", ((0, 7, 1),), 0, 0),  # no run can hold K7 (K7 J is too short)
        ("K7 B7 R7", ((0, 7, 1),), 0, 0),  # nothing can be laid
    ],
)
def test_runs_needed_in_the_search_and_the_programme(
    rack: str, needed: tuple[tuple[int, int, int], ...], tiles: int, value: int
) -> None:
    """``runs_needed`` (a pinned run joker stays only in a run): every solution lays that many
    copies of the tile in runs; the search, the integer programme and the linear bound agree."""
    for sets in _solved_three_ways(dataclasses.replace(_rack_problem(rack, ()), runs_needed=needed), tiles, value):
        runs = [s for s in sets if read_set(s).kind == "run"]
        for c, v, copies in needed:
            key = f"{'KBOR'[c]}{v}"
            assert sum(t.key == key for r in runs for t in r) >= copies, sets


@pytest.mark.parametrize(
    ("rack", "table_jokers", "tiles", "value"),
    [
        ("R5 R6 J J", 0, 4, 26),  # both jokers played: R7 and R8
        ("R5 R6 J J", 1, 4, 19),  # one is the table's: the lower (R7) scores nothing
        ("R5 R6 J J", 2, 4, 11),  # both the table's
        ("K5 B5 O5 R9 R10 J J", 1, 7, 46),  # both in the run (R11, R12), not one in the group
        ("K5 B5 O5 R9 J", 1, 4, 15),  # the table's joker must be laid: in the group, no points
        # three jokers after B7 (a run of six no row of shorter runs lays with its jokers
        # there: J=B4 B5 B6 + B7 J=B8 J=B9 is worth 6 points less)
        ("B5 B6 B7 J J J", 0, 6, 45),
        ("B5 B6 B7 J J J", 1, 6, 37),  # the B8 joker scores nothing
    ],
)
def test_unscored_jokers_in_the_search_and_the_programme(rack: str, table_jokers: int, tiles: int, value: int) -> None:
    """``table_jokers`` (the table's jokers, laid but never played) score no points when joker
    points count: the lowest laid score none, the played jokers their best points (a played
    joker is worth the best joker after the move); the search, the integer programme and the
    linear bound agree."""
    problem = _rack_problem(rack, ())
    problem = dataclasses.replace(problem, jokers_required=table_jokers, table_jokers=table_jokers)
    assert problem.unscored == table_jokers
    _solved_three_ways(problem, tiles, value)


@pytest.mark.parametrize(
    ("rules_name", "needed"),
    [("sabra", ((11, (0, 2)),)), ("xp", ((11, (0, 2)),)), ("strict-joker", ((11, (0, 2)),)), ("free-joker", ())],
)
def test_relaxed_problems_need_a_group_of_each_group_joker_set(
    rules_name: str, needed: tuple[tuple[int, tuple[int, ...]], ...]
) -> None:
    """A group holding a joker, taken apart in a relaxed problem, needs a group of its number
    holding a joker or a tile of a colour the joker stands for (K or O here: its joker stays
    in such a group, or its tile frees it there); a run holding a joker does not, nor does
    anything under a free release (the joker may go anywhere)."""
    table = [tuple(parse_tiles(s)) for s in ("B11 R11 J", "K3 K4 J", "O1 O2 O3")]
    solver = suggest_module.Suggester(
        table, [None] * 3, tuple(parse_tiles("K11 B7")), True, PRESETS[rules_name], "tiles", 1e18
    )
    assert pass_problems.pass_problem(solver, dissolve={0, 1, 2}, pins=solver.pinned)[0].groups_needed == needed
    assert pass_problems.pass_problem(solver, dissolve={0, 1, 2})[0].groups_needed == ()  # not a relaxed problem


def test_a_relaxed_bound_with_blocks_gives_its_goal_search_less_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A relaxed bound (``max_calls``) with blocks and not small gives up with the linear bound
    when goal mode runs out, so goal mode gets ``_GIVING_UP_GOAL_CALLS`` of work there."""
    monkeypatch.setattr(portfolio, "_SMALL_PROGRAMME", 0)
    monkeypatch.setattr(portfolio, "_GIVING_UP_GOAL_CALLS", 7)
    steps: list[tuple[int, bool]] = []
    step = portfolio.Portfolio._step

    def recording(self: Any, found: Any, calls: int, max_calls: int | None, need: int, goal: bool = False) -> Any:
        steps.append((calls, goal))
        return step(self, found, calls, max_calls, need, goal)

    monkeypatch.setattr(portfolio.Portfolio, "_step", recording)
    for problem in _block_problems(4, "sabra", "tiles"):
        if not (problem.run_blocks or problem.group_blocks):  # type: ignore[attr-defined]
            continue
        runner = portfolio.Portfolio(time.perf_counter() + 30)
        runner.hard = True
        with contextlib.suppress(portfolio.GaveUp):
            runner.solve(problem, 0, 3_000)
    assert steps and all(calls == 7 for calls, goal in steps if goal)


def test_entries_grow_a_matrix_by_rows_and_columns() -> None:
    """``milp._Entries``: the matrix made once from its first matrix and the entries added,
    grown by the rows and columns they say, equals the dense matrix written out."""
    import numpy as np
    from scipy.sparse import csc_array

    entries = milp._Entries(milp._Sparse.of(csc_array(np.array([[1.0, 0.0], [0.0, 2.0]]))))
    entries.add([0, 2], [2, 2], [3.0, -1.0], 1, 1)  # a column (entries in rows 0 and 2) and a row
    entries.add_row(np.array([0, 2]))
    assert (entries.rows, entries.columns) == (4, 3)
    expected = [[1, 0, 3], [0, 2, 0], [0, 0, -1], [1, 0, 1]]
    assert entries.matrix().toarray().tolist() == expected


def test_entries_make_the_matrix_scipy_makes() -> None:
    """``milp._Entries.matrix``: entries out of order, twice at a place, make the arrays
    scipy's conversion from coordinates makes (sorted by column and row, duplicates summed),
    as do the columns ``_Sparse.taking`` takes those of scipy's column slicing."""
    import numpy as np
    from scipy.sparse import csc_array

    rows, cols, vals = np.array([2, 0, 1, 0, 2, 1]), np.array([1, 1, 0, 2, 1, 2]), np.array([1.0, 2, 3, 4, 5, 6])
    entries = milp._Entries(milp._Sparse(rows[:3], cols[:3], vals[:3], (3, 3)))
    entries.add(rows[3:], cols[3:], vals[3:], 0, 0)
    made, scipy_made = entries.matrix(), csc_array((vals, (rows, cols)), shape=(3, 3))
    for array in ("indptr", "indices", "data"):
        assert getattr(made, array).tolist() == getattr(scipy_made, array).tolist()
    keep = np.array([2, 0])
    taken = milp._Sparse.of(scipy_made).taking(keep)
    as_matrix = csc_array((taken.values, (taken.rows, taken.columns)), shape=taken.shape)
    assert (as_matrix != scipy_made[:, keep]).nnz == 0


def test_exact_joker_value_pass_goes_to_the_programme_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a free release with jokers on the rack and the table, the pass valuing the
    played jokers exactly is solved to the end and is asked for more than the best move found:
    its goal mode gets only the short try before the integer programme (``programme_soon``).
    The answer is the one the full goal mode gives."""
    table = [tuple(parse_tiles("R5 R6 J")), tuple(parse_tiles("K9 B9 O9"))]
    rack = tuple(parse_tiles("J R8 B10 B11 K1"))
    soon: list[bool] = []
    solve = suggest_module.portfolio.Portfolio.solve
    full_goal_mode = False

    def recording(
        self: Any, problem: Any, need: int, max_calls: Any = None, accept: Any = None, programme_soon: bool = False
    ) -> Any:
        if problem.unscored:
            soon.append(programme_soon and max_calls is None)
            programme_soon = programme_soon and not full_goal_mode
        return solve(self, problem, need, max_calls, accept, programme_soon)

    monkeypatch.setattr(suggest_module.portfolio.Portfolio, "solve", recording)
    move = engine.solver.suggest(table, rack, True, RULES, "tiles", 30.0, "any")
    assert soon == [True]
    full_goal_mode = True
    full = engine.solver.suggest(table, rack, True, RULES, "tiles", 30.0, "any")
    assert (move.played, move.value, move.optimal_proven) == (full.played, full.value, full.optimal_proven)
    assert move.optimal_proven


def test_a_relaxation_highs_stops_short_of_is_solved_again_with_presolve() -> None:
    """HiGHS's simplex, without presolve, stopped this position's relaxation with model status
    "unknown"; the bound was infinite and ``suggest`` raised OverflowError (a 500 over HTTP).
    The brute force's best: 3 tiles, 32 points."""
    table = [tuple(parse_tiles("K9 B9 R9")), tuple(parse_tiles("J=B8 B9 B10 B11 B12 B13"))]
    rack = parse_tiles("B8 B11 J")
    result = engine.solver.suggest(table, rack, True, PRESETS["pressman-2009"], "tiles", 30)
    assert (len(result.played), result.value, result.optimal_proven) == (3, 32, True)


@pytest.mark.parametrize("seed", [1, 2])
def test_relaxations_that_never_finish_bound_by_every_tile_played(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """When HiGHS stops a relaxation short of its optimum every time, the bound is every rack
    tile played, each joker as a 13 (``milp._trivial_bound``): the answers stay the same."""
    positions = _game_positions(seed, 6)
    assert len(positions) == 6
    expected = [engine.solver.suggest(table, rack, True, RULES, "tiles", 30) for table, rack in positions]
    maximise = highs.maximise

    def stopped(*args: Any, **kwargs: Any) -> highs.Result:
        result = maximise(*args, **kwargs)
        integer = args[5] if len(args) > 5 else kwargs["integer"]
        return result if integer else result._replace(status=highs.STOPPED, x=None)

    monkeypatch.setattr(highs, "maximise", stopped)
    monkeypatch.setattr(highs, "maximise_with_row", lambda *args, **kwargs: highs.Result(highs.STOPPED, None, 0.0))
    for (table, rack), before in zip(positions, expected, strict=True):
        after = engine.solver.suggest(table, rack, True, RULES, "tiles", 30)
        assert (len(after.played), after.value, after.optimal_proven) == (
            len(before.played),
            before.value,
            before.optimal_proven,
        )

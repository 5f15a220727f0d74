"""HiGHS (Huangfu & Hall, "Parallelizing the dual revised simplex method", Math. Prog. Comp. 10,
2018) through its own Python package, ``highspy``, for the solver's programmes (``milp``,
``choices``): SciPy's ``milp`` reaches the same solver but passes only a few of its options.

Two options matter, measured on the hard bench's programmes (2-core machine under load): an
integer programme run on HiGHS's default thread pool waits 10-25 ms for its worker threads,
whatever its size (a programme of one column: 24 ms, 0.6 ms on one thread), so HiGHS runs on
one thread; and its *feasibility jump* heuristic costs ~10 ms before every integer programme
solved without presolve (the same programme: 13 ms with it, 1 ms without), so it is off.

Every run is silent. HiGHS prints a banner on the standard output when the first ``Highs``
object of a process is made, whatever its options: that object is made when this module is
imported, with the standard output sent to the null device. Each thread reuses one object.
"""

from __future__ import annotations

import heapq
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import highspy
import numpy as np
from scipy.sparse import csc_array

OPTIMAL, INFEASIBLE, STOPPED = "optimal", "infeasible", "stopped"


class Result(NamedTuple):
    """A run's outcome: ``status`` (OPTIMAL; INFEASIBLE; STOPPED by the time limit, with the
    best solution found in ``x`` or none; NOT_BETTER, ``branch_and_bound`` only), the solution
    and its objective (maximised); ``nodes``: the relaxations ``branch_and_bound`` solved."""

    status: str
    x: np.ndarray | None
    objective: float
    nodes: int = 0
    bound: float = np.inf
    """``maximise`` on an integer programme: no solution scores more (HiGHS's dual bound)."""


def _new() -> Any:
    return highspy.Highs()  # type: ignore[no-untyped-call]  # (highspy's constructor has no annotations)


def _made_silently() -> Any:
    """A ``Highs`` object made with the standard output at the null device (its banner)."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        return _new()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


_local = threading.local()


def _highs() -> Any:
    """This thread's ``Highs`` object, made silent once (the first with its banner hidden),
    its model cleared (``models`` counts the times)."""
    highs = getattr(_local, "highs", None)
    if highs is None:
        highs = _local.highs = _made_silently() if _first.acquire(blocking=False) else _new()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        highs.setOptionValue("mip_heuristic_run_feasibility_jump", False)
        _local.models = 0
    highs.clearModel()
    _local.models += 1
    return highs


def models() -> int:
    """How many models this thread's ``Highs`` object has been given: a linear programme just
    solved by ``maximise`` is still its model (with its optimal basis) while this is unchanged."""
    return int(getattr(_local, "models", 0))


def maximise_with_row(row: np.ndarray, lower: float, upper: float, cost: np.ndarray, time_limit: float) -> Result:
    """The linear programme last solved by ``maximise`` (``models()`` unchanged since) with one
    more row, ``lower <= row @ x <= upper`` (``row`` dense): re-solved by the dual simplex from
    the optimal basis it had, a few iterations where a new model costs all of them."""
    highs = _local.highs
    highs.setOptionValue("time_limit", highs.getRunTime() + max(1e-3, float(time_limit)))
    index = np.flatnonzero(row).astype(np.int32)
    highs.addRow(float(lower), float(upper), len(index), index, np.asarray(row, dtype=float)[index])
    _run(highs)
    return _result(highs, cost)


_first = threading.Lock()  # held once the first object, whose banner is hidden, is made
_highs()


def maximise(
    cost: np.ndarray,
    upper: np.ndarray,
    matrix: Any,
    lower_rows: np.ndarray,
    upper_rows: np.ndarray,
    integer: bool,
    presolve: bool,
    time_limit: float,
    cpu_limit: float | None = None,
    seed: int = 0,
    at_least: float = -np.inf,
) -> Result:
    """Maximise ``cost @ x`` with ``0 <= x <= upper`` (integers when ``integer``) and
    ``lower_rows <= matrix @ x <= upper_rows``, within ``time_limit`` seconds; an integer
    programme is solved to a zero gap (only a proven optimum is OPTIMAL). An integer programme
    also stops (STOPPED) once its run has had ``cpu_limit`` seconds of this thread's CPU time, a
    measure that other processes' load does not stretch (HiGHS, on one thread, runs in the
    calling one and calls back between its nodes and cut rounds: about every 20-35 ms at most
    on the hard bench's programmes). ``seed`` is HiGHS's random seed (its default 0): another
    seed takes another path through the same programme, to the same optimum. An integer
    programme whose objective is whole at every solution may be given ``at_least``: only
    solutions scoring that much are sought (HiGHS's objective bound, a cutoff that prunes
    its nodes), INFEASIBLE when there is none."""
    highs = _highs()
    highs.setOptionValue("presolve", "on" if presolve else "off")
    # a linear programme's limit counts from the object's first run (its runs' time adds up),
    # an integer programme's from the start of its run (measured, HiGHS 1.16: with the sum of
    # the runs before added, an integer programme overran a 1 s limit by 2 s)
    elapsed = 0.0 if integer else highs.getRunTime()
    highs.setOptionValue("time_limit", elapsed + max(1e-3, float(time_limit)))
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.setOptionValue("random_seed", seed)
    # (a whole objective: half a unit below ``at_least`` keeps the solutions reaching it)
    highs.setOptionValue("objective_bound", -float(at_least) + 0.5 if integer and at_least > -np.inf else np.inf)
    _pass_model(highs, cost, upper, matrix, lower_rows, upper_rows, integer)
    if cpu_limit is None:
        _run(highs)
    else:
        end = time.thread_time() + cpu_limit

        def stop_at_cpu_limit(event: Any) -> None:
            # (set either way: HiGHS keeps the flag from the object's previous run)
            event.data_in.user_interrupt = time.thread_time() > end

        highs.cbMipInterrupt.subscribe(stop_at_cpu_limit)
        try:
            _run(highs)
        finally:
            highs.cbMipInterrupt.unsubscribe(stop_at_cpu_limit)
    result = _result(highs, cost)
    if integer and result.x is not None and result.objective < at_least - 0.5:
        # HiGHS 1.16 may call a solution below the cutoff optimal (all zeros, when no solution
        # reaches it: {J: 4, K5: 2, K2, K3} at 41, found by tests/test_meld_value.py): none is.
        if result.status == OPTIMAL:
            return Result(INFEASIBLE, None, -np.inf)
        result = result._replace(x=None, objective=-np.inf)
    if integer and result.status == STOPPED:
        return result._replace(bound=-highs.getInfo().mip_dual_bound)  # (the objective is minimised negated)
    return result


def _result(highs: Any, cost: np.ndarray) -> Result:
    """The outcome of ``highs``'s last run, maximising ``cost``."""
    status = highs.getModelStatus()
    if status in (
        highspy.HighsModelStatus.kInfeasible,
        highspy.HighsModelStatus.kUnboundedOrInfeasible,
        # nothing reaches ``at_least`` (HiGHS 1.16 reports it as infeasible; this would mean it too)
        highspy.HighsModelStatus.kObjectiveBound,
    ):
        return Result(INFEASIBLE, None, -np.inf)
    found = highs.getInfo().primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
    x = np.array(highs.getSolution().col_value) if found else None
    objective = float(cost @ x) if x is not None else -np.inf
    if status == highspy.HighsModelStatus.kOptimal:
        return Result(OPTIMAL, x, objective)
    return Result(STOPPED, x, objective)


def _run(highs: Any) -> None:
    if highs.run() == highspy.HighsStatus.kError:
        # another user of HiGHS in the process made its (global) thread pool first, with
        # another size: run in that one
        highs.setOptionValue("threads", 0)
        highs.run()


def relaxation_first(
    cost: np.ndarray,
    upper: np.ndarray,
    matrix: Any,
    lower_rows: np.ndarray,
    upper_rows: np.ndarray,
    time_limit: float,
) -> Result:
    """The integer programme of ``maximise`` (without presolve), its linear relaxation solved
    first, a few times cheaper: when that has no solution neither has the programme, and when
    its optimum is integral it is the programme's (returned as such); else the integer
    programme runs in what is left of ``time_limit``."""
    start = time.perf_counter()
    relaxed = maximise(cost, upper, matrix, lower_rows, upper_rows, False, False, time_limit)
    if relaxed.status == INFEASIBLE:
        return relaxed
    whole = integral(relaxed.x) if relaxed.status == OPTIMAL and relaxed.x is not None else None
    if whole is not None:
        return Result(OPTIMAL, np.array(whole, dtype=float), relaxed.objective)
    return maximise(
        cost, upper, matrix, lower_rows, upper_rows, True, False, time_limit - (time.perf_counter() - start)
    )


def integral(x: np.ndarray) -> list[int] | None:
    """``x`` as whole numbers when every value is one within HiGHS's tolerances (the
    programmes' matrices and bounds are integers, so rounding keeps every row); else None."""
    whole = np.round(x)
    if np.abs(x - whole).max(initial=0.0) > 1e-6:
        return None
    return [int(v) for v in whole]


def _pass_model(
    highs: Any,
    cost: np.ndarray,
    upper: np.ndarray,
    matrix: Any,
    lower_rows: np.ndarray,
    upper_rows: np.ndarray,
    integer: bool,
) -> None:
    """Give ``highs`` the programme: minimise ``-cost``, the matrix by columns. Passed as
    arrays (highspy's ``passModel`` with the model's parts), not as a ``HighsLp``, whose
    fields are copied element by element: 0.09 ms against 0.9 ms on a 670-column programme,
    which HiGHS then solves in about 4 ms."""
    columns = csc_array(matrix)
    n = len(cost)
    highs.passModel(
        n,
        columns.shape[0],
        columns.nnz,
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        -np.asarray(cost, dtype=float),
        np.zeros(n),
        np.asarray(upper, dtype=float),
        np.asarray(lower_rows, dtype=float),
        np.asarray(upper_rows, dtype=float),
        columns.indptr.astype(np.int32),
        columns.indices.astype(np.int32),
        columns.data.astype(float),
        np.full(n, int(highspy.HighsVarType.kInteger if integer else highspy.HighsVarType.kContinuous), dtype=np.int32),
    )


NOT_BETTER = "not better"
"""``branch_and_bound``'s status when it proved that no solution scores more than the cutoff."""


def branch_and_bound(
    cost: np.ndarray,
    upper: np.ndarray,
    matrix: Any,
    lower_rows: np.ndarray,
    upper_rows: np.ndarray,
    time_limit: float,
    cutoff: float = -np.inf,
    columns: np.ndarray | None = None,
    rows: Sequence[int] = (),
    max_nodes: int | None = None,
) -> Result:
    """Maximise ``cost @ x`` over whole ``0 <= x <= upper`` with ``lower_rows <= matrix @ x <=
    upper_rows``, where ``cost``, ``matrix`` and the bounds are whole numbers (so is every
    solution's objective), by branch and bound over the linear relaxation: the relaxation of
    each node solved by the dual simplex from the basis of the node before it (no cuts), which
    stops once its objective proves that the node cannot beat the best solution known
    (HiGHS's objective bound: 6% less time on the games bench's least-change programmes). Only
    solutions scoring at least ``cutoff + 1`` are sought (the objective of a solution known
    otherwise): NOT_BETTER when none exists.

    A node branches on the most fractional activity of ``rows`` (rows whose activity is whole
    at every solution: integer coefficients on integer columns) while one is fractional, then
    on the most fractional column of the mask ``columns`` (any fractional column when none of
    those is). Nodes are taken best bound first, and among nodes of equal bound (the objective
    is whole: most are) the newest first, the child rounded up before the one rounded down: a
    depth-first search among the best nodes, which finds solutions early, and never solves a
    node that cannot beat the best solution found. (Solving the child rounded up right after
    its parent instead, a dive, whatever bound the other open nodes had: 872 relaxations
    against 693 on the games bench's 143 least-change programmes, 15% more time, and 20% more
    on the 162 integer programmes of ``milp.solve_integer`` in both benches; bench/README.md,
    session 23.) Measured on the least-change programmes of the games bench (116 programmes,
    400-2,600 columns, session 11): 1-104 relaxations each (1-33 in session 23, 143
    programmes), where HiGHS's integer solver spent 3-30 times longer on the hardest ones in
    cut rounds at its root (bench/README.md, issue 18, session 11); the rows first (rather
    than the most fractional of rows and columns together), 1,880 relaxations in all on 131
    programmes became 1,099, the most 531 (out of time) 125 (session 19). OPTIMAL (or
    NOT_BETTER) only when every node was solved or pruned; STOPPED when the time ran out,
    ``max_nodes`` relaxations were solved or a relaxation could not be solved, with the best
    solution found (or none)."""
    start = time.perf_counter()
    highs = _highs()
    highs.setOptionValue("presolve", "off")
    highs.setOptionValue("random_seed", 0)  # (a restart in ``maximise`` may have left another)
    highs.setOptionValue("objective_bound", np.inf)
    highs.setOptionValue("time_limit", highs.getRunTime() + max(1e-3, float(time_limit)))
    _pass_model(highs, cost, upper, matrix, lower_rows, upper_rows, False)
    n = len(cost)
    column_lower, column_upper = np.zeros(n), np.asarray(upper, dtype=float)
    row_lower, row_upper = np.asarray(lower_rows, dtype=float), np.asarray(upper_rows, dtype=float)
    branch_rows = np.asarray(rows, dtype=np.int64)
    by_rows = csc_array(matrix).tocsr()[branch_rows] if len(branch_rows) else None
    preferred = np.zeros(n, dtype=bool) if columns is None else np.asarray(columns, dtype=bool)
    costs = np.asarray(cost, dtype=float)
    applied: dict[int, tuple[float, float]] = {}  # index (rows as -1-row) -> bounds now set
    best, best_x = float(cutoff), None
    # a node: (its parent's bound, negated, then its order, negated: the newest first among
    # equal bounds; its bound changes (index, lower, upper))
    queue: list[tuple[float, int, tuple[tuple[int, float, float], ...]]] = [(-np.inf, 0, ())]
    order, nodes = 1, 0
    while queue:
        if time.perf_counter() - start > time_limit:
            return Result(STOPPED, best_x, best, nodes)
        bound, _, node = heapq.heappop(queue)
        if -bound < best + 1 - _slack(bound):
            continue
        if max_nodes is not None and nodes >= max_nodes:
            return Result(STOPPED, best_x, best, nodes)
        _apply(highs, node, applied, column_lower, column_upper, row_lower, row_upper)
        # the dual simplex stops once its objective proves the node cannot reach ``best + 1``
        if best > -np.inf:
            highs.setOptionValue("objective_bound", -(best + 1) + _slack(best + 1))
        _run(highs)
        nodes += 1
        status = highs.getModelStatus()
        if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kObjectiveBound):
            continue
        if status != highspy.HighsModelStatus.kOptimal:
            return Result(STOPPED, best_x, best, nodes)
        x = np.array(highs.getSolution().col_value)
        value = float(costs @ x)
        if value < best + 1 - _slack(value):
            continue
        whole = np.round(x)
        fractional = np.abs(x - whole) > 1e-6
        activity = by_rows @ x if by_rows is not None else np.zeros(0)
        row_fractions = np.abs(activity - np.round(activity)) > 1e-6
        if not fractional.any() and not row_fractions.any():
            # (whole: kept only when it beats the best, whatever the slack let through)
            if float(costs @ whole) > best:
                best, best_x = float(costs @ whole), whole
            continue
        index, level = _branching(
            x,
            fractional & preferred if (fractional & preferred).any() else fractional,
            activity,
            row_fractions,
            branch_rows,
        )
        lower_now, upper_now = _bounds_of(index, node, column_lower, column_upper, row_lower, row_upper)
        down = (*node, (index, lower_now, float(np.floor(level))))
        up = (*node, (index, float(np.ceil(level)), upper_now))
        # (the child rounded up is taken first)
        heapq.heappush(queue, (-value, -order, down))
        heapq.heappush(queue, (-value, -order - 1, up))
        order += 2
    if best_x is None:
        return Result(INFEASIBLE if cutoff == -np.inf else NOT_BETTER, None, best, nodes)
    return Result(OPTIMAL, best_x, best, nodes)


def _slack(value: float) -> float:
    """The relaxation's objective is trusted to this much (a node is pruned only when its
    bound is below what it must reach by more)."""
    return 1e-6 * (1.0 + abs(value))


def _branching(
    x: np.ndarray, fractional: np.ndarray, activity: np.ndarray, row_fractions: np.ndarray, rows: np.ndarray
) -> tuple[int, float]:
    """The most fractional of the rows when one is fractional (as ``-1 - row``), else of the
    candidate columns, and its value."""
    at_rows = np.where(row_fractions)[0]
    if len(at_rows):
        k = _most_fractional(activity, at_rows)
        return -1 - int(rows[k]), float(activity[k])
    j = _most_fractional(x, np.where(fractional)[0])
    return j, float(x[j])


def _most_fractional(values: np.ndarray, among: np.ndarray) -> int:
    """The index in ``among`` whose value's fractional part is nearest a half."""
    return int(among[np.argmin(np.abs(values[among] - np.floor(values[among]) - 0.5))])


def _bounds_of(
    index: int,
    node: tuple[tuple[int, float, float], ...],
    column_lower: np.ndarray,
    column_upper: np.ndarray,
    row_lower: np.ndarray,
    row_upper: np.ndarray,
) -> tuple[float, float]:
    """The bounds of column (or row, ``-1 - row``) ``index`` at ``node``."""
    for changed, lower, upper in reversed(node):
        if changed == index:
            return lower, upper
    if index >= 0:
        return float(column_lower[index]), float(column_upper[index])
    return float(row_lower[-1 - index]), float(row_upper[-1 - index])


def _apply(
    highs: Any,
    node: tuple[tuple[int, float, float], ...],
    applied: dict[int, tuple[float, float]],
    column_lower: np.ndarray,
    column_upper: np.ndarray,
    row_lower: np.ndarray,
    row_upper: np.ndarray,
) -> None:
    """Set the bounds of ``node`` on the model, undoing those of the node before it."""
    wanted: dict[int, tuple[float, float]] = {}
    for index, lower, upper in node:
        wanted[index] = (lower, upper)
    for index in list(applied):
        if index not in wanted:
            original = _bounds_of(index, (), column_lower, column_upper, row_lower, row_upper)
            _set(highs, index, original)
            del applied[index]
    for index, bounds in wanted.items():
        if applied.get(index) != bounds:
            _set(highs, index, bounds)
            applied[index] = bounds


def _set(highs: Any, index: int, bounds: tuple[float, float]) -> None:
    if index >= 0:
        highs.changeColBounds(index, bounds[0], bounds[1])
    else:
        highs.changeRowBounds(-1 - index, bounds[0], bounds[1])

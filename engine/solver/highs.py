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

import os
import sys
import threading
import time
from typing import Any, NamedTuple

import highspy
import numpy as np
from scipy.sparse import csc_array

OPTIMAL, INFEASIBLE, STOPPED = "optimal", "infeasible", "stopped"


class Result(NamedTuple):
    """A run's outcome: ``status`` (OPTIMAL; INFEASIBLE; STOPPED by the time limit, with the
    best solution found in ``x`` or none), the solution and its objective (maximised)."""

    status: str
    x: np.ndarray | None
    objective: float


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
    """This thread's ``Highs`` object, made silent once (the first with its banner hidden)."""
    highs = getattr(_local, "highs", None)
    if highs is None:
        highs = _local.highs = _made_silently() if _first.acquire(blocking=False) else _new()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        highs.setOptionValue("mip_heuristic_run_feasibility_jump", False)
    highs.clearModel()
    return highs


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
) -> Result:
    """Maximise ``cost @ x`` with ``0 <= x <= upper`` (integers when ``integer``) and
    ``lower_rows <= matrix @ x <= upper_rows``, within ``time_limit`` seconds; an integer
    programme is solved to a zero gap (only a proven optimum is OPTIMAL). An integer programme
    also stops (STOPPED) once its run has had ``cpu_limit`` seconds of this thread's CPU time, a
    measure that other processes' load does not stretch (HiGHS, on one thread, runs in the
    calling one and calls back between its nodes and cut rounds: about every 20-35 ms at most
    on the hard bench's programmes). ``seed`` is HiGHS's random seed (its default 0): another
    seed takes another path through the same programme, to the same optimum."""
    highs = _highs()
    highs.setOptionValue("presolve", "on" if presolve else "off")
    # a linear programme's limit counts from the object's first run (its runs' time adds up),
    # an integer programme's from the start of its run (measured, HiGHS 1.16: with the sum of
    # the runs before added, an integer programme overran a 1 s limit by 2 s)
    elapsed = 0.0 if integer else highs.getRunTime()
    highs.setOptionValue("time_limit", elapsed + max(1e-3, float(time_limit)))
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.setOptionValue("random_seed", seed)
    highs.passModel(_lp(cost, upper, matrix, lower_rows, upper_rows, integer))
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
    status = highs.getModelStatus()
    if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
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


def _lp(
    cost: np.ndarray, upper: np.ndarray, matrix: Any, lower_rows: np.ndarray, upper_rows: np.ndarray, integer: bool
) -> Any:
    """The programme as HiGHS's ``HighsLp``: minimise ``-cost``, the matrix by columns."""
    columns = csc_array(matrix)
    lp = highspy.HighsLp()
    lp.num_col_ = len(cost)
    lp.num_row_ = columns.shape[0]
    lp.col_cost_ = -np.asarray(cost, dtype=float)
    lp.col_lower_ = np.zeros(len(cost))
    lp.col_upper_ = np.asarray(upper, dtype=float)
    lp.row_lower_ = np.asarray(lower_rows, dtype=float)
    lp.row_upper_ = np.asarray(upper_rows, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = len(cost)
    lp.a_matrix_.num_row_ = columns.shape[0]
    lp.a_matrix_.start_ = columns.indptr.astype(np.int32)
    lp.a_matrix_.index_ = columns.indices.astype(np.int32)
    lp.a_matrix_.value_ = columns.data.astype(float)
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * len(cost)
    return lp

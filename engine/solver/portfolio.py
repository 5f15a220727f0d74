"""The portfolio for every problem without opening minimum (the passes of an opened player,
blocks or not): the search, the bound of the linear relaxation, the search aimed at that
bound, and the integer programme when nothing else closes the problem.

1. The search on a small budget of work (``_PORTFOLIO_CALLS`` calls): most positions are
   solved here in a few milliseconds. Once a problem of a ``suggest`` needed more, the next
   ones skip this step (``Portfolio.hard``).
2. The linear relaxation of the integer programme (``milp.linear_bound``, a few
   milliseconds on HiGHS) bounds the optimum: a floor it cannot reach ends the problem at
   once. When it plays a fractional number of tiles (the primary objective), it is solved
   again with the tiles capped at their integer part. On generated positions the floor of
   the bound is the optimum on more than 80% of the problems; when the relaxation's
   solution is integral it is the optimum itself (~45% of the problems reaching this step
   on the hard bench), laid as the integer programme's.
3. The search looks for a solution reaching the bound (goal mode, ``_GOAL_CALLS``): the
   first it finds is optimal, proven by the bound. A *small* programme (at most
   ``_SMALL_PROGRAMME`` columns, which HiGHS solves in a few milliseconds) gets one short try
   (``_SMALL_GOAL_CALLS``) and then goes to the integer programme (step 4). When the bound is out of reach, the best
   move playing its tiles is searched for (the bound allows no more tiles); when there is
   none, the relaxation is capped at one tile fewer and aimed at again (``_GOALS`` rounds).
4. The plain search goes on from what it has memoised (``_CLOSING_CALLS``), then the
   integer programme (``milp.solve_milp``, blocks included) solves what is left, under the
   deadline, if enough time is left (``_MILP_LEAST``, ``_MILP_BLOCKS_SHARE``); else the
   search goes on until the deadline. The relaxed bounds of ``suggest`` (``max_calls``) give
   up instead (``GaveUp``, with the best bound known).

The steps 1–3 are bounded by work, not time, so their answers are reproducible; only the
integer programme runs against the clock. The same ``_Search`` object serves every step: what
one step memoised (exact values, upper bounds) the next reuses.
"""

from __future__ import annotations

import math
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from engine.solver import highs, milp
from engine.solver.model import (
    _CLOSING_CALLS,
    _GOAL_CALLS,
    _PORTFOLIO_CALLS,
    _OutOfTime,
    _Problem,
)
from engine.solver.reconstruction import _Builder, _Laid
from engine.solver.search import _Search

_GOALS = 3  # linear bounds aimed at, at most
_SMALL_PROGRAMME = 400  # columns up to which goal mode gets one short try before the integer programme
_SMALL_GOAL_CALLS = 1_000  # that try's work
_MILP_LEAST = 0.02  # seconds left below which the integer programme is not started
_MILP_BLOCKS_SHARE = 0.25  # with blocks: the share of the budget that must be left


def _parallel() -> bool:
    """Whether the integer programme runs beside the search (see ``Portfolio``): when this
    process may use two CPUs or more, unless ``RUMMIKUB_SOLVER_THREADS=1``."""
    if os.environ.get("RUMMIKUB_SOLVER_THREADS", "").strip() == "1":
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # (no affinity on this platform)
        cpus = os.cpu_count() or 1
    return cpus >= 2


PARALLEL = _parallel()
_WORKERS = 4  # threads running integer programmes beside searches, at most (one per concurrent suggest)
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The threads running integer programmes, made at the first one."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="rummikub-highs")
        return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's threads are not there, so it makes its own."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


class _Finished(Exception):
    """The integer programme running beside the search has finished: its answer is the
    problem's."""


class _Background:
    """The integer programme of a problem run by HiGHS, without its presolve, in a thread of
    its own (HiGHS releases the GIL while it solves) while the search goes on in the caller's:
    whichever proves the answer first ends the other (``stop``; the search is stopped through
    its deadline)."""

    def __init__(self, problem: _Problem, full: milp._Full, deadline: float, need: int, search: _Search) -> None:
        self.stopper = highs.Stop()
        self.search = search
        self.future: Future[tuple[int, _Laid, bool] | None] = _executor().submit(
            self._run, problem, full, deadline, need
        )

    def _run(self, problem: _Problem, full: milp._Full, deadline: float, need: int) -> tuple[int, _Laid, bool] | None:
        try:
            return milp.solve_full(problem, full, deadline, need, self.stopper, presolve=False)
        finally:
            self.search.stop()

    def done(self) -> bool:
        return self.future.done()

    def stop(self) -> None:
        self.future.cancel()
        self.stopper.stop()


class GaveUp(Exception):
    """Raised when a problem with blocks used up the work it was allowed (``max_calls``);
    ``bound`` is the best upper bound of its score known then (None: none yet)."""

    def __init__(self, bound: int | None) -> None:
        super().__init__(bound)
        self.bound = bound


class Solved:
    """A solved problem: its score (the search's), how its sets are laid, and whether the
    score is proven optimal (false only when the integer programme ran out of time)."""

    def __init__(self, score: int, laid: _Builder | _Laid, proven: bool) -> None:
        self.score = score
        self.laid = laid
        self.proven = proven


class Portfolio:
    """The portfolio for the passes of one ``suggest``. Once a problem needed more than the
    first search (``hard``), the next ones start with the linear bound: the passes of one
    position are alike, and the bound rules out at once those that cannot reach their floor.

    When the process may use two CPUs (``PARALLEL``), a problem without blocks whose
    relaxation is fractional and whose programme is not small (``_SMALL_PROGRAMME``) starts
    its integer programme at once, without HiGHS's presolve, in a thread of its own (HiGHS
    solves without the GIL) while steps 3–4 go on in the caller's thread, the plain search
    then without a cap: the first proven answer wins and stops the other. HiGHS's time on a
    programme and the search's are each a lottery per position (xp+free seed 5 turn 73 of the
    hard bench: HiGHS 0.4-1.1 s, the plain search ~0.15 s); the race costs about the better of
    the two. Without presolve, because HiGHS cannot be interrupted in its presolve, and
    because the usual switch to it after ``milp._WITHOUT_PRESOLVE`` seconds of wall-clock time
    falls, when a busy second thread slows HiGHS, on presolve runs of 0.4-2.5 s that the run
    without it would have ended in 0.1 s. The answer is exact and proven either way, but
    which of several best moves is found may then depend on timing
    (``tie_break="least_change"``, the default, re-optimises the move among the best anyway).
    ``RUMMIKUB_SOLVER_THREADS=1`` keeps the steps one after the other, in one thread.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.budget = deadline - time.perf_counter()
        self.hard = False
        self.solves = 0  # linear bounds and integer programmes solved (HiGHS runs), a measure of work
        self.background: _Background | None = None  # the integer programme running beside the search
        self.pending: tuple[_Problem, milp._Full, int, _Search] | None = None  # ... ready to start

    def solve(self, problem: _Problem, need: int, max_calls: int | None = None) -> Solved | None:
        """The best solution of ``problem`` (no opening minimum) scoring at least ``need``;
        None when there is none. ``max_calls`` caps the work of each search step. Raises
        _OutOfTime when the deadline passes before an answer, GaveUp when a problem with
        blocks used up its ``max_calls``."""
        blocks = bool(problem.run_blocks or problem.group_blocks)
        first = _PORTFOLIO_CALLS if max_calls is None else min(max_calls, _PORTFOLIO_CALLS)
        search = _Search(problem, self.deadline, first)
        if not self.hard:
            try:
                return _searched(search, search.solve(need))
            except _OutOfTime:
                self._check()
            self.hard = True
        self._check()
        bound = self._bound(problem)
        if bound is None:
            return None  # not even the relaxation lays the table's tiles
        # a relaxed bound of suggest (``max_calls``) is worth its move only when that move is
        # legal, which the search's more often is than the relaxation's (one move of 240 lost
        # a tile on the hard bench): the relaxation's solution serves the other problems only
        integral = max_calls is None
        if integral and bound.solution is not None:
            return _exact(bound.solution, need)
        goal, played = _floor(bound.value), bound.played
        if goal < need:
            return None  # the bound cannot reach the floor: no need to refine it
        if PARALLEL and integral and not blocks and bound.full is not None and bound.columns > _SMALL_PROGRAMME:
            self.pending = (problem, bound.full, need, search)  # raced once the first goal step fails
            try:
                return self._steps(problem, need, max_calls, search, bound, goal, played)
            except _Finished:
                return self._finished()
            finally:
                self.pending = None
                if self.background is not None:
                    self.background.stop()
                    self.background = None
        return self._steps(problem, need, max_calls, search, bound, goal, played)

    def _launch(self) -> None:
        """Start the integer programme beside the search, if this problem races
        (``pending``) and it has not started yet."""
        if self.pending is not None and self.background is None:
            self.solves += 1
            problem, full, need, search = self.pending
            self.background = _Background(problem, full, self.deadline, need, search)

    def _steps(
        self,
        problem: _Problem,
        need: int,
        max_calls: int | None,
        search: _Search,
        bound: milp.Bound,
        goal: int,
        played: float,
    ) -> Solved | None:
        """Steps 3 and 4 of ``solve``, from the first linear bound (``goal`` and ``played``)."""
        blocks = bool(problem.run_blocks or problem.group_blocks)
        integral = max_calls is None
        upper = goal  # the best upper bound known
        primary = problem.tile_weight > problem.value_weight  # tiles played, then their value
        closing = True  # the plain search goes on when the goals are proven out of reach
        # a small programme: HiGHS solves it in a few milliseconds, where the search aimed at
        # the bound may take 5-50 ms and fail; it gets one short try first
        small = max_calls is None and bound.columns <= _SMALL_PROGRAMME
        goal_calls = _SMALL_GOAL_CALLS if small else _GOAL_CALLS
        for _ in range(_GOALS):
            if primary and played - _floor(played) > 1e-6:
                # the relaxation plays a fractional number of tiles: the floor of its bound
                # asks for more tiles than it plays, out of reach; cap them
                self._check()
                capped = self._bound(problem, _floor(played))
                if capped is None:
                    return None
                if integral and capped.solution is not None:
                    return _exact(capped.solution, need)
                goal, played = min(goal, _floor(capped.value)), capped.played
                upper = min(upper, goal)
            if goal < need:
                return None
            found, out_of_time = self._step(search, goal_calls, max_calls, goal, goal=True)
            if found is None:
                self._launch()  # the search did not end it at once: the programme races it
            if out_of_time:
                closing = False
                break
            if found is not None:
                return _searched(search, found)
            upper = goal - 1
            if not primary or small:
                break
            # the bound is out of reach, but its tiles may not be: the best move playing
            # them is the optimum (the bound allows no more tiles)
            least = max(need, goal // problem.tile_weight * problem.tile_weight)
            found, out_of_time = self._step(search, _GOAL_CALLS, max_calls, least)
            if out_of_time:
                closing = False
                break
            if found is not None:
                return _searched(search, found)
            if least <= need:
                return None
            # no move plays that many tiles: one fewer
            self._check()
            capped = self._bound(problem, goal // problem.tile_weight - 1)
            if capped is None:
                return None
            if integral and capped.solution is not None:
                return _exact(capped.solution, need)
            goal, played = _floor(capped.value), capped.played
            upper = goal
        if closing and not small:
            search.max_calls = search.calls + _capped(_CLOSING_CALLS, max_calls)
            try:
                return _searched(search, search.solve(need))
            except _OutOfTime:
                self._check()
        if self.background is not None:
            # the integer programme runs: the plain search goes on until one of them ends
            search.max_calls = None
            try:
                return _searched(search, search.solve(need))
            except _OutOfTime:
                self._check()
            return self._finished()
        if blocks and max_calls is not None:
            raise GaveUp(upper)
        # HiGHS may overrun a short time limit by far (its root work: up to 0.5 s measured
        # with blocks), so the programme starts only with enough time left
        margin = _MILP_BLOCKS_SHARE * self.budget if blocks else _MILP_LEAST
        if time.perf_counter() > self.deadline - margin:
            if not blocks:
                raise _OutOfTime
            search.max_calls = None  # the search has the time left
            return _searched(search, search.solve(need))
        self.solves += 1
        if bound.full is not None:  # the programme built for the bound
            exact = milp.solve_full(problem, bound.full, self.deadline, need)
        else:
            exact = milp.solve_milp(problem, self.deadline, need)
        if exact is None:
            return None
        return Solved(exact[0], exact[1], exact[2])

    def _step(
        self, search: _Search, calls: int, max_calls: int | None, need: int, goal: bool = False
    ) -> tuple[int | None, bool]:
        """One search step with ``calls`` more work (at most ``max_calls``): its score (None: no
        move reaches ``need``) and whether it ran out of work first. Raises _OutOfTime when the
        deadline has passed."""
        search.max_calls = search.calls + _capped(calls, max_calls)
        try:
            return search.solve(need, goal=goal), False
        except _OutOfTime:
            self._check()
            return None, True

    def _bound(self, problem: _Problem, primary_most: int | None = None) -> milp.Bound | None:
        self.solves += 1
        return milp.linear_bound(problem, primary_most)

    def _check(self) -> None:
        """Raises _Finished when the integer programme running beside the search has ended,
        _OutOfTime when the deadline has passed."""
        if self.background is not None and self.background.done():
            raise _Finished
        if time.perf_counter() > self.deadline:
            raise _OutOfTime

    def _finished(self) -> Solved | None:
        """The answer of the integer programme running beside the search, waited for (its
        time limit is the deadline)."""
        assert self.background is not None
        exact = self.background.future.result()
        if exact is None:
            return None
        return Solved(exact[0], exact[1], exact[2])


def _capped(calls: int, max_calls: int | None) -> int:
    return calls if max_calls is None else min(calls, max_calls)


def _searched(search: _Search, score: int | None) -> Solved | None:
    if score is None:
        return None
    builder = _Builder(search)
    builder.build()
    return Solved(score, builder, True)


def _exact(solution: tuple[int, _Laid], need: int) -> Solved | None:
    """The relaxation's integral solution, the optimum: solved if it reaches ``need``."""
    score, laid = solution
    return Solved(score, laid, True) if score >= need else None


def _floor(bound: float) -> int:
    """The integer part of a bound computed in floating point (scores are integers)."""
    return math.floor(bound + 1e-6)

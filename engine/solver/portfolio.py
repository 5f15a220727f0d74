"""The portfolio for the problems without blocks or opening minimum (every table set taken
apart): the search, the bound of the linear relaxation, the search aimed at that bound, and
the integer programme when nothing else closes the problem.

1. The search on a small budget of work (``_PORTFOLIO_CALLS`` calls): most positions are
   solved here in a few milliseconds.
2. The linear relaxation of the integer programme (``milp.linear_bound``, a few
   milliseconds on HiGHS) bounds the optimum; on generated positions its floor is almost
   always the optimum. The search then looks for a solution reaching the bound (goal mode,
   ``_GOAL_CALLS``): the first it finds is optimal, proven by the bound, and the bound prunes
   every branch that cannot reach it.
3. When the search proves the bound out of reach and the tiles played are the primary
   objective, the relaxation is solved again with the tiles played capped at the part of the
   bound the search could not reach; its bound is aimed at likewise.
4. The plain search goes on from what it has memoised (``_CLOSING_CALLS``), then the
   integer programme (``milp.solve_milp``) solves what is left, under the deadline.

The steps 1–4 are bounded by work, not time (but the integer programme's deadline), so the
answers are reproducible. The same ``_Search`` object serves every step: what one step
memoised (exact values, upper bounds) the next reuses.
"""

from __future__ import annotations

import math
import time

from engine.solver import milp
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


class Solved:
    """A solved problem: its score (the search's), how its sets are laid, and whether the
    score is proven optimal (false only when the integer programme ran out of time)."""

    def __init__(self, score: int, laid: _Builder | _Laid, proven: bool) -> None:
        self.score = score
        self.laid = laid
        self.proven = proven


def solve(problem: _Problem, deadline: float, need: int, max_calls: int | None = None) -> Solved | None:
    """The best solution of ``problem`` scoring at least ``need``; None when there is none.
    ``max_calls`` caps the work of each search step. Raises _OutOfTime when the deadline
    passes before an answer."""
    first = _PORTFOLIO_CALLS if max_calls is None else min(max_calls, _PORTFOLIO_CALLS)
    search = _Search(problem, deadline, first)
    try:
        return _searched(search, search.solve(need))
    except _OutOfTime:
        _check(deadline)
    bound = milp.linear_bound(problem)
    if bound is None:
        return None  # not even the relaxation lays the table's tiles
    goal = _floor(bound)
    if goal < need:
        return None
    closing = True  # the plain search goes on when the goals are proven out of reach
    for _ in range(_GOALS):
        search.max_calls = search.calls + (_GOAL_CALLS if max_calls is None else min(max_calls, _GOAL_CALLS))
        try:
            found = search.solve(goal, goal=True)
        except _OutOfTime:
            _check(deadline)
            closing = False
            break
        if found is not None:
            return _searched(search, found)
        if problem.tile_weight <= problem.value_weight:
            break
        # the bound is out of reach: cap the tiles played at its primary part
        capped = milp.linear_bound(problem, goal // problem.tile_weight)
        if capped is None or _floor(capped) >= goal or _floor(capped) < need:
            break
        goal = _floor(capped)
    if closing:
        search.max_calls = search.calls + (_CLOSING_CALLS if max_calls is None else min(max_calls, _CLOSING_CALLS))
        try:
            return _searched(search, search.solve(need))
        except _OutOfTime:
            _check(deadline)
    exact = milp.solve_milp(problem, deadline, need)
    if exact is None:
        return None
    return Solved(exact[0], _Laid(exact[1], exact[2]), exact[3])


def _searched(search: _Search, score: int | None) -> Solved | None:
    if score is None:
        return None
    builder = _Builder(search)
    builder.build()
    return Solved(score, builder, True)


def _floor(bound: float) -> int:
    """The integer part of a bound computed in floating point (scores are integers)."""
    return math.floor(bound + 1e-6)


def _check(deadline: float) -> None:
    if time.perf_counter() > deadline:
        raise _OutOfTime

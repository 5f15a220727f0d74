"""The portfolio for every problem without opening minimum (the passes of an opened player,
blocks or not): the search, the bound of the linear relaxation, the search aimed at that
bound, and the integer programme when nothing else closes the problem.

1. The search on a small budget of work (``PORTFOLIO_CALLS`` calls): most positions are
   solved here in a few milliseconds. Once a problem of a ``suggest`` needed more, the next
   ones skip this step (``Portfolio.hard``); so does a problem with two jokers or more among
   few tiles, which most often needs more (``_likely_hard``).
2. The linear relaxation of the integer programme (``milp.linear_bound``, a few
   milliseconds on HiGHS) bounds the optimum: a floor it cannot reach ends the problem at
   once. When it plays a fractional number of tiles (the primary objective), it is solved
   again with the tiles capped at their integer part. On generated positions the floor of
   the bound is the optimum on more than 80% of the problems; when the relaxation's
   solution is integral it is the optimum itself (~45% of the problems reaching this step
   on the hard bench), laid as the integer programme's.
3. The search looks for a solution reaching the bound (goal mode, ``GOAL_CALLS``): the
   first it finds is optimal, proven by the bound. A *small* programme (at most
   ``_SMALL_PROGRAMME`` columns, which HiGHS solves in a few milliseconds) gets one short try
   (``_SMALL_GOAL_CALLS``) and then goes to the integer programme (step 4). When the bound
   is reached by laying every tile, or every tile but one (and where the jokers stand weighs
   nothing), goal mode gets a short try of its own (``_LAYING_ALL_GOAL_CALLS``: cut to
   ``_SMALL_GOAL_CALLS``, some generated xp positions went from 40 ms to the integer
   programme's 0.6 s), then the search for an arrangement of those tiles the rest of the
   work, at most ``_ARRANGING_CALLS`` (``arrangement.arranged``: it lays spare jokers at the
   end instead of searching where they go, and finds in a few milliseconds moves goal mode had
   not found in 5,000 calls; such a move reaches the bound, so it is the optimum; when it
   finds none the integer programme decides). When the bound is out of reach,
   the best move playing its tiles is searched for (the bound allows no more tiles); when
   there is none, the relaxation is capped at one tile fewer and aimed at again (``_GOALS``
   rounds).
4. The plain search goes on from what it has memoised (``CLOSING_CALLS``), then the
   integer programme (``milp.solve_milp``, blocks included) solves what is left, under the
   deadline, if enough time is left (``_MILP_LEAST``, ``_MILP_BLOCKS_SHARE``); else the
   search goes on until the deadline. The relaxed bounds of ``suggest`` (``max_calls``) give
   up instead (``GaveUp``, with the best bound known), unless their programme is small.

A relaxed bound's move counts only when it is a legal turn (``accept``, asked of integral
relaxations: the search's move is legal more often, but the relaxation's is free).

The steps 1–3 are bounded by work, not time, so their answers are reproducible; only the
integer programme runs against the clock. The same ``Search`` object serves every step: what
one step memoised (exact values, upper bounds) the next reuses.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from engine.solver import milp
from engine.solver.arrangement import arranged
from engine.solver.model import (
    CLOSING_CALLS,
    GOAL_CALLS,
    PORTFOLIO_CALLS,
    OutOfTime,
    Problem,
)
from engine.solver.reconstruction import Builder, Laid
from engine.solver.search import Search

_GOALS = 3  # linear bounds aimed at, at most
_SMALL_PROGRAMME = 400  # columns up to which goal mode gets one short try before the integer programme
_SMALL_GOAL_CALLS = 250  # that try's work (moves it found took 130-500 calls on average)
_SOON_GOAL_CALLS = 1_000  # with ``programme_soon``, a bigger programme's try (moves found took ~550 calls)
_LAYING_ALL_GOAL_CALLS = 1_000  # goal mode's try before the search for an arrangement of every tile
_ARRANGING_CALLS = 1_000  # that search's work, at most (the integer programme decides the rest)
_GIVING_UP_GOAL_CALLS = 1_500  # goal mode's work in a relaxed bound that gives up when it runs out
_MILP_LEAST = 0.02  # seconds left below which the integer programme is not started
_MILP_BLOCKS_SHARE = 0.25  # with blocks: the share of the budget that must be left
_HARD_JOKERS = 2  # a problem with this many jokers or more ...
_HARD_TILES = 80  # ... and fewer tiles than this in all skips step 1 (``_likely_hard``)


class GaveUp(Exception):
    """Raised when a problem with blocks used up the work it was allowed (``max_calls``);
    ``bound`` is the best upper bound of its score known then (None: none yet)."""

    def __init__(self, bound: int | None) -> None:
        super().__init__(bound)
        self.bound = bound


class Solved:
    """A solved problem: its score (the search's), how its sets are laid, and whether the
    score is proven optimal (false only when the integer programme ran out of time)."""

    def __init__(self, score: int, laid: Builder | Laid, proven: bool) -> None:
        self.score = score
        self.laid = laid
        self.proven = proven


class Portfolio:
    """The portfolio for the passes of one ``suggest``. Once a problem needed more than the
    first search (``hard``), the next ones start with the linear bound: the passes of one
    position are alike, and the bound rules out at once those that cannot reach their floor."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.budget = deadline - time.perf_counter()
        self.hard = False
        self.solves = 0  # linear bounds and integer programmes solved (HiGHS runs), a measure of work

    def solve(
        self,
        problem: Problem,
        need: int,
        max_calls: int | None = None,
        accept: Callable[[Laid], bool] | None = None,
        programme_soon: bool = False,
    ) -> Solved | None:
        """The best solution of ``problem`` (no opening minimum) scoring at least ``need``;
        None when there is none. ``max_calls`` caps the work of each search step; with it, an
        integral relaxation is the answer only when ``accept`` takes its sets. With
        ``programme_soon`` (and no ``max_calls``) the search aimed at the bound gets a short
        try only (``_SOON_GOAL_CALLS``; a small programme ``_SMALL_GOAL_CALLS``; each round)
        and the plain search none before the integer programme: for problems solved to the
        end whose programmes are quick (the fates of ``suggest``: on the hard bench their
        programmes took 5-10 ms where goal mode spent 40-60 ms failing). Raises OutOfTime
        when the deadline passes before an answer, GaveUp when a problem with blocks used up
        its ``max_calls``."""
        blocks = bool(problem.run_blocks or problem.group_blocks)
        first = PORTFOLIO_CALLS if max_calls is None else min(max_calls, PORTFOLIO_CALLS)
        search = Search(problem, self.deadline, first)
        if not self.hard and not _likely_hard(problem):
            try:
                return _searched(search, search.solve(need))
            except OutOfTime:
                self.check_deadline()
            self.hard = True
        self.check_deadline()
        bound = self._bound(problem)
        if bound is None:
            return None  # not even the relaxation lays the table's tiles
        # a relaxed bound of suggest (``max_calls``) is worth its move only when that move is
        # legal, which the search's more often is than the relaxation's (one move of 240 lost
        # a tile on the hard bench): the relaxation's solution serves it only when ``accept``
        # says its move is legal
        integral = max_calls is None

        def usable(solution: tuple[int, Laid]) -> bool:
            return integral or (accept is not None and accept(solution[1]))

        if bound.solution is not None and usable(bound.solution):
            return _exact(bound.solution, need)
        goal, played = _floor(bound.value), bound.played
        if goal < need:
            return None  # the bound cannot reach the floor: no need to refine it
        upper = goal  # the best upper bound known
        primary = problem.tile_weight > problem.value_weight  # tiles played, then their value
        closing = True  # the plain search goes on when the goals are proven out of reach
        # a small programme: HiGHS solves it in a few milliseconds, where the search aimed at
        # the bound may take 5-50 ms and fail; it gets one short try first
        small = bound.columns <= _SMALL_PROGRAMME
        short = small or (programme_soon and max_calls is None)
        goal_calls = _SMALL_GOAL_CALLS if small else _SOON_GOAL_CALLS if short else GOAL_CALLS
        if blocks and max_calls is not None and not small:
            # a relaxed bound with blocks gives up with the linear bound when goal mode runs
            # out, which it may take 30-50 ms to do; where it succeeds (hard bench) it needs
            # at most 1,247 calls
            goal_calls = _GIVING_UP_GOAL_CALLS
        for _ in range(_GOALS):
            if primary and played - _floor(played) > 1e-6:
                # the relaxation plays a fractional number of tiles: the floor of its bound
                # asks for more tiles than it plays, out of reach; cap them
                self.check_deadline()
                capped = self._bound(problem, _floor(played))
                if capped is None:
                    return None
                if capped.solution is not None and usable(capped.solution):
                    return _exact(capped.solution, need)
                goal, played = min(goal, _floor(capped.value)), capped.played
                upper = min(upper, goal)
            if goal < need:
                return None
            # when the bound is reached by laying every tile, or every tile but one, the search
            # for an arrangement finds such a move where goal mode may not (it lays spare
            # jokers at the end instead of searching where they go): goal mode gets a short try
            ways = [] if blocks else _laying_all(problem, goal)
            calls = min(_LAYING_ALL_GOAL_CALLS, goal_calls) if ways else goal_calls
            found, out_of_time = self._step(search, calls, max_calls, goal, goal=True)
            if out_of_time and ways and calls < goal_calls:
                # the rest of goal mode's work, at most ``_ARRANGING_CALLS``: on the benches the
                # arrangements found took 65-4,081 calls, most under 1,000 (about 12 ms), and a
                # search finding none spent all 4,000 calls (40-80 ms) where the integer
                # programme then took 20-45 ms
                left = _capped(min(goal_calls - calls, _ARRANGING_CALLS), max_calls)
                for score, counts, jokers in ways:
                    laid, used = self._arranged(counts, jokers, left)
                    if laid is not None and usable((score, laid)):
                        return Solved(score, laid, True)
                    left -= used
                    if left <= 0:
                        break
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
            found, out_of_time = self._step(search, GOAL_CALLS, max_calls, least)
            if out_of_time:
                closing = False
                break
            if found is not None:
                return _searched(search, found)
            if least <= need:
                return None
            # no move plays that many tiles: one fewer
            self.check_deadline()
            capped = self._bound(problem, goal // problem.tile_weight - 1)
            if capped is None:
                return None
            if capped.solution is not None and usable(capped.solution):
                return _exact(capped.solution, need)
            goal, played = _floor(capped.value), capped.played
            upper = goal
        if closing and not short:
            search.max_calls = search.calls + _capped(CLOSING_CALLS, max_calls)
            try:
                return _searched(search, search.solve(need))
            except OutOfTime:
                self.check_deadline()
        if blocks and max_calls is not None and not small:
            raise GaveUp(upper)
        # HiGHS may overrun a short time limit by far (its root work: up to 0.5 s measured
        # with blocks), so the programme starts only with enough time left
        margin = _MILP_BLOCKS_SHARE * self.budget if blocks else _MILP_LEAST
        if time.perf_counter() > self.deadline - margin:
            if not blocks:
                raise OutOfTime
            if max_calls is not None:
                raise GaveUp(upper)
            search.max_calls = None  # the search has the time left
            return _searched(search, search.solve(need))
        self.solves += 1
        exact = milp.solve_milp(problem, self.deadline, need)
        if exact is None:
            return None
        return Solved(exact[0], exact[1], exact[2])

    def _step(
        self, search: Search, calls: int, max_calls: int | None, need: int, goal: bool = False
    ) -> tuple[int | None, bool]:
        """One search step with ``calls`` more work (at most ``max_calls``): its score (None: no
        move reaches ``need``) and whether it ran out of work first. Raises OutOfTime when the
        deadline has passed."""
        search.max_calls = search.calls + _capped(calls, max_calls)
        try:
            return search.solve(need, goal=goal), False
        except OutOfTime:
            self.check_deadline()
            return None, True

    def _arranged(self, counts: list[list[int]], jokers: int, calls: int) -> tuple[Laid | None, int]:
        """The tiles ``counts[c][v]`` and ``jokers`` jokers all laid, found within ``calls``
        search calls (None: they cannot be, or the calls ran out first), and the calls it
        took. Raises OutOfTime when the deadline has passed."""
        try:
            sets, used = arranged(counts, jokers, self.deadline, calls)
        except OutOfTime:
            self.check_deadline()
            return None, calls
        if sets is None:
            return None, used
        return Laid(sets), used

    def _bound(self, problem: Problem, primary_most: int | None = None) -> milp.Bound | None:
        self.solves += 1
        return milp.linear_bound(problem, primary_most)

    def check_deadline(self) -> None:
        if time.perf_counter() > self.deadline:
            raise OutOfTime


def _likely_hard(problem: Problem) -> bool:
    """Whether step 1 would most likely run out of work, so that the problem starts with the
    linear bound: two jokers or more among fewer than ``_HARD_TILES`` tiles (rack and pool).
    Jokers that may stand anywhere weaken the search's bound: step 1 ran out of work on 63 of
    100 such problems of the hard bench (48 of 478 others) and on 100 of 154 of generated
    games (free-joker, sabra, xp; 99 of 1,424 others), about 11 ms lost each time; with 80
    tiles or more, on 19 of 80 (more sets for the jokers to fit in)."""
    if problem.jokers < _HARD_JOKERS:
        return False
    tiles = sum(map(sum, problem.required)) + sum(map(sum, problem.optional)) + problem.jokers
    return tiles < _HARD_TILES


def _capped(calls: int, max_calls: int | None) -> int:
    return calls if max_calls is None else min(calls, max_calls)


def _searched(search: Search, score: int | None) -> Solved | None:
    if score is None:
        return None
    builder = Builder(search)
    builder.build()
    return Solved(score, builder, True)


def _exact(solution: tuple[int, Laid], need: int) -> Solved | None:
    """The relaxation's integral solution, the optimum: solved if it reaches ``need``."""
    score, laid = solution
    return Solved(score, laid, True) if score >= need else None


def _laying_all(problem: Problem, goal: int) -> list[tuple[int, list[list[int]], int]]:
    """The moves of ``problem`` laying every tile, or every tile but one, that reach the bound
    ``goal`` (each as its score, the numbered tiles it lays per colour and number, and its
    jokers), when a move's score does not depend on where its jokers stand (none, or their
    points weigh nothing); else none."""
    if problem.jokers and problem.joker_weight:
        return []
    tw, vw = problem.tile_weight, problem.value_weight
    counts = [
        [r + o for r, o in zip(rc, oc, strict=True)] for rc, oc in zip(problem.required, problem.optional, strict=True)
    ]
    played = [(c, v) for c, row in enumerate(problem.optional) for v, n in enumerate(row) if n]
    everything = sum(problem.optional[c][v] * (tw + vw * v) for c, v in played) + problem.jokers * tw
    if goal >= everything:
        return [(everything, counts, problem.jokers)]
    ways = []
    for c, v in played:
        if everything - (tw + vw * v) == goal:
            fewer = [row[:] for row in counts]
            fewer[c][v] -= 1
            ways.append((goal, fewer, problem.jokers))
    if problem.jokers > problem.jokers_required and everything - tw == goal:
        ways.append((goal, counts, problem.jokers - 1))
    return ways


def _floor(bound: float) -> int:
    """The integer part of a bound computed in floating point (scores are integers)."""
    return math.floor(bound + 1e-6)

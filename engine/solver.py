"""The solver (SPEC §9): arrange a multiset of tiles into valid sets, and suggest the best move.

Method
------
Both questions are answered by one exact dynamic programme over the numbers 1..13, after
van Rijn, Takes & Vis, "The Complexity of Rummikub Problems" (2015). The tiles of one number
are decided colour by colour, then the groups of that number are formed:

* the state of a colour is how many runs are in progress, by length class: 1, 2, ≥3 tiles,
  and ≥3 tiles holding a *block* (a table set kept whole, see below). Copies of a tile are
  interchangeable, so counts are enough;
* at number ``v`` each tile ``(colour, v)`` extends a run in progress, starts a new run or goes
  to a group of ``v``. Every run of length 1 or 2 must be extended (a run of 1–2 tiles is not a
  set); a run of ≥3 tiles may end;
* a joker may extend a run (it stands for ``(colour, v)``), precede the first tile of a new run
  (it stands for a lower number of that colour) or fill a group. Runs are only started by a
  numbered tile and groups hold at least one, so no set is made of jokers alone;
* the groups of ``v`` are feasible from the count of tiles per colour sent to them and the
  number of jokers: with ``G`` groups the tiles are dealt round robin (every group gets each
  colour at most once, sizes differ by at most one) and jokers fill each group to 3 or 4.

The state (number, colour, run counts, group tiles so far, jokers left, one extra counter) is
memoised, so the search is exact and polynomial in the tile counts. On top of it runs a
branch and bound: a stage is abandoned when even placing every optional tile left (and every
joker at 13) cannot beat the best score found; memo entries are exact results or upper
bounds. ``arrange`` stops at the first complete arrangement (moves without jokers first);
``suggest`` maximises its score. Two dominance rules prune safely: a run may not start where
a run of ≥3 of that colour ends (extending it does at least as well), and runs of 1–2 tiles
must be completable by the tiles (or jokers) of the next numbers.

``arrange`` additionally tracks *room*: how many spare jokers the sets already closed could
absorb (a run that ended at ``n < 13`` can take one at ``n + 1``; a group of three one more).
Spare jokers are then placed at the end instead of being searched for.

Suggest: the moves considered
-----------------------------
* Opening turn (``opened`` false) without manipulation: new sets from the rack only, worth at
  least ``initial_meld_min`` (a joker is worth the tile it stands for); the table untouched.
* Opening turn with ``manipulate_on_opening_turn``: the best move whose sets made only of
  played tiles reach the minimum (the best move ignoring the minimum if its own sets reach
  it, else every minimal meld plus the best move with the rest of the rack). Sets holding a
  joker only grow (no joker may be freed before opening).
* Opened: every table set without a joker may be taken apart and rebuilt with rack tiles.
  A table set holding a joker is a *block* read by its best reading: its jokers keep standing
  for the same tiles and it keeps its tiles, growing only — a run at either end (numbered
  tiles or jokers, from the rack or the table), a group by a missing colour or a joker.
  Blocks never merge with each other. Then *variants* of the joker sets are tried, each as a
  block of its own:

  - trimmed (unless ``joker_sets_locked``): numbered tiles taken from the ends of a run or
    out of a group, the jokers staying in place, the set keeping at least 3 tiles and enough
    numbered tiles to stay its own successor (SPEC §4) whatever the others become;
  - a joker freed by the exact tile it stands for (a missing colour for a group joker; both
    under ``group_joker_needs_both_colours`` in a group of three), taken from the rack or, if
    ``joker_replacement_from`` allows, from a plain table set; the freed joker must be used
    somewhere. Only when ``freed_joker_use`` is ``any_set`` (the two-rack-tiles rule of
    Pressman 2009 is not modelled, so jokers are never freed under it).

  Every combination of variants is a pass of its own, simplest first, each looking only for
  a better move than the best so far. The combinations changing the same joker sets are
  bounded together by a *relaxed* problem (those sets taken apart, their jokers anywhere;
  its work capped by search steps, not time, so answers are reproducible): none is tried
  when it cannot beat the best move, and when its own move is legal it is taken instead.
* Under ``joker_release: free`` (sets not locked, freed jokers usable anywhere) joker sets
  are taken apart like the others. The best move with every set taken apart is searched
  first, then a move keeping every set whole is looked for at that score only (cheap: its
  search is cut by the bound); the whole move wins a tie as always. With no joker on the
  rack no joker is played, so where the table's jokers stand adds nothing to the move's
  value: the search then scores a table joker as a tile only, instead of also maximising
  the numbers the jokers stand for (which multiplied the states to explore).
* Among moves of equal score the one keeping every table set whole (only extended) wins, so
  the suggested table changes as little as possible; unchanged sets keep their tiles' order.

Not modelled (``optimal_proven`` is relative to the moves above): taking a tile out of the
middle of a joker run (splitting it), moving a joker within its set or to another set except
by its exact tile, freeing jokers under ``new_set_with_two_rack_tiles``, and the readings of
an ambiguous joker set other than its best one. Known gap: outside ``joker_release: free``
the score also counts the numbers that table jokers stand for, so with ``objective="value"``
and a joker on an opened table the answer is legal but reported with ``optimal_proven=False``.

Every move returned is checked with ``verify_turn`` under the same rules; a move that failed
would be skipped for the next best (``optimal_proven`` then false), and playing nothing is
always legal. The score is lexicographic: ``objective="tiles"`` maximises the number of rack
tiles played, then their value; ``objective="value"`` the value, then the number of tiles.

Every search runs under a time budget checked inside the search. When it runs out,
``arrange`` answers ``arrangeable=None``; ``suggest`` returns the best legal move found so
far, with ``optimal_proven=False`` and ``budget_exhausted=True``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.rules import SABRA, Rules
from engine.sets import RUN, TableSet, read_set
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, numbered, tiles_of_keys, tiles_without
from engine.turns import verify_turn

__all__ = ["OBJECTIVES", "ArrangeResult", "Suggestion", "arrange", "suggest"]

OBJECTIVES: tuple[str, ...] = ("tiles", "value")
"""What ``suggest`` maximises: rack tiles played, or their points."""

_NCOL = len(COLORS)
_LAST = MAX_NUMBER
_END = MAX_NUMBER + 1  # the number after the last: the terminal stage
_GROUP_STAGE = _NCOL  # stage index of "form the groups" after the colours of a number
_MAX_GROUP = _NCOL
_MAX_RUN = MAX_NUMBER - MIN_NUMBER + 1
_PRIMARY = 100_000  # weight of the primary objective in the lexicographic score
_CHECK_EVERY = 511  # search calls between two clock readings (a power of two minus one)
_COLOUR_INDEX = {c: i for i, c in enumerate(COLORS)}
_NO_JOKERS, _SOME_JOKERS, _ANY_JOKERS = 0, 1, 2  # tiers of colour moves by jokers spent
_FAIL = -(10**15)  # score of "no solution"; far below any sum of real scores
_RELAXED_CALLS = 20_000  # work allowed to the relaxed bound of suggest (search calls)


# --- public results ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArrangeResult:
    """Whether a multiset of tiles splits into valid sets, every tile used.

    ``arrangeable`` is None (and ``sets`` None) when the time budget ran out before the
    answer was known; ``sets`` is one arrangement when ``arrangeable`` is True.
    ``optimal_proven`` is True when the answer is exact.
    """

    arrangeable: bool | None
    sets: tuple[tuple[Tile, ...], ...] | None
    optimal_proven: bool
    budget_exhausted: bool


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A suggested move: the table after it, the rack tiles played and their value (a joker
    is worth the tile it stands for). ``optimal_proven`` is True when no better move exists
    among the moves the solver considers (see the module docstring)."""

    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    value: int
    optimal_proven: bool
    budget_exhausted: bool


class _OutOfTime(Exception):
    """Raised inside a search when its time budget is spent."""


# --- the problem given to the search -------------------------------------------------


@dataclass(frozen=True, slots=True)
class _RunBlock:
    """A table run kept as a block: ``tiles`` ascending from ``start`` to ``end`` (jokers
    declared); ``original`` is how it is laid when nothing is added to it."""

    index: int
    colour: int
    start: int
    end: int
    tiles: tuple[Tile, ...]
    original: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class _GroupBlock:
    """A table group kept whole: it may take tiles of the colours in ``allowed`` and jokers,
    up to four tiles in all."""

    index: int
    number: int
    size: int
    allowed: frozenset[int]
    tiles: tuple[Tile, ...]
    original: tuple[Tile, ...]


@dataclass(slots=True)
class _Problem:
    """What one search solves.

    ``required[c][v]`` tiles of colour ``c`` and number ``v`` must be placed (table tiles, or
    every tile for ``arrange``); up to ``optional[c][v]`` more may be (rack tiles). Likewise
    ``jokers`` jokers are available of which ``jokers_required`` must be placed.
    ``meld_min`` > 0 asks that the placed tiles be worth at least that much (opening).
    """

    required: list[list[int]]
    optional: list[list[int]]
    jokers: int
    jokers_required: int
    run_blocks: list[_RunBlock] = field(default_factory=list)
    group_blocks: list[_GroupBlock] = field(default_factory=list)
    meld_min: int = 0
    feasibility_only: bool = False
    uncounted: int = 0  # score of played tiles placed outside the search (joker replacements)
    tile_weight: int = _PRIMARY
    value_weight: int = 1
    joker_value_weight: int | None = None  # weight of a joker's point; None: ``value_weight``

    @property
    def joker_weight(self) -> int:
        return self.value_weight if self.joker_value_weight is None else self.joker_value_weight


def _empty_counts() -> list[list[int]]:
    return [[0] * (_END + 1) for _ in range(_NCOL)]


class _ColourMove(NamedTuple):
    """The decision for one colour at one number (see ``_colour_moves``)."""

    attach: tuple[tuple[str, int], ...]  # per block starting here: ("new", leading jokers) or ("join", class)
    used: int  # numbered tiles of (colour, number) placed
    extend3: int  # runs of ≥3 tiles (without a block) extended
    extend_block: int  # runs holding a block extended
    joker_extend: int  # of the extended runs, how many get a joker
    starts: tuple[int, ...]  # new runs, each with its number of leading jokers
    to_groups: int  # numbered tiles sent to the groups of this number


class _GroupMove(NamedTuple):
    """The decision for the groups of one number."""

    absorb: tuple[tuple[tuple[int, ...], int], ...]  # per group block: colours added, jokers added
    jokers: int  # jokers in new groups
    groups: int  # number of new groups


_DONE = _GroupMove((), 0, 0)
"""Decision stored for terminal and hopeless stages: nothing follows."""


class _Option(NamedTuple):
    """A colour move with its effect: the colour's new run counts, jokers spent, tiles sent to
    the groups, score, and the change of the extra counter (room or meld value)."""

    new: tuple[int, int, int, int]
    jokers: int
    to_groups: int
    score: int
    extra: int
    move: _ColourMove


class _GroupOption(NamedTuple):
    """A group move with its jokers spent, score and change of the extra counter."""

    jokers: int
    score: int
    extra: int
    move: _GroupMove


_State = tuple[int, ...]
_Key = tuple[int, int, _State, tuple[int, ...], int, int]


# --- group feasibility ----------------------------------------------------------------


_GROUP_TABLE: dict[tuple[int, ...], dict[int, int]] = {}


def _group_jokers(counts: tuple[int, ...]) -> dict[int, int]:
    """For numbered tiles of one number, ``counts[c]`` of colour c, all to be placed in new
    groups: every joker count that works, mapped to the most groups possible with it.

    With G groups the tiles are dealt round robin (no colour twice in a group, sizes within one
    of each other), which needs the fewest jokers to bring every group to 3; each group holds
    at most 4 tiles and at least one numbered tile.
    """
    key = tuple(sorted(counts))
    cached = _GROUP_TABLE.get(key)
    if cached is not None:
        return cached
    total = sum(key)
    out: dict[int, int] = {}
    if total == 0:
        out[0] = 0
    for groups in range(max(max(key), 1), total + 1):
        low, extra = divmod(total, groups)
        if low > _MAX_GROUP or (low == _MAX_GROUP and extra):
            continue
        need = (groups - extra) * max(0, 3 - low) + extra * max(0, 2 - low)
        for jokers in range(need, _MAX_GROUP * groups - total + 1):
            out[jokers] = groups
    _GROUP_TABLE[key] = out
    return out


def _lead_points(jokers: int, v: int) -> int:
    """Points of ``jokers`` jokers laid just before number ``v`` in a run (v-1, v-2, ...)."""
    return jokers * v - jokers * (jokers + 1) // 2


# --- the search -----------------------------------------------------------------------


class _Search:
    """Exact memoised search over (number, colour) stages for one ``_Problem``."""

    def __init__(self, problem: _Problem, deadline: float, max_calls: int | None = None) -> None:
        self.p = problem
        self.deadline = deadline
        self.calls = 0
        self.max_calls = max_calls  # a cap on the work, independent of the clock
        # key -> (score, decision, next key): an exact best with its decision; (bound, None,
        # key) an upper bound only; (_FAIL, _DONE, key) no solution (or the terminal's value)
        self.memo: dict[_Key, tuple[int, _ColourMove | _GroupMove | None, _Key]] = {}
        self.colour_cache: dict[tuple[int, ...], tuple[_Option, ...]] = {}
        self.group_cache: dict[tuple[int, tuple[int, ...], int], tuple[_GroupOption, ...]] = {}
        self.starts_at: dict[tuple[int, int], tuple[_RunBlock, ...]] = {}
        self.ends_at: Counter[tuple[int, int]] = Counter()
        for b in problem.run_blocks:
            self.starts_at[(b.colour, b.start)] = (*self.starts_at.get((b.colour, b.start), ()), b)
            self.ends_at[(b.colour, b.end)] += 1
        # tiles of (colour, number) that may be placed; 0 beyond 13 so runs cannot pass it
        self.available = [
            [r + o for r, o in zip(problem.required[c], problem.optional[c], strict=True)] + [0, 0]
            for c in range(_NCOL)
        ]
        for c in range(_NCOL):
            self.available[c][_END] = 0
        self.block_starts = [[len(self.starts_at.get((c, v), ())) for v in range(_END + 2)] for c in range(_NCOL)]
        # tiles of the number that colours c.. may still send to its groups
        self.group_supply = [
            [sum(self.available[k][v] for k in range(c, _NCOL)) for c in range(_NCOL + 1)] for v in range(_END + 1)
        ]
        self.groups_at: dict[int, tuple[_GroupBlock, ...]] = {}
        for g in problem.group_blocks:
            self.groups_at[g.number] = (*self.groups_at.get(g.number, ()), g)
        # "extra" counter: room for spare jokers (arrange) or meld value (opening), capped
        self.extra_cap = problem.jokers if problem.feasibility_only else problem.meld_min
        # optimistic bounds: the score of every optional tile from stage (v, c) on, and of a joker
        tw, vw = problem.tile_weight, problem.value_weight
        self.joker_bound = 0 if problem.feasibility_only else tw + problem.joker_weight * _LAST
        self.rack_left = [[0] * (_NCOL + 1) for _ in range(_END + 1)]
        running = 0
        for v in range(_LAST, MIN_NUMBER - 1, -1):
            self.rack_left[v][_GROUP_STAGE] = running
            for c in range(_NCOL - 1, -1, -1):
                if not problem.feasibility_only:
                    running += problem.optional[c][v] * (tw + vw * v)
                self.rack_left[v][c] = running

    def root(self) -> _Key:
        return (MIN_NUMBER, 0, (0,) * (4 * _NCOL), (), self.p.jokers, 0)

    def solve(self, floor: int = 0) -> int | None:
        """The best score from the start if it is at least ``floor``, else None (also when
        nothing works). Raises _OutOfTime."""
        value = self.best(self.root(), floor)
        return value if value >= floor else None

    def best(self, key: _Key, need: int) -> int:
        """Branch and bound over the memoised stages. Returns the exact best score from
        ``key`` when it is at least ``need``; otherwise an upper bound below ``need``
        (``_FAIL`` when nothing works). Exact results are memoised with their decision,
        bounds without."""
        memo = self.memo
        hit = memo.get(key)
        if hit is not None and (hit[1] is not None or hit[0] < need):
            return hit[0]
        v, c, state, groups, jokers, extra = key
        if v == _END:
            value = self._terminal(state, jokers, extra)
            memo[key] = (value, _DONE, key)
            return value
        bound = self.rack_left[v][c] + jokers * self.joker_bound
        if bound < need:
            return bound
        self.calls += 1
        if not self.calls & _CHECK_EVERY and (
            time.perf_counter() > self.deadline or (self.max_calls is not None and self.calls > self.max_calls)
        ):
            raise _OutOfTime
        best = upper = _FAIL
        bar = need  # a move must reach this: ``need``, then one more than the best so far
        choice: _ColourMove | _GroupMove | None = None
        after = key
        first = self.p.feasibility_only
        cap = self.extra_cap
        if c < _GROUP_STAGE:
            i = 4 * c
            sent = sum(groups)
            most = max(groups, default=0)  # each tile of one colour needs a group of its own
            group_blocks = self.groups_at.get(v)
            later = self.group_supply[v][c + 1] + jokers
            head, tail = state[:i], state[i + 4 :]
            # arrange tries the moves without jokers first and builds the others only if needed
            for tier in (_NO_JOKERS, _SOME_JOKERS) if first and jokers else (_ANY_JOKERS,):
                options = self._colour_options(v, c, state[i], state[i + 1], state[i + 2], state[i + 3], jokers, tier)
                for new, spent, to_groups, score, more, move in options:
                    grouped = sent + to_groups
                    if grouped and not group_blocks and grouped + later - spent < 3 * max(most, to_groups):
                        continue  # too few tiles left for the groups of this number
                    x = extra + more
                    nxt = (v, c + 1, head + new + tail, (*groups, to_groups), jokers - spent, x if x < cap else cap)
                    target = bar - score
                    sub = self.best(nxt, target)
                    if sub >= target:
                        best, choice, after = sub + score, move, nxt
                        bar = best + 1
                        if first:
                            break
                    elif sub + score > upper:
                        upper = sub + score
                if first and choice is not None:
                    break
        else:
            for spent, score, more, group_move in self._group_options(v, groups, jokers):
                x = extra + more
                nxt = (v + 1, 0, state, (), jokers - spent, x if x < cap else cap)
                target = bar - score
                sub = self.best(nxt, target)
                if sub >= target:
                    best, choice, after = sub + score, group_move, nxt
                    bar = best + 1
                    if first:
                        break
                elif sub + score > upper:
                    upper = sub + score
        if choice is not None:
            memo[key] = (best, choice, after)
            return best
        upper = max(upper, _FAIL)
        memo[key] = (upper, None if upper > _FAIL else _DONE, key)
        return upper

    def _terminal(self, state: _State, jokers: int, extra: int) -> int:
        """After 13: no short run may be left open; the joker and meld demands must be met."""
        for c in range(_NCOL):
            if state[4 * c] or state[4 * c + 1]:
                return _FAIL
        p = self.p
        if p.feasibility_only:
            return 0 if jokers <= extra else _FAIL
        if p.jokers - jokers < p.jokers_required or extra < p.meld_min:
            return _FAIL
        return 0

    def path(self) -> list[tuple[_Key, _ColourMove | _GroupMove]]:
        """The decisions of the best solution, stage by stage (after a successful solve)."""
        out: list[tuple[_Key, _ColourMove | _GroupMove]] = []
        key = self.root()
        while key[0] != _END:
            _, move, key_next = self.memo[key]
            assert move is not None and move is not _DONE
            out.append((key, move))
            key = key_next
        return out

    def leftover_jokers(self) -> int:
        """Jokers not placed by the best solution (arrange places them in the sets' room)."""
        key = self.root()
        while key[0] != _END:
            key = self.memo[key][2]
        return key[4]

    # --- the moves of one stage (shared, pure, cached) ---------------------------------

    def _colour_options(
        self, v: int, c: int, n1: int, n2: int, n3: int, nb: int, jokers: int, tier: int
    ) -> tuple[_Option, ...]:
        key = (v, c, n1, n2, n3, nb, jokers, tier)
        cached = self.colour_cache.get(key)
        if cached is None:
            p = self.p
            starting = self.block_starts[c]
            cached = _colour_moves(
                v,
                n1,
                n2,
                n3,
                nb,
                jokers,
                tier,
                p.required[c][v],
                p.optional[c][v],
                self.ends_at[(c, v)],
                starting[v],
                self.available[c][v + 1] + starting[v + 1],
                self.available[c][v + 2] + starting[v + 2] + starting[v + 1],
                p.feasibility_only,
                p.meld_min > 0,
                p.tile_weight,
                p.value_weight,
                p.joker_weight,
            )
            self.colour_cache[key] = cached
        return cached

    def _group_options(self, v: int, counts: tuple[int, ...], jokers: int) -> tuple[_GroupOption, ...]:
        key = (v, counts, jokers)
        cached = self.group_cache.get(key)
        if cached is None:
            p = self.p
            blocks = tuple((b.size, tuple(sorted(b.allowed))) for b in self.groups_at.get(v, ()))
            cached = _group_moves(
                v,
                counts,
                jokers,
                blocks,
                p.feasibility_only,
                p.meld_min > 0,
                p.tile_weight,
                p.value_weight,
                p.joker_weight,
            )
            self.group_cache[key] = cached
        return cached


@functools.lru_cache(maxsize=1 << 16)
def _colour_moves(
    v: int,
    n1: int,
    n2: int,
    n3: int,
    nb: int,
    jokers: int,
    tier: int,
    required: int,
    optional: int,
    ending: int,
    blocks: int,
    next1: int,
    next2: int,
    arrange: bool,
    meld: bool,
    tw: int,
    vw: int,
    jw: int,
) -> tuple[_Option, ...]:
    """Every way to place the tiles of one colour at number ``v``: ``required`` of them must
    be placed and up to ``optional`` more may be, given ``n1``/``n2``/``n3`` runs of length
    1/2/≥3 and ``nb`` runs holding a block in progress, ``jokers`` jokers left, ``blocks``
    blocks starting here and ``ending`` ending here; ``next1``/``next2`` tiles (or blocks)
    could extend runs at v+1 and v+2. ``tier`` keeps only the ways that spend no joker, some,
    or any. Scores weigh a tile ``tw``, a point ``vw`` and a joker's point ``jw``; ``arrange`` counts room for spare
    jokers in ``extra``, ``meld`` counts points.

    Runs of length 1–2 must all be extended; runs of ≥3 may be; a joker may take the place
    of a tile in any extension. New runs start with a numbered tile, optionally preceded by
    jokers. Blocks starting here start a run or join a run in progress."""
    found: dict[tuple[object, ...], _Option] = {}
    budget = 0 if tier == _NO_JOKERS else jokers  # jokers these ways may spend
    for attach, (a1, a2, a3), block_jokers, block_value in _attach_modes(blocks, v, n1, n2, n3, budget):
        m1, m2, m3 = n1 - a1, n2 - a2, n3 - a3
        left = budget - block_jokers
        for used in range(required, required + optional + 1):
            for e3 in range(m3 + 1):
                for eb in range(nb + 1):
                    extended = m1 + m2 + e3 + eb
                    ending_now = m3 - e3 + nb - eb
                    room = ending_now * (_END - v) if arrange else 0
                    for jx in range(max(0, extended - used), min(extended, left) + 1):
                        rest = used - (extended - jx)
                        for s in range(rest + 1):
                            for starts, start_jokers, start_value in _start_patterns(s, left - jx, v):
                                k0 = starts.count(0)
                                if k0 and ending_now:
                                    continue  # extending a run that ends here does at least as well
                                k1 = starts.count(1)
                                new = (k0, m1 + k1, m2 + e3 + s - k0 - k1, eb + ending)
                                spent = block_jokers + jx + start_jokers
                                if tier == _SOME_JOKERS and not spent:
                                    continue
                                spare = jokers - spent
                                if k0 + new[1] > next1 + spare * (v < _LAST) or k0 > next2 + spare * (v < _LAST - 1):
                                    continue  # short runs that cannot be completed
                                tiles = used - required + spent
                                joker_value = jx * v + start_value + block_value
                                value = (used - required) * v + joker_value
                                score = tiles * tw + (value - joker_value) * vw + joker_value * jw
                                extra = room if arrange else (value if meld else 0)
                                found_key = (new, spent, rest - s, extra)
                                old = found.get(found_key)
                                if old is None or (not arrange and score > old.score):
                                    move = _ColourMove(attach, used, e3, eb, jx, starts, rest - s)
                                    found[found_key] = _Option(new, spent, rest - s, score, extra, move)
    options = list(found.values())
    if arrange:
        options.sort(key=lambda o: (o.jokers, o.to_groups))
    return tuple(options)


def _attach_modes(
    blocks: int, v: int, n1: int, n2: int, n3: int, jokers: int
) -> Iterator[tuple[tuple[tuple[str, int], ...], tuple[int, int, int], int, int]]:
    """For ``blocks`` blocks starting at ``v``: each starts a run (with 0.. leading jokers)
    or joins a run in progress that holds no block. Yields (modes, runs taken per class,
    jokers spent, points of those jokers)."""
    if not blocks:
        yield (), (0, 0, 0), 0, 0
        return
    choices: list[tuple[str, int]] = [("new", k) for k in range(min(v - 1, jokers) + 1)]
    choices += [("join", 1), ("join", 2), ("join", 3)]
    for modes in itertools.product(choices, repeat=blocks):
        taken = [0, 0, 0]
        spent = points = 0
        for kind, n in modes:
            if kind == "join":
                taken[n - 1] += 1
            else:
                spent += n
                points += _lead_points(n, v)
        if taken[0] <= n1 and taken[1] <= n2 and taken[2] <= n3 and spent <= jokers:
            yield modes, (taken[0], taken[1], taken[2]), spent, points


@functools.lru_cache(maxsize=4096)
def _start_patterns(starts: int, jokers: int, v: int) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """Ways to start ``starts`` runs at ``v``: leading jokers per run (non-decreasing, so the
    fewest jokers come first), with the jokers spent and their points."""
    lead = min(jokers, v - 1)
    out = []
    for pattern in itertools.combinations_with_replacement(range(lead + 1), starts):
        spent = sum(pattern)
        if spent <= jokers:
            out.append((pattern, spent, sum(_lead_points(n, v) for n in pattern)))
    out.sort(key=lambda x: x[1])
    return tuple(out)


@functools.lru_cache(maxsize=1 << 15)
def _group_moves(
    v: int,
    counts: tuple[int, ...],
    jokers: int,
    blocks: tuple[tuple[int, tuple[int, ...]], ...],
    arrange: bool,
    meld: bool,
    tw: int,
    vw: int,
    jw: int,
) -> tuple[_GroupOption, ...]:
    """Every way to form the groups of ``v`` from ``counts[c]`` numbered tiles per colour
    and up to ``jokers`` jokers (a joker's point weighs ``jw``), including tiles added to the group ``blocks`` of ``v``
    (their sizes and the colours they may take)."""
    per_joker = tw + jw * v
    found: dict[tuple[int, int], _GroupOption] = {}
    for absorb, rest, block_jokers in _absorb_modes(blocks, counts, jokers):
        for gj, groups in _group_jokers(rest).items():
            spent = gj + block_jokers
            if spent > jokers:
                continue
            score = spent * per_joker
            room = _MAX_GROUP * groups - sum(rest) - gj
            extra = room if arrange else (spent * v if meld else 0)
            option = _GroupOption(spent, score, extra, _GroupMove(absorb, gj, groups))
            old = found.get((spent, extra))
            if old is None or (not arrange and score > old.score):
                found[(spent, extra)] = option
    options = list(found.values())
    options.sort(key=lambda o: (o.jokers, -o.extra))
    return tuple(options)


def _absorb_modes(
    blocks: tuple[tuple[int, tuple[int, ...]], ...], counts: tuple[int, ...], jokers: int
) -> Iterator[tuple[tuple[tuple[tuple[int, ...], int], ...], tuple[int, ...], int]]:
    """Ways for group blocks (size, colours they may take) to take tiles and jokers. Yields
    (per block: colours, jokers), the counts left for new groups, jokers spent."""
    if not blocks:
        yield (), counts, 0
        return
    size, allowed_colours = blocks[0]
    space = _MAX_GROUP - size
    allowed = [c for c in allowed_colours if counts[c] > 0]
    for k in range(min(space, len(allowed)) + 1):
        for colours in itertools.combinations(allowed, k):
            after = list(counts)
            for colour in colours:
                after[colour] -= 1
            for j in range(min(space - k, jokers) + 1):
                for rest_modes, rest, spent in _absorb_modes(blocks[1:], tuple(after), jokers - j):
                    yield ((colours, j), *rest_modes), rest, spent + j


# --- building the sets from a solution ------------------------------------------------


def _joker_as(colour: int, number: int) -> Tile:
    return Tile(None, 0, numbered(COLORS[colour], number))


class _Run:
    """A run being built: its numbers run from ``start``; ``block`` is set when it holds one."""

    __slots__ = ("block", "start", "tiles")

    def __init__(self, start: int) -> None:
        self.start = start
        self.tiles: list[Tile] = []
        self.block: _RunBlock | None = None

    @property
    def end(self) -> int:
        return self.start + len(self.tiles) - 1


class _Builder:
    """Replays the decisions of a solution and lays out the actual sets."""

    def __init__(self, search: _Search) -> None:
        self.s = search
        self.classes: list[list[list[_Run]]] = [[[], [], [], []] for _ in range(_NCOL)]
        self.in_flight: list[_Run] = []
        self.done_runs: list[_Run] = []
        self.groups: list[list[Tile]] = []
        self.group_blocks: dict[int, list[Tile]] = {}
        self.joker_values: list[int] = []  # the value of every pool joker placed
        self.to_groups: list[int] = []

    def build(self) -> None:
        for key, move in self.s.path():
            v, c = key[0], key[1]
            if isinstance(move, _ColourMove):
                self._colour(v, c, move)
            else:
                self._groups(v, move)
        for classes in self.classes:
            for runs in classes:
                self.done_runs.extend(runs)

    def _colour(self, v: int, c: int, move: _ColourMove) -> None:
        if c == 0:
            self.to_groups = []
        runs = self.classes[c]
        tile = numbered(COLORS[c], v)
        for block, (kind, n) in zip(self.s.starts_at.get((c, v), ()), move.attach, strict=True):
            if kind == "new":
                run = _Run(block.start - n)
                run.tiles = [_joker_as(c, x) for x in range(block.start - n, block.start)]
                self.joker_values.extend(range(block.start - n, block.start))
            else:
                run = runs[n - 1].pop()
            run.tiles.extend(block.tiles)
            run.block = block
            self.in_flight.append(run)
        extended = runs[0] + runs[1] + runs[2][: move.extend3] + runs[3][: move.extend_block]
        self.done_runs.extend(runs[2][move.extend3 :] + runs[3][move.extend_block :])
        for i, run in enumerate(extended):
            run.tiles.append(_joker_as(c, v) if i < move.joker_extend else tile)
        self.joker_values.extend([v] * move.joker_extend)
        new1: list[_Run] = []
        new2 = runs[0]
        new3 = runs[1] + runs[2][: move.extend3]
        newb = runs[3][: move.extend_block]
        for lead in move.starts:
            run = _Run(v - lead)
            run.tiles = [_joker_as(c, x) for x in range(v - lead, v)] + [tile]
            self.joker_values.extend(range(v - lead, v))
            (new1, new2, new3)[min(lead, 2)].append(run)
        for run in [r for r in self.in_flight if r.block is not None and r.block.colour == c and r.end == v]:
            self.in_flight.remove(run)
            newb.append(run)
        self.classes[c] = [new1, new2, new3, newb]
        self.to_groups.append(move.to_groups)

    def _groups(self, v: int, move: _GroupMove) -> None:
        counts = list(self.to_groups)
        for block, (colours, jokers) in zip(self.s.groups_at.get(v, ()), move.absorb, strict=True):
            added = [numbered(COLORS[c], v) for c in colours] + [JOKER] * jokers
            for c in colours:
                counts[c] -= 1
            self.group_blocks[block.index] = added
            self.joker_values.extend([v] * jokers)
        if not move.groups:
            return
        new: list[list[Tile]] = [[] for _ in range(move.groups)]
        dealt = 0
        for c in range(_NCOL):
            for _ in range(counts[c]):
                new[dealt % move.groups].append(numbered(COLORS[c], v))
                dealt += 1
        jokers = move.jokers
        for limit in (3, _MAX_GROUP):
            for group in new:
                while jokers and len(group) < limit:
                    group.append(JOKER)
                    jokers -= 1
        self.joker_values.extend([v] * move.jokers)
        self.groups.extend(new)

    def place_spare_jokers(self, count: int) -> None:
        """Put ``count`` jokers where there is room (arrange's spare jokers)."""
        for run in self.done_runs:
            while count and len(run.tiles) < _LAST:
                colour = _COLOUR_INDEX[_run_colour(run.tiles)]
                if run.end < _LAST:
                    run.tiles.append(_joker_as(colour, run.end + 1))
                else:
                    run.start -= 1
                    run.tiles.insert(0, _joker_as(colour, run.start))
                count -= 1
        for group in self.groups:
            if count and len(group) < _MAX_GROUP:
                group.append(JOKER)
                count -= 1
        assert count == 0, "the room counted for spare jokers was not there"

    def plain_sets(self) -> list[tuple[Tile, ...]]:
        """Runs and new groups that hold no block."""
        return [tuple(r.tiles) for r in self.done_runs if r.block is None] + [tuple(g) for g in self.groups]


def _run_colour(tiles: Sequence[Tile]) -> str:
    for t in tiles:
        if t.color is not None:
            return t.color
        if t.declared is not None and t.declared.color is not None:
            return t.declared.color
    raise AssertionError("a run without a colour")


# --- arrange ----------------------------------------------------------------------------


def arrange(tiles: Sequence[Tile], rules: Rules = SABRA, budget_seconds: float = 2.0) -> ArrangeResult:
    """Can ``tiles`` (a multiset; jokers are interchangeable and their declarations ignored)
    be split into valid sets, every tile used? Exact; returns one arrangement when it can,
    runs ascending with every joker declared, groups in colour order with jokers last."""
    del rules  # set validity does not depend on the settings; output runs are laid ascending
    deadline = time.perf_counter() + budget_seconds
    required = _empty_counts()
    jokers = 0
    for t in tiles:
        if t.color is None:
            jokers += 1
        else:
            required[_COLOUR_INDEX[t.color]][t.number] += 1
    if not tiles:
        return ArrangeResult(True, (), True, False)
    problem = _Problem(required, _empty_counts(), jokers, jokers, feasibility_only=True)
    search = _Search(problem, deadline)
    try:
        result = search.solve()
    except _OutOfTime:
        return ArrangeResult(None, None, False, True)
    if result is None:
        return ArrangeResult(False, None, True, False)
    builder = _Builder(search)
    builder.build()
    builder.place_spare_jokers(search.leftover_jokers())
    return ArrangeResult(True, tuple(builder.plain_sets()), True, False)


# --- suggest ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    """A solved pass of ``suggest``: the table after the move, the tiles played, their value
    and the lexicographic score of the objective."""

    score: int
    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    value: int
    whole: bool = False  # every table set kept whole (only extended)


_Blocks = dict[int, _RunBlock | _GroupBlock]


@dataclass(frozen=True, slots=True)
class _Variant:
    """How a table set holding a joker takes part in a move: kept as ``tiles`` (whole, trimmed,
    or with jokers replaced by their exact tiles), giving ``released`` numbered tiles to the
    pool, taking replacing tiles from the rack or from the pool, and freeing ``freed`` jokers
    into the pool (where they must be used)."""

    tiles: tuple[Tile, ...]
    released: tuple[Tile, ...] = ()
    from_rack: tuple[Tile, ...] = ()
    from_pool: tuple[Tile, ...] = ()
    freed: int = 0

    @property
    def whole(self) -> bool:
        return not (self.released or self.from_rack or self.from_pool or self.freed)


_VariantPass = tuple[dict[int, _Variant], list[Tile], tuple[tuple[Tile, ...], ...]]
"""A pass over joker-set variants: the variants, the rack to play from, sets laid beforehand."""


def suggest(
    table: Sequence[Sequence[Tile] | TableSet],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules = SABRA,
    objective: str = "tiles",
    budget_seconds: float = 2.0,
) -> Suggestion:
    """The move playing the most rack tiles (``objective="tiles"``) or points (``"value"``)
    such that every table tile and every played tile ends in a valid set, respecting the
    opening and joker rules (see the module docstring for the moves considered).

    When nothing can be played, ``played`` is empty and ``after`` is the table.
    Raises ValueError for an unknown objective or a table set that is not valid."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    deadline = time.perf_counter() + budget_seconds
    sets = [s.tiles if isinstance(s, TableSet) else tuple(s) for s in table]
    kinds = [s.kind if isinstance(s, TableSet) else None for s in table]
    return _Suggester(sets, kinds, tuple(rack), opened, rules, objective, deadline).run()


class _Suggester:
    """The passes of ``suggest`` and the assembly of their answers."""

    def __init__(
        self,
        table: list[tuple[Tile, ...]],
        kinds: list[str | None],
        rack: tuple[Tile, ...],
        opened: bool,
        rules: Rules,
        objective: str,
        deadline: float,
    ) -> None:
        self.table = tuple(table)
        self.rack = rack
        self.opened = opened
        self.rules = rules
        self.deadline = deadline
        self.by_tiles = objective == "tiles"
        self.tile_weight, self.value_weight = (_PRIMARY, 1) if self.by_tiles else (1, _PRIMARY)
        self.readings = []
        for i, (tiles, kind) in enumerate(zip(table, kinds, strict=True)):
            reading = read_set(tiles, rules, kind)
            if not reading.valid:
                raise ValueError(f"table set {i} is not a valid set ({reading.code})")
            self.readings.append(reading)
        self.kinds = kinds
        self.plain = {i for i, s in enumerate(self.table) if all(t.color is not None for t in s)}
        self.exhausted = False  # the time budget ran out: the answer is not proven optimal
        self.gave_up = False  # a pass used up the work it was allowed
        self.candidates: list[_Outcome] = []  # every move found by a pass
        self.verdicts: dict[int, tuple[_Outcome, bool]] = {}  # id of a move -> it, whether it is a legal turn

    # --- passes -----------------------------------------------------------------------

    def run(self) -> Suggestion:
        if self.rack:
            if not self.opened and not self.rules.manipulate_on_opening_turn:
                self._pass(self._opening_problem(), untouched=True)
            elif not self.opened:
                self._opening_with_manipulation()
            else:
                self._opened()
        return self._answer()

    def _opened(self) -> None:
        """Best over: every table set kept whole (only extended); plain sets taken apart with
        joker sets kept whole; then, while the bound allows better, every variant of the joker
        sets (trimmed, or jokers freed by their exact tile). Each pass only looks for moves
        better than the best so far (ties keep the table whole). Under a free joker release
        all sets are taken apart."""
        if self._free_release():
            self._free_passes()
            return
        self._pass(self._problem(dissolve=set()), whole=True)
        self._pass(self._problem(dissolve=self.plain), floor=self._best_score() + 1)
        passes: list[_VariantPass] = [(c, list(self.rack), ()) for c in self._variant_combos() or ()]
        passes += self._two_tile_frees()
        by_support: dict[frozenset[int], list[_VariantPass]] = {}
        for variant_pass in passes:
            by_support.setdefault(frozenset(variant_pass[0]), []).append(variant_pass)
        for support in sorted(by_support, key=lambda sets: (len(sets), sorted(sets))):
            if self.exhausted or self._best_score() >= self._ceiling():
                return
            self._variant_passes(support, by_support[support])

    def _free_passes(self) -> None:
        """Under a free joker release: the best move with every set taken apart, then the best
        move keeping every set whole, looked for only at that score (its search is cut short
        by the bound). The answer is as if the whole pass came first: the whole move wins a
        tie; and when the best move is not legal, the whole pass is redone without a floor
        so that its best move is the fallback."""
        full = self._pass(self._problem(dissolve=set(range(len(self.table)))), candidate=False)
        if full is None:
            self._pass(self._problem(dissolve=set()), whole=True)
            return
        whole = self._pass(self._problem(dissolve=set()), whole=True, floor=full.score)
        if whole is not None and whole.score >= full.score:
            return
        self.candidates.append(full)
        if whole is None and not self._legal(full):
            self._pass(self._problem(dissolve=set()), whole=True)

    def _relaxed(self, support: frozenset[int], max_calls: int) -> list[_Outcome] | None:
        """The relaxed problem of the joker sets in ``support`` (taken apart, their jokers
        anywhere) looking for a move better than the best so far: [] when there is none,
        [move] when there is, None when its work ran out first."""
        self.gave_up = False
        relaxed = self._pass(
            self._problem(dissolve=self.plain | support),
            floor=self._best_score() + 1,
            candidate=False,
            max_calls=max_calls,
        )
        if relaxed is None:
            return None if self.gave_up or self.exhausted else []
        return [relaxed]

    def _variant_passes(self, support: frozenset[int], passes: list[_VariantPass]) -> None:
        """The passes changing exactly the joker sets in ``support``. Any of them rebuilds the
        tiles of those sets somehow, with their jokers anywhere: that relaxed problem bounds
        them all (its work is capped, it may cost more than it saves). When it cannot beat
        the best move, none can; when its own move is legal, it is the best of them."""
        found = self._relaxed(support, _RELAXED_CALLS)
        if self.exhausted or found == []:
            return
        if found and self._legal(found[0]):
            self.candidates.append(found[0])
            return
        bound = found[0].score if found else self._ceiling()
        for variants, rack, fixed in passes:
            if self.exhausted or self._best_score() >= bound:
                return
            self._pass(
                self._problem(dissolve=self.plain, rack=rack, variants=variants),
                fixed=fixed,
                floor=self._best_score() + 1,
            )

    def _two_tile_frees(self) -> list[_VariantPass]:
        """Under ``freed_joker_use: new_set_with_two_rack_tiles``: one joker freed by its exact
        tile from the rack and laid in a new set with at least two rack tiles. Yields the
        variant, the rack left for the rest of the move, and that new set, for every way."""
        out: list[_VariantPass] = []
        if self.rules.freed_joker_use != "new_set_with_two_rack_tiles" or self.rules.joker_release != "replace":
            return out
        for i in range(len(self.table)):
            reading = self.readings[i].best
            if i in self.plain or reading is None:
                continue
            for variant in self._replacements(reading.tiles, reading.joker_options, reading.kind == RUN, 1):
                rest = tiles_without(self.rack, variant.from_rack)
                for new_set, _ in _sets_from([*rest, JOKER]):
                    rack_tiles = tiles_without(new_set, [JOKER])
                    if len(rack_tiles) < len(new_set) and len(rack_tiles) >= 2:
                        kept = dataclasses.replace(variant, freed=0)
                        out.append(({i: kept}, tiles_without(self.rack, rack_tiles), (new_set,)))
        return out

    def _value_tie_break_unproven(self) -> bool:
        """Known gap: outside a free joker release the search also scores the numbers that the
        table's jokers stand for, so with ``objective="value"`` and a joker on an opened table
        the move found may not be the one playing the most points. It is still legal; it is
        just not claimed optimal."""
        has_table_joker = any(t.color is None for s in self.table for t in s)
        return not self.by_tiles and self.opened and has_table_joker and not self._free_release()

    def _free_release(self) -> bool:
        r = self.rules
        return r.joker_release == "free" and not r.joker_sets_locked and r.freed_joker_use == "any_set"

    def _best_score(self) -> int:
        return max((o.score for o in self.candidates), default=0)

    def _ceiling(self) -> int:
        """No move scores more than playing the whole rack with every joker worth 13."""
        points = sum(t.number if t.color is not None else _LAST for t in self.rack)
        return len(self.rack) * self.tile_weight + points * self.value_weight

    def _opening_with_manipulation(self) -> None:
        """Opening when manipulation is allowed: the sets made only of played tiles must reach
        the minimum. Tries the plain opening; then the best move ignoring the minimum, kept if
        its sets made only of played tiles reach it; else every minimal meld plus the best
        move with the rest of the rack. Jokers on the table are never freed before opening."""
        self._pass(self._opening_problem(), untouched=True)
        bound = self._pass(self._problem(dissolve=self.plain), candidate=False)
        if bound is None or self.exhausted or self._best_score() >= bound.score:
            return
        if self._meld_value(bound) >= self.rules.initial_meld_min:
            self.candidates.append(bound)
            return
        for meld in _minimal_melds(self.rack, self.rules.initial_meld_min):
            if time.perf_counter() > self.deadline:
                self.exhausted = True
                return
            rest = tiles_without(self.rack, [t for s in meld for t in s])
            self._pass(self._problem(dissolve=self.plain, rack=rest), fixed=meld, floor=self._best_score() + 1)
            if self._best_score() >= bound.score:
                return

    def _pass(
        self,
        problem: tuple[_Problem, _Blocks],
        untouched: bool = False,
        whole: bool = False,
        fixed: Sequence[tuple[Tile, ...]] = (),
        floor: int | None = None,
        candidate: bool = True,
        max_calls: int | None = None,
    ) -> _Outcome | None:
        """Solve one problem and lay out its move; None when it has no solution, none scoring
        at least ``floor`` (a move's score, not the search's), or the time ran out (then
        ``self.exhausted`` is set) or the pass used up its ``max_calls`` (then ``self.gave_up``
        is set: a cap on work rather than time keeps answers reproducible). ``untouched``:
        the table is not part of the problem and stays as it is. The move is recorded as a
        candidate answer unless ``candidate`` is false."""
        search = _Search(problem[0], self.deadline, max_calls)
        # the search also scores the jokers that must be placed (the table's): each is a tile
        # and stands for at least 1, and the move's value counts its jokers' best points only
        offset = problem[0].jokers_required * (problem[0].tile_weight + problem[0].joker_weight)
        try:
            # a move scores at most the search's score plus the tiles the search does not count
            score = search.solve(0 if floor is None else floor - problem[0].uncounted + offset)
        except _OutOfTime:
            if time.perf_counter() > self.deadline:
                self.exhausted = True
            else:
                self.gave_up = True
            return None
        if score is None:
            return None
        builder = _Builder(search)
        builder.build()
        outcome = self._outcome(builder, problem[1], untouched, whole, fixed)
        if candidate:
            self.candidates.append(outcome)
        return outcome

    # --- problems -----------------------------------------------------------------------

    def _opening_problem(self) -> tuple[_Problem, _Blocks]:
        """New sets from the rack only, worth at least the opening minimum."""
        optional = _empty_counts()
        for t in self.rack:
            if t.color is not None:
                optional[_COLOUR_INDEX[t.color]][t.number] += 1
        jokers = sum(1 for t in self.rack if t.color is None)
        problem = _Problem(
            _empty_counts(),
            optional,
            jokers,
            0,
            meld_min=max(1, self.rules.initial_meld_min),
            tile_weight=self.tile_weight,
            value_weight=self.value_weight,
        )
        return problem, {}

    def _problem(
        self,
        dissolve: set[int],
        rack: Sequence[Tile] | None = None,
        variants: dict[int, _Variant] | None = None,
    ) -> tuple[_Problem, _Blocks]:
        """Table sets in ``dissolve`` give their tiles to the pool (to be placed); the others
        are blocks, kept whole unless ``variants`` says otherwise. The rack's tiles may be
        placed."""
        rack = self.rack if rack is None else rack
        variants = variants or {}
        required, optional = _empty_counts(), _empty_counts()
        jokers = jokers_required = 0
        for t in rack:
            if t.color is None:
                jokers += 1
            else:
                optional[_COLOUR_INDEX[t.color]][t.number] += 1
        blocks: _Blocks = {}
        uncounted = 0
        for i, tiles in enumerate(self.table):
            if i in dissolve:
                for t in tiles:
                    if t.color is None:
                        jokers += 1
                        jokers_required += 1
                    else:
                        required[_COLOUR_INDEX[t.color]][t.number] += 1
                continue
            variant = variants.get(i)
            blocks[i] = self._block(i, variant)
            if variant is None:
                continue
            for t in variant.released:
                required[_COLOUR_INDEX[t.color]][t.number] += 1  # type: ignore[index]
            for counts, taken in ((optional, variant.from_rack), (required, variant.from_pool)):
                for t in taken:
                    counts[_COLOUR_INDEX[t.color]][t.number] -= 1  # type: ignore[index]
            uncounted += sum(self.tile_weight + t.number * self.value_weight for t in variant.from_rack)
            jokers += variant.freed
            jokers_required += variant.freed
        problem = _Problem(
            required,
            optional,
            jokers,
            jokers_required,
            run_blocks=[b for b in blocks.values() if isinstance(b, _RunBlock)],
            group_blocks=[b for b in blocks.values() if isinstance(b, _GroupBlock)],
            tile_weight=self.tile_weight,
            value_weight=self.value_weight,
            # without a rack joker no joker is played: where the table's jokers stand is worth
            # nothing to the move's value, so under a free release (any place of a joker is
            # legal) the search need not maximise it
            joker_value_weight=0 if jokers == jokers_required and self._free_release() else None,
            uncounted=uncounted,
        )
        return problem, blocks

    def _block(self, index: int, variant: _Variant | None) -> _RunBlock | _GroupBlock:
        """Table set ``index`` as a block: its tiles by its best reading, or the variant's."""
        reading = self.readings[index].best
        assert reading is not None
        tiles = reading.tiles if variant is None else variant.tiles
        original = self.table[index] if variant is None or variant.whole else tiles
        if reading.kind == RUN:
            ordered = tuple(sorted(tiles, key=_stands_for_number))
            colour = _COLOUR_INDEX[_run_colour(ordered)]
            start, end = _stands_for_number(ordered[0]), _stands_for_number(ordered[-1])
            return _RunBlock(index, colour, start, end, ordered, original)
        number = next(t.number for t in tiles if t.color is not None)
        used = {_COLOUR_INDEX[t.color] for t in tiles if t.color is not None}
        used |= {_COLOUR_INDEX[t.declared.color] for t in tiles if t.declared is not None and t.declared.color}
        return _GroupBlock(index, number, len(tiles), frozenset(range(_NCOL)) - used, tiles, original)

    def _variant_combos(self) -> list[dict[int, _Variant]] | None:
        """Every combination of variants of the joker sets other than "all whole" (None when
        there is none), each feasible with the tiles of the rack and of the plain sets."""
        per_set: list[list[tuple[int, _Variant | None]]] = []
        for i in range(len(self.table)):
            if i not in self.plain:
                options = self._variants(i)
                if options:
                    per_set.append([(i, None), *((i, v) for v in options)])
        if not per_set:
            return None
        rack_keys = Counter(t.key for t in self.rack)
        pool_keys = Counter(t.key for i in self.plain for t in self.table[i])
        out = []
        for combo in itertools.product(*per_set):
            chosen = {i: v for i, v in combo if v is not None}
            if not chosen:
                continue
            from_rack = Counter(t.key for v in chosen.values() for t in v.from_rack)
            from_pool = Counter(t.key for v in chosen.values() for t in v.from_pool)
            if not (from_rack - rack_keys) and not (from_pool - pool_keys):
                out.append(chosen)
        out.sort(key=lambda c: (len(c), sum(len(v.released) + v.freed for v in c.values())))  # simplest first
        return out or None

    def _variants(self, index: int) -> list[_Variant]:
        """The ways a table set holding a joker may change besides growing: trimmed (tiles
        taken out while its jokers stay, unless the rules lock joker sets), or with jokers
        freed by their exact tile (only when freed jokers may go to any set)."""
        reading = self.readings[index].best
        assert reading is not None
        out: list[_Variant] = []
        if not self.rules.joker_sets_locked:
            others = Counter(t.key for t in self.rack)
            others.update(t.key for k, tiles in enumerate(self.table) if k != index for t in tiles)
            out += _trims(reading.tiles, reading.kind == RUN, others)
        if self.rules.freed_joker_use == "any_set":
            out += self._replacements(reading.tiles, reading.joker_options, reading.kind == RUN)
        return out

    def _replacements(
        self, tiles: tuple[Tile, ...], options: tuple[tuple[Tile, ...], ...], run: bool, most: int = _MAX_GROUP
    ) -> list[_Variant]:
        """Jokers freed by the exact tile they stand for (in a group of three under
        ``group_joker_needs_both_colours``, both missing colours), from the rack or, when the
        rules allow, from a table set being taken apart; at most ``most`` jokers at once."""
        sources = [True] + ([False] if self.rules.joker_replacement_from == "rack_or_table" else [])
        jokers = [i for i, t in enumerate(tiles) if t.color is None]
        choices: list[list[tuple[int, tuple[Tile, ...]] | None]] = []
        for position, stands in zip(jokers, options, strict=True):
            ways: list[tuple[int, tuple[Tile, ...]] | None] = [None]
            if run:
                ways.append((position, stands[:1]))
            elif self.rules.group_joker_needs_both_colours and len(tiles) == 3 and len(stands) > 1:
                ways.append((position, stands))
            else:
                ways += [(position, (tile,)) for tile in stands]
            choices.append(ways)
        out = []
        for combo in itertools.product(*choices):
            picked = [way for way in combo if way is not None]
            put = [t for _, ts in picked for t in ts]
            if not picked or len(picked) > most or len({t.key for t in put}) != len(put):
                continue
            filled = dict(picked)
            laid = tuple(x for i, t in enumerate(tiles) for x in filled.get(i, (t,)))  # in the jokers' places
            if len(laid) > (_MAX_RUN if run else _MAX_GROUP):
                continue
            for from_rack in itertools.product(sources, repeat=len(put)):
                out.append(
                    _Variant(
                        laid,
                        from_rack=tuple(t for t, r in zip(put, from_rack, strict=True) if r),
                        from_pool=tuple(t for t, r in zip(put, from_rack, strict=True) if not r),
                        freed=len(picked),
                    )
                )
        return out

    # --- answers ------------------------------------------------------------------------

    def _outcome(
        self,
        builder: _Builder,
        blocks: _Blocks,
        untouched: bool,
        whole: bool,
        fixed: Sequence[tuple[Tile, ...]],
    ) -> _Outcome:
        """Lay out the table after a solved pass (table sets in their places, unchanged ones
        as they were given, new sets last) and account for the played tiles."""
        kept: dict[int, tuple[Tile, ...]] = {}
        for run in builder.done_runs:
            if run.block is not None:
                grown = len(run.tiles) != len(run.block.tiles)
                kept[run.block.index] = tuple(run.tiles) if grown else run.block.original
        for index, block in blocks.items():
            if isinstance(block, _GroupBlock):
                added = tuple(builder.group_blocks.get(index, ()))
                kept[index] = block.original + added
        pending = builder.plain_sets() + list(fixed)
        after: list[tuple[Tile, ...]] = []
        for i, tiles in enumerate(self.table):
            if i in kept:
                after.append(kept[i])
            elif untouched:
                after.append(tiles)
            else:
                shape = sorted(t.key for t in tiles)
                same = next((k for k, s in enumerate(pending) if sorted(t.key for t in s) == shape), None)
                if same is not None:
                    after.append(tiles)
                    del pending[same]
        after.extend(pending)
        played_keys = Counter(t.key for s in after for t in s) - Counter(t.key for s in self.table for t in s)
        played = tiles_of_keys(played_keys)
        joker_points = builder.joker_values + [p for s in fixed for p in _joker_points(s)]
        value = sum(t.number for t in played) + sum(sorted(joker_points, reverse=True)[: played_keys[JOKER.key]])
        count = len(played)
        score = count * self.tile_weight + value * self.value_weight
        return _Outcome(score, tuple(after), played, value, whole)

    def _meld_value(self, outcome: _Outcome) -> int:
        """A total value of after sets made only of played tiles (greedy, highest first)."""
        left = Counter(t.key for t in outcome.played)
        total = 0
        for points, keys in sorted(
            ((_set_points(s), Counter(t.key for t in s)) for s in outcome.after), key=lambda x: -x[0]
        ):
            if not (keys - left):
                left -= keys
                total += points
        return total

    def _legal(self, outcome: _Outcome) -> bool:
        known = self.verdicts.get(id(outcome))
        if known is not None and known[0] is outcome:
            return known[1]
        before = [TableSet(tiles, kind) for tiles, kind in zip(self.table, self.kinds, strict=True)]
        verdict = verify_turn(before, [TableSet(s) for s in outcome.after], self.rack, self.opened, self.rules)
        self.verdicts[id(outcome)] = (outcome, verdict.valid)
        return verdict.valid

    def _answer(self) -> Suggestion:
        """The best move found that verifies as a legal turn (SPEC §4); every candidate is
        checked by ``verify_turn`` as a safety net, and playing nothing is always legal."""
        proven = not self.exhausted and not self._value_tie_break_unproven()
        for outcome in sorted(self.candidates, key=lambda o: (o.score, o.whole), reverse=True):
            if not outcome.played:
                break
            if self._legal(outcome):
                return Suggestion(outcome.after, outcome.played, outcome.value, proven, self.exhausted)
            proven = False  # a move the solver thought legal is not: its model needs fixing
        return Suggestion(self.table, (), 0, proven, self.exhausted)


def _trims(tiles: tuple[Tile, ...], run: bool, others: Counter[str]) -> list[_Variant]:
    """Ways to take numbered tiles out of a set holding a joker so that the jokers stay as
    they are: a run keeps a stretch of at least 3 tiles around its jokers, a group at least 3
    tiles.

    The set must stay its own successor (SPEC §4: the after set sharing the most numbered
    tiles with it). Another set could share the tiles given away plus copies of the tiles
    kept (``others`` counts the tiles elsewhere, on the rack or the table), so the set keeps
    at least that many numbered tiles, and at least one."""
    splits: list[tuple[tuple[Tile, ...], tuple[Tile, ...]]] = []
    if run:
        ordered = tuple(sorted(tiles, key=_stands_for_number))
        jokers = [i for i, t in enumerate(ordered) if t.color is None]
        for first in range(jokers[0] + 1):
            for last in range(max(jokers[-1], first + 2), len(ordered)):
                if (first, last) != (0, len(ordered) - 1):
                    splits.append((ordered[first : last + 1], ordered[:first] + ordered[last + 1 :]))
    else:
        plain = [t for t in tiles if t.color is not None]
        for k in range(1, len(plain)):
            for given in itertools.combinations(plain, k):
                kept = list(tiles)
                for t in given:
                    kept.remove(t)
                if len(kept) >= 3:
                    splits.append((tuple(kept), given))
    out = []
    for kept_tiles, given_tiles in splits:
        kept_keys = {t.key for t in kept_tiles if t.color is not None}
        rivals = len(given_tiles) + sum(1 for key in kept_keys if others[key])
        if len(kept_keys) >= max(1, rivals):
            out.append(_Variant(kept_tiles, released=given_tiles))
    return out


def _joker_points(tiles: Sequence[Tile]) -> list[int]:
    """The points of each joker of a set laid by the solver (declared, or a group's number)."""
    number = next((t.number for t in tiles if t.color is not None), 0)
    return [t.declared.number if t.declared is not None else number for t in tiles if t.color is None]


def _stands_for_number(tile: Tile) -> int:
    if tile.color is not None:
        return tile.number
    assert tile.declared is not None
    return tile.declared.number


def _set_points(tiles: Sequence[Tile]) -> int:
    reading = read_set(tiles)
    return reading.value or 0


# --- minimal melds (opening with manipulation) ------------------------------------------


def _sets_from(tiles: Sequence[Tile]) -> list[tuple[tuple[Tile, ...], int]]:
    """Every distinct valid set (as laid by the solver) that ``tiles`` can make, with its
    value."""
    keys = Counter(t.key for t in tiles)
    jokers = keys["J"]
    out: list[tuple[tuple[Tile, ...], int]] = []
    for ci, colour in enumerate(COLORS):
        for start in range(MIN_NUMBER, _LAST + 1):
            for end in range(start + 2, _LAST + 1):
                numbers = range(start, end + 1)
                missing = [n for n in numbers if not keys[f"{colour}{n}"]]
                present = [n for n in numbers if keys[f"{colour}{n}"]]
                if len(missing) > jokers or not present:
                    continue
                spare = jokers - len(missing)
                for k in range(min(spare, len(present) - 1) + 1):
                    for as_joker in itertools.combinations(present, k):
                        holes = set(missing) | set(as_joker)
                        run = tuple(_joker_as(ci, n) if n in holes else numbered(colour, n) for n in numbers)
                        out.append((run, sum(numbers)))
    for number in range(MIN_NUMBER, _LAST + 1):
        colours = [c for c in COLORS if keys[f"{c}{number}"]]
        for k in range(1, len(colours) + 1):
            for chosen in itertools.combinations(colours, k):
                for j in range(max(0, 3 - k), min(jokers, _MAX_GROUP - k) + 1):
                    group = tuple(numbered(c, number) for c in chosen) + (JOKER,) * j
                    out.append((group, number * (k + j)))
    return out


def _minimal_melds(rack: Sequence[Tile], minimum: int) -> Iterator[list[tuple[Tile, ...]]]:
    """Collections of rack-only sets worth at least ``minimum`` in which every set is needed,
    highest value first within each size."""
    candidates = sorted(_sets_from(rack), key=lambda x: -x[1])
    have = Counter(t.key for t in rack)

    def grow(
        i: int, left: Counter[str], chosen: list[tuple[Tile, ...]], values: list[int]
    ) -> Iterator[list[tuple[Tile, ...]]]:
        total = sum(values)
        if total >= minimum:
            if all(total - x < minimum for x in values):
                yield list(chosen)
            return
        for j in range(i, len(candidates)):
            tiles, points = candidates[j]
            need = Counter(t.key for t in tiles)
            if need - left:
                continue
            yield from grow(j + 1, left - need, [*chosen, tiles], [*values, points])

    if minimum <= 0:
        yield []
        return
    yield from grow(0, have, [], [])

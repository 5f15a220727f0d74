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
memoised, so the search is exact and polynomial in the tile counts. ``arrange`` stops at the
first complete arrangement; ``suggest`` maximises a score over every reachable state.

``arrange`` additionally tracks *room*: how many spare jokers the sets already closed could
absorb (a run that ended at ``n < 13`` can take one at ``n + 1``; a group of three one more).
Spare jokers can then be placed at the end instead of being searched for.

Suggest: what moves are considered
----------------------------------
* Opening turn (``opened`` false) without manipulation: new sets from the rack only, worth at
  least ``initial_meld_min`` (a joker is worth the tile it stands for); the table is untouched.
* Opening turn with ``manipulate_on_opening_turn``: the best move whose sets made only of
  played tiles reach the minimum (minimal melds are enumerated, the rest is solved exactly).
* Opened: every table set without a joker may be taken apart and rebuilt with rack tiles.
  A table set holding a joker is a *block*: it stays whole with its jokers standing for the
  same tiles, and may only grow — a run at either end (with rack or table tiles, numbered or
  jokers), a group by a missing colour or a joker. Under ``joker_release: replace`` (and not
  ``freed_joker_use: new_set_with_two_rack_tiles``) a block's joker may also be freed by putting
  the exact tile it stands for in its place (from the rack, or from the table when
  ``joker_replacement_from`` allows); the freed joker must then be used in some set. Under
  ``joker_release: free`` (sets not locked, freed jokers usable anywhere) the joker sets are
  taken apart like the others. Blocks never merge with each other, so each keeps its own
  successor set.
* Among moves of equal merit the one that keeps every table set whole (only extending them)
  is preferred, so the suggested table changes as little as possible.

The score is lexicographic: ``objective="tiles"`` maximises the number of rack tiles played,
then their value; ``objective="value"`` the value, then the number of tiles.

Every search runs under a time budget checked inside the search. When it runs out,
``arrange`` answers ``arrangeable=None``; ``suggest`` returns the best move found by the
cheaper passes that did finish, with ``optimal_proven=False`` and ``budget_exhausted=True``.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.rules import SABRA, Rules
from engine.sets import RUN, TableSet, read_set
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, numbered, sort_key
from engine.turns import verify_turn

__all__ = ["OBJECTIVES", "ArrangeResult", "Suggestion", "arrange", "suggest"]

OBJECTIVES: tuple[str, ...] = ("tiles", "value")
"""What ``suggest`` maximises: rack tiles played, or their points."""

_NCOL = len(COLORS)
_LAST = MAX_NUMBER
_END = MAX_NUMBER + 1  # the number after the last: the terminal stage
_GROUP_STAGE = _NCOL  # stage index of "form the groups" after the colours of a number
_MAX_GROUP = _NCOL
_PRIMARY = 100_000  # weight of the primary objective in the lexicographic score
_CHECK_EVERY = 511  # search calls between two clock readings (a power of two minus one)
_COLOUR_INDEX = {c: i for i, c in enumerate(COLORS)}
_NO_JOKERS, _SOME_JOKERS, _ANY_JOKERS = 0, 1, 2  # tiers of colour moves by jokers spent
_FAIL = -(10**15)  # score of "no solution"; far below any sum of real scores


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
    """A table run kept whole: ``tiles`` ascending from ``start`` to ``end`` (jokers declared).
    ``fill`` maps positions whose joker is being freed to the tile that replaces it."""

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


def _empty_counts() -> list[list[int]]:
    return [[0] * (_END + 1) for _ in range(_NCOL)]


class _ColourMove(NamedTuple):
    """The decision for one colour at one number (see ``_Search._colour_options``)."""

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
    new: tuple[int, int, int, int]
    jokers: int
    to_groups: int
    score: int
    extra: int
    move: _ColourMove


class _GroupOption(NamedTuple):
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

    def __init__(self, problem: _Problem, deadline: float) -> None:
        self.p = problem
        self.deadline = deadline
        self.calls = 0
        # key -> (score, decision, next key): an exact best with its decision; (bound, None,
        # key) an upper bound only; (_FAIL, _DONE, key) no solution (or the terminal's value)
        self.memo: dict[_Key, tuple[int, _ColourMove | _GroupMove | None, _Key]] = {}
        self.colour_cache: dict[tuple[int, ...], list[_Option]] = {}
        self.group_cache: dict[tuple[int, tuple[int, ...], int], list[_GroupOption]] = {}
        self.start_cache: dict[tuple[int, int, int], list[tuple[tuple[int, ...], int, int]]] = {}
        self.starts_at: dict[tuple[int, int], tuple[_RunBlock, ...]] = {}
        self.ends_at: Counter[tuple[int, int]] = Counter()
        for b in problem.run_blocks:
            self.starts_at[(b.colour, b.start)] = (*self.starts_at.get((b.colour, b.start), ()), b)
            self.ends_at[(b.colour, b.end)] += 1
        # tiles of (colour, number) that may be placed; 0 beyond 13 so runs cannot pass it
        self.available = [[r + o for r, o in zip(problem.required[c], problem.optional[c], strict=True)] + [0, 0]
                          for c in range(_NCOL)]
        for c in range(_NCOL):
            self.available[c][_END] = 0
        self.block_starts = [[len(self.starts_at.get((c, v), ())) for v in range(_END + 2)] for c in range(_NCOL)]
        # tiles of the number that colours c.. may still send to its groups
        self.group_supply = [[sum(self.available[k][v] for k in range(c, _NCOL)) for c in range(_NCOL + 1)]
                             for v in range(_END + 1)]
        self.groups_at: dict[int, tuple[_GroupBlock, ...]] = {}
        for g in problem.group_blocks:
            self.groups_at[g.number] = (*self.groups_at.get(g.number, ()), g)
        # "extra" counter: room for spare jokers (arrange) or meld value (opening), capped
        self.extra_cap = problem.jokers if problem.feasibility_only else problem.meld_min
        # optimistic bounds: the score of every optional tile from stage (v, c) on, and of a joker
        tw, vw = problem.tile_weight, problem.value_weight
        self.joker_bound = 0 if problem.feasibility_only else tw + vw * _LAST
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
        if not self.calls & _CHECK_EVERY and time.perf_counter() > self.deadline:
            raise _OutOfTime
        best = upper = _FAIL
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
            for tier in ((_NO_JOKERS, _SOME_JOKERS) if first and jokers else (_ANY_JOKERS,)):
                for o in self._colour_options(v, c, state[i], state[i + 1], state[i + 2], state[i + 3], jokers, tier):
                    grouped = sent + o.to_groups
                    if grouped and not group_blocks and grouped + later - o.jokers < 3 * max(most, o.to_groups):
                        continue  # too few tiles left for the groups of this number
                    nxt = (v, c + 1, head + o.new + tail, (*groups, o.to_groups), jokers - o.jokers,
                           min(cap, extra + o.extra))
                    target = max(need, best + 1) - o.score
                    sub = self.best(nxt, target)
                    if sub >= target:
                        best, choice, after = sub + o.score, o.move, nxt
                        if first:
                            break
                    elif sub + o.score > upper:
                        upper = sub + o.score
                if first and choice is not None:
                    break
        else:
            for g in self._group_options(v, groups, jokers):
                nxt = (v + 1, 0, state, (), jokers - g.jokers, min(cap, extra + g.extra))
                target = max(need, best + 1) - g.score
                sub = self.best(nxt, target)
                if sub >= target:
                    best, choice, after = sub + g.score, g.move, nxt
                    if first:
                        break
                elif sub + g.score > upper:
                    upper = sub + g.score
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

    # --- options for one colour at one number -----------------------------------------

    def _colour_options(
        self, v: int, c: int, n1: int, n2: int, n3: int, nb: int, jokers: int, tier: int
    ) -> list[_Option]:
        key = (v, c, n1, n2, n3, nb, jokers, tier)
        cached = self.colour_cache.get(key)
        if cached is None:
            cached = self._build_colour_options(v, c, n1, n2, n3, nb, jokers, tier)
            self.colour_cache[key] = cached
        return cached

    def _build_colour_options(
        self, v: int, c: int, n1: int, n2: int, n3: int, nb: int, jokers: int, tier: int
    ) -> list[_Option]:
        """Every way to place the tiles ``(c, v)``, given ``n1``/``n2``/``n3`` runs of length
        1/2/≥3 and ``nb`` runs holding a block in progress, with ``jokers`` jokers left;
        ``tier`` keeps only the ways that spend no joker, some, or any.

        Runs of length 1–2 must all be extended; runs of ≥3 may be; a joker may take the place
        of a tile in any extension. New runs start with a numbered tile, optionally preceded
        by jokers. Blocks starting at ``v`` start a run or join a run in progress."""
        p = self.p
        required, optional = p.required[c][v], p.optional[c][v]
        ending = self.ends_at[(c, v)]
        # what could extend short runs at v+1 and v+2: tiles there, or a block starting there
        starting = self.block_starts[c]
        next1 = self.available[c][v + 1] + starting[v + 1]
        next2 = self.available[c][v + 2] + starting[v + 2] + starting[v + 1]
        arrange = p.feasibility_only
        meld = p.meld_min > 0
        tw, vw = p.tile_weight, p.value_weight
        found: dict[tuple[object, ...], _Option] = {}
        budget = 0 if tier == _NO_JOKERS else jokers  # jokers these ways may spend
        for attach, (a1, a2, a3), block_jokers, block_value in self._attach_modes(c, v, n1, n2, n3, budget):
            m1, m2, m3 = n1 - a1, n2 - a2, n3 - a3
            left = budget - block_jokers
            for used in range(required, required + optional + 1):
                for e3 in range(m3 + 1):
                    for eb in range(nb + 1):
                        extended = m1 + m2 + e3 + eb
                        ending_now = m3 - e3 + nb - eb
                        room = (m3 - e3 + nb - eb) * (_END - v) if arrange else 0
                        for jx in range(max(0, extended - used), min(extended, left) + 1):
                            rest = used - (extended - jx)
                            for s in range(rest + 1):
                                for starts, start_jokers, start_value in self._start_patterns(s, left - jx, v):
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
                                    value = (used - required + jx) * v + start_value + block_value
                                    score = tiles * tw + value * vw
                                    extra = room if arrange else (value if meld else 0)
                                    found_key = (new, spent, rest - s, extra)
                                    old = found.get(found_key)
                                    if old is None or (not arrange and score > old.score):
                                        move = _ColourMove(attach, used, e3, eb, jx, starts, rest - s)
                                        found[found_key] = _Option(new, spent, rest - s, score, extra, move)
        options = list(found.values())
        if arrange:
            options.sort(key=lambda o: (o.jokers, o.to_groups))
        return options

    def _attach_modes(
        self, c: int, v: int, n1: int, n2: int, n3: int, jokers: int
    ) -> Iterator[tuple[tuple[tuple[str, int], ...], tuple[int, int, int], int, int]]:
        """For the blocks starting at ``(c, v)``: each starts a run (with 0.. leading jokers)
        or joins a run in progress that holds no block. Yields (modes, runs taken per class,
        jokers spent, points of those jokers)."""
        blocks = self.starts_at.get((c, v), ())
        if not blocks:
            yield (), (0, 0, 0), 0, 0
            return
        choices: list[tuple[str, int]] = [("new", k) for k in range(min(v - 1, jokers) + 1)]
        choices += [("join", 1), ("join", 2), ("join", 3)]
        for modes in itertools.product(choices, repeat=len(blocks)):
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

    def _start_patterns(self, starts: int, jokers: int, v: int) -> list[tuple[tuple[int, ...], int, int]]:
        """Ways to start ``starts`` runs at ``v``: leading jokers per run (non-decreasing, so
        the fewest jokers come first), with the jokers spent and their points."""
        lead = min(jokers, v - 1)
        key = (starts, lead, v)
        cached = self.start_cache.get(key)
        if cached is not None:
            return cached
        out = []
        for pattern in itertools.combinations_with_replacement(range(lead + 1), starts):
            spent = sum(pattern)
            if spent <= jokers:
                out.append((pattern, spent, sum(_lead_points(n, v) for n in pattern)))
        out.sort(key=lambda x: x[1])
        self.start_cache[key] = out
        return out

    # --- options for the groups of one number -------------------------------------------

    def _group_options(self, v: int, counts: tuple[int, ...], jokers: int) -> list[_GroupOption]:
        key = (v, counts, jokers)
        cached = self.group_cache.get(key)
        if cached is None:
            cached = self._build_group_options(v, counts, jokers)
            self.group_cache[key] = cached
        return cached

    def _build_group_options(self, v: int, counts: tuple[int, ...], jokers: int) -> list[_GroupOption]:
        """Every way to form the groups of ``v`` from ``counts[c]`` numbered tiles per colour
        and up to ``jokers`` jokers, including tiles added to group blocks of ``v``."""
        p = self.p
        per_joker = p.tile_weight + p.value_weight * v
        arrange = p.feasibility_only
        found: dict[tuple[int, int], _GroupOption] = {}
        for absorb, rest, block_jokers in self._absorb_modes(v, counts, jokers):
            for gj, groups in _group_jokers(rest).items():
                spent = gj + block_jokers
                if spent > jokers:
                    continue
                score = spent * per_joker
                room = _MAX_GROUP * groups - sum(rest) - gj
                extra = room if arrange else (spent * v if p.meld_min else 0)
                option = _GroupOption(spent, score, extra, _GroupMove(absorb, gj, groups))
                old = found.get((spent, extra))
                if old is None or (not arrange and score > old.score):
                    found[(spent, extra)] = option
        options = list(found.values())
        options.sort(key=lambda o: (o.jokers, -o.extra))
        return options

    def _absorb_modes(
        self, v: int, counts: tuple[int, ...], jokers: int
    ) -> Iterator[tuple[tuple[tuple[tuple[int, ...], int], ...], tuple[int, ...], int]]:
        """Ways for the group blocks of ``v`` to take tiles of allowed colours and jokers.
        Yields (per block: colours, jokers), the counts left for new groups, jokers spent."""
        blocks = self.groups_at.get(v, ())
        if not blocks:
            yield (), counts, 0
            return

        def per_block(i: int, left: tuple[int, ...], jokers_left: int) -> Iterator[
            tuple[tuple[tuple[tuple[int, ...], int], ...], tuple[int, ...], int]
        ]:
            if i == len(blocks):
                yield (), left, 0
                return
            block = blocks[i]
            space = _MAX_GROUP - block.size
            allowed = [c for c in sorted(block.allowed) if left[c] > 0]
            for k in range(min(space, len(allowed)) + 1):
                for colours in itertools.combinations(allowed, k):
                    after = list(left)
                    for colour in colours:
                        after[colour] -= 1
                    for j in range(min(space - k, jokers_left) + 1):
                        for rest_modes, rest, spent in per_block(i + 1, tuple(after), jokers_left - j):
                            yield ((colours, j), *rest_modes), rest, spent + j

        yield from per_block(0, counts, jokers)


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
_Replacements = dict[tuple[int, int], tuple[Tile, bool]]
"""Jokers to free: (table set, position in its reading) -> (the exact tile, taken from rack)."""


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
        self.exhausted = False
        self.candidates: list[_Outcome] = []  # every move found by a pass

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
        """Best over: every table set kept whole; plain sets taken apart (joker sets kept, or
        taken apart too under a free joker release); and every way of freeing jokers. Each
        pass only looks for moves better than the best so far (ties keep the whole sets)."""
        self._pass(self._problem(dissolve=set()), whole=True)
        ceiling = self._ceiling()
        for problem in self._full_problems():
            if self.exhausted or self._best_score() >= ceiling:
                break
            self._pass(problem, floor=self._best_score() + 1)

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
            rest = _remove(self.rack, [t for s in meld for t in s])
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
    ) -> _Outcome | None:
        """Solve one problem and lay out its move; None when it has no solution, none scoring
        at least ``floor`` (a move's score, not the search's), or the time ran out (then
        ``self.exhausted`` is set). ``untouched``: the table is not part of the problem and
        stays as it is. The move is recorded as a candidate answer unless ``candidate`` is
        false."""
        search = _Search(problem[0], self.deadline)
        try:
            # a move scores at most the search's score plus the tiles the search does not count
            score = search.solve(0 if floor is None else floor - problem[0].uncounted)
        except _OutOfTime:
            self.exhausted = True
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
        problem = _Problem(_empty_counts(), optional, jokers, 0, meld_min=max(1, self.rules.initial_meld_min),
                           tile_weight=self.tile_weight, value_weight=self.value_weight)
        return problem, {}

    def _full_problems(self) -> Iterator[tuple[_Problem, _Blocks]]:
        """The problems of an opened turn with plain sets taken apart: joker sets kept whole
        (or taken apart too under a free joker release), then every way of freeing jokers by
        their exact tile."""
        r = self.rules
        if r.joker_release == "free" and not r.joker_sets_locked and r.freed_joker_use == "any_set":
            yield self._problem(dissolve=set(range(len(self.table))))
            return
        yield self._problem(dissolve=self.plain)
        if r.freed_joker_use == "any_set":
            for replacements in self._replacement_choices():
                yield self._problem(dissolve=self.plain, replace=replacements)

    def _problem(
        self,
        dissolve: set[int],
        rack: Sequence[Tile] | None = None,
        replace: _Replacements | None = None,
    ) -> tuple[_Problem, _Blocks]:
        """Table sets in ``dissolve`` give their tiles to the pool (to be placed); the others
        are blocks. The rack's tiles may be placed. ``replace`` frees block jokers: each
        replacing tile is taken from the rack or the pool, and its joker joins the pool."""
        rack = self.rack if rack is None else rack
        replace = replace or {}
        required, optional = _empty_counts(), _empty_counts()
        jokers = jokers_required = 0
        for t in rack:
            if t.color is None:
                jokers += 1
            else:
                optional[_COLOUR_INDEX[t.color]][t.number] += 1
        blocks: _Blocks = {}
        for i, tiles in enumerate(self.table):
            if i not in dissolve:
                blocks[i] = self._block(i, {pos: tile for (s, pos), (tile, _) in replace.items() if s == i})
                continue
            for t in tiles:
                if t.color is None:
                    jokers += 1
                    jokers_required += 1
                else:
                    required[_COLOUR_INDEX[t.color]][t.number] += 1
        uncounted = 0
        for tile, from_rack in replace.values():
            assert tile.color is not None
            (optional if from_rack else required)[_COLOUR_INDEX[tile.color]][tile.number] -= 1
            jokers += 1
            jokers_required += 1
            if from_rack:
                uncounted += self.tile_weight + tile.number * self.value_weight
        problem = _Problem(
            required, optional, jokers, jokers_required,
            run_blocks=[b for b in blocks.values() if isinstance(b, _RunBlock)],
            group_blocks=[b for b in blocks.values() if isinstance(b, _GroupBlock)],
            tile_weight=self.tile_weight, value_weight=self.value_weight, uncounted=uncounted,
        )
        return problem, blocks

    def _block(self, index: int, fills: dict[int, Tile]) -> _RunBlock | _GroupBlock:
        """Table set ``index`` as a block, read by its best reading; ``fills`` puts those tiles
        in place of the jokers at those positions of the reading."""
        reading = self.readings[index].best
        assert reading is not None
        tiles = tuple(fills.get(i, t) for i, t in enumerate(reading.tiles))
        original = tiles if fills else self.table[index]
        if reading.kind == RUN:
            ordered = tuple(sorted(tiles, key=_stands_for_number))
            colour = _COLOUR_INDEX[_run_colour(ordered)]
            start, end = _stands_for_number(ordered[0]), _stands_for_number(ordered[-1])
            return _RunBlock(index, colour, start, end, ordered, original)
        number = next(t.number for t in tiles if t.color is not None)
        used = {_COLOUR_INDEX[t.color] for t in tiles if t.color is not None}
        used |= {_COLOUR_INDEX[t.declared.color] for t in tiles if t.declared is not None and t.declared.color}
        return _GroupBlock(index, number, len(tiles), frozenset(range(_NCOL)) - used, tiles, original)

    def _replacement_choices(self) -> Iterator[_Replacements]:
        """Every non-empty choice of run jokers to free, each with the exact tile that replaces
        it and where that tile comes from (the rack, or a table set being taken apart when the
        rules allow). Group jokers are never freed (see the module docstring)."""
        rack_keys = Counter(t.key for t in self.rack)
        table_keys = Counter(t.key for i in self.plain for t in self.table[i])
        from_table = self.rules.joker_replacement_from == "rack_or_table"
        per_joker: list[list[tuple[tuple[int, int], tuple[Tile, bool]] | None]] = []
        for i in range(len(self.table)):
            reading = self.readings[i].best
            if i in self.plain or reading is None or reading.kind != RUN:
                continue
            for position, t in enumerate(reading.tiles):
                if t.declared is None:
                    continue
                ways: list[tuple[tuple[int, int], tuple[Tile, bool]] | None] = [None]
                if rack_keys[t.declared.key]:
                    ways.append(((i, position), (t.declared, True)))
                if from_table and table_keys[t.declared.key]:
                    ways.append(((i, position), (t.declared, False)))
                if len(ways) > 1:
                    per_joker.append(ways)
        for combo in itertools.product(*per_joker):
            chosen = dict(way for way in combo if way is not None)
            if not chosen:
                continue
            from_rack = Counter(t.key for t, r in chosen.values() if r)
            from_pool = Counter(t.key for t, r in chosen.values() if not r)
            if not (from_rack - rack_keys) and not (from_pool - table_keys):
                yield chosen

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
        played = tuple(sorted(_tiles_of(played_keys), key=sort_key))
        joker_points = builder.joker_values + [p for s in fixed for p in _joker_points(s)]
        value = sum(t.number for t in played) + sum(sorted(joker_points, reverse=True)[: played_keys[JOKER.key]])
        count = len(played)
        score = count * self.tile_weight + value * self.value_weight
        return _Outcome(score, tuple(after), played, value, whole)

    def _meld_value(self, outcome: _Outcome) -> int:
        """A total value of after sets made only of played tiles (greedy, highest first)."""
        left = Counter(t.key for t in outcome.played)
        total = 0
        for points, keys in sorted(((_set_points(s), Counter(t.key for t in s)) for s in outcome.after),
                                   key=lambda x: -x[0]):
            if not (keys - left):
                left -= keys
                total += points
        return total

    def _answer(self) -> Suggestion:
        """The best move found that verifies as a legal turn (SPEC §4); every candidate is
        checked by ``verify_turn`` as a safety net, and playing nothing is always legal."""
        proven = not self.exhausted
        before = [TableSet(tiles, kind) for tiles, kind in zip(self.table, self.kinds, strict=True)]
        for outcome in sorted(self.candidates, key=lambda o: (o.score, o.whole), reverse=True):
            if not outcome.played:
                break
            verdict = verify_turn(before, [TableSet(s) for s in outcome.after], self.rack, self.opened, self.rules)
            if verdict.valid:
                return Suggestion(outcome.after, outcome.played, outcome.value, proven, self.exhausted)
            proven = False  # a move the solver thought legal is not: its model needs fixing
        return Suggestion(self.table, (), 0, proven, self.exhausted)


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


def _tiles_of(keys: Counter[str]) -> list[Tile]:
    out: list[Tile] = []
    for key, n in keys.items():
        tile = JOKER if key == "J" else numbered(key[0], int(key[1:]))
        out.extend([tile] * n)
    return out


def _remove(tiles: Sequence[Tile], taken: Sequence[Tile]) -> list[Tile]:
    left = Counter(t.key for t in taken)
    out = []
    for t in tiles:
        if left[t.key]:
            left[t.key] -= 1
        else:
            out.append(t)
    return out


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

    def grow(i: int, left: Counter[str], chosen: list[tuple[Tile, ...]], values: list[int]
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

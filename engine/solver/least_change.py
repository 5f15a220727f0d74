"""The least-change tie break of ``suggest`` (issue #18): among the moves scoring as much as
the best move found, the one that disturbs the table least (``engine.changes``: fewest table
tiles moved to another set, then fewest before-sets touched, then fewest new sets).

A second integer programme, solved by branch and bound over HiGHS's linear relaxations
(``engine.solver.highs.branch_and_bound``) with the score fixed from below at the best move's
and the disturbance minimised (one objective with lexicographic integer weights):

* every before-set ``b`` has one optional *continuation*: a run of its colour (a run-set) or of
  one of its colours (a group-set), or a group of one of its numbers, holding at least one of
  its numbered tiles. A continuation run is one of its *stretches* (a variable per stretch of
  three numbers or more, at most one chosen) with, per number, the numbered tile or a joker
  where the stretch holds it (``_Run``: a third of the rows of a lane, below, and a tighter
  relaxation; measured in bench/README.md, session 20). A group is one of the explicit colour
  sets plus jokers of 3–4 tiles. The tiles the continuation shares with ``b`` are *kept*;
  ``b`` is unchanged when all are kept and nothing is added. A continuation run covers only
  the numbers a run holding one of ``b``'s tiles can reach (outwards while the supply has the
  tile or a joker is left for it), and ``b`` unchanged is tied to its exact tiles (at most
  each of its tiles kept in its colour's run, and the stretch of exactly its numbers; for a
  group the one group of its colours and jokers) besides the counting rows: the same
  programme, a tighter relaxation;
* the other after-sets are *free*: per colour one *lane* of any number of runs (per number,
  how many runs start, end, cover it, and hold the numbered tile or a joker there; a run of
  3..13 tiles by the start/end rows; so a long run counts as one set), and counts of every
  group;
* every tile type is balanced: the table's copies are laid, at most the rack's more;
* the score (tiles played and their value, the jokers counting their best points) is at least
  the best move's, and (``objective="tiles"``) the tiles played at least its tiles;
* the objective is ``W_move * moved + W_touch * touched + new sets``, ``moved`` = table tiles
  minus kept tiles.

Table jokers (unless the joker release is free): the continuation of a joker set is of its
kind and covers its jokers' places (a run-set's jokers keep standing for their tiles or are
replaced there by the exact tile; a group-set stays a group of its number); under
``joker_sets_locked`` it keeps every numbered tile; unless freed jokers may go to any set the
jokers stay. An opening without manipulation keeps the table as it is and lays new sets from
the rack worth the minimum; an opening with manipulation is not modelled.

First, when the player has opened, ``engine.solver.intact`` looks for a move moving no table
tile that scores as much (every before-set as it lies or grown by rack tiles, jokers
included, new sets of rack tiles): tiles moved 0 being the least possible, its least-touching
move is the least change, proven by itself once it verifies. Then ``engine.solver.few_moved`` lists
every after-set that a move moving at most ``FEW_MOVED`` table tiles can hold and picks the
least disturbing such move scoring as much: when one exists and verifies it is the least
change, proven under every rule edition (the list is a superset of the legal moves). The best
move found caps the bound: the least change moves no more table tiles than it, so when it
moves fewer than ``FEW_MOVED`` the list is only that long (fewer columns), and when it moves
``KNOWN_MOVED`` (three) the step tries three after two, and decides. When it moves more, the
step runs only where the programmes below cannot prove their answer (it seldom finds a move
then, and the programmes find every move it would).
Otherwise the programme above, first in a smaller form (a set continued by a set of the other
kind only through the free sets, counted by necessary conditions: its optimum bounds the true
one from below), whole when the smaller one's move disturbs more than its bound.

Each programme's linear relaxation is solved first (about 10-50 ms on the games bench's
programmes of 400-2600 columns): when its optimum is integral it is the programme's (on about
40% of the positions the programme decides), else the branch and bound goes on: it branches
on the tiles of each type played (a relaxation playing a fraction of a tile), then on the
continuations' columns, and seeks only moves disturbing no more than the least disturbing
legal move known (the best move found, then the smaller programme's): 1-33 relaxations per
programme on the games bench (session 23; 1-104 in session 11), where HiGHS's own integer
solver spent 0.1-4 s on the hardest in cut rounds at the root, a lottery of its random seed
(bench/README.md, issue 18, session 11). A first programme over only the sets the relaxation
touches, the others proven unchanged by reduced costs, was measured slower (bench/README.md,
issue 18).

The move found is laid out (continuations in the place of their before-set, unchanged sets
as given, free sets last), checked with ``verify_turn`` and scored again; the caller keeps the
first-found move when it fails. ``proven`` means the programme was solved to optimality and
models every legal move of the position: on an opening, under a free joker release, or with
no joker on the table. Not modelled: a joker set's joker replaced by its tile in a set that
does not continue it, a joker staying in a run split off its set, a joker moved otherwise."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from scipy.sparse import coo_array

from engine.changes import Changes, changes
from engine.rules import Rules
from engine.sets import RUN, SetReading, TableSet
from engine.solver import highs
from engine.solver.few_moved import least_few_moved
from engine.solver.intact import INFEASIBLE, least_intact, played_value
from engine.solver.model import Suggestion
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered, tiles_of_keys
from engine.turns import verify_turn

if TYPE_CHECKING:
    from engine.solver.best_move import _Suggester

_NUMBERS = range(MIN_NUMBER, MAX_NUMBER + 1)
FEW_MOVED = 2
"""The most table tiles moved that the explicit second step (``engine.solver.few_moved``)
looks at; beyond, the integer programmes below decide."""
KNOWN_MOVED = 3
"""When the best move found moves at most this many table tiles, so does the least change:
the explicit step then looks at no more than the best move moves (fewer columns, when it moves
fewer than ``FEW_MOVED``), and further than ``FEW_MOVED`` when it moves more (the least change
is then found by the explicit steps, without the integer programmes)."""


def with_least_change(move: Suggestion, solved: _Suggester, tie_break: str) -> Suggestion:
    """``move`` (the best move ``solved`` found) with its change list; under the
    ``least_change`` tie break replaced by the least disturbing move scoring as much, when one
    is found that verifies and disturbs no more."""
    s = solved
    listed = changes(s.table, s.rack, move.after)
    if not move.played:
        return dataclasses.replace(move, changes=listed, least_change_proven=True)
    if tie_break != "least_change":
        return dataclasses.replace(move, changes=listed)
    # the lexicographic score with the smallest weight that keeps it so (no move is worth more
    # points than the whole rack with every joker at 13, nor plays more tiles than the rack)
    primary = 1 + max(len(s.rack), sum(t.number if t.color is not None else 13 for t in s.rack))
    weights = (primary, 1) if s.tile_weight > s.value_weight else (1, primary)
    floor = len(move.played) * weights[0] + move.value * weights[1]
    known = listed.disturbance.as_tuple()  # the least change disturbs no more
    found = least_change(s.table, s.kinds, s.readings, s.rack, s.opened, s.rules, weights, floor, s.deadline, known)
    if isinstance(found, str):  # KNOWN_LEAST: no move scoring as much disturbs less
        return dataclasses.replace(move, changes=listed, least_change_proven=True)
    if found is None:
        return dataclasses.replace(move, changes=listed)
    better = found.changes or changes(s.table, s.rack, found.after)
    if found.score == floor and better.disturbance.as_tuple() > listed.disturbance.as_tuple():
        return dataclasses.replace(move, changes=listed)  # the programme missed the move found
    return dataclasses.replace(
        move,
        after=found.after,
        played=found.played,
        value=found.value,
        changes=better,
        least_change_proven=found.proven,
    )


@dataclass(frozen=True, slots=True)
class LeastChange:
    """A move found by the tie break: the table after it, the tiles played, their value, its
    score, whether the programme proved it the least change, and its change list when
    already worked out."""

    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    value: int
    score: int
    proven: bool
    changes: Changes | None = None


class _Model:
    """A mixed-integer programme being built: variables with bounds and costs, sparse rows
    (kept as their columns and coefficients in order, the matrix made once at the end)."""

    def __init__(self) -> None:
        self.upper: list[float] = []
        self.cost: list[float] = []
        self.data: list[float] = []
        self.col_of: list[int] = []
        self.row_size: list[int] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []

    def var(self, upper: float, cost: float = 0.0) -> int:
        self.upper.append(upper)
        self.cost.append(cost)
        return len(self.cost) - 1

    def row(self, terms: dict[int, float], lower: float, upper: float) -> None:
        self.col_of.extend(terms)
        self.data.extend(terms.values())
        self.row_size.append(len(terms))
        self.row_lower.append(lower)
        self.row_upper.append(upper)

    def rows(self, first: int, block: _Rows) -> None:
        """The rows of ``block``, its columns counted from variable ``first``."""
        self.col_of.extend([first + offset for offset in block.offsets])
        self.data.extend(block.data)
        self.row_size.extend(block.sizes)
        self.row_lower.extend(block.lower)
        self.row_upper.extend(block.upper)

    def matrix(self) -> Any:
        """The rows as a sparse matrix by columns (zero coefficients left out)."""
        data = np.array(self.data, dtype=float)
        rows = np.repeat(np.arange(len(self.row_size)), self.row_size)
        cols = np.array(self.col_of, dtype=np.int64)
        kept = data != 0
        shape = (len(self.row_lower), len(self.cost))
        return coo_array((data[kept], (rows[kept], cols[kept])), shape=shape).tocsc()


class _Rows(NamedTuple):
    """Rows laid out once, to be added to models many times: their columns as offsets from
    a first variable, coefficients, sizes and bounds."""

    offsets: tuple[int, ...]
    data: tuple[float, ...]
    sizes: tuple[int, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]

    @staticmethod
    def of(rows: list[tuple[list[tuple[int, float]], float, float]]) -> _Rows:
        """Rows given as (terms (column offset, coefficient), lower bound, upper bound)."""
        return _Rows(
            tuple(column for terms, _, _ in rows for column, _ in terms),
            tuple(value for terms, _, _ in rows for _, value in terms),
            tuple(len(terms) for terms, _, _ in rows),
            tuple(lower for _, lower, _ in rows),
            tuple(upper for _, _, upper in rows),
        )


@functools.cache
def _lane_rows(n: int) -> _Rows:
    """The rows of a lane over ``n`` numbers, its variables ``start``, ``end``, ``cover``,
    ``tile`` and ``joker`` in blocks of ``n``: per number the flow (runs holding it are those
    holding the one before, less those that ended there, plus those starting), where runs
    may end (only after three numbers: not where they started or one after) and the tile or a
    joker in each run; then every run still open ends at the last number."""
    start, end, cover, tile, joker = (range(k * n, (k + 1) * n) for k in range(5))
    rows: list[tuple[list[tuple[int, float]], float, float]] = []
    for i in range(n):
        flow = [(cover[i], 1.0), (start[i], -1.0)] + ([(cover[i - 1], -1.0), (end[i - 1], 1.0)] if i else [])
        rows.append((flow, 0.0, 0.0))
        ends = [(end[i], 1.0), (cover[i], -1.0), (start[i], 1.0)] + ([(start[i - 1], 1.0)] if i else [])
        rows.append((ends, -np.inf, 0.0))
        rows.append(([(tile[i], 1.0), (joker[i], 1.0), (cover[i], -1.0)], 0.0, 0.0))
    rows.append(([(end[n - 1], 1.0), (cover[n - 1], -1.0)], 0.0, 0.0))
    return _Rows.of(rows)


class _Lane:
    """Runs of one colour as a flow over the numbers 1-13: ``start[v]``, ``end[v]``, ``cover[v]``
    (runs holding number v), ``tile[v]`` (of them, with the numbered tile) and ``joker[v]``."""

    def __init__(
        self,
        model: _Model,
        colour: int,
        cap: int,
        supply: Counter[tuple[int, int]],
        jokers: int,
    ) -> None:
        self.colour = colour
        self.numbers = numbers = _NUMBERS
        low, high = numbers[0], numbers[-1]
        m = model
        first, n = len(m.cost), len(numbers)
        m.upper += [cap if v <= high - 2 else 0 for v in numbers]
        m.upper += [cap if v >= low + 2 else 0 for v in numbers]
        m.upper += [cap] * n
        m.upper += [min(cap, supply[(colour, v)]) for v in numbers]
        m.upper += [min(cap, jokers)] * n
        m.cost += [0.0] * (5 * n)
        self.start, self.end, self.cover, self.tile, self.joker = (
            dict(zip(numbers, range(first + k * n, first + (k + 1) * n), strict=True)) for k in range(5)
        )
        m.rows(first, _lane_rows(n))

    def runs(self, x: list[int]) -> list[tuple[Tile, ...]]:
        """The runs of a solution, oldest ended first; jokers declared, given to runs that
        already hold a numbered tile when possible."""
        colour = COLORS[self.colour]
        open_runs: list[list[Tile]] = []
        done: list[tuple[Tile, ...]] = []
        for v in self.numbers:
            open_runs.extend([] for _ in range(x[self.start[v]]))
            jokers, tiles = x[self.joker[v]], x[self.tile[v]]
            order = sorted(range(len(open_runs)), key=lambda i: not any(t.color for t in open_runs[i]))
            for i in order:
                if jokers and any(t.color for t in open_runs[i]):
                    open_runs[i].append(joker_as(numbered(colour, v)))
                    jokers -= 1
                elif tiles:
                    open_runs[i].append(numbered(colour, v))
                    tiles -= 1
                else:
                    open_runs[i].append(joker_as(numbered(colour, v)))
                    jokers -= 1
            for _ in range(x[self.end[v]]):
                done.append(tuple(open_runs.pop(0)))
        return done


@functools.cache
def _stretch_rows(n: int) -> tuple[tuple[tuple[int, int], ...], _Rows]:
    """A continuation run over ``n`` numbers: its stretches of three numbers or more (first and
    last index), and its rows over variables ``tile`` (0..n-1), ``joker`` (n..2n-1) and one per
    stretch (from 2n): per number the tile or a joker where the chosen stretch holds it, and at
    most one stretch chosen."""
    stretches = tuple((a, b) for a in range(n) for b in range(a + 2, n))
    rows: list[tuple[list[tuple[int, float]], float, float]] = []
    for i in range(n):
        over = [(2 * n + k, -1.0) for k, (a, b) in enumerate(stretches) if a <= i <= b]
        rows.append(([(i, 1.0), (n + i, 1.0), *over], 0.0, 0.0))
    rows.append(([(2 * n + k, 1.0) for k in range(len(stretches))], 0.0, 1.0))
    return stretches, _Rows.of(rows)


class _Run:
    """At most one run of one colour over ``numbers`` (a continuation's), as a choice among
    its stretches of three numbers or more (``stretch[(first, last)]``), with ``tile[v]`` and
    ``joker[v]`` as in ``_Lane``."""

    def __init__(
        self, model: _Model, colour: int, supply: Counter[tuple[int, int]], jokers: int, numbers: range
    ) -> None:
        self.colour = colour
        self.numbers = numbers
        m = model
        first, n = len(m.cost), len(numbers)
        stretches, rows = _stretch_rows(n)
        m.upper += [min(1, supply[(colour, v)]) for v in numbers]
        m.upper += [min(1, jokers)] * n
        m.upper += [1] * len(stretches)
        m.cost += [0.0] * (2 * n + len(stretches))
        self.tile = dict(zip(numbers, range(first, first + n), strict=True))
        self.joker = dict(zip(numbers, range(first + n, first + 2 * n), strict=True))
        self.stretch = {(numbers[a], numbers[b]): first + 2 * n + k for k, (a, b) in enumerate(stretches)}
        m.rows(first, rows)

    def covering(self, v: int) -> dict[int, float]:
        """The stretches holding number ``v``."""
        return {z: 1.0 for (a, b), z in self.stretch.items() if a <= v <= b}

    def runs(self, x: list[int]) -> list[tuple[Tile, ...]]:
        """The run of a solution (none or one); jokers declared."""
        colour = COLORS[self.colour]
        return [
            tuple(numbered(colour, v) if x[self.tile[v]] else joker_as(numbered(colour, v)) for v in range(a, b + 1))
            for (a, b), z in self.stretch.items()
            if x[z]
        ]


def _reach(colour: int, anchors: list[int], supply: Counter[tuple[int, int]], jokers: int) -> range:
    """The numbers a run of ``colour`` holding one of the numbers ``anchors`` can cover: from
    them outwards while a tile of the number is in ``supply`` or a joker is left for it."""

    def last(step: int) -> int:
        v, left = anchors[0] if step < 0 else anchors[-1], jokers
        while MIN_NUMBER <= v + step <= MAX_NUMBER:
            if not supply[(colour, v + step)]:
                if not left:
                    break
                left -= 1
            v += step
        return v

    return range(last(-1), last(1) + 1)


class _Group(NamedTuple):
    """A group candidate: its number, colours and jokers, and its variable (a named tuple:
    programmes make hundreds, a frozen dataclass costs about twice as much to make)."""

    number: int
    colours: tuple[int, ...]
    jokers: int
    var: int

    def tiles(self) -> tuple[Tile, ...]:
        return tuple(numbered(COLORS[c], self.number) for c in self.colours) + (JOKER,) * self.jokers


def _group_shapes(
    number: int, supply: Counter[tuple[int, int]], jokers: int
) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The groups of ``number`` that ``supply`` and ``jokers`` jokers can lay: (colours, jokers)."""
    present = tuple(c for c in range(len(COLORS)) if supply[(c, number)])
    return _shapes_of(present, min(jokers, len(COLORS)))


@functools.cache
def _shapes_of(present: tuple[int, ...], jokers: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    out = []
    for k in range(1, len(present) + 1):
        for colours in itertools.combinations(present, k):
            for j in range(max(0, 3 - k), min(jokers, len(COLORS) - k) + 1):
                out.append((colours, j))
    return tuple(out)


@functools.cache
def _bits(colours: tuple[int, ...]) -> int:
    """The colours as a bit set."""
    return sum(1 << c for c in colours)


KNOWN_LEAST = "known"
"""``least_change``'s answer when the known move (``known``) is proven the least change."""


def least_change(
    table: Sequence[tuple[Tile, ...]],
    kinds: Sequence[str | None],
    readings: Sequence[SetReading],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    deadline: float,
    known: tuple[int, int, int] | None = None,
) -> LeastChange | str | None:
    """The move scoring at least ``floor`` (tile weight, value weight as ``weights``) that
    disturbs the table least, or None (not modelled, no time, or no legal move found).
    ``known``: the disturbance (tiles moved, sets touched, new sets) of a legal move scoring
    ``floor``, when one is known; KNOWN_LEAST when that move is proven the least change."""
    if not opened and rules.manipulate_on_opening_turn:
        return None
    colour_index = {c: i for i, c in enumerate(COLORS)}
    table_counts: Counter[tuple[int, int]] = Counter()
    rack_counts: Counter[tuple[int, int]] = Counter()
    table_jokers = rack_jokers = 0
    for s in table:
        for t in s:
            if t.color is None:
                table_jokers += 1
            else:
                table_counts[(colour_index[t.color], t.number)] += 1
    for t in rack:
        if t.color is None:
            rack_jokers += 1
        else:
            rack_counts[(colour_index[t.color], t.number)] += 1
    opening = not opened
    supply = rack_counts if opening else table_counts + rack_counts
    base = Counter[tuple[int, int]]() if opening else table_counts
    base_jokers = 0 if opening else table_jokers
    jokers = rack_jokers + base_jokers
    w_touch = (sum(supply.values()) + jokers) // 3 + 2
    w_move = w_touch * (len(table) + 1) + 1
    free_release = rules.joker_release == "free" and not rules.joker_sets_locked and rules.freed_joker_use == "any_set"
    # proven: solved to optimality, and every legal move is modelled (a joker set's joker
    # may also be replaced in a set that does not continue it, or stay in a split run)
    exact = opening or free_release or not table_jokers

    def weighed(d: tuple[int, int, int]) -> int:
        return d[0] * w_move + d[1] * w_touch + d[2]

    # the programmes' objective is the weighed disturbance less this constant
    offset = w_move * sum(map(len, table)) + w_touch * len(table)

    # a move moving no table tile, when one scores as much: proven least by itself
    if not opening:
        intact = least_intact(table, rack, rules, weights, floor, deadline - time.perf_counter())
        if isinstance(intact, list):
            found = _checked(table, kinds, rack, opened, rules, intact, weights, floor, True)
            if found is not None:
                return found
        # else a move moving at most FEW_MOVED table tiles (or as many as a move known to
        # score floor, up to KNOWN_MOVED): proven least by itself too
        if intact == INFEASIBLE or intact is None:
            for most in _few_bounds(None if known is None else known[0], exact):
                few = _few_moved(table, kinds, rack, rules, weights, floor, most, deadline)
                if isinstance(few, LeastChange):
                    return few
                if few != INFEASIBLE:
                    break
    # then the smaller model (a set continued by a set of the other kind only through the
    # free sets, counted by necessary conditions); its optimum bounds the true one from below,
    # so a move it finds disturbing exactly that much is the least change; else the full model.
    # Both look only for moves disturbing no more than the least disturbing legal move known
    # (``ceiling``, weighed; ``holder`` is that move, KNOWN_LEAST for the caller's)
    ceiling = None if opening or known is None else weighed(known)
    holder: LeastChange | str | None = KNOWN_LEAST if ceiling is not None else None
    attempt = functools.partial(
        _attempt,
        table,
        readings,
        rack_counts,
        rack_jokers,
        supply,
        base,
        base_jokers,
        jokers,
        opening,
        rules,
        weights,
        floor,
        deadline,
        w_move,
        w_touch,
        free_release,
    )
    fast = attempt(True, None if ceiling is None else ceiling - offset + 1)
    # a legal move of the smaller model that is not proven least: answered (not proven) when
    # the full model finds nothing in time
    fallback: LeastChange | None = None
    if fast is not None:
        after, optimal, bound = fast
        if after is None:  # no move of the smaller model disturbs as little: nor does a legal move
            return KNOWN_LEAST if optimal and exact else None
        found = _checked(table, kinds, rack, opened, rules, after, weights, floor, optimal and exact)
        if found is not None:
            listed = changes(table, rack, found.after)
            disturbs = weighed(listed.disturbance.as_tuple())
            if optimal and disturbs <= bound + offset:
                return dataclasses.replace(found, changes=listed)
            fallback = dataclasses.replace(found, proven=False, changes=listed)
            if ceiling is not None and disturbs < ceiling:
                ceiling, holder = disturbs, fallback
    full = attempt(False, None if ceiling is None else ceiling - offset + 1)
    if full is None:
        return fallback
    after, optimal, _ = full
    if after is None:  # no move of the full model disturbs as little as the one holding the ceiling
        if not (optimal and exact) or holder is None:
            return fallback
        return holder if isinstance(holder, str) else dataclasses.replace(holder, proven=True)
    found = _checked(table, kinds, rack, opened, rules, after, weights, floor, optimal and exact)
    if found is None or (not found.proven and fallback is not None and _worse(table, rack, found, fallback)):
        return fallback
    return found


def _few_bounds(moved: int | None, exact: bool) -> tuple[int, ...]:
    """The bounds on the table tiles moved that the explicit step tries in turn, given that a
    move scoring as much moves ``moved`` (None: unknown): that many when it is at most
    ``FEW_MOVED`` (the least change is among them), ``FEW_MOVED`` and then that many when it
    is at most ``KNOWN_MOVED`` (the fewer columns first: the least change often moves fewer).
    When it moves more, ``FEW_MOVED`` only where the programmes cannot prove their answer
    (``exact`` false: the step's proof holds under every rule edition); where they can, none:
    on the games bench (free-joker) the step then found nothing on 131 of 148 positions, about
    10 ms each, and the programme finds the other 17 too (bench/README.md, session 19)."""
    if moved is None:
        return (FEW_MOVED,)
    if moved > KNOWN_MOVED:
        return () if exact else (FEW_MOVED,)
    if moved <= FEW_MOVED:
        return (max(1, moved),)
    return (FEW_MOVED, moved)


def _few_moved(
    table: Sequence[tuple[Tile, ...]],
    kinds: Sequence[str | None],
    rack: Sequence[Tile],
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    most: int,
    deadline: float,
) -> LeastChange | str | None:
    """The least change when it moves at most ``most`` table tiles (proven: see
    ``engine.solver.few_moved``), once its move verifies and its change list shows the
    disturbance the programme counted; ``INFEASIBLE`` when every move scoring ``floor`` moves
    more; else None."""
    few = least_few_moved(table, rack, rules, weights, floor, most, deadline - time.perf_counter())
    if not isinstance(few, tuple):
        return few
    after, counted = few
    found = _checked(table, kinds, rack, True, rules, after, weights, floor, True)
    if found is None:
        return None
    listed = changes(table, rack, found.after)
    if listed.disturbance.as_tuple() != counted:
        return None
    return dataclasses.replace(found, changes=listed)


def _worse(table: Sequence[tuple[Tile, ...]], rack: Sequence[Tile], one: LeastChange, other: LeastChange) -> bool:
    """Does ``one`` disturb the table more than ``other`` (both scoring as much)?"""
    return bool(
        changes(table, rack, one.after).disturbance.as_tuple()
        > changes(table, rack, other.after).disturbance.as_tuple()
    )


def _attempt(
    table: Sequence[tuple[Tile, ...]],
    readings: Sequence[SetReading],
    rack_counts: Counter[tuple[int, int]],
    rack_jokers: int,
    supply: Counter[tuple[int, int]],
    base: Counter[tuple[int, int]],
    base_jokers: int,
    jokers: int,
    opening: bool,
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    deadline: float,
    w_move: int,
    w_touch: int,
    free_release: bool,
    aggregated: bool,
    cutoff: int | None,
) -> tuple[list[tuple[Tile, ...]] | None, bool, int] | None:
    """Build and solve the programme; the after table of its solution, whether it is optimal,
    and its objective value (None: no solution in time). With a ``cutoff`` only solutions of
    a lower objective are sought: the after table is None when none exists."""
    tw, vw = weights
    m = _Model()

    counted: list[tuple[int, int]] = []  # (variable, points) of jokers that may count as played
    # free sets: every run started and every group laid is a new set
    free_lanes = [_Lane(m, c, 3 + jokers, supply, jokers) for c in range(len(COLORS))]
    for lane in free_lanes:
        for v in _NUMBERS:
            m.cost[lane.start[v]] += 1
    free_groups = []
    for v in _NUMBERS:
        for colours, j in _group_shapes(v, supply, jokers):
            most = min([supply[(c, v)] for c in colours] + ([jokers // j] if j else []))
            free_groups.append(_Group(v, colours, j, m.var(most, 1)))
    lanes: list[_Lane | _Run] = list(free_lanes)
    groups = list(free_groups)
    conts: list[_Continuation] = []

    frees = rules.freed_joker_use == "any_set" and not rules.joker_sets_locked
    first_continued = len(m.cost)  # the continuations' columns: branched on first
    if not opening:
        for tiles, reading in zip(table, readings, strict=True):
            cont = _continuation(
                m, tiles, reading, supply, jokers, free_release, frees, rules, w_move, w_touch, aggregated
            )
            conts.append(cont)
            lanes += cont.runs
            groups += cont.groups
        _cross_kind(m, [r for cont in conts for r in cont.requests], free_lanes, free_groups)
    continued = range(first_continued, len(m.cost))

    # balance of every tile type, and the jokers
    per_key: dict[tuple[int, int], dict[int, float]] = {}
    joker_terms: dict[int, float] = {}
    for lane_or_run in lanes:
        for v in lane_or_run.numbers:
            per_key.setdefault((lane_or_run.colour, v), {})[lane_or_run.tile[v]] = 1
            joker_terms[lane_or_run.joker[v]] = 1
            if rack_jokers:
                counted.append((lane_or_run.joker[v], v))
    for g in groups:
        for c in g.colours:
            per_key.setdefault((c, g.number), {})[g.var] = 1
        if g.jokers:
            joker_terms[g.var] = joker_terms.get(g.var, 0) + g.jokers
    # (the tiles of each type played, and the jokers: whole at every solution, branched on)
    played_rows = range(len(m.row_lower), len(m.row_lower) + len(per_key) + 1)
    for key, terms in per_key.items():
        m.row(terms, base[key], base[key] + rack_counts[key])
    m.row(joker_terms, base_jokers, base_jokers + rack_jokers)
    # the score: every tile laid, less the table's (a constant); played jokers at their points;
    # and the tiles laid (every coefficient of ``per_key`` is one)
    score: dict[int, float] = {}
    laid: dict[int, float] = {}
    for key, terms in per_key.items():
        points = tw + vw * key[1]
        for col in terms:
            score[col] = score.get(col, 0) + points
            laid[col] = laid.get(col, 0) + 1
    for col, coef in joker_terms.items():
        score[col] = score.get(col, 0) + coef * tw
        laid[col] = laid.get(col, 0) + coef
    if rack_jokers:
        picks: dict[int, float] = {}
        for col, points in counted:
            pick = m.var(min(rack_jokers, 1 if m.upper[col] <= 1 else m.upper[col]))
            m.row({pick: 1, col: -1}, -np.inf, 0)
            picks[pick] = 1
            score[pick] = vw * points
        for g in groups:
            if g.jokers:
                pick = m.var(min(rack_jokers, g.jokers * m.upper[g.var]))
                m.row({pick: 1, g.var: -g.jokers}, -np.inf, 0)
                picks[pick] = 1
                score[pick] = vw * g.number
        m.row({**picks, **{col: -coef for col, coef in joker_terms.items()}}, -base_jokers, -base_jokers)
    constant = sum(n * (tw + vw * key[1]) for key, n in base.items()) + base_jokers * tw
    m.row(score, floor + constant, np.inf)
    if tw > vw:
        m.row(laid, floor // tw + sum(base.values()) + base_jokers, np.inf)
    if opening:
        meld: dict[int, float] = {}
        for lane in free_lanes:
            for v in _NUMBERS:
                meld[lane.tile[v]] = v
                meld[lane.joker[v]] = v
        for g in groups:
            meld[g.var] = g.number * (len(g.colours) + g.jokers)
        m.row(meld, max(1, rules.initial_meld_min), np.inf)

    left = deadline - time.perf_counter()
    if left <= 0:
        return None
    matrix = m.matrix()
    solved = _least(m, matrix, left, cutoff, continued, played_rows)
    if solved is None:
        return None
    x, optimal, objective = solved
    if x is None:
        return None, optimal, objective
    after = list(table) if opening else []
    for b, cont in enumerate(conts):
        if cont.same is not None and x[cont.same]:
            after.append(table[b])
            continue
        for run in cont.runs:
            after += run.runs(x)
        after += [g.tiles() for g in cont.groups if x[g.var]]
    for lane in free_lanes:
        after += lane.runs(x)
    for g in free_groups:
        if x[g.var]:
            after += [g.tiles()] * x[g.var]
    return after, optimal, objective


def _least(
    m: _Model, matrix: Any, time_limit: float, cutoff: int | None, continued: range, played_rows: range
) -> tuple[list[int] | None, bool, int] | None:
    """The model's minimum: a solution, whether it is proven, its objective (None: none found;
    with a ``cutoff``, a None solution when none is below it, proven or not). Solved by
    ``highs.branch_and_bound``: the linear relaxation first (when its optimum is integral it
    is the programme's), then branching on the tiles played of each type and the
    continuations' columns."""
    cost = -np.array(m.cost, dtype=float)
    upper = np.array(m.upper, dtype=float)
    lower_rows, upper_rows = np.array(m.row_lower, dtype=float), np.array(m.row_upper, dtype=float)
    columns = np.zeros(len(cost), dtype=bool)
    columns[continued.start : continued.stop] = True
    found = highs.branch_and_bound(
        cost,
        upper,
        matrix,
        lower_rows,
        upper_rows,
        time_limit,
        cutoff=-np.inf if cutoff is None else -cutoff,
        columns=columns,
        rows=played_rows,
    )
    if found.status == highs.NOT_BETTER and cutoff is not None:
        return None, True, cutoff
    if found.x is None:
        return None
    return [round(float(v)) for v in found.x], found.status == highs.OPTIMAL, -round(found.objective)


def _cross_kind(m: _Model, requests: list[tuple[str, int, int, int]], lanes: list[_Lane], groups: list[_Group]) -> None:
    """Before-sets continued by a free set of the other kind, counted without saying which:
    ("group", number, colour, var) asks for a free group holding that tile, ("run", number,
    colour, var) for a free run holding it. Necessary conditions only: every request has a
    set holding its tile; at any number, requests of any colours are no more than the groups
    holding one of them (Hall's condition, exact for groups; over the colours requested only,
    as a colour nobody asks for only weakens a row); in any stretch of numbers of a
    colour, requests are no more than the runs meeting it."""
    by_group: dict[int, dict[int, list[int]]] = {}
    by_run: dict[int, dict[int, list[int]]] = {}
    for kind, number, colour, var in requests:
        target = by_group if kind == "group" else by_run
        target.setdefault(number if kind == "group" else colour, {}).setdefault(
            colour if kind == "group" else number, []
        ).append(var)
    at_number: dict[int, list[tuple[int, int]]] = {}  # number -> (colour bits, variable) of its groups
    for g in groups:
        if g.number in by_group:
            at_number.setdefault(g.number, []).append((_bits(g.colours), g.var))
    for number, per_colour in by_group.items():
        here = at_number.get(number, [])
        requested = sorted(per_colour)
        for k in range(1, len(requested) + 1):
            for subset in itertools.combinations(requested, k):
                asked = [v for c in subset for v in per_colour[c]]
                row = dict.fromkeys(asked, 1.0)
                bits = _bits(subset)
                for mask, var in here:
                    if mask & bits:
                        row[var] = -1.0
                m.row(row, -np.inf, 0)
    for colour, per_number in by_run.items():
        lane = lanes[colour]
        for n, asked in per_number.items():
            m.row({**dict.fromkeys(asked, 1.0), lane.tile[n]: -1.0}, -np.inf, 0)
        numbers = sorted(per_number)
        for i, low in enumerate(numbers):
            for high in numbers[i + 1 :]:
                row = {v: 1.0 for n in numbers if low <= n <= high for v in per_number[n]}
                row[lane.cover[low]] = -1.0
                for v in range(low + 1, high + 1):
                    row[lane.start[v]] = -1.0
                m.row(row, -np.inf, 0)


@dataclass(frozen=True, slots=True)
class _Continuation:
    """The candidates continuing one before-set, and its unchanged indicator."""

    runs: list[_Run]
    groups: list[_Group]
    same: int | None
    requests: list[tuple[str, int, int, int]]


def _continuation(
    m: _Model,
    tiles: tuple[Tile, ...],
    reading: SetReading,
    supply: Counter[tuple[int, int]],
    jokers: int,
    free_release: bool,
    frees: bool,
    rules: Rules,
    w_move: int,
    w_touch: int,
    aggregated: bool = False,
) -> _Continuation:
    """The continuation of a before-set: its run and groups, kept tiles and the
    unchanged indicator, with their objective weights (``moved`` counts tiles not kept)."""
    colour_index = {c: i for i, c in enumerate(COLORS)}
    mine = Counter((colour_index[t.color], t.number) for t in tiles if t.color is not None)
    own_jokers = sum(1 for t in tiles if t.color is None)
    best = reading.best
    assert best is not None
    is_run = best.kind == RUN
    fixed_jokers = own_jokers and not free_release
    active: dict[int, float] = {}
    kept: dict[int, float] = {}
    size: dict[int, float] = {}
    holds_jokers: dict[int, float] = {}
    runs: list[_Run] = []
    groups: list[_Group] = []
    requests: list[tuple[str, int, int, int]] = []
    # aggregated: a set without jokers is continued by a set of the other kind through a
    # request on the free sets (it keeps one tile and forms no new set)
    requested = aggregated and not own_jokers
    if requested:
        for c, v in sorted(mine):
            var = m.var(1, -w_move - 1)
            requests.append(("group" if is_run else "run", v, c, var))
            active[var] = 1
    for colour in sorted({c for c, _ in mine}):
        if fixed_jokers and not is_run:
            break  # a group holding a joker stays a group
        if requested and not is_run:
            break
        anchors = sorted(v for c, v in mine if c == colour)
        run = _Run(m, colour, supply, jokers, _reach(colour, anchors, supply, jokers))
        runs.append(run)
        share = {run.tile[v]: 1.0 for v in anchors}
        starts = dict.fromkeys(run.stretch.values(), 1.0)
        # it holds one of b's numbered tiles
        m.row({**share, **{k: -1.0 for k in starts}}, 0, np.inf)
        if not is_run:  # a run continuing a group holds the group's tile of its colour
            m.row({run.tile[anchors[0]]: 1.0, **{k: -1.0 for k in starts}}, 0, 0)
        for k in starts:
            active[k] = 1
        for k in share:
            kept[k] = 1
        for (a, b), z in run.stretch.items():
            size[z] = b - a + 1
        for v in run.numbers:
            holds_jokers[run.joker[v]] = 1
        if fixed_jokers:
            places = [t.declared.number for t in best.tiles if t.color is None and t.declared is not None]
            for p in places:
                m.row(run.covering(p), 1, 1)
                if not frees:
                    m.row({run.joker[p]: 1}, 1, 1)
            if rules.joker_sets_locked:
                for v in anchors:
                    m.row({run.tile[v]: 1}, 1, 1)
    for number in sorted({v for _, v in mine}):
        if fixed_jokers and is_run:
            break  # a run holding a joker stays a run
        if requested and is_run:
            break
        mine_here = _bits(tuple(c for c in range(len(COLORS)) if mine[(c, number)]))
        for colours, j in _group_shapes(number, supply, jokers):
            shared = (_bits(colours) & mine_here).bit_count()
            if not shared:
                continue
            if fixed_jokers and j < own_jokers and not _frees_group_jokers(tiles, mine, colours, j, frees, rules):
                continue
            if fixed_jokers and rules.joker_sets_locked and (j < own_jokers or shared < len(mine)):
                continue
            g = _Group(number, colours, j, m.var(1))
            groups.append(g)
            active[g.var] = 1
            kept[g.var] = shared
            size[g.var] = len(colours) + j
            if j:
                holds_jokers[g.var] = j
    if not active:
        if fixed_jokers:
            m.row({m.var(0): 1}, 1, 1)  # infeasible: nothing can continue this set
        return _Continuation(runs, groups, None, requests)
    on = m.var(1)
    m.row({**active, on: -1.0}, 0, 0)
    if fixed_jokers:
        m.row({on: 1}, 1, 1)
    kept_jokers = m.var(own_jokers)
    if own_jokers:
        m.row({kept_jokers: 1, on: -own_jokers}, -np.inf, 0)
        m.row({kept_jokers: 1, **{k: -v for k, v in holds_jokers.items()}}, -np.inf, 0)
    total = sum(mine.values()) + own_jokers
    same = m.var(1, -w_touch)
    # unchanged: everything kept and nothing added
    m.row({**kept, kept_jokers: 1.0, same: -float(total)}, 0, np.inf)
    m.row({**size, same: float(MAX_NUMBER)}, -np.inf, total + MAX_NUMBER)
    _unchanged_rows(m, same, mine, own_jokers, is_run, runs, groups)
    for k, coef in kept.items():
        m.cost[k] -= w_move * coef
    m.cost[kept_jokers] -= w_move
    # a continuation is not a new set: the objective counts free sets only
    return _Continuation(runs, groups, same, requests)


def _unchanged_rows(
    m: _Model,
    same: int,
    mine: Counter[tuple[int, int]],
    own_jokers: int,
    is_run: bool,
    runs: list[_Run],
    groups: list[_Group],
) -> None:
    if is_run:
        for run in runs:
            numbers = sorted(v for c, v in mine if c == run.colour)
            for v in numbers:
                m.row({same: 1.0, run.tile[v]: -1.0}, -np.inf, 0)
            if not own_jokers and numbers:  # the run of exactly its numbers
                m.row({same: 1.0, run.stretch[(numbers[0], numbers[-1])]: -1.0}, -np.inf, 0)
        return
    colours = {c for c, _ in mine}
    exact = [g.var for g in groups if set(g.colours) == colours and g.jokers == own_jokers]
    m.row({same: 1.0, **dict.fromkeys(exact, -1.0)}, -np.inf, 0)


def _frees_group_jokers(
    tiles: tuple[Tile, ...],
    mine: Counter[tuple[int, int]],
    colours: tuple[int, ...],
    jokers: int,
    frees: bool,
    rules: Rules,
) -> bool:
    """Does a group of ``colours`` and ``jokers`` jokers continuing the group ``tiles`` free
    its missing jokers by their exact tiles (a declared joker by its tile; an undeclared one by
    a missing colour, both in a group of three under ``group_joker_needs_both_colours``)?"""
    if not frees:
        return False
    colour_index = {c: i for i, c in enumerate(COLORS)}
    added = {c for c in colours if not mine[(c, next(v for _, v in mine))]}
    declared = {colour_index[t.declared.color] for t in tiles if t.declared is not None and t.declared.color}
    if not declared <= added:
        return False
    freed = sum(1 for t in tiles if t.color is None) - jokers
    if rules.group_joker_needs_both_colours and len(tiles) == 3:
        return len(colours) == len(COLORS)
    return len(added) >= freed


def _checked(
    table: Sequence[tuple[Tile, ...]],
    kinds: Sequence[str | None],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    after: list[tuple[Tile, ...]],
    weights: tuple[int, int],
    floor: int,
    proven: bool,
) -> LeastChange | None:
    """The move if it is a legal turn scoring at least ``floor`` (a played joker worth the best
    points of a joker after the move, each set read at its best, as ``suggest`` scores)."""
    before = [TableSet(tiles, kind) for tiles, kind in zip(table, kinds, strict=True)]
    if not verify_turn(before, [TableSet(s) for s in after], tuple(rack), opened, rules).valid:
        return None
    played_keys, value = played_value(table, after, rules)
    count = sum(played_keys.values())
    tw, vw = weights
    score = count * tw + value * vw
    if score < floor:
        return None
    return LeastChange(tuple(after), tiles_of_keys(played_keys), value, score, proven)

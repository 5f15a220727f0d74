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
``joker_sets_locked`` it keeps every numbered tile. A joker freed by its exact tile goes to
any set under ``freed_joker_use: any_set``. Under ``other_set``, ``new_set_with_two_rack_tiles``
and ``joker_sets_locked`` the jokers first stay in their places; then (see ``least_change``)
a joker freed in place goes where the freed joker use says: any set, any set but its own
set's continuation, or a free set (``_freed_elsewhere``: the other moves such a joker may
make are not modelled, nor these rules' other conditions: the moves are checked). An opening
without manipulation keeps the table as it is and lays new sets from the rack worth the
minimum; an opening with manipulation is not modelled.

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
does not continue it, a joker staying in a run split off its set, a joker moved otherwise.
There, the programme with the table's jokers free (as under a free release, but under
``joker_release: replace`` each staying or replaced by a copy of its tile in a successor of
its set, counted: ``_replacement_rows``) is solved first, its smaller form, for at most ``RELAXED_NODES``
relaxations: its moves are a superset of the legal ones, so its optimum bounds the least change from below; its move, when a legal turn,
is the least change, proven, and otherwise the programme under the rules looks for a legal
move, proven least when it disturbs no more than that bound (on generated sabra games, least
change proven on 716 of 747 positions against 250 before; bench/README.md, session 30). The
explicit step's least move, when no legal turn, bounds every legal move from below too (its
moves hold every legal one moving that few tiles; the others move more): where the step was
left to the programmes and the free programme stops at its cap, it runs then (sabra games:
slowest 1,015 -> 515 ms, unproven 31 -> 28; session 31)."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import time
from collections import Counter
from collections.abc import Callable, Sequence
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
from engine.solver.model import _COLOUR_INDEX, Suggestion
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered, tiles_of_keys
from engine.turns import verify_turn

if TYPE_CHECKING:
    from engine.solver.best_move import _Suggester

_NUMBERS = range(MIN_NUMBER, MAX_NUMBER + 1)
_KEYS = tuple((c, v) for c in range(len(COLORS)) for v in _NUMBERS)
"""The tile types (colour index, number), colour by colour."""
FEW_MOVED = 2
"""The most table tiles moved that the explicit second step (``engine.solver.few_moved``)
looks at; beyond, the integer programmes below decide."""
KNOWN_MOVED = 3
"""When the best move found moves at most this many table tiles, so does the least change:
the explicit step then looks at no more than the best move moves (fewer columns, when it moves
fewer than ``FEW_MOVED``), and further than ``FEW_MOVED`` when it moves more (the least change
is then found by the explicit steps, without the integer programmes)."""
RELAXED_NODES = 40
"""The most relaxations of the integer programme with the jokers free, solved first where the
rules' programmes do not model every legal move (see ``least_change``). On generated sabra
games (747 positions) the cap at 20, 40 and 60 left least change unproven on 56, 30 and 25,
the slowest 1% taking 235, 255 and 311 ms and all together 20.9, 20.9 and 23.4 s (xp, 1,083
positions, 20 against 40: 116 and 66 unproven, p99 444 and 496 ms, 50.7 and 52.1 s);
measured in bench/README.md, session 30."""
RELEASING_SECONDS = 0.1
"""The most time of the rules' programme freeing jokers in place under ``other_set``,
``new_set_with_two_rack_tiles`` and ``joker_sets_locked`` (see ``least_change``). On generated pressman-2009 games
(747 positions) unbounded, it took p99 from 819 to 1,002 ms for the same answers; at 0.1 s,
and only where the free programme gave a bound, 716 -> 756 ms (bench/README.md, session 32)."""


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
        # (a legal move scoring more than the search's best: that best was not optimal)
        optimal_proven=move.optimal_proven and found.score <= floor,
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


_Solved = tuple[list[tuple[Tile, ...]] | None, bool, int]
"""A programme's solution: the after table (None: none below the cutoff), whether it is
optimal, and its objective value (``_attempt``)."""


class _Model:
    """A mixed-integer programme being built: variables with bounds and costs, sparse rows
    (kept as their columns and coefficients in order, the matrix made once at the end; a
    block of rows laid out once, ``_Rows``, kept as where its copies start)."""

    def __init__(self) -> None:
        self.upper: list[float] = []
        self.cost: list[float] = []
        self.data: list[float] = []
        self.col_of: list[int] = []
        self.row_size: list[int] = []  # the coefficients in ``data`` per row (none for a block's)
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []
        self.blocks: dict[_Rows, list[tuple[int, int]]] = {}  # each copy's first row and column

    def var(self, upper: float, cost: float = 0.0) -> int:
        self.upper.append(upper)
        self.cost.append(cost)
        return len(self.cost) - 1

    def vars(self, upper: Sequence[float], cost: float = 0.0) -> range:
        """Variables of these upper bounds, all of one cost."""
        first = len(self.cost)
        self.upper += upper
        self.cost += [cost] * len(upper)
        return range(first, len(self.cost))

    def row(self, terms: dict[int, float], lower: float, upper: float) -> None:
        """The row of ``terms`` (column -> coefficient)."""
        self.row_of(list(terms), list(terms.values()), lower, upper)

    def row_of(self, cols: Sequence[int], coefs: Sequence[float], lower: float, upper: float) -> None:
        """The row of ``cols`` (each once) with ``coefs``."""
        self.col_of += cols
        self.data += coefs
        self.row_size.append(len(cols))
        self.row_lower.append(lower)
        self.row_upper.append(upper)

    def difference(self, plus: Sequence[int], minus: Sequence[int], lower: float, upper: float) -> None:
        """The row ``x[plus] - x[minus]`` summed (each column once) between ``lower`` and ``upper``."""
        self.row_of([*plus, *minus], [1.0] * len(plus) + [-1.0] * len(minus), lower, upper)

    def pairs(
        self, left: Sequence[int], right: Sequence[int], coef: Sequence[float], lower: float, upper: float
    ) -> None:
        """A row ``x[l] + c * x[r]`` between ``lower`` and ``upper`` per ``l``, ``r`` and ``c`` of
        ``left``, ``right`` and ``coef``."""
        self.col_of += itertools.chain.from_iterable(zip(left, right, strict=True))
        self.data += itertools.chain.from_iterable(zip(itertools.repeat(1.0), coef))
        self.row_size += [2] * len(left)
        self.row_lower += [lower] * len(left)
        self.row_upper += [upper] * len(left)

    def rows(self, first: int, block: _Rows) -> None:
        """The rows of ``block``, its columns counted from variable ``first``."""
        self.blocks.setdefault(block, []).append((len(self.row_lower), first))
        self.row_size += [0] * len(block.lower)
        self.row_lower += block.lower
        self.row_upper += block.upper

    def matrix(self) -> Any:
        """The rows as a sparse matrix by columns (zero coefficients left out)."""
        rows = [np.repeat(np.arange(len(self.row_size)), self.row_size)]
        cols = [np.array(self.col_of, dtype=np.int64)]
        data = [np.array(self.data, dtype=float)]
        for block, copies in self.blocks.items():
            firsts = np.array(copies, dtype=np.int64)
            rows.append((firsts[:, :1] + block.row).ravel())
            cols.append((firsts[:, 1:] + block.column).ravel())
            data.append(np.tile(block.data, len(copies)))
        values = np.concatenate(data)
        kept = values != 0
        shape = (len(self.row_lower), len(self.cost))
        # (by columns, each column's rows in order: the blocks' coefficients come last)
        return coo_array((values[kept], (np.concatenate(rows)[kept], np.concatenate(cols)[kept])), shape=shape).tocsc()


@dataclass(frozen=True, slots=True, eq=False)
class _Rows:
    """Rows laid out once, to be added to models many times (told apart by identity): per
    coefficient its row and column, counted from the block's first row and first variable;
    the rows' bounds."""

    row: np.ndarray[Any, np.dtype[np.int64]]
    column: np.ndarray[Any, np.dtype[np.int64]]
    data: np.ndarray[Any, np.dtype[np.float64]]
    lower: tuple[float, ...]
    upper: tuple[float, ...]

    @staticmethod
    def of(rows: list[tuple[list[tuple[int, float]], float, float]]) -> _Rows:
        """Rows given as (terms (column offset, coefficient), lower bound, upper bound)."""
        return _Rows(
            np.repeat(np.arange(len(rows), dtype=np.int64), [len(terms) for terms, _, _ in rows]),
            np.array([column for terms, _, _ in rows for column, _ in terms], dtype=np.int64),
            np.array([value for terms, _, _ in rows for _, value in terms], dtype=float),
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
    (runs holding number v), ``tile[v]`` (of them, with the numbered tile) and ``joker[v]``.
    ``tiled``: a row keeps the runs started no more than the tiles laid (each run holds a
    numbered tile), a cut of the relaxation, which otherwise lays parts of runs of jokers alone
    (see ``_attempt``)."""

    def __init__(
        self,
        model: _Model,
        colour: int,
        cap: int,
        supply: Counter[tuple[int, int]],
        jokers: int,
        tiled: bool = False,
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
        if tiled:
            m.difference(list(self.start.values()), list(self.tile.values()), -np.inf, 0)

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


@functools.cache
def _stretches(numbers: range) -> tuple[dict[tuple[int, int], int], tuple[int, ...], _Rows]:
    """A continuation run over ``numbers``: its stretches (first and last number -> index),
    their sizes and its rows (``_stretch_rows``)."""
    index, rows = _stretch_rows(len(numbers))
    spans = {(numbers[a], numbers[b]): k for k, (a, b) in enumerate(index)}
    return spans, tuple(b - a + 1 for a, b in index), rows


class _Run:
    """At most one run of one colour over ``numbers`` (a continuation's), as a choice among
    its stretches of three numbers or more: a column each (``stretches``), their first and last
    numbers (``spans``, to their index) and sizes (``sizes``) in the same order; ``tile[v]``
    and ``joker[v]`` as in ``_Lane``."""

    def __init__(
        self, model: _Model, colour: int, supply: Counter[tuple[int, int]], jokers: int, numbers: range
    ) -> None:
        self.colour = colour
        self.numbers = numbers
        m = model
        first, n = len(m.cost), len(numbers)
        self.spans, self.sizes, rows = _stretches(numbers)
        m.upper += [1 if supply.get((colour, v)) else 0 for v in numbers]
        m.upper += [min(1, jokers)] * n
        m.upper += [1] * len(self.spans)
        m.cost += [0.0] * (2 * n + len(self.spans))
        self.tile = dict(zip(numbers, range(first, first + n), strict=True))
        self.joker = dict(zip(numbers, range(first + n, first + 2 * n), strict=True))
        self.stretches = range(first + 2 * n, len(m.cost))
        m.rows(first, rows)

    def covering(self, v: int) -> dict[int, float]:
        """The stretches holding number ``v``."""
        return {z: 1.0 for (a, b), z in zip(self.spans, self.stretches, strict=True) if a <= v <= b}

    def runs(self, x: list[int]) -> list[tuple[Tile, ...]]:
        """The run of a solution (none or one); jokers declared."""
        colour = COLORS[self.colour]
        return [
            tuple(numbered(colour, v) if x[self.tile[v]] else joker_as(numbered(colour, v)) for v in range(a, b + 1))
            for (a, b), z in zip(self.spans, self.stretches, strict=True)
            if x[z]
        ]


def _reach(colour: int, anchors: list[int], supply: Counter[tuple[int, int]], jokers: int) -> range:
    """The numbers a run of ``colour`` holding one of the numbers ``anchors`` can cover: from
    them outwards while a tile of the number is in ``supply`` or a joker is left for it."""

    def last(step: int) -> int:
        v, left = anchors[0] if step < 0 else anchors[-1], jokers
        while MIN_NUMBER <= v + step <= MAX_NUMBER:
            if not supply.get((colour, v + step)):
                if not left:
                    break
                left -= 1
            v += step
        return v

    return range(last(-1), last(1) + 1)


class _Shapes:
    """Group candidates of one number, in order: their colours and jokers, and what the rows
    read of them (made once per supply pattern: cached by their makers)."""

    def __init__(self, shapes: Sequence[tuple[tuple[int, ...], int]]) -> None:
        self.colours = tuple(colours for colours, _ in shapes)
        self.jokers = tuple(j for _, j in shapes)
        self.sizes = tuple(len(colours) + j for colours, j in shapes)
        self.bits = tuple(map(_bits, self.colours))

    def __len__(self) -> int:
        return len(self.colours)


class _Groups(NamedTuple):
    """The group candidates of one number, a column each (``cols``, in the order of
    ``shapes``): a block per number, programmes have hundreds of candidates."""

    number: int
    shapes: _Shapes
    cols: range

    def tiles(self, i: int) -> tuple[Tile, ...]:
        """The tiles of candidate ``i``."""
        colours, jokers = self.shapes.colours[i], self.shapes.jokers[i]
        return tuple(numbered(COLORS[c], self.number) for c in colours) + (JOKER,) * jokers


def _present(number: int, supply: Counter[tuple[int, int]]) -> tuple[int, ...]:
    """The colours of ``number`` in ``supply``."""
    return tuple(c for c in range(len(COLORS)) if supply.get((c, number)))


@functools.cache
def _shapes_of(present: tuple[int, ...], jokers: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The groups of a number that the colours ``present`` and ``jokers`` jokers can lay:
    (colours, jokers)."""
    out = []
    for k in range(1, len(present) + 1):
        for colours in itertools.combinations(present, k):
            for j in range(max(0, 3 - k), min(jokers, len(COLORS) - k) + 1):
                out.append((colours, j))
    return tuple(out)


@functools.cache
def _free_shapes(counts: tuple[int, ...], jokers: int) -> tuple[_Shapes, tuple[int, ...]]:
    """The groups of a number that ``counts`` copies of each colour and ``jokers`` jokers can
    lay, and how many of each at most."""
    shapes = _shapes_of(tuple(c for c, k in enumerate(counts) if k), min(jokers, len(COLORS)))
    most = tuple(min([counts[c] for c in colours] + ([jokers // j] if j else [])) for colours, j in shapes)
    return _Shapes(shapes), most


@functools.cache
def _shapes_sharing(present: tuple[int, ...], jokers: int, mine: int) -> tuple[_Shapes, tuple[int, ...]]:
    """Of ``_shapes_of(present, jokers)`` the groups holding a colour of the bit set ``mine``,
    and how many of those colours each holds."""
    shapes = [(colours, j) for colours, j in _shapes_of(present, jokers) if _bits(colours) & mine]
    return _Shapes(shapes), tuple((_bits(colours) & mine).bit_count() for colours, _ in shapes)


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
    table_counts: Counter[tuple[int, int]] = Counter()
    rack_counts: Counter[tuple[int, int]] = Counter()
    table_jokers = rack_jokers = 0
    for s in table:
        for t in s:
            if t.color is None:
                table_jokers += 1
            else:
                table_counts[(_COLOUR_INDEX[t.color], t.number)] += 1
    for t in rack:
        if t.color is None:
            rack_jokers += 1
        else:
            rack_counts[(_COLOUR_INDEX[t.color], t.number)] += 1
    opening = not opened
    supply = rack_counts if opening else table_counts + rack_counts
    base = Counter[tuple[int, int]]() if opening else table_counts
    base_jokers = 0 if opening else table_jokers
    jokers = rack_jokers + base_jokers
    w_touch = (sum(supply.values()) + jokers) // 3 + 2
    w_move = w_touch * (len(table) + 1) + 1
    free_release = rules.jokers_move_freely
    # proven: solved to optimality, and every legal move is modelled (a joker set's joker
    # may also be replaced in a set that does not continue it, or stay in a split run)
    exact = opening or free_release or not table_jokers

    def weighed(d: tuple[int, int, int]) -> int:
        return d[0] * w_move + d[1] * w_touch + d[2]

    # the programmes' objective is the weighed disturbance less this constant
    offset = w_move * sum(map(len, table)) + w_touch * len(table)

    def check(after: list[tuple[Tile, ...]], proven: bool) -> LeastChange | None:
        return _checked(table, kinds, rack, opened, rules, after, weights, floor, proven)

    few_skipped = False  # the explicit step left to the programmes
    # a bound from below on the weighed disturbance of every legal move (the explicit step's
    # optimum, when its move is no legal turn)
    lower: int | None = None
    # the weighed disturbance of the least disturbing legal move known (the caller's)
    ceiling = None if opening or known is None else weighed(known)

    def explicit(most: int) -> LeastChange | str | None:
        """The explicit step for at most ``most`` table tiles moved (``_few_moved``): its move
        when proven least, KNOWN_LEAST when its bound shows the caller's move least, INFEASIBLE,
        else None (its bound, when it gives one, kept in ``lower``)."""
        nonlocal lower
        few = _few_moved(table, kinds, rack, rules, weights, floor, most, deadline)
        if not isinstance(few, tuple):
            return few
        lower = weighed(few)
        return KNOWN_LEAST if ceiling is not None and ceiling <= lower else None

    # a move moving no table tile, when one scores as much: proven least by itself
    if not opening:
        intact = least_intact(table, rack, rules, weights, floor, deadline - time.perf_counter())
        if isinstance(intact, list):
            found = check(intact, True)
            if found is not None:
                return found
        # else a move moving at most FEW_MOVED table tiles (or as many as a move known to
        # score floor, up to KNOWN_MOVED): proven least by itself too
        if intact == INFEASIBLE or intact is None:
            # (the programmes prove their answer when exact, and mostly under a replace
            # release: the free programme's rows)
            provable = exact or rules.joker_release == "replace"
            bounds = _few_bounds(None if known is None else known[0], provable)
            few_skipped = not bounds
            for most in bounds:
                few = explicit(most)
                if isinstance(few, LeastChange) or few == KNOWN_LEAST:
                    return few
                if few != INFEASIBLE:
                    break
    # then the integer programmes (``_programmes``). Where the rules' programmes do not model
    # every legal move (table jokers under a joker release that is not free), the programmes
    # with the jokers free, which model a superset of them, are solved first (at most
    # ``RELAXED_NODES`` relaxations): their optimum bounds the least change from below, and
    # their move, when a legal turn, is the least change; else the rules' programmes look for
    # a legal move, proven least when it disturbs no more than that bound
    holder: LeastChange | str | None = KNOWN_LEAST if ceiling is not None else None

    def attempt(
        free: bool, max_nodes: int | None = None, keep_jokers: bool = False, seconds: float | None = None
    ) -> Callable[[bool, int | None], _Solved | None]:
        return functools.partial(
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
            deadline if seconds is None else min(deadline, time.perf_counter() + seconds),
            w_move,
            w_touch,
            free,
            max_nodes=max_nodes,
            keep_jokers=keep_jokers,
        )

    programmes = functools.partial(_programmes, check, functools.partial(changes, table, rack), weighed, offset)
    if exact:
        return programmes(attempt(free_release), True, ceiling, holder)[0]
    relaxed, bound = programmes(attempt(True, RELAXED_NODES), True, ceiling, holder, smaller_only=True)
    if isinstance(relaxed, str) or (relaxed is not None and relaxed.proven):
        return relaxed
    if few_skipped and bound is None and time.perf_counter() < deadline:
        # the free programme proved nothing (it stopped at its cap): the explicit step, left
        # out for the programmes, may prove a move least, or bound them from below
        few = explicit(FEW_MOVED)
        if isinstance(few, LeastChange) or few == KNOWN_LEAST:
            return few
    if lower is not None:
        bound = lower if bound is None else max(bound, lower)
        if ceiling is not None and ceiling <= bound:
            return KNOWN_LEAST
    if relaxed is not None:
        ceiling, holder = _weighed_changes(relaxed, weighed), relaxed
        if bound is not None and ceiling <= bound:
            return dataclasses.replace(relaxed, proven=True)
    # (the rules' programmes answer no KNOWN_LEAST: they are not exact)
    limited_use = rules.freed_joker_use != "any_set" or rules.joker_sets_locked
    # (under other_set, new_set_with_two_rack_tiles and locked joker sets first with every
    # joker set's jokers in their places: its moves are more often legal, and it is solved
    # faster)
    legal = programmes(attempt(False, keep_jokers=limited_use), False, ceiling, holder)[0]
    if limited_use and bound is not None and not _within(legal, bound, weighed) and time.perf_counter() < deadline:
        # then with the jokers freed by their exact tiles where these rules allow (in part:
        # ``_freed_elsewhere``), for a move disturbing less: its smaller form, for at most
        # RELEASING_SECONDS
        if isinstance(legal, LeastChange):
            ceiling, holder = _weighed_changes(legal, weighed), legal
        releasing_programme = attempt(False, seconds=RELEASING_SECONDS)
        legal = programmes(releasing_programme, False, ceiling, holder, smaller_only=True)[0] or legal
    legal = legal or holder
    if isinstance(legal, str):  # the caller's move
        return legal if bound is not None and ceiling is not None and ceiling <= bound else None
    if legal is None or bound is None:
        return legal
    return dataclasses.replace(legal, proven=_within(legal, bound, weighed))


def _programmes(
    check: Callable[[list[tuple[Tile, ...]], bool], LeastChange | None],
    listed: Callable[[Sequence[tuple[Tile, ...]]], Changes],
    weighed: Callable[[tuple[int, int, int]], int],
    offset: int,
    attempt: Callable[[bool, int | None], _Solved | None],
    exact: bool,
    ceiling: int | None,
    holder: LeastChange | str | None,
    smaller_only: bool = False,
) -> tuple[LeastChange | str | None, int | None]:
    """The least disturbing legal move the integer programmes find (``attempt(aggregated,
    cutoff)``, see ``_attempt``; ``exact``: they model every legal move), disturbing no more
    than ``ceiling`` (weighed) when given, a legal move ``holder`` disturbing that much
    (KNOWN_LEAST for the caller's): proven least, or that move proven least when no move of an
    exact model disturbs as little; and for an exact model, a bound from below on the weighed
    disturbance of every legal move (None: none proven). First the smaller model (a set
    continued by a set of the other kind only through the free sets, counted by necessary
    conditions): its optimum bounds the true one from below, so a move it finds disturbing
    exactly that much is the least change; else (unless ``smaller_only``) the full model. A
    move is only answered when it is a legal turn scoring enough (``check``, see ``_checked``),
    with its change list (``listed``)."""

    def checked(after: list[tuple[Tile, ...]], proven: bool) -> LeastChange | None:
        found = check(after, proven)
        return None if found is None else dataclasses.replace(found, changes=listed(found.after))

    fast = attempt(True, None if ceiling is None else ceiling - offset + 1)
    # a legal move of the smaller model that is not proven least: answered (not proven) when
    # the full model finds nothing in time
    fallback: LeastChange | None = None
    bound: int | None = None
    if fast is not None:
        after, optimal, least = fast
        if after is None:  # no move of the smaller model disturbs as little: nor does a legal move
            return (_proven(holder) if optimal and exact else None), None
        if optimal and exact:
            bound = least + offset
        found = checked(after, optimal and exact)
        if found is not None:
            disturbs = _weighed_changes(found, weighed)
            if optimal and disturbs <= least + offset:
                return found, bound
            fallback = dataclasses.replace(found, proven=False)
            if ceiling is not None and disturbs < ceiling:
                ceiling, holder = disturbs, fallback
    if smaller_only:
        return fallback, bound
    full = attempt(False, None if ceiling is None else ceiling - offset + 1)
    if full is None:
        return fallback, bound
    after, optimal, least = full
    if after is None:  # no move of the full model disturbs as little as the one holding the ceiling
        return (_proven(holder) if optimal and exact and holder is not None else fallback), bound
    if optimal and exact:
        bound = least + offset
    found = checked(after, optimal and exact)
    if found is None or (not found.proven and fallback is not None and _disturbance(found) > _disturbance(fallback)):
        return fallback, bound
    return found, bound


def _within(move: LeastChange | str | None, bound: int | None, weighed: Callable[[tuple[int, int, int]], int]) -> bool:
    """Is ``move`` (a programme's, with its change list) proven least by ``bound``?"""
    return isinstance(move, LeastChange) and bound is not None and _weighed_changes(move, weighed) <= bound


def _weighed_changes(move: LeastChange, weighed: Callable[[tuple[int, int, int]], int]) -> int:
    """The weighed disturbance of ``move``, its change list known."""
    return weighed(_disturbance(move))


def _disturbance(move: LeastChange) -> tuple[int, int, int]:
    """The disturbance of ``move``, its change list known."""
    assert move.changes is not None
    return move.changes.disturbance.as_tuple()


def _proven(holder: LeastChange | str | None) -> LeastChange | str | None:
    """The move holding the ceiling, proven least."""
    return dataclasses.replace(holder, proven=True) if isinstance(holder, LeastChange) else holder


def _few_bounds(moved: int | None, provable: bool) -> tuple[int, ...]:
    """The bounds on the table tiles moved that the explicit step tries in turn, given that a
    move scoring as much moves ``moved`` (None: unknown): that many when it is at most
    ``FEW_MOVED`` (the least change is among them), ``FEW_MOVED`` and then that many when it
    is at most ``KNOWN_MOVED`` (the fewer columns first: the least change often moves fewer).
    When it moves more, ``FEW_MOVED`` only where the programmes seldom prove their answer
    (``provable`` false: the step's proof holds under every rule edition); where they can, none:
    on the games bench (free-joker) the step then found nothing on 131 of 148 positions, about
    10 ms each, and the programme finds the other 17 too (bench/README.md, session 19); on
    generated sabra games, where the free programme proves most answers, leaving the step out
    took the median from 19.6 to 16.1 ms, with one answer fewer proven of 747 (session 30)."""
    if moved is None:
        return (FEW_MOVED,)
    if moved > KNOWN_MOVED:
        return () if provable else (FEW_MOVED,)
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
) -> LeastChange | str | tuple[int, int, int] | None:
    """The least change when it moves at most ``most`` table tiles (proven: see
    ``engine.solver.few_moved``), once its move verifies and its change list shows the
    disturbance the programme counted; ``INFEASIBLE`` when every move scoring ``floor`` moves
    more; the disturbance counted when its move is no legal turn (the step's moves holding
    every legal one moving that few, and the others moving more, no legal move disturbs
    less); else None."""
    few = least_few_moved(table, rack, rules, weights, floor, most, deadline - time.perf_counter())
    if not isinstance(few, tuple):
        return few
    after, counted = few
    found = _checked(table, kinds, rack, True, rules, after, weights, floor, True)
    if found is None:
        return counted
    listed = changes(table, rack, found.after)
    if listed.disturbance.as_tuple() != counted:
        return None
    return dataclasses.replace(found, changes=listed)


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
    max_nodes: int | None = None,
    keep_jokers: bool = False,
) -> _Solved | None:
    """Build and solve the programme; the after table of its solution, whether it is optimal,
    and its objective value (None: no solution in time, or within ``max_nodes`` relaxations).
    With a ``cutoff`` only solutions of a lower objective are sought: the after table is None
    when none exists. ``keep_jokers``: a joker set's jokers stay in their places (unless the
    release is free), not freed by their exact tiles."""
    tw, vw = weights
    m = _Model()

    # free sets: every run started and every group laid is a new set. Outside a free joker
    # release every run holds a tile by a row of its own (``_Lane``'s ``tiled``): on 1,500 small
    # other_set positions with a table joker the free programme, capped at RELAXED_NODES, bounded
    # 13 more least changes (17 answers disturbing more than the least -> 4); under a free release
    # (the games bench: one programme's branch and bound 90 -> 431 ms) it is left out
    free_lanes = [
        _Lane(m, c, 3 + jokers, supply, jokers, tiled=not rules.jokers_move_freely) for c in range(len(COLORS))
    ]
    for lane in free_lanes:
        for v in _NUMBERS:
            m.cost[lane.start[v]] += 1
    free_groups: list[_Groups] = []
    for v in _NUMBERS:
        shapes, most = _free_shapes(tuple(supply.get((c, v), 0) for c in range(len(COLORS))), jokers)
        free_groups.append(_Groups(v, shapes, m.vars(most, 1)))
    lanes: list[_Lane | _Run] = list(free_lanes)
    groups = list(free_groups)
    conts: list[_Continuation] = []

    releases = not keep_jokers
    first_continued = len(m.cost)  # the continuations' columns: branched on first
    if not opening:
        for tiles, reading in zip(table, readings, strict=True):
            cont = _continuation(
                m, tiles, reading, supply, jokers, free_release, releases, rules, w_move, w_touch, aggregated
            )
            conts.append(cont)
            lanes += cont.runs
            groups += cont.groups
        if not free_release and rules.freed_joker_use != "any_set" and releases:
            _freed_elsewhere(m, conts, rack_jokers, rules.freed_joker_use == "new_set_with_two_rack_tiles")
        _cross_kind(m, [r for cont in conts for r in cont.requests], free_lanes, free_groups)
    continued = range(first_continued, len(m.cost))

    # balance of every tile type, and the jokers (the tiles of each type played, and the jokers:
    # whole at every solution, branched on)
    laid = _laid(lanes, groups, tw, vw)
    played_rows = range(len(m.row_lower), len(m.row_lower) + len(_KEYS) + 1)
    for c, v in _KEYS:
        cols, before = laid.by_type[v][c], base.get((c, v), 0)
        m.row_of(cols, [1.0] * len(cols), before, before + rack_counts.get((c, v), 0))
    m.row_of(laid.jokers, laid.jokers_n, base_jokers, base_jokers + rack_jokers)
    # the table's jokers set free under a replace release: rows every legal move meets
    replaced_freely = free_release and rules.joker_release == "replace" and bool(base_jokers)
    if replaced_freely:
        from_rack = rules.joker_replacement_from == "rack"
        _replacement_rows(m, readings, lanes, groups, laid, base if from_rack else None)
    # the score: every tile laid, less the table's (a constant); played jokers at their points;
    # and the tiles laid
    picks: list[int] = []  # a joker played counts as its place's number: at most the jokers laid there
    pick_points: list[float] = []
    if rack_jokers:
        held = [col for lane_or_run in lanes for col in lane_or_run.joker.values()]
        picks += m.vars([min(rack_jokers, 1 if m.upper[col] <= 1 else m.upper[col]) for col in held])
        m.pairs(picks, held, [-1] * len(held), -np.inf, 0)
        pick_points += [vw * v for lane_or_run in lanes for v in lane_or_run.joker]
        in_groups = [
            (var, j, g.number, colours)
            for g in groups
            for var, colours, j in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True)
            if j
        ]
        group_picks = m.vars([min(rack_jokers, j * m.upper[var]) for var, j, _, _ in in_groups])
        m.pairs(group_picks, [var for var, _, _, _ in in_groups], [-j for _, j, _, _ in in_groups], -np.inf, 0)
        picks += group_picks
        # a group of one numbered tile reads as a run too (``R5 J J``: 5 6 7), and a table
        # group joker of its number may stay in it (the joker of ``K5 O5 R5 J``) while the
        # move scores it as the run: there its jokers are worth up to the run's highest number
        stay_numbers = _table_jokers(readings)[1] if replaced_freely else {}
        pick_points += [
            vw * max(number, min(MAX_NUMBER, number + j))
            if number in stay_numbers and len(colours) == 1
            else vw * number
            for _, j, number, colours in in_groups
        ]
        m.row_of(picks + laid.jokers, [1.0] * len(picks) + [-n for n in laid.jokers_n], -base_jokers, -base_jokers)
    constant = sum(n * (tw + vw * key[1]) for key, n in base.items()) + base_jokers * tw
    m.row_of(laid.cols + picks, laid.points + pick_points, floor + constant, np.inf)
    if tw > vw:
        m.row_of(laid.cols, laid.tiles, floor // tw + sum(base.values()) + base_jokers, np.inf)
    if opening:
        meld: dict[int, float] = {}
        for lane in free_lanes:
            for v in _NUMBERS:
                meld[lane.tile[v]] = v
                meld[lane.joker[v]] = v
        for g in groups:
            meld.update(zip(g.cols, [g.number * size for size in g.shapes.sizes], strict=True))
        m.row(meld, max(1, rules.initial_meld_min), np.inf)

    left = deadline - time.perf_counter()
    if left <= 0:
        return None
    matrix = m.matrix()
    solved = _least(m, matrix, left, cutoff, continued, played_rows, max_nodes)
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
        after += [g.tiles(i) for g in cont.groups for i, var in enumerate(g.cols) if x[var]]
    for lane in free_lanes:
        after += lane.runs(x)
    for g in free_groups:
        for i, var in enumerate(g.cols):
            if x[var]:
                after += [g.tiles(i)] * x[var]
    return after, optimal, objective


class _Laid(NamedTuple):
    """The columns laying tiles (each once), for the balance and score rows."""

    by_type: dict[int, list[list[int]]]  # number -> per colour, the columns laying that tile
    jokers: list[int]  # the columns laying jokers,
    jokers_n: list[float]  # how many
    cols: list[int]  # every column laying tiles,
    points: list[float]  # what it scores (a joker: a tile of no value),
    tiles: list[float]  # how many tiles it lays


def _replacement_rows(
    m: _Model,
    readings: Sequence[SetReading],
    lanes: Sequence[_Lane | _Run],
    groups: Sequence[_Groups],
    laid: _Laid,
    table_copies: Counter[tuple[int, int]] | None,
) -> None:
    """Rows for the table's jokers set free under ``joker_release: replace``: a table joker
    either stays (a run joker: a joker of an after-run stands for its tile; a group joker: it
    can stand for the same tile in an after-group, of its number) or a successor of its set
    holds a copy of a tile it may stand for, one copy per joker (SPEC §4): a successor holds a
    numbered tile of the set, so for a run joker's tile it is a run of that colour, for a group
    joker's a group of that number. So, per tile, the run jokers standing for it are no more
    than the after-runs holding a joker or a copy of it there; per number, the group jokers no
    more than the jokers of that number's after-groups and the copies they hold of the tiles
    those jokers may stand for. With ``table_copies`` (the table's tiles, given under
    ``joker_replacement_from: rack``) the replacing copies are played from the rack: the same
    jokers are no more than those staying jokers and the copies played (laid less the table's).
    A set of one numbered tile and jokers reads both ways (``R13 J J``: a group of 13s, or a
    run), and a move may score it as one while a table joker stays in it by the other: the
    jokers of after-groups of one tile of a run joker's colour within three of its number count
    as staying for it (and ``_attempt`` scores such a group's jokers as the run's best).
    Necessary conditions only, every legal move meets them; the jokers of a set read more than
    one way are left out (``_table_jokers``)."""
    run_jokers, group_jokers, group_colours = _table_jokers(readings)
    in_successors: list[tuple[Counter[int], int]] = []  # (terms, at least)
    played: list[tuple[Counter[int], int]] = []
    for (c, v), count in run_jokers.items():
        runs = [run for run in lanes if run.colour == c and v in run.joker]
        staying = Counter(run.joker[v] for run in runs)
        # a set of one numbered tile and jokers reads as a group too, and as a run: an
        # after-group of one tile of colour c, within three of v, may read as a run whose
        # joker stands for the tile (the move scoring the set as the group)
        for g in groups:
            if g.number != v and abs(g.number - v) <= 3:
                for col, shape, jokers in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True):
                    if jokers and shape == (c,):
                        staying[col] += jokers
        in_successors.append((staying + Counter(run.tile[v] for run in runs), count))
        if table_copies is not None:
            played.append((staying + Counter(laid.by_type[v][c]), count + table_copies[(c, v)]))
    for number, count in group_jokers.items():
        colours = group_colours[number]
        staying, held = Counter[int](), Counter[int]()
        for g in groups:
            if g.number == number:
                for col, shape, jokers in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True):
                    staying[col] += jokers
                    held[col] += sum(1 for c in shape if c in colours)
        in_successors.append((staying + held, count))
        if table_copies is not None:
            copies = Counter(col for c in colours for col in laid.by_type[number][c])
            played.append((staying + copies, count + sum(table_copies[(c, number)] for c in colours)))
    for terms, least in in_successors + played:
        m.row({col: float(n) for col, n in terms.items()}, least, np.inf)


def _table_jokers(
    readings: Sequence[SetReading],
) -> tuple[Counter[tuple[int, int]], Counter[int], dict[int, set[int]]]:
    """The table's run jokers by the tile they stand for, its group jokers by number and, by
    number, the colours those may stand for (a set read more than one way left out)."""
    run_jokers: Counter[tuple[int, int]] = Counter()
    group_jokers: Counter[int] = Counter()
    group_colours: dict[int, set[int]] = {}
    for reading in readings:
        if len(reading.readings) != 1:
            continue
        best = reading.readings[0]
        for options in best.joker_options:
            keys = [(_COLOUR_INDEX[t.color], t.number) for t in options if t.color is not None]
            if best.kind == RUN and len(keys) == 1:
                run_jokers[keys[0]] += 1
            elif best.kind != RUN and keys:
                number = keys[0][1]
                group_jokers[number] += 1
                group_colours.setdefault(number, set()).update(c for c, _ in keys)
    return run_jokers, group_jokers, group_colours


def _laid(lanes: Sequence[_Lane | _Run], groups: Sequence[_Groups], tw: int, vw: int) -> _Laid:
    """The columns laying tiles in ``lanes`` and ``groups``, a tile scoring ``tw`` plus ``vw``
    per point."""
    laid = _Laid({v: [[] for _ in COLORS] for v in _NUMBERS}, [], [], [], [], [])
    for lane_or_run in lanes:
        for v, col in lane_or_run.tile.items():
            laid.by_type[v][lane_or_run.colour].append(col)
        laid.cols.extend([*lane_or_run.tile.values(), *lane_or_run.joker.values()])
        laid.points.extend([tw + vw * v for v in lane_or_run.tile] + [tw] * len(lane_or_run.joker))
        laid.jokers.extend(lane_or_run.joker.values())
    laid.tiles.extend([1] * len(laid.cols))  # (one tile each so far)
    laid.jokers_n.extend([1] * len(laid.jokers))
    for g in groups:
        cols, shapes, here = g.cols, g.shapes, laid.by_type[g.number]
        per_tile = tw + vw * g.number
        for var, colours, j in zip(cols, shapes.colours, shapes.jokers, strict=True):
            for c in colours:
                here[c].append(var)
            laid.points.append(len(colours) * per_tile + j * tw)
        laid.cols.extend(cols)
        laid.tiles.extend(shapes.sizes)
        laid.jokers.extend(itertools.compress(cols, shapes.jokers))
        laid.jokers_n.extend(filter(None, shapes.jokers))
    return laid


def _least(
    m: _Model,
    matrix: Any,
    time_limit: float,
    cutoff: int | None,
    continued: range,
    played_rows: range,
    max_nodes: int | None = None,
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
        max_nodes=max_nodes,
    )
    if found.status == highs.NOT_BETTER and cutoff is not None:
        return None, True, cutoff
    if found.x is None:
        return None
    return [round(float(v)) for v in found.x], found.status == highs.OPTIMAL, -round(found.objective)


def _cross_kind(
    m: _Model, requests: list[tuple[str, int, int, int]], lanes: list[_Lane], groups: list[_Groups]
) -> None:
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
        if kind == "group":
            by_group.setdefault(number, {}).setdefault(colour, []).append(var)
        else:
            by_run.setdefault(colour, {}).setdefault(number, []).append(var)
    at_number: dict[int, list[tuple[int, int]]] = {}  # number -> (colour bits, variable) of its groups
    for g in groups:
        if g.number in by_group:
            at_number.setdefault(g.number, []).extend(zip(g.shapes.bits, g.cols, strict=True))
    for number, per_colour in by_group.items():
        here = at_number.get(number, [])
        requested = sorted(per_colour)
        for k in range(1, len(requested) + 1):
            for subset in itertools.combinations(requested, k):
                asked = [v for c in subset for v in per_colour[c]]
                bits = _bits(subset)
                m.difference(asked, [var for mask, var in here if mask & bits], -np.inf, 0)
    for colour, per_number in by_run.items():
        lane = lanes[colour]
        for n, asked in per_number.items():
            m.difference(asked, [lane.tile[n]], -np.inf, 0)
        numbers = sorted(per_number)
        for i, low in enumerate(numbers):
            # from low to each higher number: the requests so far against the runs meeting them
            # (holding low, or starting after it)
            asked = list(per_number[low])
            meeting = [lane.cover[low]]
            for before, high in itertools.pairwise(numbers[i:]):
                asked += per_number[high]
                meeting += [lane.start[v] for v in range(before + 1, high + 1)]
                m.difference(asked, meeting, -np.inf, 0)


@dataclass(frozen=True, slots=True)
class _Continuation:
    """The candidates continuing one before-set, and its unchanged indicator."""

    runs: list[_Run]
    groups: list[_Groups]
    same: int | None
    requests: list[tuple[str, int, int, int]]
    # (column, jokers): where it holds jokers beside those of the set staying in their places
    # (with fixed jokers; else every column holding jokers), and those staying
    extra_jokers: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    staying_jokers: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    own_jokers: int = 0


def _continuation(
    m: _Model,
    tiles: tuple[Tile, ...],
    reading: SetReading,
    supply: Counter[tuple[int, int]],
    jokers: int,
    free_release: bool,
    releases: bool,
    rules: Rules,
    w_move: int,
    w_touch: int,
    aggregated: bool = False,
) -> _Continuation:
    """The continuation of a before-set: its run and groups, kept tiles and the
    unchanged indicator, with their objective weights (``moved`` counts tiles not kept)."""
    mine = Counter((_COLOUR_INDEX[t.color], t.number) for t in tiles if t.color is not None)
    own_jokers = sum(1 for t in tiles if t.color is None)
    best = reading.best
    assert best is not None
    is_run = best.kind == RUN
    fixed_jokers = own_jokers and not free_release
    # ``releases``: a joker may be freed by its exact tile in its place (where it may go: any
    # set, or as the caller's ``_freed_elsewhere`` says; a locked set keeps its numbered tiles)
    extra_jokers: list[tuple[int, float]] = []
    staying_jokers: list[tuple[int, float]] = []
    active: list[int] = []  # the candidates' columns, requests included (one chosen when b is continued)
    kept: list[int] = []  # the columns holding b's tiles,
    kept_n: list[float] = []  # how many of them
    size: list[int] = []  # the candidate sets' columns,
    sizes: list[float] = []  # their sizes
    holder: list[int] = []  # the columns that may hold jokers,
    holds: list[float] = []  # how many
    runs: list[_Run] = []
    groups: list[_Groups] = []
    requests: list[tuple[str, int, int, int]] = []
    # aggregated: a set without jokers is continued by a set of the other kind through a
    # request on the free sets (it keeps one tile and forms no new set)
    requested = aggregated and not own_jokers
    if requested:
        asked = m.vars([1] * len(mine), -w_move - 1)
        kind = "group" if is_run else "run"
        requests += [(kind, v, c, var) for (c, v), var in zip(sorted(mine), asked, strict=True)]
        active += asked
    for colour in sorted({c for c, _ in mine}):
        if fixed_jokers and not is_run:
            break  # a group holding a joker stays a group
        if requested and not is_run:
            break
        anchors = sorted(v for c, v in mine if c == colour)
        run = _Run(m, colour, supply, jokers, _reach(colour, anchors, supply, jokers))
        runs.append(run)
        share = [run.tile[v] for v in anchors]
        stretches = list(run.stretches)
        m.difference(share, stretches, 0, np.inf)  # it holds one of b's numbered tiles
        if not is_run:  # a run continuing a group holds the group's tile of its colour
            m.difference(share[:1], stretches, 0, 0)
        active += stretches
        kept += share
        kept_n += [1.0] * len(share)
        size += stretches
        sizes += run.sizes
        holder += run.joker.values()
        holds += [1.0] * len(run.joker)
        places = [t.declared.number for t in best.tiles if t.color is None and t.declared is not None]
        if fixed_jokers:
            for p in places:
                m.row(run.covering(p), 1, 1)
                if not releases:
                    m.row({run.joker[p]: 1}, 1, 1)
            if rules.joker_sets_locked:
                for v in anchors:
                    m.row({run.tile[v]: 1}, 1, 1)
        extra_jokers += [(col, 1.0) for v, col in run.joker.items() if not fixed_jokers or v not in places]
        staying_jokers += [(run.joker[p], 1.0) for p in places if fixed_jokers]
    mine_bits: dict[int, int] = {}  # number -> the colours of b's tiles of it, as a bit set
    for c, v in mine:
        mine_bits[v] = mine_bits.get(v, 0) | 1 << c
    for number in sorted(mine_bits):
        if fixed_jokers and is_run:
            break  # a run holding a joker stays a run
        if requested and is_run:
            break
        shapes, shared = _shapes_sharing(_present(number, supply), min(jokers, len(COLORS)), mine_bits[number])
        if fixed_jokers:
            allowed = [
                (colours, j, n)
                for colours, j, n in zip(shapes.colours, shapes.jokers, shared, strict=True)
                if (j >= own_jokers or _frees_group_jokers(tiles, mine, colours, j, releases, rules))
                and not (rules.joker_sets_locked and n < len(mine))
            ]
            shapes, shared = _Shapes([(colours, j) for colours, j, _ in allowed]), tuple(n for _, _, n in allowed)
        g = _Groups(number, shapes, m.vars([1] * len(shapes)))
        groups.append(g)
        active += g.cols
        kept += g.cols
        kept_n += shared
        size += g.cols
        sizes += shapes.sizes
        holder += itertools.compress(g.cols, shapes.jokers)
        holds += filter(None, shapes.jokers)
        kept_here = own_jokers if fixed_jokers else 0
        for col, j in zip(g.cols, shapes.jokers, strict=True):
            if j > kept_here:
                extra_jokers.append((col, float(j - kept_here)))
            if j and kept_here:
                staying_jokers.append((col, float(min(j, kept_here))))
    if not active:
        if fixed_jokers:
            m.row({m.var(0): 1}, 1, 1)  # infeasible: nothing can continue this set
        return _Continuation(runs, groups, None, requests)
    on = m.var(1)
    m.difference(active, [on], 0, 0)
    if fixed_jokers:
        m.row({on: 1}, 1, 1)
    kept_jokers = m.var(own_jokers)
    if own_jokers:
        m.row({kept_jokers: 1, on: -own_jokers}, -np.inf, 0)
        m.row_of([kept_jokers, *holder], [1.0] + [-n for n in holds], -np.inf, 0)
    total = sum(mine.values()) + own_jokers
    same = m.var(1, -w_touch)
    # unchanged: everything kept and nothing added
    m.row_of([*kept, kept_jokers, same], [*kept_n, 1.0, -float(total)], 0, np.inf)
    m.row_of([*size, same], [*sizes, float(MAX_NUMBER)], -np.inf, total + MAX_NUMBER)
    _unchanged_rows(m, same, mine, own_jokers, is_run, runs, groups)
    for k, n in zip(kept, kept_n, strict=True):
        m.cost[k] -= w_move * n
    m.cost[kept_jokers] -= w_move
    # a continuation is not a new set: the objective counts free sets only
    return _Continuation(runs, groups, same, requests, extra_jokers, staying_jokers, own_jokers if fixed_jokers else 0)


def _freed_elsewhere(m: _Model, conts: list[_Continuation], rack_jokers: int, new_sets: bool) -> None:
    """Where the jokers freed by their exact tiles may lie, under a freed joker use other than
    any_set: not in their own set's continuation (of its kind, holding its tiles), so beside
    the jokers staying in their places a continuation holds at most the rack's jokers and
    those freed from other sets; under ``new_sets`` in no continuation at all (a new set holds
    no tile of the joker's set and not every tile of any before-set: a continuation seldom
    qualifies). Not every legal move is modelled (a freed joker beside another copy of a tile
    of its set, in a continuation that is a new set), nor is every modelled move legal
    (other_set's kinds, a new set's two rack tiles): the moves are checked."""
    if new_sets:
        extra = [term for cont in conts for term in cont.extra_jokers]
        m.row_of([col for col, _ in extra], [n for _, n in extra], -np.inf, rack_jokers)
        return
    for b, cont in enumerate(conts):
        if not cont.own_jokers or not cont.extra_jokers:
            continue
        others = [c for k, c in enumerate(conts) if k != b]
        # extra(b) <= the rack's jokers + the others' freed ones (their own less those staying)
        terms = [*cont.extra_jokers, *(term for c in others for term in c.staying_jokers)]
        most = rack_jokers + sum(c.own_jokers for c in others)
        m.row_of([col for col, _ in terms], [n for _, n in terms], -np.inf, most)


def _unchanged_rows(
    m: _Model,
    same: int,
    mine: Counter[tuple[int, int]],
    own_jokers: int,
    is_run: bool,
    runs: list[_Run],
    groups: list[_Groups],
) -> None:
    if is_run:
        for run in runs:
            numbers = sorted(v for c, v in mine if c == run.colour)
            m.pairs([same] * len(numbers), [run.tile[v] for v in numbers], [-1.0] * len(numbers), -np.inf, 0)
            if not own_jokers and numbers:  # the run of exactly its numbers
                whole = run.stretches[run.spans[(numbers[0], numbers[-1])]]
                m.row({same: 1.0, whole: -1.0}, -np.inf, 0)
        return
    colours = tuple(sorted({c for c, _ in mine}))
    exact = [
        var
        for g in groups
        for var, shape, j in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True)
        if shape == colours and j == own_jokers
    ]
    m.difference([same], exact, -np.inf, 0)


def _frees_group_jokers(
    tiles: tuple[Tile, ...],
    mine: Counter[tuple[int, int]],
    colours: tuple[int, ...],
    jokers: int,
    releases: bool,
    rules: Rules,
) -> bool:
    """Does a group of ``colours`` and ``jokers`` jokers continuing the group ``tiles`` free
    its missing jokers by their exact tiles (a declared joker by its tile; an undeclared one by
    a missing colour, both in a group of three under ``group_joker_needs_both_colours``)?"""
    if not releases:
        return False
    added = {c for c in colours if not mine[(c, next(v for _, v in mine))]}
    declared = {_COLOUR_INDEX[t.declared.color] for t in tiles if t.declared is not None and t.declared.color}
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
    played_keys, value = played_value(table, after, rules, opened)
    count = sum(played_keys.values())
    tw, vw = weights
    score = count * tw + value * vw
    if score < floor:
        return None
    return LeastChange(tuple(after), tiles_of_keys(played_keys), value, score, proven)

"""The pieces of the least-change integer programme (``least_change_programme``): the model
being built (``Model``; blocks of rows laid out once, ``_Rows``), the free runs of one colour
as a lane (``Lane``, ``_lane_rows``), a continuation's run as a choice among its stretches
(``Run``, ``_stretches``, ``reach``) and the group candidates of one number (``Shapes``,
``Groups``, ``free_shapes``, ``shapes_sharing``)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy.sparse import coo_array

from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered

NUMBERS = range(MIN_NUMBER, MAX_NUMBER + 1)


class Model:
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


class Lane:
    """Runs of one colour as a flow over the numbers 1-13: ``start[v]``, ``end[v]``, ``cover[v]``
    (runs holding number v), ``tile[v]`` (of them, with the numbered tile) and ``joker[v]``.
    ``tiled``: a row keeps the runs started no more than the tiles laid (each run holds a
    numbered tile), a cut of the relaxation, which otherwise lays parts of runs of jokers alone
    (see ``least_change_programme.solve_programme``)."""

    def __init__(
        self,
        model: Model,
        colour: int,
        cap: int,
        supply: Counter[tuple[int, int]],
        jokers: int,
        tiled: bool = False,
    ) -> None:
        self.colour = colour
        self.numbers = numbers = NUMBERS
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


class Run:
    """At most one run of one colour over ``numbers`` (a continuation's), as a choice among
    its stretches of three numbers or more: a column each (``stretches``), their first and last
    numbers (``spans``, to their index) and sizes (``sizes``) in the same order; ``tile[v]``
    and ``joker[v]`` as in ``Lane``."""

    def __init__(
        self, model: Model, colour: int, supply: Counter[tuple[int, int]], jokers: int, numbers: range
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


def reach(colour: int, anchors: list[int], supply: Counter[tuple[int, int]], jokers: int) -> range:
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


class Shapes:
    """Group candidates of one number, in order: their colours and jokers, and what the rows
    read of them (made once per supply pattern: cached by their makers)."""

    def __init__(self, shapes: Sequence[tuple[tuple[int, ...], int]]) -> None:
        self.colours = tuple(colours for colours, _ in shapes)
        self.jokers = tuple(j for _, j in shapes)
        self.sizes = tuple(len(colours) + j for colours, j in shapes)
        self.bits = tuple(map(colours_as_bits, self.colours))

    def __len__(self) -> int:
        return len(self.colours)


class Groups(NamedTuple):
    """The group candidates of one number, a column each (``cols``, in the order of
    ``shapes``): a block per number, programmes have hundreds of candidates."""

    number: int
    shapes: Shapes
    cols: range

    def tiles(self, i: int) -> tuple[Tile, ...]:
        """The tiles of candidate ``i``."""
        colours, jokers = self.shapes.colours[i], self.shapes.jokers[i]
        return tuple(numbered(COLORS[c], self.number) for c in colours) + (JOKER,) * jokers


def present_colours(number: int, supply: Counter[tuple[int, int]]) -> tuple[int, ...]:
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
def free_shapes(counts: tuple[int, ...], jokers: int) -> tuple[Shapes, tuple[int, ...]]:
    """The groups of a number that ``counts`` copies of each colour and ``jokers`` jokers can
    lay, and how many of each at most."""
    shapes = _shapes_of(tuple(c for c, k in enumerate(counts) if k), min(jokers, len(COLORS)))
    most = tuple(min([counts[c] for c in colours] + ([jokers // j] if j else [])) for colours, j in shapes)
    return Shapes(shapes), most


@functools.cache
def shapes_sharing(present: tuple[int, ...], jokers: int, mine: int) -> tuple[Shapes, tuple[int, ...]]:
    """Of ``_shapes_of(present, jokers)`` the groups holding a colour of the bit set ``mine``,
    and how many of those colours each holds."""
    shapes = [(colours, j) for colours, j in _shapes_of(present, jokers) if colours_as_bits(colours) & mine]
    return Shapes(shapes), tuple((colours_as_bits(colours) & mine).bit_count() for colours, _ in shapes)


@functools.cache
def colours_as_bits(colours: tuple[int, ...]) -> int:
    """The colours as a bit set."""
    return sum(1 << c for c in colours)

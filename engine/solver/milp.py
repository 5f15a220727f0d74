"""An exact integer programme for the problems without blocks, solved with HiGHS.

After den Hertog & Hulshof, "Solving Rummikub Problems by Integer Linear Programming" (The
Computer Journal 49(6), 2006), as lean as rummikub-solver's: a *candidate set* is a multiset
of numbered tiles plus a count of jokers that some valid set holds (runs of 3, 4 or 5 tiles,
since a longer run is shorter ones, each holding a numbered tile, but for runs of 6 or 7 with
3 or 4 jokers at an end, which are candidates too; and groups of 3 or 4); one integer variable per
candidate set says how many copies of it are laid, bounded by the copies its tiles allow.
Jokers are a pooled count: a candidate set records how many it takes and the most points they
can stand for in it (runs and groups with the same tiles are one candidate, scored by their
best placement of the jokers, so the programme maximises exactly the search's score). Every
tile type is balanced by a ranged row: the copies laid hold the table's tiles plus at most the
rack's; the jokers likewise, between the table's and all of them.

It answers the problems of ``suggest`` in which every table set may be taken apart (no blocks,
no opening minimum), with the same lexicographic score as the search (so the two agree on the
optimum), and lays the sets out as the search's builder does: runs ascending with every joker
declared, groups in colour order with jokers last. HiGHS is reached through ``highs`` (its own
package, one thread, silent: nothing is written to stdout); the relative gap is zero, so only a
proven optimum is reported as one; its time limit is the search's deadline (``solve_integer``:
our own branch and bound for a few relaxations first, then HiGHS's solver). A relaxation whose
solution is integral gives that solution with its bound (``Bound.solution``): it is the optimum.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy.sparse import csc_array, vstack

from engine.solver import highs
from engine.solver.model import (
    COLOUR_INDEX,
    LAST,
    MAX_GROUP,
    NCOL,
    GroupBlock,
    OutOfTime,
    Problem,
    RunBlock,
)
from engine.solver.reconstruction import BuildingRun, Laid, joker_as, run_colour, stands_for
from engine.tiles import COLORS, JOKER, MIN_NUMBER, Tile, numbered

_TileKey = tuple[int, int]  # (colour, number)


class _Candidate(NamedTuple):
    """A candidate set: its numbered tiles (sorted), its jokers, the most points they stand
    for in it, its tiles as laid that way, and, for the pooled model, whether it is *lean*
    (see ``solve_milp``), how many pooled jokers it can take at its ends and how it is laid
    as a run to take them."""

    keys: tuple[_TileKey, ...]
    jokers: int
    points: int
    tiles: tuple[Tile, ...]
    lean: bool
    room: int
    run: tuple[Tile, ...]  # the set laid as a run, when it can be one; () otherwise


@functools.lru_cache(maxsize=8)
def _candidates(max_jokers: int) -> tuple[_Candidate, ...]:
    """Every candidate set with at most ``max_jokers`` jokers and at least one numbered tile,
    each laid by the placement of its jokers worth the most points (the first such)."""
    best: dict[tuple[tuple[_TileKey, ...], int], tuple[int, tuple[Tile, ...]]] = {}
    runs: dict[tuple[tuple[_TileKey, ...], int], tuple[Tile, ...]] = {}

    def offer(keys: tuple[_TileKey, ...], jokers: int, points: int, tiles: tuple[Tile, ...]) -> None:
        key = (tuple(sorted(keys)), jokers)
        if key not in best or points > best[key][0]:
            best[key] = (points, tiles)

    for c in range(NCOL):
        for length in range(3, max(5, 3 + max_jokers) + 1):
            for start in range(MIN_NUMBER, LAST - length + 2):
                numbers = range(start, start + length)
                for k in range(min(max_jokers, length - 1) + 1):
                    for holes in itertools.combinations(numbers, k):
                        if length > 5 and _splits(tuple(n not in holes for n in numbers)):
                            continue  # laid as shorter runs, its jokers where they are
                        tiles = tuple(joker_as(c, n) if n in holes else numbered(COLORS[c], n) for n in numbers)
                        keys = tuple((c, n) for n in numbers if n not in holes)
                        offer(keys, k, sum(holes), tiles)
                        runs.setdefault((keys, k), tiles)
    for v in range(MIN_NUMBER, LAST + 1):
        for size in (3, MAX_GROUP):
            for k in range(max(1, size - max_jokers), size + 1):
                for cs in itertools.combinations(range(NCOL), k):
                    tiles = tuple(numbered(COLORS[c], v) for c in cs) + (JOKER,) * (size - k)
                    offer(tuple((c, v) for c in cs), size - k, (size - k) * v, tiles)
    out = []
    for (keys, jokers), (points, tiles) in best.items():
        size = len(keys) + jokers
        as_run = (keys, jokers) in runs
        span = keys[-1][1] - keys[0][1] + 1
        # lean: three tiles, no joker, or a run whose ends are numbered tiles; a lean set of
        # three takes up to two pooled jokers if it can be a run, else (a group) one; a run
        # of four one
        lean = size == 3 or not jokers or (as_run and span == size)
        room = (2 if as_run else 1) if size == 3 else (1 if as_run and size == 4 else 0)
        out.append(_Candidate(keys, jokers, points, tiles, lean, room, runs.get((keys, jokers), ())))
    return tuple(out)


def _splits(places: tuple[bool, ...]) -> bool:
    """Whether a run whose places hold a numbered tile (True) or a joker (False) is a row of
    runs of 3–5 places, each holding a numbered tile. Every run is but those of 6 or 7 places
    with 3 or 4 jokers at an end (``N N N J J J``): they are candidates of their own, or the
    programme could only lay their tiles with the jokers elsewhere (``J N N`` + ``N J J``),
    worth fewer points."""
    if len(places) <= 5:
        return len(places) >= 3 and any(places)
    return any(_splits(places[:cut]) and _splits(places[cut:]) for cut in range(3, 6))


class _Sparse(NamedTuple):
    """A sparse matrix as its entries: the row, column and value of each, and its shape."""

    rows: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def of(cls, matrix: Any) -> _Sparse:
        """The entries of a scipy sparse matrix (column by column, for a CSC one)."""
        coo = matrix.tocoo()
        return cls(coo.row.astype(np.intp), coo.col.astype(np.intp), coo.data.astype(float), coo.shape)

    def taking(self, keep: np.ndarray) -> _Sparse:
        """The matrix of columns ``keep`` (``matrix[:, keep]``, ``keep`` without repeats)."""
        place = np.full(self.shape[1], -1)
        place[keep] = np.arange(len(keep))
        columns = place[self.columns]
        taken = columns >= 0
        return _Sparse(self.rows[taken], columns[taken], self.values[taken], (self.shape[0], len(keep)))


class _Model(NamedTuple):
    """The constraint matrix of every candidate set of a model, built once per joker count
    (and pooled or not) and sliced per problem: rows are the 52 tile types, the jokers and,
    when pooled, the room for pooled jokers; the last column of a pooled model is the pooled
    jokers (per unit: no tile type, one tile, a joker, no points). ``keys``, ``scores``,
    ``jokers`` and ``joker_copies`` are per column, the other arrays per candidate set.
    ``keys[m, j]`` is the row of column j's m-th tile, padded with the row 52 (no limit)."""

    chosen: tuple[_Candidate, ...]
    matrix: _Sparse
    keys: np.ndarray
    # (3, column): tiles laid per copy (jokers included), points of the numbered tiles, the
    # most points the jokers stand for
    scores: np.ndarray
    jokers: np.ndarray
    joker_copies: np.ndarray  # the copies the model's jokers allow (inf: it takes none)
    pooled: bool
    group_number: np.ndarray  # the number of the numbered tiles when they share one (a group may), else 0
    colours: np.ndarray  # (candidate, colour): whether it holds a tile of that colour
    room: np.ndarray  # pooled jokers it can take at its ends
    joker_numbers: _Sparse  # (number - 1, column): its jokers standing for that number


TILE_TYPES = NCOL * LAST  # tile types; row ``TILE_TYPES`` counts the jokers


def type_row(c: int, v: int) -> int:
    return c * LAST + v - MIN_NUMBER


_NUMBERS = np.tile(np.arange(MIN_NUMBER, LAST + 1), NCOL)  # the number of each tile type (its row)


@functools.lru_cache(maxsize=16)
def _model(max_jokers: int, pooled: bool) -> _Model:
    chosen = tuple(c for c in _candidates(max_jokers) if c.lean or not pooled)
    n = len(chosen)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    width = n + 1 if pooled else n  # the columns
    keys = np.full((5, width), TILE_TYPES, dtype=np.intp)
    for j, candidate in enumerate(chosen):
        for m, (c, v) in enumerate(candidate.keys):
            keys[m, j] = type_row(c, v)
            rows.append(type_row(c, v))
            cols.append(j)
            vals.append(1.0)
        if candidate.jokers:
            rows.append(TILE_TYPES)
            cols.append(j)
            vals.append(float(candidate.jokers))
        if pooled and candidate.room:
            rows.append(TILE_TYPES + 1)
            cols.append(j)
            vals.append(-float(candidate.room))
    if pooled:  # the pooled jokers: one column in the joker row and the room row
        rows += [TILE_TYPES, TILE_TYPES + 1]
        cols += [n, n]
        vals += [1.0, 1.0]
    shape = (TILE_TYPES + (2 if pooled else 1), width)
    matrix = csc_array((vals, (rows, cols)), shape=shape)
    matrix.sum_duplicates()
    stands: Counter[tuple[int, int]] = Counter()
    for j, candidate in enumerate(chosen):
        for t in candidate.tiles:
            if t.color is None:
                stands[(stands_for(t, candidate.tiles) - 1, j)] += 1
    joker_numbers = csc_array(
        (list(stands.values()), ([r for r, _ in stands], [j for _, j in stands])), shape=(LAST, shape[1])
    )
    columns = [(len(c.keys) + c.jokers, sum(v for _, v in c.keys), c.points, c.jokers) for c in chosen]
    if pooled:
        columns.append((1, 0, 0, 1))
    tiles, points, joker_points, jokers = np.array(columns, dtype=float).T
    with np.errstate(divide="ignore"):
        joker_copies = np.where(jokers > 0, max_jokers // np.maximum(jokers, 1), np.inf)
    return _Model(
        chosen,
        _Sparse.of(matrix),
        keys,
        np.array([tiles, points, joker_points]),
        jokers,
        joker_copies,
        pooled,
        np.array([c.keys[0][1] if len({v for _, v in c.keys}) == 1 else 0 for c in chosen], dtype=np.intp),
        np.array([[any(k == c for k, _ in cand.keys) for c in range(NCOL)] for cand in chosen], dtype=bool).reshape(
            n, NCOL
        ),
        np.array([c.room for c in chosen], dtype=float),
        _Sparse.of(joker_numbers),
    )


def prepare(max_jokers: int = 4) -> None:
    """Build the candidate sets' matrices up to ``max_jokers`` jokers now (tens of
    milliseconds, once per process) instead of at the first problem that needs each one, and
    start HiGHS's thread pool (a first tiny programme)."""
    for jokers in range(max_jokers + 1):
        for pooled in (False, True):
            _model(jokers, pooled)
    one = np.ones(1)
    highs.maximise(one, one, csc_array(np.ones((1, 1))), np.zeros(1), one, True, False, 1.0)


class _Programme(NamedTuple):
    """One problem's programme: the columns kept (candidates with a copy to lay), their
    objective, bounds and matrix, the row bounds and the constant of the score (the table's
    numbered tiles, credited back)."""

    model: _Model
    keep: np.ndarray
    cost: np.ndarray
    upper: np.ndarray
    matrix: _Sparse
    lower_rows: np.ndarray
    upper_rows: np.ndarray
    constant: float


def _by_type(counts: list[list[int]]) -> np.ndarray:
    """``counts[c][v]`` of every tile type, at its row (``type_row(c, v)``)."""
    return np.array([n for row in counts for n in row[MIN_NUMBER : LAST + 1]], dtype=float)


def _rows(problem: Problem, pooled: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """The bounds of the programme's rows (the tile types, the jokers and, when ``pooled``,
    the room for pooled jokers) and the constant of its score."""
    required = _by_type(problem.required)
    # after the tile types: the jokers' row, then (pooled) the room's, where the pooled
    # jokers are at most the room the sets leave
    lower_rows = np.concatenate([required, [problem.jokers_required, -np.inf][: 1 + pooled]])
    upper_rows = np.concatenate([required + _by_type(problem.optional), [problem.jokers, 0.0][: 1 + pooled]])
    # (whole numbers: the same in any order of summing)
    constant = float(required @ (problem.tile_weight + problem.value_weight * _NUMBERS))
    return lower_rows, upper_rows, constant


def _programme(problem: Problem) -> _Programme | None:
    """The programme of ``problem``; None when no candidate set can be laid."""
    tw, vw, jw = problem.tile_weight, problem.value_weight, problem.joker_weight
    pooled = jw == 0 and problem.jokers > 0
    model = _model(problem.jokers, pooled)
    lower_rows, upper_rows, constant = _rows(problem, pooled)
    limit = np.append(upper_rows[:TILE_TYPES], np.inf)  # (the padding row of ``keys``: no limit)
    upper = np.minimum(limit[model.keys].min(axis=0), model.joker_copies)
    keep = np.flatnonzero(upper > 0)
    if not len(keep) or (pooled and len(keep) == 1):
        return None
    # (whole numbers: the same in any order of summing)
    cost = np.array([tw, vw, jw], dtype=float) @ model.scores[:, keep]
    return _Programme(model, keep, cost, upper[keep], model.matrix.taking(keep), lower_rows, upper_rows, constant)


class _BlockColumn(NamedTuple):
    """What a block column lays: a tile of ``colour`` (None: a joker) at ``number``."""

    block: RunBlock | GroupBlock
    number: int
    colour: int | None


def _block_columns(
    problem: Problem, avail: Sequence[float], base_rows: int, owners: list[int] | None = None
) -> tuple[
    tuple[list[int], list[int], list[float]], np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[_BlockColumn]
]:
    """Columns and rows of the blocks (table sets kept whole, growing only): for a run
    block, one column per number outside it and per way to fill it (its colour's tile, or a
    joker standing for it), the numbers covered contiguous (each covered only if the one
    nearer the block is); for a group block, one column per colour it may take and one for
    its jokers, at most four tiles in all. Returns the columns' entries (rows, columns counted
    from the first block column, values; rows ``base_rows`` and up are the blocks' own), costs
    and upper bounds, the bounds of the new rows and what each column lays. ``owners``, when
    given, gets for each new row the position of its block (run blocks, then group blocks)."""
    tw, vw, jw = problem.tile_weight, problem.value_weight, problem.joker_weight
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    cost: list[float] = []
    upper: list[float] = []
    row_upper: list[float] = []
    laid: list[_BlockColumn] = []
    jokers = problem.jokers > 0

    def column(row: int, own: int, price: float, most: float, what: _BlockColumn) -> None:
        """A column laying a tile counted in ``row`` (its type's, or the jokers'), in its block's
        row ``own``."""
        rows.extend((row, own))
        cols.extend((len(cost), len(cost)))
        vals.extend((1.0, 1.0))
        cost.append(price)
        upper.append(most)
        laid.append(what)

    for position, b in enumerate(problem.run_blocks):
        for side in (range(b.start - 1, MIN_NUMBER - 1, -1), range(b.end + 1, LAST + 1)):
            nearer: list[int] = []  # the columns covering the number nearer the block
            for n in side:
                tile = avail[type_row(b.colour, n)] > 0
                if not tile and not jokers:
                    break
                chain = base_rows + len(row_upper)
                # covered(n) - covered(nearer) <= 0; next to the block: covered(n) <= 1
                row_upper.append(0.0 if nearer else 1.0)
                if owners is not None:
                    owners.append(position)
                for k in nearer:
                    rows.append(chain)
                    cols.append(k)
                    vals.append(-1.0)
                nearer = []
                if tile:
                    nearer.append(len(cost))
                    column(type_row(b.colour, n), chain, tw + vw * n, 1.0, _BlockColumn(b, n, b.colour))
                if jokers:
                    nearer.append(len(cost))
                    column(TILE_TYPES, chain, tw + jw * n, 1.0, _BlockColumn(b, n, None))
    for position, g in enumerate(problem.group_blocks, len(problem.run_blocks)):
        room = float(MAX_GROUP - g.size)
        if room <= 0:
            continue
        size_row = base_rows + len(row_upper)
        row_upper.append(room)
        if owners is not None:
            owners.append(position)
        for c in sorted(g.allowed):
            if avail[type_row(c, g.number)] > 0:
                column(type_row(c, g.number), size_row, tw + vw * g.number, 1.0, _BlockColumn(g, g.number, c))
        if jokers:
            column(TILE_TYPES, size_row, tw + jw * g.number, room, _BlockColumn(g, g.number, None))
    return (
        (rows, cols, vals),
        np.array(cost),
        np.array(upper),
        np.full(len(row_upper), -np.inf),
        np.array(row_upper),
        laid,
    )


class FullProgramme(NamedTuple):
    """A problem's whole programme: the candidate sets' columns, then the blocks'."""

    programme: _Programme
    matrix: csc_array
    cost: np.ndarray
    upper: np.ndarray
    lower_rows: np.ndarray
    upper_rows: np.ndarray
    counts: np.ndarray  # tiles laid per unit of each column
    blocks: list[_BlockColumn]  # what the columns after the candidate sets' lay


def full_programme(problem: Problem, primary_most: int | None, owners: list[int] | None = None) -> FullProgramme | None:
    """The programme with its blocks (None: nothing can be laid) and, with ``primary_most``,
    a row capping the tiles played (the table's numbered tiles plus that many). ``owners``:
    see ``_block_columns`` (the blocks' rows are the last ones without ``primary_most`` and
    ``problem.groups_needed``, whose rows follow them).

    Without ``owners`` the programme of the last problem is kept (per thread): a problem's
    linear bounds and its integer programme share it (building it costs about as much as
    HiGHS takes on a small relaxation)."""
    if owners is None:
        last = getattr(_last, "built", None)
        if last is None or last[0] is not problem:
            last = _last.built = (problem, _built(problem, None))
        full = last[1]
    else:
        full = _built(problem, owners)
    if full is None or primary_most is None:
        return full
    # tiles laid at most the table's plus ``primary_most``
    required_numbered = sum(map(sum, problem.required))
    return full._replace(
        matrix=vstack([full.matrix, csc_array(full.counts.reshape(1, -1))], format="csc"),
        lower_rows=np.append(full.lower_rows, -np.inf),
        upper_rows=np.append(full.upper_rows, float(required_numbered + primary_most)),
    )


_last = threading.local()  # ``built``: the last problem solved in this thread and its programme


def _built(problem: Problem, owners: list[int] | None) -> FullProgramme | None:
    """The programme of ``problem`` with its blocks (see ``full_programme``). The entries of the rows
    and columns added to the candidate sets' are gathered and the matrix made once (stacking
    sparse matrices piece by piece cost about as much as HiGHS's run of a small relaxation)."""
    programme = _programme(problem)
    has_blocks = problem.run_blocks or problem.group_blocks
    if programme is None and not has_blocks:
        return None
    if programme is None:  # no candidate set, only the blocks: an empty programme to extend
        programme = _empty_programme(problem)
    model = programme.model
    entries = _Entries(programme.matrix)
    # the columns' costs, bounds and tiles laid per unit, and the rows' bounds: their parts, in order
    cost, upper = [programme.cost], [programme.upper]
    counts = [model.scores[0, programme.keep]]
    lower_rows, upper_rows = [programme.lower_rows], [programme.upper_rows]
    laid: list[_BlockColumn] = []
    if has_blocks:
        (rows, cols, vals), extra_cost, extra_upper, extra_lower_rows, extra_upper_rows, laid = _block_columns(
            problem, programme.upper_rows[:TILE_TYPES].tolist(), entries.rows, owners
        )
        entries.add(
            rows, np.asarray(cols, dtype=np.intp) + entries.columns, vals, len(extra_lower_rows), len(extra_cost)
        )
        cost.append(extra_cost)
        upper.append(extra_upper)
        counts.append(np.ones(len(extra_cost)))
        lower_rows.append(extra_lower_rows)
        upper_rows.append(extra_upper_rows)
    if not entries.columns:
        return None
    kept = programme.keep[programme.keep < len(model.chosen)]
    needed = problem.groups_needed
    if needed:  # a row per group needed: the candidate sets that may be such a group
        # a joker of its own, or (pooled) room for one at its end
        joker = (model.jokers[kept] > 0) | (model.room[kept] > 0 if model.pooled else False)
        number_of, colours_of = model.group_number[kept], model.colours[kept]
        for number, colours in needed:
            holds = joker | colours_of[:, list(colours)].any(axis=1)
            entries.add_row(np.flatnonzero((number_of == number) & holds))
        lower_rows.append(np.ones(len(needed)))
        upper_rows.append(np.full(len(needed), np.inf))
    if problem.runs_needed:  # a row per tile needed in runs: the runs laying it, and run blocks
        keys, run = model.keys[:, kept], model.group_number[kept] == 0
        first_block = entries.columns - len(laid)
        for c, v, _ in problem.runs_needed:
            # a candidate set holds a tile type at most once: its entry in the type's row is 1
            lays = (keys == type_row(c, v)).any(axis=0) & run
            blocks = [
                first_block + k
                for k, column in enumerate(laid)
                if isinstance(column.block, RunBlock) and (column.number, column.colour) == (v, c)
            ]
            entries.add_row(np.append(np.flatnonzero(lays), np.array(blocks, dtype=np.intp)))
        lower_rows.append(np.array([float(copies) for _, _, copies in problem.runs_needed]))
        upper_rows.append(np.full(len(problem.runs_needed), np.inf))
    if problem.unscored:
        parts = _unscored(problem, programme, laid, entries)
        for whole, part in zip((cost, upper, lower_rows, upper_rows), parts, strict=True):
            whole.append(part)
        counts.append(np.zeros(LAST))
    return FullProgramme(
        programme,
        entries.matrix(),
        np.concatenate(cost),
        np.concatenate(upper),
        np.concatenate(lower_rows),
        np.concatenate(upper_rows),
        np.concatenate(counts),
        laid,
    )


class _Entries:
    """A sparse matrix being extended by rows and columns: its entries, made into a matrix
    once (``matrix``)."""

    def __init__(self, first: _Sparse) -> None:
        self._rows: list[np.ndarray] = [first.rows]
        self._cols: list[np.ndarray] = [first.columns]
        self._vals: list[np.ndarray] = [first.values]
        self.rows, self.columns = first.shape

    def add(self, rows: Any, cols: Any, vals: Any, new_rows: int, new_columns: int) -> None:
        """Entries at ``(rows[k], cols[k])`` of value ``vals[k]``, in the matrix grown by
        ``new_rows`` rows and ``new_columns`` columns."""
        self._rows.append(np.asarray(rows, dtype=np.intp))
        self._cols.append(np.asarray(cols, dtype=np.intp))
        self._vals.append(np.asarray(vals, dtype=float))
        self.rows += new_rows
        self.columns += new_columns

    def add_row(self, columns: np.ndarray) -> None:
        """A new row holding 1 in ``columns``."""
        self.add(np.full(len(columns), self.rows), columns, np.ones(len(columns)), 1, 0)

    def matrix(self) -> csc_array:
        """The matrix, made as scipy makes one from its entries' coordinates (a stable sort by
        column, then each column's rows sorted and duplicates summed) without the checks that
        cost more than that here."""
        rows, cols, vals = np.concatenate(self._rows), np.concatenate(self._cols), np.concatenate(self._vals)
        order = np.argsort(cols, kind="stable")  # (quick: they are mostly in order)
        starts = np.zeros(self.columns + 1, dtype=np.intp)
        np.cumsum(np.bincount(cols, minlength=self.columns), out=starts[1:])
        matrix = csc_array((vals[order], rows[order], starts), shape=(self.rows, self.columns))
        matrix.sum_duplicates()
        return matrix


def _unscored(
    problem: Problem,
    programme: _Programme,
    laid: list[_BlockColumn],
    entries: _Entries,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The jokers laid that score no points (``Problem.unscored``, the table's): a column
    per number, the jokers standing for it taken out of the score, each at most the jokers of
    the columns laying one there (a row per number), together exactly ``unscored`` (a row).
    Maximising, the programme takes the lowest: the others are the played jokers at their
    best points. The columns come last (``laid_from`` ignores them): added to ``entries``;
    returns their costs and bounds and the new rows' bounds."""
    columns, first_row = entries.columns, entries.rows
    kept = programme.keep[programme.keep < len(programme.model.chosen)]
    stands = programme.model.joker_numbers.taking(kept)  # (number - 1, column): jokers standing there
    block_jokers = [(what.number - 1, columns - len(laid) + k) for k, what in enumerate(laid) if what.colour is None]
    numbers = np.arange(LAST)
    block_rows = np.array([r for r, _ in block_jokers], dtype=np.intp)
    block_cols = np.array([c for _, c in block_jokers], dtype=np.intp)
    rows = np.concatenate([stands.rows, block_rows, numbers, np.full(LAST, LAST)])
    cols = np.concatenate([stands.columns, block_cols, columns + numbers, columns + numbers])
    vals = np.concatenate([-stands.values, -np.ones(len(block_jokers)), np.ones(2 * LAST)])
    entries.add(first_row + rows, cols, vals, LAST + 1, LAST)
    unscored = float(problem.unscored)
    return (
        -problem.joker_weight * np.arange(MIN_NUMBER, LAST + 1, dtype=float),
        np.full(LAST, unscored),
        np.append(np.full(LAST, -np.inf), unscored),
        np.append(np.zeros(LAST), unscored),
    )


class Bound(NamedTuple):
    """The linear relaxation's optimum: its score, the tiles it plays, and, when its solution
    is integral (every candidate set laid a whole number of times), that solution: the
    programme's optimum, as its score and sets laid."""

    value: float
    played: float
    solution: tuple[int, Laid] | None = None
    columns: int = 0  # the programme's columns (its size)


def linear_bound(problem: Problem, primary_most: int | None = None) -> Bound | None:
    """An upper bound of the best score of a problem without opening minimum: the optimum of
    the programme's linear relaxation (a few milliseconds); None when even that is
    infeasible (the table's tiles cannot all be laid). Blocks take part as columns of their
    own (``_block_columns``). ``primary_most``: a bound already known on the primary
    objective (the tiles played, when that is the primary), added as a row. Returns the bound
    and the tiles the relaxation plays (rack tiles and jokers, as the score counts them): when
    they are fractional, capping them tightens the bound. An integral solution is returned
    too: no search is needed then (on the hard bench, two problems in five that reach the
    bound)."""
    assert not problem.meld_min and not problem.feasibility_only
    full = full_programme(problem, primary_most)
    if full is None:
        return Bound(0.0, 0.0) if _empty_ok(problem) else None
    last = getattr(_last, "relaxed", None)
    if primary_most is not None and last is not None and last[0] is problem and last[1] == highs.models():
        # the cap added to the relaxation just solved, re-solved from its basis
        result = highs.maximise_with_row(full.counts, -np.inf, float(full.upper_rows[-1]), full.cost, 10.0)
        _last.relaxed = None  # (its model has the row now)
    else:
        # HiGHS's presolve costs more than it saves on these small relaxations
        result = highs.maximise(
            full.cost, full.upper, full.matrix, full.lower_rows, full.upper_rows, False, False, 10.0
        )
        _last.relaxed = (problem, highs.models()) if primary_most is None else None
    if result.status == highs.STOPPED:
        # stopped short of its optimum, which HiGHS's simplex without presolve did once in
        # about 300 small positions (model status "unknown", pressman-2009's rules): with presolve
        _last.relaxed = None
        result = highs.maximise(full.cost, full.upper, full.matrix, full.lower_rows, full.upper_rows, False, True, 10.0)
    if result.status == highs.INFEASIBLE:
        return None
    if result.status != highs.OPTIMAL or result.x is None:
        return _trivial_bound(problem)  # its solution bounds nothing
    tiles_played = float(full.counts @ result.x) - sum(map(sum, problem.required))
    value = result.objective - full.programme.constant
    return Bound(value, tiles_played, _integral(problem, full, result.x), len(full.cost))


def _trivial_bound(problem: Problem) -> Bound:
    """Every rack tile played, every joker laid as a 13 (the search's score counts the jokers
    it lays, the table's too): no move scores more."""
    tw, vw = problem.tile_weight, problem.value_weight
    numbered = sum(n * (tw + vw * v) for row in problem.optional for v, n in enumerate(row))
    tiles = sum(map(sum, problem.optional)) + problem.jokers
    return Bound(float(numbered + problem.jokers * (tw + problem.joker_weight * LAST)), float(tiles))


def _integral(problem: Problem, full: FullProgramme, x: np.ndarray) -> tuple[int, Laid] | None:
    """The score and sets of a solution of the relaxation that is integral (within HiGHS's
    tolerances: the matrix and bounds are integers, so rounding keeps every row); None
    when it is not."""
    copies = highs.integral(x)
    if copies is None:
        return None
    return _score(full, copies), laid_from(problem, full, copies)


def _score(full: FullProgramme, copies: list[int]) -> int:
    """The score (the search's) of laying each column ``copies`` times."""
    return round(float(full.cost @ copies) - full.programme.constant)


def _empty_programme(problem: Problem) -> _Programme:
    """The programme without candidate sets (its rows only), for blocks to extend."""
    pooled = problem.joker_weight == 0 and problem.jokers > 0
    model = _model(problem.jokers, pooled)
    lower_rows, upper_rows, constant = _rows(problem, pooled)
    none = np.zeros(0, dtype=np.intp)
    matrix = _Sparse(none, none, np.zeros(0), (len(lower_rows), 0))
    return _Programme(
        model._replace(pooled=False), none, np.zeros(0), np.zeros(0), matrix, lower_rows, upper_rows, constant
    )


_OWN_NODES = 16  # relaxations of ``solve_integer``'s own branch and bound before HiGHS's
_FIRST_RUN = 0.1  # CPU seconds of HiGHS's first run of an integer programme; each restart gets twice the last


def solve_integer(
    cost: np.ndarray,
    upper: np.ndarray,
    matrix: csc_array,
    lower_rows: np.ndarray,
    upper_rows: np.ndarray,
    deadline: float,
    at_least: float = -np.inf,
    rows: Sequence[int] = (),
) -> highs.Result:
    """The maximum of ``cost`` (every variable an integer from 0 to ``upper``, rows between
    their bounds; ``cost``, the matrix and the bounds whole numbers), proven optimal (zero
    gap), under the deadline; when the deadline stops it, the best solution found (if any).
    With ``at_least`` only solutions reaching it are sought: INFEASIBLE when none does.

    HiGHS's time on these programmes is heavy-tailed over its random seed: on the hard
    bench's, a programme taking 0.3-0.6 s with one seed takes 10-40 ms with most others. So a
    run not finished after ``_FIRST_RUN`` seconds of CPU time starts again with the next seed
    and twice the limit, until the deadline: restarts, as for randomised search with heavy
    tails (Gomes, Selman & Kautz, "Boosting Combinatorial Search Through Randomization", AAAI
    1998). CPU time, not wall-clock time, which a loaded machine stretches. Presolve stays
    off: it cost 2-50x more on all but the smallest of those programmes (bench/README.md).

    First, ``highs.branch_and_bound`` (branching on the activities of ``rows`` first) for at
    most ``_OWN_NODES`` relaxations: HiGHS's integer solver spends 3-10 times its relaxation's
    time at the root (cut rounds, heuristics) where most of these programmes close in a few
    relaxations. Only what it leaves open goes to HiGHS, sought above the best solution it
    found."""
    own = highs.branch_and_bound(
        cost,
        upper,
        matrix,
        lower_rows,
        upper_rows,
        deadline - time.perf_counter(),
        cutoff=at_least - 1,
        rows=rows,
        max_nodes=_OWN_NODES,
    )
    if own.status == highs.OPTIMAL:
        return own
    if own.status in (highs.INFEASIBLE, highs.NOT_BETTER):
        return highs.Result(highs.INFEASIBLE, None, -np.inf, own.nodes)
    if time.perf_counter() >= deadline:
        return own
    if own.x is not None:
        at_least = own.objective + 1
    best: highs.Result | None = own if own.x is not None else None
    seed, limit = 0, _FIRST_RUN
    while True:
        result = highs.maximise(
            cost,
            upper,
            matrix,
            lower_rows,
            upper_rows,
            True,
            False,
            deadline - time.perf_counter(),
            limit,
            seed,
            at_least,
        )
        if result.status != highs.STOPPED and result.objective < at_least - 0.5:  # (whole, within tolerances)
            # nothing reaches ``at_least`` (INFEASIBLE; or HiGHS's answer below its objective
            # bound, which it may give: the empty move of a rack-only programme, measured):
            # the best solution of our own is the optimum, if it found one
            if best is not None:
                return highs.Result(highs.OPTIMAL, best.x, best.objective)
            return highs.Result(highs.INFEASIBLE, None, -np.inf)
        if result.status != highs.STOPPED:
            return result
        if best is None or result.objective > best.objective:
            best = result
        if time.perf_counter() >= deadline:
            return best
        seed, limit = seed + 1, 2 * limit


def _empty_ok(problem: Problem) -> bool:
    """Whether laying nothing is a solution: nothing must be laid."""
    return not sum(map(sum, problem.required)) and not problem.jokers_required


def solve_milp(problem: Problem, deadline: float, floor: int = 0) -> tuple[int, Laid, bool] | None:
    """The best move of a problem without opening minimum, if it scores at least ``floor``
    (the search's score): (score, how its sets are laid, whether it is proven optimal: false
    when the deadline passed with a move found, the best found); None when there is none.
    Raises OutOfTime when the deadline passes with none reaching ``floor`` (a move found
    below it proves nothing above it).

    When where the jokers stand is worth nothing (no joker weight) the *pooled* model is
    solved: only lean candidate sets, plus one variable for the jokers laid at the ends of
    sets, bounded by the room those sets leave (a run of 3 takes two, a group of 3 or a run
    of 4 one). Every arrangement is lean sets with jokers added at their ends (strip the end
    jokers of a run of 4–5 with a joker at an end, one joker of a group of 4 with jokers), so
    the optimum is the same, and the programme is much smaller and far less symmetric."""
    assert not problem.meld_min and not problem.feasibility_only
    full = full_programme(problem, None)
    if full is None:
        return (0, Laid([]), True) if _empty_ok(problem) and floor <= 0 else None
    # scores are whole numbers: HiGHS prunes what cannot reach ``floor`` (on the hard bench's
    # programmes with a floor, up to 2.7x less time)
    at_least = floor + full.programme.constant
    # (the rows of the tile types and the jokers: how many of each are laid, whole at every solution)
    result = solve_integer(
        full.cost, full.upper, full.matrix, full.lower_rows, full.upper_rows, deadline, at_least, range(TILE_TYPES + 1)
    )
    if result.status == highs.INFEASIBLE:  # the table's tiles cannot all be laid, or no move reaches floor
        return None
    if result.x is None:  # no move found in time
        raise OutOfTime
    copies = [round(float(n)) for n in result.x]
    score = _score(full, copies)
    if score < floor:
        if result.status != highs.OPTIMAL:
            raise OutOfTime  # stopped by the deadline below the floor: not proven that none reaches it
        return None
    return score, laid_from(problem, full, copies), result.status == highs.OPTIMAL


def laid_from(problem: Problem, full: FullProgramme, copies: list[int]) -> Laid:
    """The sets a solution of ``full`` lays (``copies``: its columns' values; columns after
    the blocks' are ignored): the candidate sets, then ``problem``'s blocks as it grows them."""
    model = full.programme.model
    base = len(full.programme.keep)
    candidates = [model.chosen[int(k)] for k in full.programme.keep if k < len(model.chosen)]
    pooled = copies[base - 1] if model.pooled else 0
    sets = _lay(candidates, copies[: len(candidates)], pooled)
    laid = Laid(sets)
    _lay_blocks(problem, full.blocks, copies[base : base + len(full.blocks)], laid)
    return laid


def _lay_blocks(problem: Problem, columns: list[_BlockColumn], copies: list[int], laid: Laid) -> None:
    """The blocks as the solution grows them: runs with the numbers covered at their ends
    (tiles, or jokers standing for them), groups with the colours and jokers they take."""
    added: dict[int, list[_BlockColumn]] = {}
    for what, n in zip(columns, copies, strict=True):
        added.setdefault(what.block.index, []).extend([what] * n)
    for b in problem.run_blocks:
        cover = {w.number: w.colour for w in added.get(b.index, [])}
        below = [n for n in range(b.start - 1, MIN_NUMBER - 1, -1) if n in cover][::-1]
        above = [n for n in range(b.end + 1, LAST + 1) if n in cover]
        run = BuildingRun(below[0] if below else b.start)
        for n in below:
            run.tiles.append(_cover_tile(b.colour, n, cover[n]))
        run.tiles.extend(b.tiles)
        for n in above:
            run.tiles.append(_cover_tile(b.colour, n, cover[n]))
        run.block = b
        laid.done_runs.append(run)
    for g in problem.group_blocks:
        taken = added.get(g.index, [])
        colours = sorted(w.colour for w in taken if w.colour is not None)
        jokers = sum(1 for w in taken if w.colour is None)
        laid.group_blocks[g.index] = [numbered(COLORS[c], g.number) for c in colours] + [JOKER] * jokers


def _cover_tile(colour: int, number: int, tile_colour: int | None) -> Tile:
    return joker_as(colour, number) if tile_colour is None else numbered(COLORS[colour], number)


def _lay(chosen: list[_Candidate], copies: list[int], pooled: int) -> list[tuple[Tile, ...]]:
    """The sets laid: every copy of every candidate, the pooled jokers added at the ends of
    the first sets with room (a run grows upwards, then downwards; a group takes a joker)."""
    sets: list[tuple[Tile, ...]] = []
    for candidate, n in zip(chosen, copies, strict=True):
        for _ in range(n):
            add = min(pooled, candidate.room)
            pooled -= add
            if not add:
                sets.append(candidate.tiles)
            elif candidate.run:
                sets.append(_grow_run(candidate.run, add))
            else:
                sets.append(candidate.tiles + (JOKER,) * add)  # a group of three
    assert not pooled
    return sets


def _grow_run(tiles: tuple[Tile, ...], add: int) -> tuple[Tile, ...]:
    """A run of tiles (jokers declared) with ``add`` jokers more at its ends."""
    colour = COLOUR_INDEX[run_colour(tiles)]
    first = stands_for(tiles[0], tiles) if tiles[0].color is None else tiles[0].number
    last = first + len(tiles) - 1
    for _ in range(add):
        if last < LAST:
            last += 1
            tiles = (*tiles, joker_as(colour, last))
        else:
            first -= 1
            tiles = (joker_as(colour, first), *tiles)
    return tiles

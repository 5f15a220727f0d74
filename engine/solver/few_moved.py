"""The least-change tie break's second step (issue #18): the moves that move at most ``k``
table tiles (``k`` small), listed explicitly.

Every after-set of a move is a run (one colour, a stretch of 3..13 numbers, any of them a
joker) or a group (one number, distinct colours, 3–4 tiles), and either *continues* one
before-set ``b`` (it holds a numbered tile of ``b``) or is *new*. With ``kept`` the tiles it
shares with ``b`` (as multisets of tile keys, jokers included), ``b`` loses ``|b| - kept``
tiles to other sets; a continuation holds at least its tiles beyond ``b`` that the rack does
not have (and its jokers beyond ``b``'s) from other before-sets, and a new set at least its
tiles the rack does not have and all its jokers (a rack holding no joker). All of these are
moved tiles, distinct ones; so in a move moving at most ``k`` tiles, read with its least
disturbing continuation, every continuation and every new set costs at most ``k`` by those
counts.

So every after-set shape of cost at most ``k`` is listed (each checked by ``read_set`` under
the rules) with its role, and a small integer programme (HiGHS through
``engine.solver.highs``) picks at most one continuation per before-set and any new sets: every
tile type balanced (the table's copies laid, at most the rack's more, the table's jokers laid),
the played tiles scoring at least ``floor``, the moved tiles (table tiles less kept ones) at
most ``k``, and the objective the disturbance (moved, then before-sets touched — not continued
by exactly their tiles — then new sets, as lexicographic integer weights). The list holds every
legal move moving at most ``k`` tiles, with the reading that shows its least disturbance; so
when the programme has no solution, every move scoring ``floor`` moves more than ``k`` tiles
(``INFEASIBLE``), and when its optimum is a legal turn (the caller checks with
``verify_turn``) no move scoring as much disturbs the table less, under every rule edition:
the list ignores the joker rules, so it holds a superset of the legal moves. The programme's
linear relaxation is solved first: without a solution there, there is none (the usual case,
and a few times cheaper to find out); an integral optimum there is the programme's (48 of the
52 games-bench positions where the step has a solution: the integer programme is not run).

Only for an opened player. With jokers on the rack, a joker beyond a before-set's may come
from the rack (the cost counts only those beyond the rack's), and the played jokers' points,
which depend on where they stand, are bounded from above (``_programme``): the moves are a
superset of the legal ones still, and the caller checks each move's real score. The step's
next best moves follow its least on demand (``few_moved_moves``), each answered choice of sets
excluded by a row."""

from __future__ import annotations

import functools
import itertools
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine.rules import Rules
from engine.sets import read_set
from engine.solver import highs
from engine.solver.intact import INFEASIBLE, Model, solutions
from engine.solver.model import COLOUR_INDEX
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered

_Key = tuple[int, int]  # (colour index, number)
_NUMBERS = range(MIN_NUMBER, MAX_NUMBER + 1)
_MOST_COLUMNS = 3_000
"""Programmes with more columns are not run. Generated games' have at most a few hundred; two
random XP positions' (racks of 45 and 61 tiles) had 5,551 and 5,582, whose root node HiGHS
spent 2.1-2.5 s on, past a 0.66 s limit (presolve on, no heuristics, no symmetry: no shorter),
without answering (session 35)."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """A run or group as tile counts: its numbered keys (each at most once) and jokers, and how
    to lay it."""

    keys: frozenset[_Key]
    jokers: int
    tiles: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class _Before:
    """A before-set as tile counts (the empty one stands for "no before-set": a new set)."""

    keys: frozenset[_Key]
    jokers: int

    @property
    def size(self) -> int:
        return len(self.keys) + self.jokers


_NOTHING = _Before(frozenset(), 0)


def _before(tiles: Sequence[Tile]) -> _Before | None:
    keys = [(COLOUR_INDEX[t.color], t.number) for t in tiles if t.color is not None]
    if len(set(keys)) != len(keys):
        return None  # not a run or a group
    return _Before(frozenset(keys), len(tiles) - len(keys))


def _cost(keys: frozenset[_Key], jokers: int, b: _Before, rack: Counter[_Key], rack_jokers: int = 0) -> int:
    """Moved tiles an after-set of ``keys`` and ``jokers`` continuing ``b`` (``_NOTHING``: a
    new set) accounts for at least: ``b``'s numbered tiles it lacks, its numbered tiles neither
    in ``b`` nor on the rack, and of the jokers ``b``'s it lacks, or those beyond ``b``'s and
    the ``rack_jokers`` (from the table). The enumerations below work it out incrementally;
    this is the reference (the tests compare)."""
    lost = sum(1 for k in b.keys if k not in keys)
    foreign = sum(1 for k in keys if k not in b.keys and not rack[k])
    return lost + foreign + _joker_cost(jokers, b.jokers, rack_jokers)


def _joker_cost(jokers: int, own: int, rack_jokers: int) -> int:
    """Moved jokers an after-set of ``jokers`` jokers continuing a set of ``own`` accounts for
    at least, ``rack_jokers`` on the rack: ``own`` less ``jokers``, or ``jokers`` less ``own``
    and the rack's."""
    return max(0, own - jokers) + max(0, jokers - own - rack_jokers)


def _runs(
    colour: int, b: _Before, have: Counter[_Key], rack: Counter[_Key], jokers: int, most: int, rack_jokers: int = 0
) -> Iterator[tuple[frozenset[_Key], int]]:
    """The runs of ``colour`` (keys, jokers) laid from ``have`` and at most ``jokers`` jokers
    that continue ``b`` (holding a numbered tile of it) at a cost of at most ``most``.

    A numbered place neither in ``b`` nor on the rack costs 1 unless a joker stands there, and
    every joker beyond ``b``'s and the ``rack_jokers`` costs 1, so the places of that kind in a
    stretch less those jokers bound its cost from below; that bound only grows as the stretch
    grows."""
    free = b.jokers + rack_jokers
    mine = sorted(v for c, v in b.keys if c == colour)
    if b.keys and not mine:
        return  # no run of this colour holds a tile of b
    outside = len(b.keys) - len(mine)  # numbered tiles of b of other colours: lost
    if outside > most:
        return  # every such run costs at least these
    # per number: no copy at all (a joker must stand there), a stranger place (neither in b
    # nor on the rack), a tile of b; as prefix counts over the numbers
    missing_at, stranger_at, mine_at = [0], [0], [0]
    delta = [0] * (MAX_NUMBER + 1)  # the change of the cost when a joker takes a numbered place
    for v in _NUMBERS:
        key = (colour, v)
        missing_at.append(missing_at[-1] + (not have[key]))
        stranger_at.append(stranger_at[-1] + (key not in b.keys and not rack[key]))
        mine_at.append(mine_at[-1] + (key in b.keys))
        delta[v] = (mine_at[-1] - mine_at[-2]) - (stranger_at[-1] - stranger_at[-2])
    low_top = min(mine[-1] if mine else MAX_NUMBER, MAX_NUMBER - 2)
    for low in range(low_top, MIN_NUMBER - 1, -1):
        if mine and stranger_at[mine[0] - 1] - stranger_at[low - 1] - free + outside > most:
            break  # lower starts only add stranger places
        for high in range(max(low + 2, mine[0] if mine else low), min(low + MAX_NUMBER - MIN_NUMBER, MAX_NUMBER) + 1):
            missing = missing_at[high] - missing_at[low - 1]
            if missing > jokers:
                break  # longer stretches miss these too
            lost = outside + len(mine) - (mine_at[high] - mine_at[low - 1])
            if lost + stranger_at[high] - stranger_at[low - 1] - free > most:
                if not mine or high >= mine[-1]:
                    break
                continue
            strangers = stranger_at[high] - stranger_at[low - 1] - missing  # present ones
            held = mine_at[high] - mine_at[low - 1]
            present = [v for v in range(low, high + 1) if have[(colour, v)]]
            cheapest = sorted(delta[v] for v in present)
            for extra in range(min(jokers - missing, len(present) - 1) + 1):
                wild = missing + extra
                base = lost + strangers + _joker_cost(wild, b.jokers, rack_jokers)
                if base + sum(cheapest[:extra]) > most:
                    continue  # even the cheapest places for the jokers cost too much
                for on in itertools.combinations(present, extra):
                    # the cost (see ``_cost``) with jokers on the places ``on`` too
                    cost, taken = base, 0
                    for v in on:
                        cost += delta[v]
                        taken += delta[v] > 0
                    if cost <= most and (not mine or held > taken):
                        yield frozenset((colour, v) for v in present if v not in on), wild


def _groups(
    number: int, b: _Before, have: Counter[_Key], rack: Counter[_Key], jokers: int, most: int, rack_jokers: int = 0
) -> Iterator[tuple[frozenset[_Key], int]]:
    """The groups of ``number`` (keys, jokers) laid from ``have`` and at most ``jokers``
    jokers that continue ``b`` (holding a numbered tile of it) at a cost of at most ``most``."""
    present = [c for c in range(len(COLORS)) if have[(c, number)]]
    if not b.keys and sum(1 for c in present if rack[(c, number)]) + rack_jokers + most < 3:
        return  # a new group holds at least 3 - most rack tiles
    mine = {c for c, v in b.keys if v == number}
    lost_elsewhere = len(b.keys) - len(mine)  # b's tiles of other numbers
    if lost_elsewhere > most:
        return  # every such group costs at least these
    for k in range(1, len(present) + 1):
        for colours in itertools.combinations(present, k):
            held = sum(1 for c in colours if c in mine)
            if b.keys and not held:
                continue
            # the cost (see ``_cost``) less its joker term
            base = lost_elsewhere + len(mine) - held
            base += sum(1 for c in colours if c not in mine and not rack[(c, number)])
            for j in range(max(0, 3 - k), min(jokers, len(COLORS) - k) + 1):
                if base + _joker_cost(j, b.jokers, rack_jokers) <= most:
                    yield frozenset((c, number) for c in colours), j


@dataclass(slots=True)
class _Columns:
    """The programme's columns: per column its shape, the before-set it continues (-1: new),
    its kept tiles, and whether it is its before-set unchanged."""

    shapes: list[_Shape]
    owner: list[int]
    kept: list[int]
    same: list[bool]


def _columns(
    table: Sequence[tuple[Tile, ...]],
    befores: list[_Before],
    rack: Counter[_Key],
    rules: Rules,
    most: int,
    rack_jokers: int = 0,
) -> _Columns | None:
    """Every shape of cost at most ``most`` in every role, valid under ``rules``; None once
    they are more than ``_MOST_COLUMNS`` (such a programme is not run: listing them all took
    1.3 s for a 105-tile XP rack's 43,737, past the budget; session 61, helper `worst`)."""
    have: Counter[_Key] = Counter(rack)
    jokers = sum(b.jokers for b in befores) + rack_jokers
    for b in befores:
        have.update(b.keys)
    out = _Columns([], [], [], [])

    def add(
        tiles: tuple[Tile, ...] | None, keys: frozenset[_Key], wild: int, owner: int, kept: int, same: bool
    ) -> None:
        if tiles is not None:
            out.shapes.append(_Shape(keys, wild, tiles))
            out.owner.append(owner)
            out.kept.append(kept)
            out.same.append(same)

    roles = [*enumerate(befores), (-1, _NOTHING)]
    for index, b in roles:
        colours = sorted({c for c, _ in b.keys}) if b.keys else range(len(COLORS))
        numbers = sorted({v for _, v in b.keys}) if b.keys else _NUMBERS
        runs = ((c, shape) for c in colours for shape in _runs(c, b, have, rack, jokers, most, rack_jokers))
        groups = ((v, shape) for v in numbers for shape in _groups(v, b, have, rack, jokers, most, rack_jokers))
        seen: set[tuple[frozenset[_Key], int]] = set()
        for kind, found in (("run", runs), ("group", groups)):
            for where, (keys, wild) in found:
                if len(out.shapes) > _MOST_COLUMNS:
                    return None
                if (keys, wild) in seen:
                    continue
                seen.add((keys, wild))
                if index >= 0 and keys == b.keys and wild == b.jokers:
                    add(table[index], keys, wild, index, b.size, True)
                    continue
                kept = len(keys & b.keys) + min(wild, b.jokers)
                add(_valid_layout(kind, where, keys, wild, rules), keys, wild, index, kept, False)
    return out


@functools.lru_cache(maxsize=1 << 16)
def _valid_layout(kind: str, where: int, keys: frozenset[_Key], jokers: int, rules: Rules) -> tuple[Tile, ...] | None:
    """``_lay``'s set when it is valid under ``rules``, else None (memoised: the shapes recur
    from one position to the next)."""
    tiles = _lay(kind, where, keys, jokers)
    return tiles if read_set(tiles, rules).valid else None


def _lay(kind: str, where: int, keys: frozenset[_Key], jokers: int) -> tuple[Tile, ...]:
    """A run of colour ``where`` ascending with its jokers declared in the places its keys
    leave (the stretch from its lowest key, then jokers above as far as 13, then below), or a
    group of number ``where`` with its jokers last."""
    if kind == "group":
        return tuple(numbered(COLORS[c], where) for c, _ in sorted(keys)) + (JOKER,) * jokers
    numbers = sorted(v for _, v in keys)
    low, high = numbers[0], numbers[-1]
    spare = jokers - (high - low + 1 - len(numbers))
    up = min(spare, MAX_NUMBER - high)
    low, high = low - (spare - up), high + up
    colour = COLORS[where]
    return tuple(
        numbered(colour, v) if (where, v) in keys else joker_as(numbered(colour, v)) for v in range(low, high + 1)
    )


def few_moved_moves(
    table: Sequence[tuple[Tile, ...]],
    rack: Sequence[Tile],
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    most: int,
    time_limit: float,
) -> Iterator[tuple[list[tuple[Tile, ...]], tuple[int, int, int]] | str | None]:
    """First the after table of the least disturbing move moving at most ``most`` table tiles
    and scoring at least ``floor`` (tile weight, value weight as ``weights``; the table's tiles
    not counted), with its disturbance as the programme counts it; ``INFEASIBLE`` when there is
    none; None when not answered (a joker on the rack, a table set that is no run or group by
    its tiles, the programme too large to run, or it did not finish). Then, while the caller
    asks for more, the programme's next least disturbing moves: each answered choice of sets
    excluded (a row, ``intact.Once``), the programme solved again, so the disturbances counted
    never decrease, ending with ``INFEASIBLE`` when no move is left, None when not answered."""
    deadline = time.perf_counter() + time_limit
    befores = [_before(s) for s in table]
    if any(b is None for b in befores):
        yield None
        return
    bs = [b for b in befores if b is not None]
    counts: Counter[_Key] = Counter((COLOUR_INDEX[t.color], t.number) for t in rack if t.color is not None)
    rack_jokers = len(rack) - sum(counts.values())
    cols = _columns(table, bs, counts, rules, most, rack_jokers)
    if cols is None:
        yield None  # not answered: HiGHS's root alone would outlast the budget
        return
    # a quick bound: only rack tiles some column holds can be played
    tw, vw = weights
    reach = {k for s in cols.shapes for k in s.keys if counts[k]}
    if sum(counts[k] * (tw + vw * k[1]) for k in reach) + rack_jokers * (tw + vw * MAX_NUMBER) < floor:
        yield INFEASIBLE
        return
    # the linear relaxation first: without a solution there (the usual case) there is none,
    # and an integral optimum there is the programme's (without presolve: it costs more than
    # it saves on these models, measured about 2x slower)
    p = _programme(cols, bs, counts, weights, floor, most, rack_jokers)
    if len(p.cost) > _MOST_COLUMNS:
        yield None  # not answered: HiGHS's root alone would outlast the budget
        return

    def solve(model: Model) -> highs.Result:
        c, u, m, low, high = model
        return highs.relaxation_first(-c, u, m, low, high, deadline - time.perf_counter())

    for taken in solutions((p.cost, p.upper, p.matrix, p.lower_rows, p.upper_rows), len(cols.shapes), solve):
        if not isinstance(taken, list):
            yield taken
            return
        yield _move(cols, bs, taken)


class _Programme(NamedTuple):
    """The disturbance to minimise (``cost``), the columns' upper bounds (from 0), the rows."""

    cost: np.ndarray
    upper: np.ndarray
    matrix: np.ndarray
    lower_rows: np.ndarray
    upper_rows: np.ndarray


def _programme(
    cols: _Columns,
    bs: list[_Before],
    rack: Counter[_Key],
    weights: tuple[int, int],
    floor: int,
    most: int,
    rack_jokers: int = 0,
) -> _Programme:
    """The objective, bounds and rows of the programme over ``cols``: per tile type the
    table's copies laid and at most the rack's more, the table's jokers laid (and at most the
    rack's more), at most one continuation per before-set, the score at least ``floor``, at
    most ``most`` tiles moved; the disturbance minimised (lexicographic integer weights:
    moved, touched, new sets). With jokers on the rack, the played jokers' points are bounded
    from above as ``intact`` counts them: columns after the sets', per number how many played
    jokers count it (at most the jokers of the sets whose jokers may stand that high,
    ``_joker_top``; in all at most the jokers played)."""
    tw, vw = weights
    table_keys: Counter[_Key] = Counter(k for b in bs for k in b.keys)
    table_tiles = sum(b.size for b in bs)
    # (more than any count of new sets)
    w_touch = (table_tiles + sum(rack.values()) + rack_jokers) // 3 + 2
    w_move = w_touch * (len(bs) + 1) + 1
    cost = np.array(
        [
            1.0 if o < 0 else -float(w_move * kept + (w_touch if same else 0))
            for o, kept, same in zip(cols.owner, cols.kept, cols.same, strict=True)
        ]
    )
    key_row = {k: r for r, k in enumerate(sorted(set(rack) | set(table_keys)))}
    # rows: the tile types, the jokers, one per before-set, the score, the kept tiles
    joker_row = len(key_row)
    rows = joker_row + 1 + len(bs) + 2
    score_row, kept_row = rows - 2, rows - 1
    matrix = np.zeros((rows, len(cost)))
    for col, (shape, o, kept) in enumerate(zip(cols.shapes, cols.owner, cols.kept, strict=True)):
        for k in shape.keys:
            matrix[key_row[k], col] = 1
            matrix[score_row, col] += tw + vw * k[1]
        matrix[joker_row, col] = shape.jokers
        if o >= 0:
            matrix[joker_row + 1 + o, col] = 1
            matrix[kept_row, col] = kept
    lower, upper = np.zeros(rows), np.zeros(rows)
    for k, r in key_row.items():
        lower[r], upper[r] = table_keys[k], table_keys[k] + rack[k]
    table_jokers = table_tiles - sum(table_keys.values())
    lower[joker_row], upper[joker_row] = table_jokers, table_jokers + rack_jokers
    upper[joker_row + 1 : score_row] = 1
    # the score of every tile laid, less the table's
    lower[score_row], upper[score_row] = floor + sum(c * (tw + vw * k[1]) for k, c in table_keys.items()), np.inf
    lower[kept_row], upper[kept_row] = table_tiles - most, np.inf
    copies = rack + table_keys
    most_laid = [
        1.0 if o >= 0 else float(min(copies[k] for k in s.keys)) for s, o in zip(cols.shapes, cols.owner, strict=True)
    ]
    if not rack_jokers:
        return _Programme(cost, np.array(most_laid), matrix, lower, upper)
    # the played jokers: tw each, and per number a pick column (its points, vw each)
    matrix[score_row] += tw * matrix[joker_row]
    lower[score_row] += tw * table_jokers
    numbers = list(_NUMBERS)
    picks = np.zeros((rows + len(numbers) + 1, len(numbers)))
    wide = np.vstack([matrix, np.zeros((len(numbers) + 1, len(cost)))])
    for col, shape in enumerate(cols.shapes):
        if shape.jokers:
            wide[rows + _joker_top(shape.keys, shape.jokers) - MIN_NUMBER, col] = -shape.jokers
            wide[rows + len(numbers), col] = -shape.jokers
    for p, number in enumerate(numbers):
        picks[rows + p, p] = 1
        picks[rows + len(numbers), p] = 1
        picks[score_row, p] = vw * number
    pick_lower = np.full(len(numbers) + 1, -np.inf)
    pick_upper = np.zeros(len(numbers) + 1)
    pick_upper[-1] = -table_jokers  # the picks at most the jokers laid less the table's
    return _Programme(
        np.concatenate([cost, np.zeros(len(numbers))]),
        np.concatenate([most_laid, np.full(len(numbers), float(rack_jokers))]),
        np.hstack([wide, picks]),
        np.concatenate([lower, pick_lower]),
        np.concatenate([upper, pick_upper]),
    )


def _joker_top(keys: frozenset[_Key], jokers: int) -> int:
    """The highest number a joker of a set of ``keys`` and ``jokers`` jokers may stand for, laid
    any way: a group's number, a run's highest place not its keys' over every stretch."""
    numbers = sorted(v for _, v in keys)
    top = numbers[0] if len(set(numbers)) == 1 else 0
    if len({c for c, _ in keys}) == 1 and len(set(numbers)) == len(numbers):
        length = len(numbers) + jokers
        for low in range(max(MIN_NUMBER, numbers[-1] - length + 1), min(numbers[0], MAX_NUMBER - length + 1) + 1):
            places = set(range(low, low + length)) - set(numbers)
            top = max(top, *places)
    return top


def _move(cols: _Columns, bs: list[_Before], x: list[int]) -> tuple[list[tuple[Tile, ...]], tuple[int, int, int]]:
    """The after table of a solution (continuations in their before-sets' order, then the new
    sets) and its disturbance as the programme counts it."""
    chosen = [col for col, n in enumerate(x) for _ in range(n)]
    after = [cols.shapes[col].tiles for b in range(len(bs)) for col in chosen if cols.owner[col] == b]
    after += [cols.shapes[col].tiles for col in chosen if cols.owner[col] < 0]
    moved = sum(b.size for b in bs) - sum(cols.kept[col] for col in chosen)
    touched = len(bs) - sum(1 for col in chosen if cols.same[col])
    new = sum(1 for col in chosen if cols.owner[col] < 0)
    return after, (moved, touched, new)

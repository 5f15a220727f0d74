"""An exact integer programme for the problems without blocks, solved with HiGHS.

The model of den Hertog & Hulshof, "Solving Rummikub Problems by Integer Linear Programming"
(The Computer Journal 49(6), 2006), the one rummikub-solver uses: every valid set is one of a
finite list of *set types* (runs of 3, 4 or 5 tiles, since a longer run is two shorter ones,
and groups of 3 or 4), each with its jokers in given places; an integer variable per set type
says how many copies of it are laid, one per tile type how many rack tiles are played. Every
tile type is balanced: the copies laid hold exactly the table's tiles plus the ones played.

It answers the problems of ``suggest`` in which every table set may be taken apart (no blocks,
no opening minimum), with the same lexicographic score as the search (so the two agree on the
optimum), and lays the sets out as the search's builder does: runs ascending with every joker
declared, groups in colour order with jokers last. HiGHS is exact here: the gaps are set so
that only a proven optimum is returned; its time limit is the search's deadline.
"""

from __future__ import annotations

import functools
import itertools
import time

import highspy

from engine.solver.model import (
    _LAST,
    _MAX_GROUP,
    _NCOL,
    _OutOfTime,
    _Problem,
)
from engine.solver.reconstruction import _joker_as
from engine.tiles import COLORS, JOKER, MIN_NUMBER, Tile, numbered

_TileKey = tuple[int, int]  # (colour, number); the joker is (-1, 0)
_JOKER_KEY: _TileKey = (-1, 0)


@functools.lru_cache(maxsize=8)
def _set_types(max_jokers: int) -> tuple[tuple[tuple[_TileKey, ...], int, tuple[Tile, ...]], ...]:
    """Every set type with at most ``max_jokers`` jokers and at least one numbered tile: its
    numbered tiles, its jokers' points, and its tiles as laid."""
    out: list[tuple[tuple[_TileKey, ...], int, tuple[Tile, ...]]] = []
    for c in range(_NCOL):
        for length in (3, 4, 5):
            for start in range(MIN_NUMBER, _LAST - length + 2):
                numbers = range(start, start + length)
                for k in range(min(max_jokers, length - 1) + 1):
                    for holes in itertools.combinations(numbers, k):
                        tiles = tuple(_joker_as(c, n) if n in holes else numbered(COLORS[c], n) for n in numbers)
                        keys = tuple((c, n) for n in numbers if n not in holes)
                        out.append((keys, sum(holes), tiles))
    for v in range(MIN_NUMBER, _LAST + 1):
        for size in (3, _MAX_GROUP):
            for k in range(1, size + 1):
                jokers = size - k
                if jokers > max_jokers:
                    continue
                for colours in itertools.combinations(range(_NCOL), k):
                    tiles = tuple(numbered(COLORS[c], v) for c in colours) + (JOKER,) * jokers
                    out.append((tuple((c, v) for c in colours), jokers * v, tiles))
    return tuple(out)


def solve_milp(
    problem: _Problem, deadline: float, floor: int = 0
) -> tuple[int, list[tuple[Tile, ...]], list[int], bool] | None:
    """The best move of a problem without blocks or opening minimum, if it scores at least
    ``floor`` (the search's score): (score, the sets laid, the points of every joker laid,
    whether it is proven optimal: false when the deadline passed with a move found, the best
    found); None when there is none. Raises _OutOfTime when the deadline passes with none."""
    assert not problem.run_blocks and not problem.group_blocks and not problem.meld_min
    assert not problem.feasibility_only
    tw, vw, jw = problem.tile_weight, problem.value_weight, problem.joker_weight
    avail = {
        (c, v): problem.required[c][v] + problem.optional[c][v]
        for c in range(_NCOL)
        for v in range(MIN_NUMBER, _LAST + 1)
        if problem.required[c][v] + problem.optional[c][v]
    }
    types = []
    for keys, joker_points, tiles in _set_types(problem.jokers):
        if all(avail.get(k, 0) for k in keys):
            jokers = len(tiles) - len(keys)
            most = min(avail[k] for k in keys)
            if jokers:
                most = min(most, problem.jokers // jokers)
            if most:
                types.append((keys, jokers, joker_points, tiles, most))
    tile_rows = {k: i for i, k in enumerate(sorted(avail))}
    joker_row = len(tile_rows)
    rows = joker_row + 1
    # columns: the set types, then per tile type the optional tiles played, then spare jokers
    cost: list[float] = []
    lower: list[float] = []
    upper: list[float] = []
    starts: list[int] = []
    index: list[int] = []
    value: list[float] = []
    for keys, jokers, joker_points, _, most in types:
        starts.append(len(index))
        counts: dict[int, int] = {}
        for k in keys:
            counts[tile_rows[k]] = counts.get(tile_rows[k], 0) + 1
        if jokers:
            counts[joker_row] = jokers
        for row, n in sorted(counts.items()):
            index.append(row)
            value.append(n)
        cost.append(jokers * tw + joker_points * jw)
        lower.append(0)
        upper.append(most)
    played: list[_TileKey] = []
    for k, row in tile_rows.items():
        optional = problem.optional[k[0]][k[1]]
        if optional:
            played.append(k)
            starts.append(len(index))
            index.append(row)
            value.append(-1)
            cost.append(0.0)  # the tiles are scored in the sets that hold them
            lower.append(0)
            upper.append(optional)
    spare = problem.jokers - problem.jokers_required
    if spare:
        starts.append(len(index))
        index.append(joker_row)
        value.append(-1)
        cost.append(0.0)
        lower.append(0)
        upper.append(spare)
    # a numbered tile in a set scores as played only if it came from the rack: charge the
    # sets with every numbered tile, credit back the table's (a constant)
    for col, (keys, *_rest) in enumerate(types):
        cost[col] += sum(tw + vw * v for _, v in keys)
    constant = sum(problem.required[c][v] * (tw + vw * v) for (c, v) in avail)
    row_lower = [float(problem.required[c][v]) for (c, v) in sorted(avail)] + [float(problem.jokers_required)]
    highs = highspy._core._Highs()  # the plain class: the wrapper prints a banner on stdout
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.setOptionValue("mip_abs_gap", 0.5)
    highs.setOptionValue("random_seed", 0)
    highs.setOptionValue("time_limit", max(0.001, deadline - time.perf_counter()))
    lp = highspy.HighsLp()
    lp.num_col_ = len(cost)
    lp.num_row_ = rows
    lp.col_cost_ = cost
    lp.col_lower_ = lower
    lp.col_upper_ = upper
    lp.row_lower_ = row_lower
    lp.row_upper_ = row_lower
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.offset_ = -constant
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = [*starts, len(index)]
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    lp.integrality_ = [highspy.HighsVarType.kInteger] * len(cost)
    highs.passModel(lp)
    highs.run()
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return None
    proven = status == highspy.HighsModelStatus.kOptimal
    if not proven and highs.getInfo().primal_solution_status != 2:  # no feasible move found in time
        raise _OutOfTime
    x = highs.getSolution().col_value
    score = round(highs.getInfo().objective_function_value)
    if score < floor:
        return None
    sets: list[tuple[Tile, ...]] = []
    joker_values: list[int] = []
    for col, (*_, tiles, _) in enumerate(types):
        copies = round(x[col])
        for _ in range(copies):
            sets.append(tiles)
            joker_values.extend(_stands(t, tiles) for t in tiles if t.color is None)
    return score, sets, joker_values, proven


def _stands(joker: Tile, tiles: tuple[Tile, ...]) -> int:
    if joker.declared is not None:
        return joker.declared.number
    return next(t.number for t in tiles if t.color is not None)

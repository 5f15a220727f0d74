"""The variants of the joker sets (``suggest``) as one integer programme instead of a pass each.

Outside a free joker release a table set holding a joker is kept whole (a block, growing
only), trimmed, or has jokers freed by their exact tiles (see the package docstring); every
combination of those *choices* over the joker sets is a pass of its own in ``suggest``, with a
bound of its own. When those passes grow costly, every combination is solved at once here:
every choice is a block of the integer programme (``milp``) switched on by a binary
variable, one choice per joker set (a row summing its variables to 1):

* the block's columns (the numbers it may take at its ends, the colours and jokers of a
  group) are gated by the variable: the row of the number next to a run block, or the size of
  a group block, is bounded by the variable instead of a constant;
* what the choice gives to the pool and takes from it is the variable's entries in the tile
  rows: numbered tiles released (to be placed), tiles taken from the rack or from the table's
  plain sets to replace jokers, jokers freed (to be placed: a negative entry in the joker row,
  whose lower bound stays the jokers that must be placed);
* a tile taken from the rack must come from the rack: for those tile types a second row keeps
  the table's copies placed without it;
* its objective is the score of the tiles it takes from the rack, less the tiles it releases
  and the jokers it frees (placed by the candidate sets, which score them);
* a row keeps the score at least the floor asked for (the best move so far, plus one).

The optimum is the best over every combination of choices. Where the jokers stand is worth
nothing when the rack holds none (no joker is played, the move's value counts numbered
tiles only): the programme is then pooled (``milp``: lean sets, jokers at their ends), small
and exact. With rack jokers it scores every joker laid, as the search does, so a move laying
a freed joker scores more there than as a move (its value counts the played jokers only).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from typing import NamedTuple

import numpy as np
from scipy.sparse import csc_array, hstack, vstack

from engine.solver import highs
from engine.solver import milp as programme
from engine.solver.model import LAST, GroupBlock, OutOfTime, Problem, RunBlock
from engine.solver.reconstruction import Laid
from engine.tiles import MIN_NUMBER

_TileKey = tuple[int, int]  # (colour index, number)


class Choice(NamedTuple):
    """One way a table set holding a joker takes part in a move: kept as ``block`` (growing
    only; None: taken apart), giving ``released`` numbered tiles to the pool, taking
    ``from_rack`` and ``from_pool`` tiles into it in place of ``freed`` jokers, which go to the
    pool."""

    block: RunBlock | GroupBlock | None
    released: tuple[_TileKey, ...] = ()
    from_rack: tuple[_TileKey, ...] = ()
    from_pool: tuple[_TileKey, ...] = ()
    freed: int = 0


class _Gated(NamedTuple):
    """The programme of a problem with choices: the plain programme with every choice's block
    (``full``), then one column per choice (in ``order``) and the rows that tie them."""

    full: programme.FullProgramme
    problem: Problem  # the problem with every choice's block
    order: list[Choice]
    matrix: csc_array
    cost: np.ndarray
    upper: np.ndarray
    lower_rows: np.ndarray
    upper_rows: np.ndarray


def _gated(problem: Problem, choices: list[list[Choice]]) -> _Gated | None:
    """The programme of ``problem`` (no blocks of its own) with one of ``choices[k]`` taken for
    every joker set ``k``; None when nothing can be laid."""
    flat = [(k, c) for k, options in enumerate(choices) for c in options]
    ordered = (
        [x for x in flat if isinstance(x[1].block, RunBlock)]
        + [x for x in flat if isinstance(x[1].block, GroupBlock)]
        + [x for x in flat if x[1].block is None]
    )  # the order of ``_block_columns``: run blocks, then group blocks (then no block)
    order = [c for _, c in ordered]
    # the programme's columns are sized for the tiles and jokers the choices may release
    optional = [list(counts) for counts in problem.optional]
    for options in choices:
        for (colour, number), most in _most_released(options).items():
            optional[colour][number] += most
    widened = dataclasses.replace(
        problem,
        optional=optional,
        jokers=problem.jokers + sum(max(c.freed for c in options) for options in choices),
        run_blocks=[c.block for c in order if isinstance(c.block, RunBlock)],
        group_blocks=[c.block for c in order if isinstance(c.block, GroupBlock)],
    )
    owners: list[int] = []
    full = programme.full_programme(widened, None, owners)
    if full is None:
        return None
    rows, columns = full.matrix.shape
    tw, vw = problem.tile_weight, problem.value_weight
    gate: list[tuple[int, int, float]] = []  # (row, choice, entry)
    from_rack: list[tuple[int, int, float]] = []
    lower_rows, upper_rows = full.lower_rows.copy(), full.upper_rows.copy()
    for colour, counts in enumerate(problem.optional):  # the rows as they are without choices
        for number in range(MIN_NUMBER, LAST + 1):
            upper_rows[programme.type_row(colour, number)] = problem.required[colour][number] + counts[number]
    lower_rows[programme.TILE_TYPES] = problem.jokers_required
    upper_rows[programme.TILE_TYPES] = problem.jokers  # the freed jokers come with their choices
    for k, owner in enumerate(owners):  # the blocks' rows, bounded by their choice's variable
        row = rows - len(owners) + k
        if upper_rows[row] > 0:  # the others are bounded by the row before them in a chain
            gate.append((row, owner, -float(upper_rows[row])))
            upper_rows[row] = 0.0
    cost = np.zeros(len(order))
    for j, (k, c) in enumerate(ordered):
        gate.append((rows + k, j, 1.0))  # one choice per joker set
        for keys, sign in ((c.from_rack, 1.0), (c.from_pool, 1.0), (c.released, -1.0)):
            for colour, number in keys:
                gate.append((programme.type_row(colour, number), j, sign))
                cost[j] += sign * (tw + vw * number)
        from_rack += [(programme.type_row(colour, number), j, 1.0) for colour, number in c.from_rack]
        if c.freed:
            gate.append((programme.TILE_TYPES, j, -float(c.freed)))
            cost[j] -= tw * c.freed
    gates = _sparse(gate, (rows + len(choices), len(order)))
    matrix = hstack([vstack([full.matrix, csc_array((len(choices), columns))]), gates], format="csc")
    lower_rows = np.concatenate([lower_rows, np.ones(len(choices))])
    upper_rows = np.concatenate([upper_rows, np.ones(len(choices))])
    rack_rows = sorted({row for row, _, _ in from_rack})
    if rack_rows:
        # a tile taken from the rack is not one of the table's copies: its rows again without
        # it keep the table's copies placed
        taken = hstack([csc_array((rows, columns)), _sparse(from_rack, (rows, len(order)))], format="csr")
        without = (matrix[:rows].tocsr() - taken)[rack_rows]
        matrix = vstack([matrix, without], format="csc")
        lower_rows = np.concatenate([lower_rows, full.lower_rows[rack_rows]])
        upper_rows = np.concatenate([upper_rows, np.full(len(rack_rows), np.inf)])
    return _Gated(
        full,
        widened,
        order,
        matrix,
        np.concatenate([full.cost, cost]),
        np.concatenate([full.upper, np.ones(len(order))]),
        lower_rows,
        upper_rows,
    )


def _most_released(options: list[Choice]) -> Counter[_TileKey]:
    """The most copies of each tile type one of ``options`` releases."""
    most: Counter[_TileKey] = Counter()
    for c in options:
        most |= Counter(c.released)
    return most


def _sparse(entries: list[tuple[int, int, float]], shape: tuple[int, int]) -> csc_array:
    """A sparse matrix of (row, column, value) entries, duplicates summed."""
    values = [v for _, _, v in entries]
    matrix = csc_array((values, ([r for r, _, _ in entries], [c for _, c, _ in entries])), shape=shape)
    matrix.sum_duplicates()
    return matrix


def solve(
    problem: Problem, choices: list[list[Choice]], deadline: float, floor: int = 0
) -> tuple[int, Laid, bool, list[Choice]] | None:
    """The best move over every combination of ``choices`` if it scores at least ``floor``:
    (its score, its sets laid, whether it is proven optimal, the choices taken, one per joker
    set); None when there is none. Raises OutOfTime when the deadline passes with none."""
    assert not problem.unscored  # its columns and rows would follow the blocks' (see ``_gated``)
    gated = _gated(problem, choices)
    if gated is None:
        return None
    # only moves scoring ``floor`` are sought: HiGHS's cutoff (26% less time on the hard bench's
    # programmes than the same bound as a row of the programme)
    result = programme.solve_integer(
        gated.cost,
        gated.upper,
        gated.matrix,
        gated.lower_rows,
        gated.upper_rows,
        deadline,
        floor + gated.full.programme.constant,
    )
    if result.status == highs.INFEASIBLE:
        return None
    if result.x is None:
        raise OutOfTime
    decoded = _decoded(gated, result.x)
    if decoded[0] < floor:
        return None
    return decoded[0], decoded[1], result.status == highs.OPTIMAL, decoded[2]


def _decoded(gated: _Gated, x: np.ndarray) -> tuple[int, Laid, list[Choice]]:
    """A solution of ``gated``'s programme: its score, its sets laid and the choices taken."""
    copies = [round(float(n)) for n in x]
    score = round(float(np.dot(gated.cost, copies)) - gated.full.programme.constant)
    picked = [c for c, n in zip(gated.order, copies[len(gated.full.cost) :], strict=True) if n]
    chosen = dataclasses.replace(
        gated.problem,
        run_blocks=[c.block for c in picked if isinstance(c.block, RunBlock)],
        group_blocks=[c.block for c in picked if isinstance(c.block, GroupBlock)],
    )
    return score, programme.laid_from(chosen, gated.full, copies), picked


def best_within(
    problem: Problem, choices: list[list[Choice]], deadline: float, floor: int, max_nodes: int
) -> tuple[int, Laid, list[Choice]] | None:
    """``solve``'s programme by our own branch and bound alone (``highs.branch_and_bound``), at
    most ``max_nodes`` relaxations: its best move (score, sets, choices taken) when it is proven
    the best scoring at least ``floor``, None when proven that none does. Raises OutOfTime
    when neither is known by then (the relaxations or the deadline ran out): a cap on work, so
    that the caller may take another way, and the same outcome on every machine unless the
    deadline comes first."""
    assert not problem.unscored
    gated = _gated(problem, choices)
    if gated is None:
        return None
    at_least = floor + gated.full.programme.constant
    result = highs.branch_and_bound(
        gated.cost,
        gated.upper,
        gated.matrix,
        gated.lower_rows,
        gated.upper_rows,
        deadline - time.perf_counter(),
        cutoff=at_least - 1,
        rows=range(programme.TILE_TYPES + 1),
        max_nodes=max_nodes,
    )
    if result.status in (highs.INFEASIBLE, highs.NOT_BETTER):
        return None
    if result.status != highs.OPTIMAL or result.x is None:
        raise OutOfTime
    return _decoded(gated, result.x)

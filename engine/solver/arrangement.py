"""``arrange``: can a multiset of tiles be split into valid sets, every tile used?"""

from __future__ import annotations

import time
from collections.abc import Iterable

from engine.rules import SABRA, RulesLike
from engine.solver.model import (
    COLOUR_INDEX,
    ArrangeResult,
    OutOfTime,
    Problem,
    empty_counts,
)
from engine.solver.reconstruction import Builder
from engine.solver.search import Search
from engine.tiles import Tile, as_tiles
from engine.turns import check_budget


def arrange(tiles: Iterable[Tile], rules: RulesLike = SABRA, budget_seconds: float = 2.0) -> ArrangeResult:
    """Can ``tiles`` (a multiset; jokers are interchangeable and their declarations ignored)
    be split into valid sets, every tile used? Exact; returns one arrangement when it can,
    runs ascending with every joker declared, groups in colour order with jokers last. Any
    multiset is arranged, beyond a tile set's copies too (the service refuses those first; far
    beyond, thousands of one tile, a step of the search outlasts the budget);
    ``rules`` does not matter (set validity does not depend on the settings; output runs are
    laid ascending). Raises TypeError for tiles that are not ``Tile`` objects."""
    del rules
    tiles = as_tiles(tiles)
    check_budget(budget_seconds)
    deadline = time.perf_counter() + budget_seconds
    required = empty_counts()
    jokers = 0
    for t in tiles:
        if t.color is None:
            jokers += 1
        else:
            required[COLOUR_INDEX[t.color]][t.number] += 1
    if not tiles:
        return ArrangeResult(True, (), True, False)
    try:
        sets, _ = arranged(required, jokers, deadline)
    except OutOfTime:
        return ArrangeResult(None, None, False, True)
    if sets is None:
        return ArrangeResult(False, None, True, False)
    return ArrangeResult(True, tuple(sets), True, False)


def arranged(
    counts: list[list[int]], jokers: int, deadline: float, max_calls: int | None = None
) -> tuple[list[tuple[Tile, ...]] | None, int]:
    """The sets of an arrangement of the tiles ``counts[c][v]`` and ``jokers`` jokers, every
    one laid (None when there is none), and the search calls it took. Raises OutOfTime at
    the deadline or past ``max_calls`` search calls."""
    search = Search(Problem(counts, empty_counts(), jokers, jokers, feasibility_only=True), deadline, max_calls)
    if search.solve() is None:
        return None, search.calls
    builder = Builder(search)
    builder.build()
    builder.place_spare_jokers(search.leftover_jokers())
    return builder.plain_sets(), search.calls

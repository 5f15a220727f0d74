"""Rack-only sets, minimal melds and the opening value as an integer programme (the opening
with manipulation)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
from scipy.sparse import csc_array

from engine.solver import highs
from engine.solver.model import (
    _LAST,
    _MAX_GROUP,
)
from engine.solver.reconstruction import _joker_as
from engine.tiles import COLORS, JOKER, MIN_NUMBER, Tile, numbered

# --- minimal melds (opening with manipulation) ------------------------------------------


def _sets_from(tiles: Sequence[Tile], long_runs: bool = True) -> list[tuple[tuple[Tile, ...], int]]:
    """Every distinct valid set (as laid by the solver) that ``tiles`` can make, with its
    value. Without ``long_runs``, a run of 6+ numbers that two runs of 3+ numbers, each
    holding a numbered tile, can replace (the same tiles, the same value) is left out."""
    keys = Counter(t.key for t in tiles)
    jokers = keys["J"]
    out: list[tuple[tuple[Tile, ...], int]] = []
    for ci, colour in enumerate(COLORS):
        held = [keys[f"{colour}{n}"] > 0 for n in range(_LAST + 2)]
        for start in range(MIN_NUMBER, _LAST + 1):
            # the numbers from ``start`` the tiles hold or miss, one more per longer run
            missing = [n for n in (start, start + 1) if not held[n]]
            present = [n for n in (start, start + 1) if held[n]]
            for end in range(start + 2, _LAST + 1):
                (present if held[end] else missing).append(end)
                if len(missing) > jokers or (not long_runs and end - start >= 5 and end - start - 2 > jokers):
                    break  # a longer run misses as many at least (a long run that does not split: 3 tiles at most)
                if not present:
                    continue
                numbers = range(start, end + 1)
                spare = jokers - len(missing)
                for k in range(min(spare, len(present) - 1) + 1):
                    for as_joker in itertools.combinations(present, k):
                        holes = set(missing) | set(as_joker)
                        if not long_runs and end - start >= 5 and _splits(start, end, holes):
                            continue
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


def _splits(start: int, end: int, holes: set[int]) -> bool:
    """Whether the run ``start..end`` with jokers at ``holes`` is two runs of 3+ numbers that
    each hold a numbered tile: it is when some cut after ``k`` (``start + 2 <= k <= end - 3``)
    has a numbered tile at or below ``k`` and one above it."""
    numbered_at = [n for n in range(start, end + 1) if n not in holes]
    return max(start + 2, numbered_at[0]) <= min(end - 3, numbered_at[-1] - 1)


def best_meld_programme(counts: Mapping[str, int], cpu_limit: float, reached: int = 0) -> tuple[int, int | None]:
    """Bounds on ``engine.meld_value.best_meld_value(counts)``, known to be at least
    ``reached``, from an integer programme (HiGHS) run for at most ``cpu_limit`` seconds of
    this thread's CPU time: the value of the best solution found (``reached`` without a better
    one), checked against ``counts``, and no more than that can be reached (None when HiGHS gave
    no bound). Equal when the optimum was proved.

    One column per distinct set ``counts`` can make (``_sets_from`` without the long runs that
    split), one row per tile's copies and one for the jokers, the sets' values maximised: ~2,500
    columns and 53 rows for 100 XP tiles with 4 jokers. Its linear relaxation is usually tight,
    so it settles in tenths of a second what the dynamic programme of ``engine.meld_value``
    takes seconds over, and leaves it a narrow interval when not (bench/README.md, session 35)."""
    tiles = [numbered(key[0], int(key[1:])) for key, n in counts.items() if n > 0 and key != "J"]
    sets = _sets_from([*tiles, *[JOKER] * max(0, counts.get("J", 0))], long_runs=False)
    if not sets:
        return 0, 0
    rows = {key: i for i, key in enumerate(sorted({t.key for t in tiles} | {"J"}))}
    uses = [Counter(t.key for t in tiles_of_set) for tiles_of_set, _ in sets]
    entries = [(rows[key], j, n) for j, used in enumerate(uses) for key, n in used.items()]
    row_index, column_index, data = zip(*entries, strict=True)
    matrix = csc_array((data, (row_index, column_index)), shape=(len(rows), len(sets)))
    limits = np.array([max(0, counts.get(key, 0)) for key in rows], dtype=float)
    cost = np.array([value for _, value in sets], dtype=float)
    result = highs.maximise(
        cost,
        np.full(len(sets), np.inf),
        matrix,
        np.zeros(len(rows)),
        limits,
        True,
        False,
        60.0,
        cpu_limit,
        at_least=reached + 1 if reached else -np.inf,  # only better solutions are sought
    )
    if result.status == highs.INFEASIBLE:  # none better
        return reached, reached
    whole = highs.integral(result.x) if result.x is not None else None
    lower = reached
    if whole is not None:
        used_in_all: Counter[str] = Counter()
        for j, times in enumerate(whole):
            for key, n in uses[j].items():
                used_in_all[key] += n * times
        if all(n <= counts.get(key, 0) for key, n in used_in_all.items()):
            lower = max(lower, sum(times * sets[j][1] for j, times in enumerate(whole)))
    if result.status == highs.OPTIMAL:
        return lower, round(result.objective)
    bound = result.bound
    return lower, (math.floor(bound + 1e-6) if math.isfinite(bound) else None)


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
            # (j again: two copies of one set, R5 R6 R7 twice, may be needed)
            yield from grow(j, left - need, [*chosen, tiles], [*values, points])

    if minimum <= 0:
        yield []
        return
    yield from grow(0, have, [], [])

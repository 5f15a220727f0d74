"""Rack-only sets and minimal melds (the opening with manipulation)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence

from engine.solver.model import (
    _LAST,
    _MAX_GROUP,
)
from engine.solver.reconstruction import _joker_as
from engine.tiles import COLORS, JOKER, MIN_NUMBER, Tile, numbered

# --- minimal melds (opening with manipulation) ------------------------------------------


def _sets_from(tiles: Sequence[Tile]) -> list[tuple[tuple[Tile, ...], int]]:
    """Every distinct valid set (as laid by the solver) that ``tiles`` can make, with its
    value."""
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
                if len(missing) > jokers:
                    break  # a longer run misses as many at least
                if not present:
                    continue
                numbers = range(start, end + 1)
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

"""Rack-only sets, minimal melds and the opening value as an integer programme (the opening
with manipulation)."""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
from scipy.sparse import csc_array

from engine.meld_value import best_meld_value
from engine.solver import highs
from engine.solver.model import (
    LAST,
    MAX_GROUP,
)
from engine.solver.reconstruction import joker_as
from engine.tiles import COLORS, JOKER, MIN_NUMBER, Tile, numbered

# --- minimal melds (opening with manipulation) ------------------------------------------


def sets_from(tiles: Sequence[Tile], long_runs: bool = True) -> list[tuple[tuple[Tile, ...], int]]:
    """Every distinct valid set (as laid by the solver) that ``tiles`` can make, with its
    value. Without ``long_runs``, a run of 6+ numbers that two runs of 3+ numbers, each
    holding a numbered tile, can replace (the same tiles, the same value) is left out."""
    keys = Counter(t.key for t in tiles)
    jokers = keys["J"]
    out: list[tuple[tuple[Tile, ...], int]] = []
    for ci, colour in enumerate(COLORS):
        held = [keys[f"{colour}{n}"] > 0 for n in range(LAST + 2)]
        for start in range(MIN_NUMBER, LAST + 1):
            # the numbers from ``start`` the tiles hold or miss, one more per longer run
            missing = [n for n in (start, start + 1) if not held[n]]
            present = [n for n in (start, start + 1) if held[n]]
            for end in range(start + 2, LAST + 1):
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
                        run = tuple(joker_as(ci, n) if n in holes else numbered(colour, n) for n in numbers)
                        out.append((run, sum(numbers)))
    for number in range(MIN_NUMBER, LAST + 1):
        colours = [c for c in COLORS if keys[f"{c}{number}"]]
        for k in range(1, len(colours) + 1):
            for chosen in itertools.combinations(colours, k):
                for j in range(max(0, 3 - k), min(jokers, MAX_GROUP - k) + 1):
                    group = tuple(numbered(c, number) for c in chosen) + (JOKER,) * j
                    out.append((group, number * (k + j)))
    return out


def _splits(start: int, end: int, holes: set[int]) -> bool:
    """Whether the run ``start..end`` with jokers at ``holes`` is two runs of 3+ numbers that
    each hold a numbered tile: it is when some cut after ``k`` (``start + 2 <= k <= end - 3``)
    has a numbered tile at or below ``k`` and one above it."""
    numbered_at = [n for n in range(start, end + 1) if n not in holes]
    return max(start + 2, numbered_at[0]) <= min(end - 3, numbered_at[-1] - 1)


class MeldProgramme:
    """``engine.meld_value.best_meld_value(counts)`` as an integer programme (HiGHS): one
    column per distinct set ``counts`` can make (``sets_from`` without the long runs that
    split), one row per tile's copies and one for the jokers, the sets' values maximised: ~2,500
    columns and 53 rows for 100 XP tiles with 4 jokers. Its linear relaxation is usually within
    a point or two of the answer, often on it, where the dynamic programme of
    ``engine.meld_value`` is slowest (bench/README.md, session 35)."""

    def __init__(self, counts: Mapping[str, int]) -> None:
        self.counts = counts
        tiles = [numbered(key[0], int(key[1:])) for key, n in counts.items() if n > 0 and key != "J"]
        sets = sets_from([*tiles, *[JOKER] * max(0, counts.get("J", 0))], long_runs=False)
        self.values = [value for _, value in sets]
        self.uses = [Counter(t.key for t in tiles_of_set) for tiles_of_set, _ in sets]
        rows = {key: i for i, key in enumerate(sorted({t.key for t in tiles} | {"J"}))}
        entries = [(rows[key], j, n) for j, used in enumerate(self.uses) for key, n in used.items()]
        row_index, column_index, data = zip(*entries, strict=True) if entries else ((), (), ())
        self.matrix = csc_array((data, (row_index, column_index)), shape=(len(rows), len(sets)))
        self.limits = np.array([max(0, counts.get(key, 0)) for key in rows], dtype=float)
        self.cost = np.array(self.values, dtype=float)

    def relaxation_bound(self) -> int | None:
        """No collection of sets is worth more (the linear relaxation's optimum, rounded down);
        None if HiGHS did not solve it."""
        if not self.values:
            return 0
        result = self._run(False, 10.0, None, -np.inf)
        return math.floor(result.objective + 1e-6) if result.status == highs.OPTIMAL else None

    def solve(self, cpu_limit: float, reached: int = 0) -> tuple[int, int | None]:
        """Bounds on the value, known to be at least ``reached``, from a run of at most
        ``cpu_limit`` seconds of this thread's CPU time: the value of the best solution found
        (``reached`` without a better one), checked against the counts, and no more than that
        can be reached (None when HiGHS gave no bound). Equal when the optimum was proved."""
        if not self.values:
            return 0, 0
        # only better solutions are sought
        result = self._run(True, 60.0, cpu_limit, reached + 1 if reached else -np.inf)
        if result.status == highs.INFEASIBLE:  # none better
            return reached, reached
        lower = max(reached, self._checked_value(result.x))
        if result.status == highs.OPTIMAL:
            return lower, round(result.objective)
        return lower, (math.floor(result.bound + 1e-6) if math.isfinite(result.bound) else None)

    def _run(self, integer: bool, time_limit: float, cpu_limit: float | None, at_least: float) -> highs.Result:
        rows = len(self.limits)
        return highs.maximise(
            self.cost,
            np.full(len(self.values), np.inf),
            self.matrix,
            np.zeros(rows),
            self.limits,
            integer,
            False,
            time_limit,
            cpu_limit,
            at_least=at_least,
        )

    def _checked_value(self, x: np.ndarray | None) -> int:
        """The value of the solution ``x`` when it is whole and within the counts, else 0."""
        whole = highs.integral(x) if x is not None else None
        if whole is None:
            return 0
        used: Counter[str] = Counter()
        for j, times in enumerate(whole):
            for key, n in self.uses[j].items():
                used[key] += n * times
        if any(n > self.counts.get(key, 0) for key, n in used.items()):
            return 0
        return sum(times * self.values[j] for j, times in enumerate(whole))


def minimal_melds(
    rack: Sequence[Tile], minimum: int, deadline: float | None = None
) -> Iterator[list[tuple[Tile, ...]]]:
    """Collections of rack-only sets worth at least ``minimum`` in which every set is needed,
    highest value first within each size; none when no valid sets of the rack reach the minimum
    (``best_meld_value``, exact). A branch stops once its tiles left cannot reach the minimum,
    and the listing once past ``deadline`` (the caller tells by the clock): a rack of 20 low
    tiles that could not open was walked packing by packing for 68 s (session 35's hunt)."""
    if minimum <= 0:
        yield []
        return
    have = Counter(t.key for t in rack)
    if best_meld_value(have, minimum) < minimum:
        return
    candidates = sorted(sets_from(rack), key=lambda x: -x[1])
    worth = {t.key: t.number if t.color is not None else LAST for t in rack}

    def grow(
        i: int, left: Counter[str], rest: int, chosen: list[tuple[Tile, ...]], values: list[int]
    ) -> Iterator[list[tuple[Tile, ...]]]:
        total = sum(values)
        if total >= minimum:
            if all(total - x < minimum for x in values):
                yield list(chosen)
            return
        if total + rest < minimum:  # (a set is worth its tiles, a joker 13 at most)
            return
        if deadline is not None and time.perf_counter() > deadline:
            raise _PastDeadline
        for j in range(i, len(candidates)):
            tiles, points = candidates[j]
            need = Counter(t.key for t in tiles)
            if need - left:
                continue
            spent = sum(worth[key] * n for key, n in need.items())
            # (j again: two copies of one set, R5 R6 R7 twice, may be needed)
            yield from grow(j, left - need, rest - spent, [*chosen, tiles], [*values, points])

    try:
        yield from grow(0, have, sum(worth[key] * n for key, n in have.items()), [], [])
    except _PastDeadline:
        return


class _PastDeadline(Exception):
    """``minimal_melds`` went past its deadline."""

"""The least-change tie break's first, cheap step (issue #18): the moves that move no table
tile.

A move moves no table tile exactly when every before-set ``b`` is continued by an after-set
holding all of ``b``'s tiles plus rack tiles only (two before-sets in one after-set would
move the tiles of the one it does not continue), and every other after-set holds rack tiles
only. So such a move is: per before-set one *option* (``b`` as it lies, or a valid set made of
``b`` and some rack tiles: a run of its colour over a wider stretch, or a group of its number
with more colours; ``b``'s jokers may stand elsewhere in it), and new sets of rack tiles.

Every option and every new set is listed explicitly (a rack without jokers, so that a played
tile's points are its number), and a small integer programme picks one option per before-set
and the new sets: the played tiles score at least ``floor``, and the objective is before-sets
touched (an option other than ``b`` itself), then new sets. The list holds every valid set of
that shape, so it holds every legal move moving no tile: when the programme finds no move
scoring ``floor``, every such move moves a tile (``INFEASIBLE``); when its optimum is a legal
turn (the caller checks with ``verify_turn``), no move scoring as much disturbs the table less
(tiles moved 0 is the least possible, and touched, new sets are minimised among those)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import numpy as np

from engine.rules import Rules
from engine.sets import RUN, read_set
from engine.solver import highs
from engine.tiles import COLORS, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered

INFEASIBLE = "infeasible"
"""No move moving no table tile scores ``floor``: the least change moves a tile."""

_Key = tuple[int, int]  # (colour index, number)
_COLOUR_INDEX = {c: i for i, c in enumerate(COLORS)}


def _run_options(tiles: tuple[Tile, ...], rack: Counter[_Key]) -> list[tuple[tuple[Tile, ...], Counter[_Key]]]:
    """The runs made of ``tiles`` (one colour, distinct numbers) and rack tiles of that
    colour: every stretch of numbers holding the tiles' numbers, filled by the rack and
    ``tiles``' own jokers."""
    numbers = [t.number for t in tiles if t.color is not None]
    colours = {t.color for t in tiles if t.color is not None}
    if len(colours) != 1 or len(set(numbers)) != len(numbers):
        return []
    colour = next(iter(colours))
    c = _COLOUR_INDEX[colour]
    jokers = len(tiles) - len(numbers)
    own = set(numbers)
    out = []
    for low in range(MIN_NUMBER, min(own) + 1):
        for high in range(max(own), MAX_NUMBER + 1):
            if high - low + 1 == len(tiles):
                continue  # b itself (or b with its jokers elsewhere): no rack tile, not a move
            places = [v for v in range(low, high + 1) if v not in own]
            from_rack = [v for v in places if rack[(c, v)]]
            missing = len(places) - len(from_rack)
            if missing > jokers or len(places) < jokers:
                continue
            for on_jokers in itertools.combinations(from_rack, jokers - missing):
                joker_places = set(on_jokers) | {v for v in places if not rack[(c, v)]}
                laid = tuple(
                    joker_as(numbered(colour, v)) if v in joker_places else numbered(colour, v)
                    for v in range(low, high + 1)
                )
                added = Counter((c, v) for v in places if v not in joker_places)
                out.append((laid, added))
    return out


def _group_options(tiles: tuple[Tile, ...], rack: Counter[_Key]) -> list[tuple[tuple[Tile, ...], Counter[_Key]]]:
    """The groups made of ``tiles`` (one number, distinct colours) and rack tiles of that
    number in the other colours."""
    numbers = {t.number for t in tiles if t.color is not None}
    colours = [t.color for t in tiles if t.color is not None]
    if len(numbers) != 1 or len(set(colours)) != len(colours):
        return []
    number = next(iter(numbers))
    room = len(COLORS) - len(tiles)
    others = [c for c in range(len(COLORS)) if COLORS[c] not in colours and rack[(c, number)]]
    out = []
    for k in range(1, room + 1):
        for extra in itertools.combinations(others, k):
            laid = tiles + tuple(numbered(COLORS[c], number) for c in extra)
            out.append((laid, Counter((c, number) for c in extra)))
    return out


def _new_sets(rack: Counter[_Key]) -> list[tuple[tuple[Tile, ...], Counter[_Key]]]:
    """Every valid set of numbered rack tiles: runs of 3+ present numbers, groups of 3–4."""
    out = []
    for c, colour in enumerate(COLORS):
        for low in range(MIN_NUMBER, MAX_NUMBER - 1):
            high = low
            while high <= MAX_NUMBER and rack[(c, high)]:
                if high - low >= 2:
                    out.append(
                        (
                            tuple(numbered(colour, v) for v in range(low, high + 1)),
                            Counter((c, v) for v in range(low, high + 1)),
                        )
                    )
                high += 1
    for number in range(MIN_NUMBER, MAX_NUMBER + 1):
        present = [c for c in range(len(COLORS)) if rack[(c, number)]]
        for k in range(3, len(present) + 1):
            for cs in itertools.combinations(present, k):
                out.append((tuple(numbered(COLORS[c], number) for c in cs), Counter((c, number) for c in cs)))
    return out


def least_intact(
    table: Sequence[tuple[Tile, ...]],
    rack: Sequence[Tile],
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    time_limit: float,
) -> list[tuple[Tile, ...]] | str | None:
    """The after table of a move moving no table tile, scoring at least ``floor`` (tile
    weight, value weight as ``weights``; the table's tiles not counted) and touching the fewest
    before-sets, then forming the fewest new sets; ``INFEASIBLE`` when there is none; None when
    not answered (a joker on the rack, or the programme did not finish)."""
    if any(t.color is None for t in rack):
        return None
    counts: Counter[_Key] = Counter((_COLOUR_INDEX[t.color], t.number) for t in rack if t.color is not None)
    tw, vw = weights

    def score(added: Counter[_Key]) -> float:
        return float(sum(n * (tw + vw * v) for (_, v), n in added.items()))

    # columns: per before-set its options (the first: as it lies), then the new sets
    laid: list[tuple[Tile, ...]] = []
    uses: list[Counter[_Key]] = []
    owner: list[int] = []  # before-set index, or -1 for a new set
    for b, tiles in enumerate(table):
        laid.append(tiles)
        uses.append(Counter())
        owner.append(b)
        seen: set[tuple[tuple[_Key, int], ...]] = set()
        reading = read_set(tiles, rules)
        for kind in reading.kinds:
            options = _run_options(tiles, counts) if kind == RUN else _group_options(tiles, counts)
            for option, added in options:
                signature = tuple(sorted(added.items()))
                if signature in seen or not read_set(option, rules, kind).valid:
                    continue
                seen.add(signature)
                laid.append(option)
                uses.append(added)
                owner.append(b)
    fresh = _new_sets(counts)
    for tiles, added in fresh:
        laid.append(tiles)
        uses.append(added)
        owner.append(-1)
    # a quick bound: only rack tiles some column holds can be played
    reach = {k for added in uses for k in added}
    if score(Counter({k: counts[k] for k in reach})) < floor:
        return INFEASIBLE
    n = len(laid)
    w_touch = sum(counts.values()) // 3 + 2
    cost = np.array(
        [1.0 if o < 0 else (0.0 if i == 0 or owner[i - 1] != o else float(w_touch)) for i, o in enumerate(owner)]
    )
    upper = np.array([float(min(counts[k] for k in u)) if o < 0 else 1.0 for u, o in zip(uses, owner, strict=True)])
    keys = sorted(counts)
    key_row = {k: r for r, k in enumerate(keys)}
    rows = len(keys) + len(table) + 1
    matrix = np.zeros((rows, n))
    lower = np.zeros(rows)
    upper_rows = np.zeros(rows)
    for col, (added, o) in enumerate(zip(uses, owner, strict=True)):
        for k, m in added.items():
            matrix[key_row[k], col] = m
        if o >= 0:
            matrix[len(keys) + o, col] = 1
        matrix[rows - 1, col] = score(added)
    for k, r in key_row.items():
        lower[r], upper_rows[r] = 0, counts[k]
    lower[len(keys) : len(keys) + len(table)] = 1
    upper_rows[len(keys) : len(keys) + len(table)] = 1
    lower[rows - 1], upper_rows[rows - 1] = floor, np.inf
    result = highs.maximise(-cost, upper, matrix, lower, upper_rows, True, True, time_limit)
    if result.status == highs.INFEASIBLE:
        return INFEASIBLE
    if result.status != highs.OPTIMAL or result.x is None:
        return None
    x = [round(float(v)) for v in result.x]
    after: list[tuple[Tile, ...]] = [laid[col] for col in range(n) if owner[col] >= 0 and x[col]]
    for col in range(n):
        if owner[col] < 0:
            after += [laid[col]] * x[col]
    return after

"""The least-change tie break's first, cheap step (issue #18): the moves that move no table
tile.

A move moves no table tile exactly when every before-set ``b`` is continued by an after-set
holding all of ``b``'s tiles plus rack tiles only (two before-sets in one after-set would
move the tiles of the one it does not continue), and every other after-set holds rack tiles
only. So such a move is: per before-set one *option* (``b`` as it lies, or a valid set made of
``b`` and some rack tiles, jokers included: a run of its colour over a wider stretch, or a
group of its number with more colours; ``b``'s jokers may stand elsewhere in it), and new sets
of rack tiles.

Every option and every new set is listed explicitly, each joker declared where it stands, and
a small integer programme picks one option per before-set and the new sets: the played tiles
score at least ``floor``, and the objective is before-sets touched (an option other than ``b``
as it lies), then new sets, then ``b``'s tiles laid otherwise than they lie. A played joker is
worth what a joker of the table after the move stands for (jokers are interchangeable: the
move's value counts the jokers played at the best points of the jokers after it, as
``suggest`` scores a move), so when the rack holds a joker, ``b`` as it lies is also listed laid
with its jokers at the other places of its run (the same tiles, a set untouched), and the
programme picks which jokers' points count (no more of them than the jokers played). The list
holds every valid set of that shape, so it holds every legal move moving no tile: when the
programme finds no move scoring ``floor``, every such move moves a tile (``INFEASIBLE``); when
its optimum is a legal turn (the caller checks with ``verify_turn``), no move scoring as much
disturbs the table less (tiles moved 0 is the least possible, and touched, new sets are
minimised among those)."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import coo_array, csc_array, hstack, vstack

from engine.rules import Rules
from engine.sets import RUN, Reading, read_set, stood_for_readings
from engine.solver import highs
from engine.solver.model import COLOUR_INDEX
from engine.tiles import COLORS, JOKER, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered

INFEASIBLE = "infeasible"
"""No move moving no table tile scores ``floor``: the least change moves a tile."""

MOST_COLUMNS = 2_000
"""The most sets the step lists (before-sets' options and new sets); beyond, it answers None
and the programmes decide. A rack of many tiles of one colour and jokers has tens of thousands
(jokers anywhere in every stretch), which HiGHS would take seconds over."""

JOKER_CPU = 0.02
"""Seconds of CPU time the programme gets when the rack holds a joker; then it answers None and
the programmes decide. A joker may stand in any place of any run, which weakens the
programme's relaxation: on the games benches it takes 1-5 ms, but on a rack of 13 tiles of
one colour and a joker 0.2-0.45 s (the least-change programmes answer that one in 50 ms)."""

_Key = tuple[int, int]  # (colour index, number)


@dataclass(frozen=True, slots=True)
class _Laid:
    """A set the programme may lay: its tiles (jokers declared where they stand), the rack's
    numbered tiles and jokers it takes, and the points of each of its jokers."""

    tiles: tuple[Tile, ...]
    added: Counter[_Key]
    added_jokers: int
    points: tuple[int, ...]


def joker_points(tiles: Sequence[Tile], rules: Rules) -> tuple[int, ...]:
    """The points of each joker of the set ``tiles`` by its best reading (the number of the
    tile it stands for)."""
    return _points(_joker_options(tiles, rules))


def played_value(
    table: Sequence[Sequence[Tile]], after: Sequence[Sequence[Tile]], rules: Rules, opened: bool = True
) -> tuple[Counter[str], int]:
    """The tiles a move laying ``table`` out as ``after`` plays (counted by key) and their
    value: a played joker is worth the best joker after the move, each set read at its best
    (jokers are interchangeable), a table joker's too. Before opening no table joker may be
    freed (SPEC §4), so there a table set laid again of its own tiles is read at its best only
    while the tiles its jokers stood for are still stood for by jokers after the move, else as
    it lay: ``J O9 J O11`` laid as ``O9 O11 J J`` beside a new ``O6 J O8`` counts its jokers
    as O8 and O10, not O10 and O12; ``J O11 O12`` laid as ``O11 O12 J`` beside a new
    ``O9 J=O10 O11`` counts its joker as O13. (An opened player frees a joker by a copy of its
    tile too: ``J O4 O5`` laid ``O4 O5 J`` beside ``O3 O4 O5`` reads its joker as O6.)"""
    played = Counter(t.key for s in after for t in s) - Counter(t.key for s in table for t in s)
    value = sum(int(key[1:]) * n for key, n in played.items() if key != JOKER.key)
    if not played[JOKER.key]:
        return played, value
    kept: dict[tuple[str, ...], list[Sequence[Tile]]] = {}
    if not opened:
        for tiles in table:
            if any(t.is_joker for t in tiles):
                kept.setdefault(_shape(tiles), []).append(tiles)
    readings = [_joker_options(tiles, rules) for tiles in after]
    stood_for = {t.key for options in readings for joker in options for t in joker}
    points: list[int] = []
    for tiles, options in zip(after, readings, strict=True):
        same = kept.get(_shape(tiles))
        if same:
            laid = same.pop()
            shared = _shared_readings(laid, tiles, rules)
            if shared and not rules.manipulate_on_opening_turn:
                # the set stayed as it was only in a reading it shares with its laid self (SPEC
                # §4; xp ``J J K9`` laid ``K9 J J``: 9s, not K9-K11; the suggest oracle, session 49)
                options = _best(shared).joker_options
            else:
                before = _joker_options(laid, rules)
                if not all(any(t.key in stood_for for t in joker) for joker in before):
                    options = before
        points.extend(_points(options))
    value += sum(sorted(points, reverse=True)[: played[JOKER.key]])
    return played, value


def opening_table_joker_points(table: Sequence[Sequence[Tile]], rules: Rules) -> list[int]:
    """The points ``played_value`` reads for the table's jokers on an opening without
    ``manipulate_on_opening_turn``, where every table set stays as it lies: each set at its
    best reading shared with itself (a played joker may be worth one of these, jokers being
    interchangeable)."""
    points: list[int] = []
    for tiles in table:
        if any(t.is_joker for t in tiles):
            shared = _shared_readings(tiles, tiles, rules)
            options = _best(shared).joker_options if shared else _joker_options(tiles, rules)
            points.extend(_points(options))
    return points


def _best(readings: Sequence[Reading]) -> Reading:
    """The reading worth most (the first of those)."""
    return max(readings, key=lambda r: r.value)


def _shared_readings(laid: Sequence[Tile], again: Sequence[Tile], rules: Rules) -> list[Reading]:
    """The readings of a table set laid ``again`` that its ``laid`` self has too."""
    theirs = stood_for_readings(read_set(laid, rules).readings)
    return [r for r in read_set(again, rules).readings if stood_for_readings([r]) & theirs]


def _joker_options(tiles: Sequence[Tile], rules: Rules) -> tuple[tuple[Tile, ...], ...]:
    """The tiles each joker of the set ``tiles`` may stand for, by its best reading."""
    best = read_set(tiles, rules).best
    return () if best is None else best.joker_options


def _points(options: Sequence[Sequence[Tile]]) -> tuple[int, ...]:
    return tuple(max(t.number for t in joker) for joker in options)


def _shape(tiles: Sequence[Tile]) -> tuple[str, ...]:
    return tuple(sorted(t.key for t in tiles))


def _run_options(tiles: tuple[Tile, ...], rack: Counter[_Key], rack_jokers: int) -> Iterator[_Laid]:
    """The runs made of ``tiles`` (one colour, distinct numbers), rack tiles of that colour and
    at most ``rack_jokers`` rack jokers: every stretch of numbers holding the tiles' numbers,
    every place of it not theirs taken by a rack tile or a joker (``tiles``' own or the
    rack's). With the rack's jokers, also ``tiles`` alone laid over another stretch (their own
    jokers elsewhere)."""
    numbers = [t.number for t in tiles if t.color is not None]
    colours = {t.color for t in tiles if t.color is not None}
    if len(colours) != 1 or len(set(numbers)) != len(numbers):
        return
    colour = next(iter(colours))
    c = COLOUR_INDEX[colour]
    own_jokers = len(tiles) - len(numbers)
    own = set(numbers)
    for low in range(MIN_NUMBER, min(own) + 1):
        for high in range(max(own), MAX_NUMBER + 1):
            places = [v for v in range(low, high + 1) if v not in own]
            from_rack = [v for v in places if rack[(c, v)]]
            missing = len(places) - len(from_rack)
            for added_jokers in range(rack_jokers + 1):
                jokers = own_jokers + added_jokers
                if missing > jokers or len(places) < jokers:
                    continue
                if len(places) == own_jokers and not (rack_jokers and own_jokers):
                    continue  # ``tiles`` themselves, or relaid where their jokers' points count for nothing
                for on_jokers in itertools.combinations(from_rack, jokers - missing):
                    joker_places = set(on_jokers) | {v for v in places if not rack[(c, v)]}
                    laid = tuple(
                        joker_as(numbered(colour, v)) if v in joker_places else numbered(colour, v)
                        for v in range(low, high + 1)
                    )
                    added = Counter((c, v) for v in places if v not in joker_places)
                    yield _Laid(laid, added, added_jokers, tuple(sorted(joker_places)))


def _group_options(tiles: tuple[Tile, ...], rack: Counter[_Key], rack_jokers: int) -> Iterator[_Laid]:
    """The groups made of ``tiles`` (one number, distinct colours), rack tiles of that number
    in the other colours and at most ``rack_jokers`` rack jokers."""
    numbers = {t.number for t in tiles if t.color is not None}
    colours = [t.color for t in tiles if t.color is not None]
    if len(numbers) != 1 or len(set(colours)) != len(colours):
        return
    number = next(iter(numbers))
    room = len(COLORS) - len(tiles)
    others = [c for c in range(len(COLORS)) if COLORS[c] not in colours and rack[(c, number)]]
    own_jokers = len(tiles) - len(colours)
    for k in range(room + 1):
        for extra in itertools.combinations(others, k):
            for added_jokers in range(min(rack_jokers, room - k) + 1):
                if not k and not added_jokers:
                    continue
                laid = tiles + tuple(numbered(COLORS[c], number) for c in extra) + (JOKER,) * added_jokers
                points = (number,) * (own_jokers + added_jokers)
                yield _Laid(laid, Counter((c, number) for c in extra), added_jokers, points)


def _new_sets(rack: Counter[_Key], rack_jokers: int) -> Iterator[_Laid]:
    """Every valid set of rack tiles holding a numbered tile and at most ``rack_jokers``
    jokers: runs of 3+ numbers, each a rack tile or a joker; groups of 3–4."""
    for c, colour in enumerate(COLORS):
        for low in range(MIN_NUMBER, MAX_NUMBER - 1):
            for high in range(low + 2, MAX_NUMBER + 1):
                present = [v for v in range(low, high + 1) if rack[(c, v)]]
                missing = high - low + 1 - len(present)
                if missing > rack_jokers:
                    break  # longer stretches miss these too
                for extra in range(min(rack_jokers - missing, len(present) - 1) + 1):
                    for on_jokers in itertools.combinations(present, extra):
                        joker_places = set(on_jokers) | {v for v in range(low, high + 1) if not rack[(c, v)]}
                        laid = tuple(
                            joker_as(numbered(colour, v)) if v in joker_places else numbered(colour, v)
                            for v in range(low, high + 1)
                        )
                        added = Counter((c, v) for v in present if v not in joker_places)
                        yield _Laid(laid, added, len(joker_places), tuple(sorted(joker_places)))
    for number in range(MIN_NUMBER, MAX_NUMBER + 1):
        present = [c for c in range(len(COLORS)) if rack[(c, number)]]
        for k in range(1, len(present) + 1):
            for cs in itertools.combinations(present, k):
                for jokers in range(max(0, 3 - k), min(rack_jokers, len(COLORS) - k) + 1):
                    laid = tuple(numbered(COLORS[c], number) for c in cs) + (JOKER,) * jokers
                    yield _Laid(laid, Counter((c, number) for c in cs), jokers, (number,) * jokers)


def intact_moves(
    table: Sequence[tuple[Tile, ...]],
    rack: Sequence[Tile],
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    time_limit: float,
) -> Iterator[list[tuple[Tile, ...]] | str | None]:
    """First the after table of a move moving no table tile, scoring at least ``floor`` (tile
    weight, value weight as ``weights``; the table's tiles not counted) and touching the fewest
    before-sets, then forming the fewest new sets; ``INFEASIBLE`` when there is none; None when
    not answered (more than ``MOST_COLUMNS`` sets to list, or the programme did not finish: in
    time, or within ``JOKER_CPU`` when the rack holds a joker). Then, while the caller asks for
    more, the programme's next best moves: each answered move's choice of sets excluded (a
    row), the programme solved again, ending with ``INFEASIBLE`` when no move is left, None when
    not answered. The moves come in order of the programme's
    objective (touched, then new sets, then relaid), so when every move answered before is no
    legal turn in any of its layouts, the first legal one of the moves that follow is the least
    change among the moves moving no tile, and ``INFEASIBLE`` says that no such move is
    legal."""
    deadline = time.perf_counter() + time_limit
    counts: Counter[_Key] = Counter((COLOUR_INDEX[t.color], t.number) for t in rack if t.color is not None)
    rack_jokers = len(rack) - sum(counts.values())
    tw, vw = weights

    def score(laid: _Laid) -> float:
        return float(sum(n * (tw + vw * v) for (_, v), n in laid.added.items()) + laid.added_jokers * tw)

    # columns: per before-set its options (the first: as it lies), then the new sets
    options: list[_Laid] = []
    owner: list[int] = []  # before-set index, or -1 for a new set
    for b, tiles in enumerate(table):
        options.append(_Laid(tiles, Counter(), 0, joker_points(tiles, rules)))
        owner.append(b)
        seen: set[tuple[object, ...]] = set()
        reading = read_set(tiles, rules)
        for kind in reading.kinds:
            found = (
                _run_options(tiles, counts, rack_jokers) if kind == RUN else _group_options(tiles, counts, rack_jokers)
            )
            for option in found:
                if len(options) > MOST_COLUMNS:
                    yield None
                    return
                # (without a joker played the jokers' points count for nothing)
                signature = (
                    tuple(sorted(option.added.items())),
                    option.added_jokers,
                    option.points if rack_jokers else (),
                )
                if signature in seen or not read_set(option.tiles, rules, kind).valid:
                    continue
                seen.add(signature)
                options.append(option)
                owner.append(b)
    for option in _new_sets(counts, rack_jokers):
        if len(options) > MOST_COLUMNS:
            yield None
            return
        options.append(option)
        owner.append(-1)
    # a quick bound: only rack tiles some column holds can be played
    reach = {k for option in options for k in option.added}
    if sum(counts[k] * (tw + vw * k[1]) for k in reach) + rack_jokers * (tw + vw * MAX_NUMBER) < floor:
        yield INFEASIBLE
        return
    n = len(options)
    # a column's own before-set laid otherwise (the same tiles) costs least, then a new set,
    # then a touched before-set
    w_new = len(table) + 1
    w_touch = w_new * (len(rack) // 3 + 2)
    cost = []
    upper = []
    for i, (option, o) in enumerate(zip(options, owner, strict=True)):
        first = i == 0 or owner[i - 1] != o
        if o < 0:
            cost.append(float(w_new))
            copies = [counts[k] for k in option.added]
            if option.added_jokers:
                copies.append(rack_jokers // option.added_jokers)
            upper.append(float(min(copies)))
        else:
            untouched = not option.added and not option.added_jokers
            cost.append(0.0 if first else 1.0 if untouched else float(w_touch))
            upper.append(1.0)
    # the jokers whose points count: per number, how many (at most the jokers laid standing
    # for it; in all, at most the jokers played)
    picked = list(range(MIN_NUMBER, MAX_NUMBER + 1)) if rack_jokers else []
    keys = sorted(counts)
    key_row = {k: r for r, k in enumerate(keys)}
    joker_row = len(keys)
    owner_row = joker_row + 1
    pick_row = owner_row + len(table)
    rows = pick_row + len(picked) + 2
    played_row, score_row = rows - 2, rows - 1
    entries: list[tuple[int, int, float]] = []  # (row, column, coefficient)
    for col, (option, o) in enumerate(zip(options, owner, strict=True)):
        entries += [(key_row[k], col, m) for k, m in option.added.items()]
        entries += [(joker_row, col, option.added_jokers), (played_row, col, -option.added_jokers)]
        if o >= 0:
            entries.append((owner_row + o, col, 1))
        entries.append((score_row, col, score(option)))
        if rack_jokers:
            entries += [(pick_row + number - MIN_NUMBER, col, -many) for number, many in Counter(option.points).items()]
    for p, number in enumerate(picked):
        entries += [(pick_row + p, n + p, 1), (played_row, n + p, 1), (score_row, n + p, vw * number)]
    at_row, at_col, coefficients = zip(*(e for e in entries if e[2]), strict=True)
    matrix = coo_array((coefficients, (at_row, at_col)), shape=(rows, n + len(picked)))
    lower = np.zeros(rows)
    upper_rows = np.zeros(rows)
    for k, r in key_row.items():
        lower[r], upper_rows[r] = 0, counts[k]
    upper_rows[joker_row] = rack_jokers
    lower[owner_row:pick_row] = 1
    upper_rows[owner_row:pick_row] = 1
    lower[pick_row:played_row] = -np.inf
    lower[played_row] = -np.inf
    lower[score_row], upper_rows[score_row] = floor, np.inf
    all_cost = np.array(cost + [0.0] * len(picked))
    all_upper = np.array(upper + [float(rack_jokers)] * len(picked))
    # (with a rack joker without presolve: HiGHS's presolve and root work are not interrupted)
    cpu_limit = JOKER_CPU if rack_jokers else None
    presolve = not rack_jokers

    def solve(model: Model) -> highs.Result:
        c, u, m, low, high = model
        return highs.maximise(-c, u, m, low, high, True, presolve, deadline - time.perf_counter(), cpu_limit)

    for taken in solutions((all_cost, all_upper, matrix, lower, upper_rows), n, solve):
        if not isinstance(taken, list):
            yield taken
            return
        after: list[tuple[Tile, ...]] = [options[col].tiles for col in range(n) if owner[col] >= 0 and taken[col]]
        for col in range(n):
            if owner[col] < 0:
                after += [options[col].tiles] * taken[col]
        yield after


Model = tuple[np.ndarray, np.ndarray, Any, np.ndarray, np.ndarray]
"""A programme maximising its first item: the objective, the columns' upper bounds, the
matrix and the rows' lower and upper bounds."""


def solutions(model: Model, width: int, solve: Callable[[Model], highs.Result]) -> Iterator[list[int] | str | None]:
    """How many times each of the first ``width`` columns of ``model`` (those of the moves) is
    taken in its optimum (``solve``), then in the optimum of the programme with each answered
    choice of those columns excluded (``Once``), best first; ``INFEASIBLE`` when none is left,
    None when not answered."""
    once: Once | None = None  # the programme with every column taken at most once, once one answered
    while True:
        result = solve(model if once is None else once.model)
        if result.status == highs.INFEASIBLE:
            yield INFEASIBLE
            return
        if result.status != highs.OPTIMAL or result.x is None:
            yield None
            return
        x = [round(float(v)) for v in result.x]
        if once is None:
            cost, upper, matrix, lower_rows, upper_rows = model
            once = Once.of(matrix, cost, upper, lower_rows, upper_rows, width)
            x = once.spread(x)
        yield once.taken(x)
        once.exclude(x)


@dataclass(slots=True)
class Once:
    """A programme whose first ``width`` columns may be taken several times, made one whose
    columns are each taken at most once, so that a choice of columns can be excluded by one
    row (all or none of a few binary columns: a column taken once of two is no such thing).
    A column ``j`` that may be taken ``u`` times becomes ``j`` and ``u - 1`` copies of it
    after the others (``copies[j]``), each taken only when the one before it is (a row
    each: one way to take it ``k`` times); taken together they take ``j`` as many times."""

    matrix: Any
    cost: np.ndarray
    upper: np.ndarray
    lower_rows: np.ndarray
    upper_rows: np.ndarray
    width: int
    copies: dict[int, list[int]]

    @property
    def model(self) -> tuple[np.ndarray, np.ndarray, Any, np.ndarray, np.ndarray]:
        """The objective, the columns' upper bounds, the matrix and the rows' bounds."""
        return self.cost, self.upper, self.matrix, self.lower_rows, self.upper_rows

    @classmethod
    def of(
        cls,
        matrix: Any,
        cost: np.ndarray,
        upper: np.ndarray,
        lower_rows: np.ndarray,
        upper_rows: np.ndarray,
        width: int,
    ) -> Once:
        """``matrix`` etc. (the programme maximising ``cost``, its first ``width`` columns
        those of the moves) made so."""
        columns = csc_array(matrix)
        total = len(cost)
        copies: dict[int, list[int]] = {}
        sources: list[int] = []
        for col in range(width):
            many = round(float(upper[col]))
            if many > 1:
                copies[col] = list(range(total + len(sources), total + len(sources) + many - 1))
                sources += [col] * (many - 1)
        new_upper = np.array(upper, dtype=float)
        new_upper[list(copies)] = 1.0
        order = [col for col in copies for _ in copies[col]]
        wide = hstack([columns, columns[:, order]]) if order else columns
        rows = []
        for col, extra in copies.items():
            for first, second in itertools.pairwise([col, *extra]):
                row = np.zeros(total + len(sources))
                row[first], row[second] = 1.0, -1.0
                rows.append(row)
        once = cls(
            vstack([wide, coo_array(np.array(rows))]) if rows else wide,
            np.concatenate([cost, cost[order]]) if order else np.array(cost),
            np.concatenate([new_upper, np.ones(len(sources))]),
            np.concatenate([lower_rows, np.zeros(len(rows))]),
            np.concatenate([upper_rows, np.full(len(rows), np.inf)]),
            width,
            copies,
        )
        return once

    def spread(self, x: Sequence[int]) -> list[int]:
        """A solution of the programme before (``x``) as one of this one."""
        out = list(x) + [0] * (len(self.cost) - len(x))
        for col, extra in self.copies.items():
            many = x[col]
            out[col] = min(many, 1)
            for k, copy in enumerate(extra):
                out[copy] = 1 if many > k + 1 else 0
        return out

    def taken(self, x: Sequence[int]) -> list[int]:
        """How many times a solution ``x`` takes each of the first ``width`` columns."""
        out = list(x[: self.width])
        for col, extra in self.copies.items():
            out[col] += sum(x[copy] for copy in extra)
        return out

    def exclude(self, x: Sequence[int]) -> None:
        """Adds the row that every solution but ``x`` meets (over the first ``width`` columns
        and their copies: at least one of those ``x`` leaves out taken, or one it takes left
        out)."""
        row = np.zeros(len(self.cost))
        at_least = 1.0
        for col in [*range(self.width), *(c for extra in self.copies.values() for c in extra)]:
            if x[col]:
                row[col] = -1.0
                at_least -= 1.0
            else:
                row[col] = 1.0
        self.matrix = vstack([csc_array(self.matrix), coo_array(row.reshape(1, -1))])
        self.lower_rows = np.append(self.lower_rows, at_least)
        self.upper_rows = np.append(self.upper_rows, np.inf)

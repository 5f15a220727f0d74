"""Small positions settled by enumeration: every move, judged by ``verify_turn``.

The solver's passes model the moves of the joker rules only in part (jokers freed into new
sets under pressman-2009, ``other_set``'s hosts, locked sets unlocked by their exact tile), so
on some positions its best move is right but not proven: ``optimal_proven`` false with the
budget left (an audit's hand-made positions, session 42: ten of 417, each of 10 tiles or
fewer, five of them with nothing playable; a brute-force audit's, session 48, of 14 and 15
tiles). A position of at most ``MOST_TILES`` tiles (table
and rack) is small enough to try every move instead: every sub-multiset of the rack played,
every split of the table's and the played tiles into valid sets, every way of laying each set
that a verdict can tell apart (a run in run order with its jokers at each place they may
stand; a group; a table set as it lay), each judged by ``verify_turn`` (SPEC §4) under the
position's rules. The most tiles played (then points) among the legal turns is then the
optimum, and, among those moves, the one disturbing the table least (``engine.changes``) the
least change: both proven (by points, every size of play is tried).

Bounded by ``MOST_STEPS`` (turns judged and splits tried) and by the caller's deadline; past
either, nothing is settled and the solver's answer stands as it was (a run of nine beside three
jokers, xp: 0.3 s). A test compares it with the test suite's own brute force."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from engine.changes import changes
from engine.rules import Rules
from engine.sets import RUN, TableSet, read_set
from engine.solver.intact import joker_points, played_value
from engine.solver.layout import bag_listing
from engine.solver.model import Suggestion
from engine.tiles import MAX_NUMBER, MIN_NUMBER, Tile
from engine.turns import verify_turn

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester

MOST_TILES = 20
"""The most tiles (table and rack together) of a position settled by enumeration (12 until
session 48, when a set's bags became only a run's or a group's tiles: on 200 random positions
of 17-20 tiles under joker rule combinations the passes left 12 unproven, the enumeration 1,
for 8 ms more CPU per position on average; one that runs past ``MOST_STEPS`` costs ~0.2 s)."""
MOST_STEPS = 40_000
"""The most steps of one enumeration: ``VERDICT_STEPS`` a turn judged (0.05-0.1 ms on such
small positions), one a set of tiles tried in a split (a few microseconds)."""
VERDICT_STEPS = 20


class _OutOfSteps(Exception):
    """The enumeration ran past ``MOST_STEPS`` or the deadline."""


class _Steps:
    def __init__(self, deadline: float) -> None:
        self.left, self.deadline = MOST_STEPS, deadline

    def take(self, count: int = 1) -> None:
        self.left -= count
        if self.left < 0 or time.perf_counter() > self.deadline:
            raise _OutOfSteps


def settle(s: Suggester, move: Suggestion, tie_break: str, deadline: float) -> Suggestion | None:
    """``move`` proven optimal (or the better move the enumeration finds), with its change list
    and, under ``tie_break="least_change"``, the least disturbing best move, proven; None when
    the position is too large or the enumeration ran out of verdicts or time. Only for a table
    without declared kinds (a set laid again with another ``kind`` reads otherwise)."""
    if any(kind is not None for kind in s.kinds) or sum(map(len, s.table)) + len(s.rack) > MOST_TILES:
        return None
    before = [TableSet(tiles) for tiles in s.table]
    table_tiles = [t.undeclared() for tiles in s.table for t in tiles]  # (laid anew, a joker stands anywhere)
    found = len(move.played), move.value
    steps = _Steps(deadline)
    bags = s.rack_jokers > 0  # (a bag adds value only to a played joker)
    layouts = functools.cache(functools.partial(_layouts, before=tuple(before), rules=s.rules, bags=bags))
    best: list[tuple[tuple[int, int], tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]] = []
    # by tiles, the sizes from the whole rack down to the move's, the first holding a legal
    # turn deciding; by points, every size
    last = max(found[0], 1) if s.by_tiles else 1
    try:
        for size in range(len(s.rack), last - 1, -1):
            for played in _sub_multisets(s.rack, size):
                laid = table_tiles + [t.undeclared() for t in played]
                for after in _tables(laid, layouts, steps):
                    steps.take(VERDICT_STEPS)
                    verdict = verify_turn(before, [TableSet(t) for t in after], s.rack, s.opened, s.rules)
                    if verdict.valid and verdict.action == "play":
                        best.append(((size, played_value(s.table, after, s.rules, s.opened)[1]), after, played))
            if best and s.by_tiles:
                break
    except _OutOfSteps:
        return None

    def rank(score: tuple[int, int]) -> tuple[int, int]:
        return score if s.by_tiles else (score[1], score[0])

    if not best:
        # nothing can be played (the move found plays nothing, else the enumeration missed it)
        if move.played:
            return None
        listed = changes(s.table, s.rack, move.after)
        # (proven by the enumeration, within the deadline: whatever the passes ran out of, the
        # budget held for the answer; a brute-force audit, session 52, saw both flags true)
        return dataclasses.replace(
            move, optimal_proven=True, budget_exhausted=False, changes=listed, least_change_proven=True
        )
    top = max((score for score, _, _ in best), key=rank)
    if rank(top) < rank(found):  # (the solver's move is a legal turn: the enumeration missed it)
        return None
    optimal = [(after, played) for score, after, played in best if score == top]
    if tie_break == "least_change":
        options = [(changes(s.table, s.rack, after), after, played) for after, played in optimal]
        least, after, played = min(options, key=lambda option: option[0].disturbance.as_tuple())
        return Suggestion(after, played, top[1], True, False, least, least_change_proven=True)
    if top == found:
        return dataclasses.replace(
            move, optimal_proven=True, budget_exhausted=False, changes=changes(s.table, s.rack, move.after)
        )
    after, played = optimal[0]
    return Suggestion(after, played, top[1], True, False, changes(s.table, s.rack, after))


def _sub_multisets(rack: Sequence[Tile], size: int) -> Iterator[tuple[Tile, ...]]:
    """The distinct sub-multisets of ``size`` tiles of ``rack`` (jokers alike), as rack tiles."""
    seen: set[tuple[str, ...]] = set()
    for chosen in itertools.combinations(rack, size):
        key = tuple(sorted(t.key for t in chosen))
        if key not in seen:
            seen.add(key)
            yield chosen


def _tables(
    tiles: list[Tile], layouts: Callable[[tuple[Tile, ...]], list[tuple[Tile, ...]]], steps: _Steps
) -> Iterator[tuple[tuple[Tile, ...], ...]]:
    """Every table of valid sets holding exactly ``tiles``, each set laid every way a verdict
    can tell apart (``layouts``: ``_layouts`` of a bag, worked out once per bag)."""
    for bags in _splits(sorted(tiles, key=_order), steps):
        choices = [layouts(bag) for bag in bags]
        if all(choices):
            yield from itertools.product(*choices)


def _order(t: Tile) -> tuple[bool, str, int]:
    return (t.color is None, t.color or "", t.number or 0)


def _splits(tiles: list[Tile], steps: _Steps) -> Iterator[list[tuple[Tile, ...]]]:
    """Every split of ``tiles`` (sorted, jokers last) into bags of 3 to 13 tiles that may be
    sets (a run's or a group's tiles and jokers, ``_bag_mates``), each split once."""
    if not tiles:
        yield []
        return
    first, rest = tiles[0], tiles[1:]
    for chosen in _bag_mates(first, rest):
        steps.take()
        bag = (first, *(rest[i] for i in chosen))
        taken = set(chosen)
        left = [t for i, t in enumerate(rest) if i not in taken]
        for others in _splits(left, steps):
            yield [bag, *others]


def _bag_mates(first: Tile, rest: list[Tile]) -> Iterator[tuple[int, ...]]:
    """The places in ``rest`` of the tiles that may make a set with ``first``, each bag once:
    other tiles of its number (a group of 3 or 4), or of its colour with numbers a run of 3 to
    13 can hold, each tile once, beside some of the jokers (the first ones: jokers are alike).
    A first joker leaves only jokers: no set."""
    if first.color is None:
        return
    jokers = [i for i, t in enumerate(rest) if t.color is None]
    distinct: dict[str, int] = {}  # one place per tile; a set holds no second copy of ``first``
    for i, t in enumerate(rest):
        if t.color is not None and t.key != first.key:
            distinct.setdefault(t.key, i)
    group = [i for i in distinct.values() if rest[i].number == first.number]
    run = [i for i in distinct.values() if rest[i].color == first.color]
    for j in range(len(jokers) + 1):
        with_jokers = tuple(jokers[:j])
        for size in range(max(0, 2 - j), min(len(group), 3 - j) + 1):
            for mates in itertools.combinations(group, size):
                yield mates + with_jokers
        # (the first tile with 2 or 3 jokers alone came as a group)
        for size in range(max(1 if j <= 3 else 0, 2 - j), min(len(run), MAX_NUMBER - 1 - j) + 1):
            for mates in itertools.combinations(run, size):
                numbers = [first.number or 0, *(rest[i].number or 0 for i in mates)]
                if max(numbers) - min(numbers) <= size + j:  # (jokers fill the gaps)
                    yield mates + with_jokers


def _declared_higher(laid: tuple[Tile, ...], rules: Rules) -> list[tuple[Tile, ...]]:
    """A run of one numbered tile laid with undeclared jokers reads as a group too, and
    counts at its best reading, maybe the group's: the run with its jokers declared, where a
    joker of it stands for more than any of the best reading's (it reads only as that run:
    xp, ``J=K9 J=K10 K11 J=K12`` makes a played joker 12, where ``J J K11 J`` reads as a
    group of 11s; the least change, moving 2 tiles, was missed and a move moving 3 claimed:
    SUGBF2-1, session 63)."""
    reading = read_set(laid, rules)
    if reading.best is None or reading.best.kind == RUN:
        return []
    best = max(joker_points(laid, rules), default=0)
    return [
        r.tiles
        for r in reading.readings
        if r.kind == RUN and max((t.number or 0 for option in r.joker_options for t in option), default=0) > best
    ]


def _layouts(
    bag: tuple[Tile, ...], before: tuple[TableSet, ...], rules: Rules, bags: bool = True
) -> list[tuple[Tile, ...]]:
    """The valid ways to lay ``bag``: a table set of the same tiles as it lay, a run in run
    order from each start its tiles allow (its jokers standing at their places) and, where
    it holds a joker, as a bag reading higher (``layout.bag_listing``: every start one of
    its readings), a group."""
    numbered = [t for t in bag if t.color is not None]
    jokers = [t for t in bag if t.color is None]
    # a table set as it lay first: between moves as good, the least change keeps it so
    keys = Counter(t.key for t in bag)
    out: list[tuple[Tile, ...]] = [b.tiles for b in before if Counter(t.key for t in b.tiles) == keys]
    first_run = len(out)
    if len({t.color for t in numbered}) == 1 and len({t.number for t in numbered}) == len(numbered):
        by_number = {t.number: t for t in numbered}
        low, high = min(by_number), max(by_number)
        for start in range(max(MIN_NUMBER, high - len(bag) + 1), min(low, MAX_NUMBER - len(bag) + 1) + 1):
            spare = iter(jokers)
            laid = tuple(by_number.get(n) or next(spare) for n in range(start, start + len(bag)))
            out.append(laid)
            if bags and len(by_number) == 1:
                out += _declared_higher(laid, rules)
        if bags and jokers and len(out) > first_run:
            # laid as a bag (SPEC §2 step 3), every start one reading, read at its best
            bagged = bag_listing(out[first_run], rules)
            if bagged is not None:
                out.append(bagged)
    if len({t.number for t in numbered}) == 1:
        out.append(tuple(numbered) + tuple(jokers))
    unique = list(dict.fromkeys(out))
    return [layout for layout in unique if read_set(layout, rules).valid]

"""A pass's move laid out and judged (``suggest``): the table after it (table sets in their
places, unchanged ones as given, pinned jokers laid back), scored as ``least_change`` scores moves,
judged by ``verify_turn``; a relaxed move that is no legal turn laid out anew (``_rearranged``),
and the answer's sets laid again to read their jokers highest (``jokers_read_higher``)."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.rules import Rules
from engine.sets import RUN, TableSet, read_set
from engine.solver.intact import joker_points, played_value
from engine.solver.melds import sets_from
from engine.solver.model import (
    GroupBlock,
    RunBlock,
)
from engine.solver.reconstruction import Builder, Laid
from engine.tiles import JOKER, Tile, joker_as, tiles_of_keys
from engine.turns import verify_turn

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


_REARRANGE_TILES = 30  # tiles laid out anew at most (``_rearranged``)
_REARRANGE_WORK = 20_000  # sets looked at in laying them out (a step costs about 1 µs)
_REARRANGE_TRIES = 64  # of those layouts, judged by verify_turn at most


@dataclass(frozen=True, slots=True)
class Outcome:
    """A solved pass of ``suggest``: the table after the move, the tiles played, their value
    and the lexicographic score of the objective."""

    score: int
    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    value: int
    whole: bool = False  # every table set kept whole (only extended)


Blocks = dict[int, RunBlock | GroupBlock]


def lay_out(
    solver: Suggester,
    builder: Builder | Laid,
    blocks: Blocks,
    untouched: bool,
    whole: bool,
    fixed: Sequence[tuple[Tile, ...]],
    laid_as: Sequence[tuple[str, bool]] = (),
) -> Outcome:
    """Lay out the table after a solved pass (table sets in their places, unchanged ones
    as they were given, new sets last) and account for the played tiles. ``laid_as``: the
    tiles that pinned jokers stood for in the search (``Problem.jokers_laid_as``), laid
    back as those jokers."""
    kept: dict[int, tuple[Tile, ...]] = {}
    for run in builder.done_runs:
        if run.block is not None:
            grown = len(run.tiles) != len(run.block.tiles)
            kept[run.block.index] = tuple(run.tiles) if grown else run.block.original
    for index, block in blocks.items():
        if isinstance(block, GroupBlock):
            added = tuple(builder.group_blocks.get(index, ()))
            kept[index] = block.original + added
    pending = builder.plain_sets() + list(fixed)
    after: list[tuple[Tile, ...]] = []
    for i, tiles in enumerate(solver.table):
        if i in kept:
            after.append(kept[i])
        elif untouched:
            after.append(tiles)
        else:
            # a set laid of its tiles again stays as given, unless its jokers are worth
            # more where the search laid them (``J B11 B12`` read as B10, laid as B13)
            shape = sorted(t.key for t in tiles)
            same = next((k for k, s in enumerate(pending) if sorted(t.key for t in s) == shape), None)
            if same is not None and _jokers_worth(pending[same], solver.rules) <= _jokers_worth(tiles, solver.rules):
                after.append(tiles)
                del pending[same]
    after.extend(pending)
    if laid_as:
        after = _jokers_back(after, Counter(laid_as))
    return _scored(solver, after, whole)


def _scored(solver: Suggester, after: Sequence[tuple[Tile, ...]], whole: bool = False) -> Outcome:
    """The move laying the table out as ``after``, scored (``intact.played_value``, as
    ``least_change`` scores moves)."""
    played_keys, value = played_value(solver.table, after, solver.rules, solver.opened)
    played = tiles_of_keys(played_keys)
    score = len(played) * solver.tile_weight + value * solver.value_weight
    return Outcome(score, tuple(after), played, value, whole)


def took_legal(solver: Suggester, move: Outcome) -> bool:
    """A relaxed problem's move beating the best: it, when it is a legal turn, or the best
    legal layout of its tiles (``_rearranged``) becomes a candidate. Whether one scores as
    much as the move (the relaxed problem's optimum): that problem is then settled."""
    legal = legal_layout(solver, move)
    if legal is not None:
        solver.candidates.append(legal)
    return legal is not None and legal.score >= move.score


def legal_layout(solver: Suggester, move: Outcome, target: int = 0) -> Outcome | None:
    """``move`` when it is a legal turn, else the best legal layout of its tiles
    (``_rearranged``, looking on for one scoring ``target``), else None."""
    return move if is_legal_turn(solver, move) else _rearranged(solver, move, target)


def _rearranged(solver: Suggester, move: Outcome, target: int = 0) -> Outcome | None:
    """A legal turn laying the tiles of ``move`` (a relaxed problem's, not a legal turn)
    otherwise: the sets it changed (not laid as a table set was; at most
    ``_REARRANGE_TILES`` tiles) laid out every way, up to ``_REARRANGE_WORK`` steps and
    ``_REARRANGE_TRIES`` layouts judged, those keeping the table's run jokers where they
    stand first, then ``move`` with one joker moved to another set (``_jokers_moved``);
    the best scoring such turn (the first scoring as much as ``move`` or ``target``), None
    when none is legal. The relaxed problem's optimum is its tiles, not
    its layout: ``R9 R10 J J`` with its jokers replaced by R11 and R12 may be laid
    ``R9 J=R10 R11`` + ``R10 R11 R12``."""
    table = Counter(tuple(sorted(t.key for t in s)) for s in solver.table)
    kept: list[tuple[Tile, ...]] = []
    loose: list[Tile] = []
    for tiles in move.after:
        shape = tuple(sorted(t.key for t in tiles))
        if table[shape]:
            table[shape] -= 1
            kept.append(tiles)
        else:
            loose.extend(t.undeclared() for t in tiles)
    if len(loose) > _REARRANGE_TILES:
        return None
    goal = max(move.score, target)
    layouts = _arrangements(loose, _REARRANGE_WORK, solver.run_jokers_stand_for)
    laid_out = _with_bags(solver, ([*kept, *sets] for sets in itertools.islice(layouts, _REARRANGE_TRIES)))
    tables = itertools.chain(laid_out, itertools.islice(_jokers_moved(solver, move.after), _REARRANGE_TRIES))
    best = _first_legal(solver, tables, goal, None)
    if best is None or best.score < goal:
        best = _first_legal(solver, _with_bags(solver, _kept_copies_laid_out(solver, kept, loose)), goal, best)
    return best


def _with_bags(solver: Suggester, tables: Iterable[list[tuple[Tile, ...]]]) -> Iterator[list[tuple[Tile, ...]]]:
    """Each of ``tables``, then (where it differs) the same table with every run holding a
    joker laid as a bag (``bag_listing``): a bag has every reading its ordered listing has,
    so it is as legal, and it counts at its best reading (``J=B5 B6 B7 B8 J=B9`` laid
    ``B7 B6 B8 J J`` keeps the table's joker as B5 in one reading and is worth B6..B10 in
    another: the played joker 10, where the ordered run makes it 9; a brute force, session 62)."""
    if not solver.rack_jokers:  # (a bag adds value only to a played joker)
        yield from tables
        return
    for after in tables:
        yield after
        bagged = [bag_listing(tiles, solver.rules) or tiles for tiles in after]
        if bagged != after:
            yield bagged


def _first_legal(
    solver: Suggester, tables: Iterable[list[tuple[Tile, ...]]], goal: int, best: Outcome | None
) -> Outcome | None:
    """The best scoring legal turn among ``tables`` (better than ``best``), the first
    scoring ``goal``, within the deadline."""
    for after in tables:
        if time.perf_counter() > solver.deadline:
            break
        outcome = _scored(solver, after)
        if (best is None or outcome.score > best.score) and is_legal_turn(solver, outcome):
            best = outcome
            if best.score >= goal:
                break
    return best


def _kept_copies_laid_out(
    solver: Suggester, kept: list[tuple[Tile, ...]], loose: list[Tile]
) -> Iterator[list[tuple[Tile, ...]]]:
    """The loose tiles laid out with one kept set holding a copy of a tile a table joker
    stands for: a relaxed move may free a joker by a copy left where it lay (the copy's
    set unchanged), which only a layout taking the copy from that set makes a legal turn
    (sabra: K6 J J K9 K10 + O7 K7 B7 R7 with B6 is K7 J K9 K10 + K6 B6 J + O7 B7 R7; the
    independent replay-analysis oracle, session 37). At most ``_REARRANGE_TRIES`` layouts
    in all."""
    stood_for = frozenset().union(*solver.joker_copies)
    tries = 0
    for k, tiles in enumerate(kept):
        more = loose + [t.undeclared() for t in tiles]
        if not any(t.key in stood_for for t in tiles) or len(more) > _REARRANGE_TILES:
            continue
        if time.perf_counter() > solver.deadline:  # (each set's layouts: at most _REARRANGE_WORK steps)
            return
        others = kept[:k] + kept[k + 1 :]
        for sets in _arrangements(more, _REARRANGE_WORK, solver.run_jokers_stand_for):
            if tries >= _REARRANGE_TRIES:
                return
            tries += 1
            yield [*others, *sets]


def _jokers_moved(solver: Suggester, after: Sequence[tuple[Tile, ...]]) -> Iterator[list[tuple[Tile, ...]]]:
    """The tables ``after`` with one joker taken from its set and laid at an end of
    another set, both still valid: where a freed joker may not end in a
    set of its own set's tiles (``freed_joker_use``), ``_arrangements`` lays out only the
    sets a relaxed move changed, so ``K4 K5 K6 K7 K8 K9 J=K10`` beside the table's
    ``K7 B7 O7`` (K8 having freed the joker) needs the joker moved: ``K7 B7 O7 J``."""
    for i, tiles in enumerate(after):
        for at, joker in enumerate(tiles):
            if joker.color is not None:
                continue
            rest = (*tiles[:at], *tiles[at + 1 :])
            if not read_set(rest, solver.rules).valid:
                continue
            for k, other in enumerate(after):
                if k == i:
                    continue
                for grown in ((*other, JOKER), (JOKER, *other)):
                    if read_set(grown, solver.rules).valid:
                        yield [rest if n == i else grown if n == k else t for n, t in enumerate(after)]


def joker_copies(solver: Suggester) -> tuple[frozenset[str], ...]:
    """Per table set, the tiles its jokers may stand for under any of its readings (their
    keys; none for a set without a joker): the copies that may free them."""
    return tuple(
        frozenset(key for read in reading.readings for keys in read.joker_keys for key in keys)
        for reading in solver.readings
    )


def run_jokers_stand_for(solver: Suggester) -> frozenset[str]:
    """The tiles the table's run jokers stand for (a run joker stays only standing for its
    tile: ``_arrangements`` tries the sets laying a joker so first)."""
    return frozenset(
        t.declared.key
        for reading in solver.readings
        if reading.best is not None and reading.best.kind == RUN
        for t in reading.best.tiles
        if t.color is None and t.declared is not None
    )


def is_legal_turn(solver: Suggester, outcome: Outcome) -> bool:
    known = solver.verdicts.get(id(outcome))
    if known is not None and known[0] is outcome:
        return known[1]
    before = [TableSet(tiles, kind) for tiles, kind in zip(solver.table, solver.kinds, strict=True)]
    verdict = verify_turn(before, [TableSet(s) for s in outcome.after], solver.rack, solver.opened, solver.rules)
    solver.verdicts[id(outcome)] = (outcome, verdict.valid)
    return verdict.valid


def jokers_read_higher(solver: Suggester, outcome: Outcome) -> Outcome:
    """``outcome`` with each table set it leaves as given, holding a joker, laid again in
    the order reading its jokers highest, where that scores more and is still a legal
    turn: the played jokers are worth the best a joker after the move stands for. On an
    opening beside ``J=O10 O11 O12`` with ``O9 J O11`` played, the set laid ``O11 O12 J``
    reads its joker O13 (the played one standing for O10, the table's joker stays): 33
    points where the set as given leaves 30."""
    if not any(t.color is None for t in outcome.played):
        return outcome
    for i, tiles in enumerate(solver.table):
        if i >= len(outcome.after) or outcome.after[i] != tiles or all(t.color is not None for t in tiles):
            continue
        for order in joker_orders(tiles):
            trial = _scored(solver, [*outcome.after[:i], order, *outcome.after[i + 1 :]])
            if trial.score > outcome.score and trial.played == outcome.played and is_legal_turn(solver, trial):
                outcome = trial
    # a run holding a joker laid as a bag, read at its best (``bag_listing``): legal
    # wherever one of its readings is (``J B6 B7`` with ``B8 J``: ``B7 B6 B8 J J`` keeps the
    # table's joker as B5 in a reading and reads B6..B10, 18 points, where
    # ``J=B5 B6 B7 B8 J=B9`` makes 17; a brute force, session 62)
    for i, tiles in enumerate(outcome.after):
        bag = bag_listing(tiles, solver.rules)
        if bag is None:
            continue
        trial = _scored(solver, [*outcome.after[:i], bag, *outcome.after[i + 1 :]])
        if trial.score > outcome.score and trial.played == outcome.played and is_legal_turn(solver, trial):
            outcome = trial
    # a set with undeclared jokers reading best as a group, where its run reading gives a
    # joker more: laid as that run, its jokers declared (xp, ``J J O12`` grown by a rack
    # joker to ``J J O12 J`` read as a group of 12s, the played joker worth 12, where
    # ``J=O10 J=O11 O12 J=O13`` is as legal and worth 13; a brute-force audit, session 52)
    for i, tiles in enumerate(outcome.after):
        if not any(t.color is None and t.declared is None for t in tiles):
            continue
        for reading in read_set(tiles, solver.rules).readings:
            if reading.kind != RUN or reading.tiles == tiles:
                continue
            trial = _scored(solver, [*outcome.after[:i], reading.tiles, *outcome.after[i + 1 :]])
            if trial.score > outcome.score and trial.played == outcome.played and is_legal_turn(solver, trial):
                outcome = trial
    return outcome


def joker_orders(tiles: Sequence[Tile]) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """A set laid again: its numbered tiles ascending with its jokers (undeclared) after them,
    or before them."""
    numbered = sorted((t for t in tiles if t.color is not None), key=lambda t: t.number)
    jokers = [t.undeclared() for t in tiles if t.color is None]
    return (*numbered, *jokers), (*jokers, *numbered)


def bag_listing(tiles: Sequence[Tile], rules: Rules, higher: bool = True) -> tuple[Tile, ...] | None:
    """A run holding a joker laid as an unordered bag (SPEC §2 step 3: a listing neither
    ascending nor descending), its jokers undeclared, reading higher than ``tiles`` do; None
    under ``strict_order`` (only ordered readings count), for a set of fewer than two
    numbered tiles (always read in order) or no run, or where no bag reads higher. Its
    numbered tiles ascending with the first two swapped, or with the jokers between them.
    With ``higher`` false, such a bag however high it reads, where it reads more than one way
    (then it has every reading of its ordered listings: as legal as any of them, and worth
    the best; ``R8 J R9`` keeps a table joker R7 in a reading and reads it R10 in another)."""
    if rules.strict_order or all(t.color is not None for t in tiles):
        return None
    numbered = sorted((t for t in tiles if t.color is not None), key=lambda t: t.number)
    if len(numbered) < 2 or len({t.color for t in numbered}) > 1:
        return None
    jokers = [t.undeclared() for t in tiles if t.color is None]
    best = -1
    if higher:
        given = read_set(tiles, rules)
        best = given.readings[0].value if given.valid else -1
    found = None
    for order in (
        (numbered[1], numbered[0], *numbered[2:], *jokers),
        (numbered[0], *jokers, *numbered[1:]),
    ):
        reading = read_set(order, rules)
        if not higher and reading.valid and len(reading.readings) > 1:
            return order
        if reading.valid and reading.readings[0].value > best:
            best, found = reading.readings[0].value, order
    return found


def _jokers_worth(tiles: Sequence[Tile], rules: Rules) -> tuple[int, ...]:
    """The points of a set's jokers by its best reading, highest first."""
    return tuple(sorted(joker_points(tiles, rules), reverse=True))


def _jokers_back(after: Sequence[tuple[Tile, ...]], pinned: Counter[tuple[str, bool]]) -> list[tuple[Tile, ...]]:
    """The after table with the tiles that pinned jokers stood for laid back as those jokers
    (``pinned`` counts them by tile and whether their set was a run): first where such a tile
    lies in a set of its jokers' kind (a run joker stays only in a run, a group joker only in
    a group), then anywhere (a move ``verify_turn`` then judges)."""
    left = Counter(pinned)
    sets = [list(s) for s in after]

    def kind_is_run(tiles: list[Tile]) -> bool | None:
        numbered = [t for t in tiles if t.color is not None]
        if len({t.color for t in numbered}) == 1 and len({t.number for t in numbered}) == len(numbered):
            return True
        return False if len({t.number for t in numbered}) == 1 else None

    for matching in (True, False):
        for tiles in sets:
            shape = kind_is_run(tiles)
            for i, t in enumerate(tiles):
                for run in (True, False):
                    if t.color is not None and left[t.key, run] and (not matching or shape is run):
                        tiles[i] = joker_as(t)
                        left[t.key, run] -= 1
                        break
    return [tuple(tiles) for tiles in sets]


def _arrangements(
    tiles: Sequence[Tile], work: int, stood_for: frozenset[str] = frozenset()
) -> Iterator[list[tuple[Tile, ...]]]:
    """Every way to lay all of ``tiles`` as valid sets (runs with their jokers declared), as
    far as ``work`` steps go: each step looks at a set holding the tile left that the fewest
    sets hold, first those whose jokers stand for more of the tiles ``stood_for`` (the table's
    run jokers', which stay only standing for them)."""
    holding: dict[str, list[tuple[tuple[Tile, ...], tuple[tuple[str, int], ...]]]] = {}
    for tiles_of_set, _ in sets_from(tiles):
        keys = tuple(Counter(t.key for t in tiles_of_set).items())
        for key, _ in keys:
            holding.setdefault(key, []).append((tiles_of_set, keys))
    if stood_for:
        for sets in holding.values():
            sets.sort(key=lambda entry: -sum(1 for t in entry[0] if t.declared and t.declared.key in stood_for))
    steps = 0
    left = Counter(t.key for t in tiles)  # the tiles not laid yet, taken and given back in place

    def lay() -> Iterator[list[tuple[Tile, ...]]]:
        nonlocal steps
        numbered_left = [k for k, n in left.items() if n > 0 and k != JOKER.key]
        if not numbered_left:
            if not left[JOKER.key]:
                yield []
            return  # jokers alone make no set
        # the tile held by the fewest sets first (Knuth's Algorithm X): the fewest branches
        first = min(numbered_left, key=lambda key: (len(holding.get(key, ())), key))
        for tiles_of_set, keys in holding.get(first, []):
            steps += 1
            if steps > work:
                return
            for k, n in keys:
                if left[k] < n:
                    break
            else:
                for k, n in keys:
                    left[k] -= n
                try:
                    for rest in lay():
                        yield [tiles_of_set, *rest]
                finally:
                    for k, n in keys:
                        left[k] += n

    yield from lay()

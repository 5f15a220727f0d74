"""The ways the table's jokers can fare in a legal move (the *fates*, see the package docstring):
a joker staying as one of the tiles it may stand for, or freed by a copy of its tile lying in a
*window*, two sets' windows joined (``fate_ways``); and the legal moves they leave out
(``unlocked_sets_unmodelled``)."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from engine.sets import RUN, Reading, read_set
from engine.solver.model import (
    LAST,
)
from engine.solver.reconstruction import run_colour
from engine.solver.set_variants import Variant, stands_for_number
from engine.tiles import COLORS, JOKER, Tile, joker_as, tiles_of_keys, tiles_without
from engine.tiles import numbered as numbered_tile

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


@dataclass(frozen=True, slots=True)
class Fate:
    """How table jokers fare in a relaxed problem of ``check_fates``: the tiles staying
    jokers are laid as (by set, their sets taken apart), the tiles the move must play (a freed
    joker's copy), the variants (a freed joker's window) and the sets kept whole."""

    pins: dict[int, tuple[Tile, ...]] = dataclasses.field(default_factory=dict)
    needs: tuple[Tile, ...] = ()
    variants: dict[int, Variant] = dataclasses.field(default_factory=dict)
    whole: frozenset[int] = frozenset()

    @staticmethod
    def join(fates: Sequence[Fate]) -> Fate:
        return Fate(
            {i: pins for f in fates for i, pins in f.pins.items()},
            tuple(t for f in fates for t in f.needs),
            {i: v for f in fates for i, v in f.variants.items()},
            frozenset().union(*(f.whole for f in fates)),
        )


_FateWays = list[tuple[tuple[int, ...], list[Fate]]]
"""The ways the table's jokers fare (``fate_ways``): by joker set (or pair of sets), its ways."""


def fate_ways(solver: Suggester) -> _FateWays:
    """The ways the table's jokers can fare in a legal move, per table set holding jokers
    (its index, its ways; worked out once per position). Under each of the set's readings:

    - a joker staying stands for one of the tiles it may stand for: its set is taken apart
      with the joker laid as that tile (under ``joker_sets_locked`` a set whose jokers all
      stay is kept whole instead, growing only, and one whose jokers do not all leave is
      a block of its numbered tiles and staying jokers, ``_locked_block``);
    - the one joker of a set freed: a copy of its tile lies in a successor of the set, so
      in some valid set holding a numbered tile of the set (``_windows``): one *window*
      per three tiles of such a set, kept as a block (growing), the set's other tiles
      taken apart;
    - a joker of a set of several freed: the set taken apart, the joker anywhere, when a
      copy of its tile is on the table or the rack (on the rack, under
      ``joker_replacement_from: rack``; played, when only the rack has one);
    - two sets whose windows may share a tile fare together: every way of one with every
      way of the other, and such two windows laid as one block
      (``_with_overlapping_windows``; where that cannot be, each of the sets taken apart
      with its joker anywhere).

    Under a free release (locked sets aside) a freed joker needs no tile: the joker goes
    anywhere. No way frees a joker the rules keep: under ``freed_joker_use:
    new_set_with_two_rack_tiles`` when no two rack tiles can make a set with it
    (``_rack_can_take_freed_joker``) and in a window beside its set's last copies
    (``_window_frees_legally``),
    under ``group_joker_needs_both_colours`` the joker of a group of three when a missing
    colour lies nowhere (``_both_missing_colours``), and a window holding the set's two
    tiles, when they have no other copy, holds both missing colours
    (``_other_missing_colour``)."""
    free = solver.rules.joker_release == "free" and not solver.rules.joker_sets_locked
    locked = solver.rules.joker_sets_locked
    rack_only = solver.rules.joker_replacement_from == "rack"
    on_rack = Counter(t.key for t in solver.rack)
    on_table = Counter(t.key for s in solver.table for t in s)
    supply = on_rack + on_table
    lenders = _lenders(solver) if locked else None
    per_set: list[tuple[int, list[Fate]]] = []
    for i, reading in enumerate(solver.readings):
        if i in solver.plain:
            continue
        if lenders is not None:
            # (under locked sets, only the copies that may free this set's joker: ``_lenders``)
            on_table = Counter(t.key for n in lenders[i] for t in solver.table[n])
        can_free = solver.opened and _rack_can_take_freed_joker(solver, i)
        best_tiles = reading.best.tiles if reading.best is not None else None
        ways: dict[tuple[object, ...], Fate] = {}
        for read in reading.readings:
            run = read.kind == RUN
            single = len(read.joker_options) == 1 and not free
            per_joker = []
            for options in read.joker_options:
                fates: list[tuple[Tile | None, Tile | None]] = [(t, None) for t in options]
                sources = [t for t in options if on_rack[t.key] or (not rack_only and on_table[t.key])]
                if free and can_free:
                    fates.append((None, None))
                elif sources and not single and can_free:
                    from_rack = [t for t in options if on_rack[t.key]]
                    must_play = len(sources) == 1 and (rack_only or not on_table[sources[0].key])
                    fates.append((None, from_rack[0] if must_play and from_rack else None))
                per_joker.append(fates)
            for combo in itertools.product(*per_joker):
                pins = tuple(sorted((t for t, _ in combo if t is not None), key=lambda t: t.key))
                needs = tuple(sorted((t for _, t in combo if t is not None), key=lambda t: t.key))
                if Counter(t.key for t in needs) - on_rack:
                    continue
                if locked and len(pins) == len(combo):
                    # kept whole, as read: its best reading, or grown as another (``J J R5``
                    # as R3 R4 R5 takes R6; the brute-force suggest oracle, session 42)
                    if read.tiles == best_tiles:
                        ways[("whole",)] = Fate(whole=frozenset({i}))
                    else:
                        whole = Variant(read.tiles, run=run)
                        ways[("whole", read.tiles)] = Fate(variants={i: whole})
                elif locked and pins and (kept := _locked_block(solver, read, pins)) is not None:
                    variant = Variant(kept, freed=len(combo) - len(pins), run=run)
                    ways[("kept", variant, tuple(t.key for t in needs))] = Fate(variants={i: variant}, needs=needs)
                else:
                    key = ("pins", tuple(t.key for t in pins), tuple(t.key for t in needs))
                    ways[key] = Fate(pins={i: pins} if pins else {}, needs=needs)
            both = _both_missing_colours(solver, read, run)
            if single and can_free and all(supply[t.key] for t in both):
                for variant in _windows(solver, read, run, on_rack, on_table, rack_only):
                    if _window_frees_legally(solver, i, variant, supply):
                        ways[("window", variant)] = Fate(variants={i: variant})
        per_set.append((i, list(ways.values())))
    return _with_overlapping_windows(per_set, solver.table, solver.joker_copies)


def _locked_block(solver: Suggester, reading: Reading, pins: tuple[Tile, ...]) -> tuple[Tile, ...] | None:
    """Under ``joker_sets_locked``, a set whose jokers do not all leave keeps the others
    and all its numbered tiles in one successor (SPEC §4): those tiles, the staying jokers
    standing for ``pins``, as a block (it may grow), when they are a valid set. None when
    they are not (a run's joker freed between them: its tile fills the place)."""
    numbered = tuple(t for t in reading.tiles if t.color is not None)
    block = (*numbered, *(joker_as(t) for t in pins))
    return block if read_set(block, solver.rules).valid else None


def _window_frees_legally(solver: Suggester, index: int, variant: Variant, supply: Counter[str]) -> bool:
    """Whether a window (``_windows``) of table set ``index`` holding the set's joker freed
    may be a legal turn's: not under ``freed_joker_use: new_set_with_two_rack_tiles`` when
    it is the one joker in play and every tile of the set in the window is the last copy
    (on the table or the rack), since the freed joker then ends in no new set (``B3 J=B4
    B5 B6`` with ``B4`` as ``J=B2 B3 B4``)."""
    if solver.rules.freed_joker_use != "new_set_with_two_rack_tiles" or variant.freed or solver.jokers_in_play > 1:
        return True
    own = {t.key for t in solver.table[index] if t.color is not None}
    return any(supply[t.key] > 1 for t in variant.tiles if t.key in own)


def jokers_in_play(solver: Suggester) -> int:
    """The jokers of the table and the rack."""
    return solver.rack_jokers + sum(1 for s in solver.table for t in s if t.color is None)


def _rack_can_take_freed_joker(solver: Suggester, index: int) -> bool:
    """Whether a joker freed from table set ``index`` may find a set: under
    ``freed_joker_use: new_set_with_two_rack_tiles`` it needs a new set holding two tiles
    played from the rack, so a tile it may stand for there (``freed_joker_tiles``); with
    two jokers on the rack, always. A necessary condition only: the new set's other rules,
    and one pair per freed joker, are left to ``verify_turn``. (Its replacing tile is not
    set apart when it must come from the rack: tiles are counted by copies, so a copy
    played into the new set also replaces the joker, as B6 does for ``B4 B5 J=B6`` in
    ``J=B2 B3 B4 B5 B6`` beside ``B4 B5 B6``.)"""
    return solver.freed_joker_tiles is None or bool(solver.freed_joker_tiles[index])


def freed_joker_tiles(solver: Suggester) -> dict[int, tuple[tuple[Tile, bool], ...]] | None:
    """By table set holding jokers, the tiles a joker freed from it may stand for under
    ``freed_joker_use: new_set_with_two_rack_tiles`` (``_freed_joker_tiles``); None under
    the other rules, or with two jokers on the rack (the tiles would be all)."""
    if solver.rules.freed_joker_use != "new_set_with_two_rack_tiles" or solver.rack_jokers > 1:
        return None
    return {i: _freed_joker_tiles(solver, i) for i in range(len(solver.table)) if i not in solver.plain}


def _freed_joker_tiles(solver: Suggester, index: int) -> tuple[tuple[Tile, bool], ...]:
    """The tiles a joker freed from table set ``index`` may stand for in a new set holding
    two tiles of the rack (two numbered tiles, or the rack's one joker and a numbered
    tile), with whether that set is a run: in a group, the colours missing beside the
    rack's tiles of one number; in a run, each other number of their colour whose run with
    them leaves no more numbers without a tile than the other jokers in play (the rack's
    included). A tile counts where the table or the rack has a copy outside set ``index``:
    a new set holds none of that set's tiles (by copies: the rest of the table holds every
    copy of them, engine.jokers)."""
    on_rack = Counter(t.key for t in solver.rack if t.color is not None)
    supply = on_rack + Counter(t.key for s in solver.table for t in s) - Counter(t.key for t in solver.table[index])
    others = solver.jokers_in_play - 1
    numbered = tiles_of_keys(dict.fromkeys(on_rack, 1))
    held_by: list[tuple[Tile, ...]] = list(itertools.combinations(numbered, 2))
    if solver.rack_jokers:
        held_by += [(t,) for t in numbered]  # beside the rack's joker
    stands: dict[str, tuple[Tile, bool]] = {}
    for held in held_by:
        numbers = {t.number for t in held}
        colours = {t.color for t in held}
        if len(numbers) == 1:
            for colour in COLORS:
                if colour not in colours:
                    stand = numbered_tile(colour, held[0].number)
                    stands.setdefault(stand.key, (stand, False))
        if len(colours) == 1:
            line = held[0].color
            assert line is not None
            for n in range(1, LAST + 1):
                if n in numbers:
                    continue
                span = range(min(*numbers, n), max(*numbers, n) + 1)
                missing = sum(1 for m in span if m != n and supply[numbered_tile(line, m).key] == 0)
                if missing <= others:
                    stand = numbered_tile(line, n)
                    stands[stand.key] = (stand, True)
    return tuple(stands.values())


def _both_missing_colours(solver: Suggester, reading: Reading, run: bool) -> tuple[Tile, ...]:
    """Under ``group_joker_needs_both_colours``, the tiles of the two colours a group of
    three (``reading``) lacks when its one joker is undeclared: freeing it needs a copy of
    each in its successors (SPEC §4; a declared joker needs only its tile). Else none."""
    rule = solver.rules.group_joker_needs_both_colours
    if run or not rule or len(reading.tiles) != 3 or len(reading.joker_options) != 1:
        return ()
    (options,) = reading.joker_options
    return options if len(options) == 2 else ()


def _other_missing_colour(solver: Suggester, reading: Reading, copy: Tile, supply: Counter[str]) -> tuple[Tile, ...]:
    """For the one joker of a group of three freed by ``copy`` under
    ``group_joker_needs_both_colours``: the copy of the other missing colour when the set's
    two numbered tiles have no other copy on the table or the rack (``supply``), so that a
    window holding both is their one successor and holds it too. Else none."""
    numbered = [t for t in reading.tiles if t.color is not None]
    if any(supply[t.key] != 1 for t in numbered):
        return ()
    return tuple(t for t in _both_missing_colours(solver, reading, False) if t.key != copy.key)


def _windows(
    solver: Suggester, reading: Reading, run: bool, on_rack: Counter[str], on_table: Counter[str], rack_only: bool
) -> list[Variant]:
    """The one joker of a set (under ``reading``) freed by a copy of its tile: for every
    three tiles forming a valid set with that copy and a numbered tile of the set, a
    variant keeping them as a block. A successor holding the copy and a tile of the set
    holds such three: for a run, between the copy and its nearest tile of the set lie only
    jokers (any tile there is one of the set's), so a window of three holds the copy, a
    tile of the set beside it or one beyond a joker, and a third tile or joker; for a
    group, the copy, a tile of the set and a third tile or joker. A window's joker is the
    set's own (it stands for another tile of the window). The copy comes from the rack or
    (unless ``rack_only``) the table; a third tile not of the set, likewise; the set's
    other numbered tiles go to the pool. (A run successor with two jokers between the copy
    and the set's nearest tile is not held: no window of three holds both.)"""
    numbered = [t for t in reading.tiles if t.color is not None]
    # copy, set tiles, others, the joker's tile (the set's own joker, standing for another
    # tile of the window: a successor may hold it so, e.g. K10 K11 J=K12 K13 for
    # K10 J=K11 K12 K13 freed by K11 while K12 left)
    shapes: list[tuple[Tile, tuple[Tile, ...], tuple[Tile, ...], Tile | None]] = []
    supply = on_rack + on_table
    for copy in reading.joker_options[0]:
        if run:
            numbers = {t.number: t for t in numbered}
            v, colour = copy.number, run_colour(reading.tiles)
            for a in range(v - 2, v + 1):
                window = range(a, a + 3)
                if a < 1 or a + 2 > LAST:
                    continue
                for joker_at in (None, *(n for n in window if n != v)):
                    held = set(numbers) & set(window) - {joker_at}
                    # a numbered tile of the set beside the copy, or beyond the joker
                    if not held & ({v - 1, v + 1} if joker_at is None else set(window)):
                        continue
                    kept = tuple(numbers[n] for n in window if n in held)
                    rest = [n for n in window if n != v and n != joker_at and n not in numbers]
                    others = tuple(numbered_tile(colour, n) for n in rest)
                    joker = None if joker_at is None else joker_as(numbered_tile(colour, joker_at))
                    shapes.append((copy, kept, others, joker))
        else:
            colours = {t.color for t in numbered}
            # (group_joker_needs_both_colours: where the set's tiles lie in this window and
            # have no other copy, it is their one successor, so it holds both missing colours)
            other_copy = _other_missing_colour(solver, reading, copy, supply)
            for y, z in itertools.combinations(numbered, 2):
                shapes.append((copy, (y, z), other_copy, None))
            for y in numbered:
                shapes.append((copy, (y,), (), JOKER))
                for colour in COLORS:
                    if colour not in colours and colour != copy.color:
                        shapes.append((copy, (y,), (numbered_tile(colour, copy.number),), None))

    def sources(tile: Tile, from_table: bool) -> list[bool]:
        """Where a tile of the window may come from: True the rack, False the table."""
        return [from_rack for from_rack, ok in ((True, on_rack[tile.key] > 0), (False, from_table)) if ok]

    out = []
    for copy, kept, others, joker in shapes:
        extra = (copy, *others)
        copy_from = sources(copy, not rack_only and on_table[copy.key] > 0)
        for from_rack in itertools.product(copy_from, *(sources(t, True) for t in others)):
            out.append(
                Variant(
                    (*kept, *extra, *(() if joker is None else (joker,))),
                    released=tuple(tiles_without(numbered, kept)),
                    from_rack=tuple(t for t, r in zip(extra, from_rack, strict=True) if r),
                    from_pool=tuple(t for t, r in zip(extra, from_rack, strict=True) if not r),
                    freed=0 if joker is not None else 1,
                    run=run,
                )
            )
    return out


def _lenders(solver: Suggester) -> dict[int, frozenset[int]]:
    """Under ``joker_sets_locked``, per table set holding jokers, the table sets whose copies
    may free its jokers (SPEC §4): the sets without a joker, itself, and each other joker set
    that may be unlocked by a chain of copies from the rack or the sets without a joker
    (``_unlockable``, a superset), or that may be merged whole with it into one set (their
    numbered tiles all different: a locked set keeps its copies in its one successor, which
    must then hold the freed set's tiles and its joker's tile too, each copy in one set). A
    locked set that can be neither gives none: ``B2 J B4 B5`` + ``B3 J B5`` cannot free each
    other's jokers (both B5s in one set), though each holds the other's joker's tile (the
    session-51 joint check, RL-2)."""
    joker_sets = [i for i in range(len(solver.table)) if i not in solver.plain]
    held = {i: frozenset(t.key for t in solver.table[i] if t.color is not None) for i in joker_sets}
    unlockable = _unlockable(solver, held)
    return {
        i: frozenset(solver.plain)
        | {i}
        | {j for j in joker_sets if j != i and (j in unlockable or held[i].isdisjoint(held[j]))}
        for i in joker_sets
    }


def _unlockable(solver: Suggester, held: dict[int, frozenset[str]]) -> frozenset[int]:
    """The joker sets one of whose jokers' tiles (under any reading) has a copy on the rack,
    in a set without a joker, or in another such set, in turn: the locked sets a turn may
    unlock by a joker's exact tile (a superset: ``engine.joker_replacement.unlock_in_turn``
    needs every joker of a reading replaced, in its place)."""
    free = {t.key for t in solver.rack if t.color is not None}
    for n in solver.plain:
        free.update(t.key for t in solver.table[n])
    found: set[int] = set()
    while newly := [i for i in held if i not in found and not solver.joker_copies[i].isdisjoint(free)]:
        for i in newly:
            found.add(i)
            free |= held[i]
    return frozenset(found)


def unlocked_sets_unmodelled(solver: Suggester) -> bool:
    """Under ``joker_sets_locked``: whether a joker set, unlocked by its joker's exact tile
    (a copy from the rack or from a set without a joker), may give one of its tiles to free
    another joker set's joker. Such a move is legal (``B10 B11 B12 J`` + ``B9 B10 B11 J``
    with ``B13 K13``: B13 frees the first set's joker, its B12 the second's, and both
    jokers go with K13), but the fates take the copies freeing a locked joker from the rack
    and the plain sets only: the answer is then not claimed optimal, unless it plays the
    whole rack. So too when a joker set's exact tile lies in another joker set, which may
    keep it while it frees the first (strict-joker: ``K1 J K3`` + ``K2 K3 J=K4 K5`` with
    ``K5`` -> ``K1 K2 K3 J=K4 K5`` + ``K3 J=K4 K5``: the first set's K3 goes on with its
    freed joker; found by the least-change oracle, session 35)."""
    if not solver.rules.joker_sets_locked or not solver.opened:  # (no joker is freed before opening)
        return False
    free = Counter(t.key for t in solver.rack if t.color is not None)
    for tiles in solver.table:
        if all(t.color is not None for t in tiles):
            free.update(t.key for t in tiles)
    options = {i: solver.joker_copies[i] for i in range(len(solver.table)) if i not in solver.plain}
    held = {i: {t.key for t in solver.table[i] if t.color is not None} for i in options}
    lenders = _lenders(solver)
    for i, mine in options.items():
        # (a locked set that may neither be unlocked nor merged with it lends it no copy)
        freed_by_another = any(j != i and j in lenders[i] and mine & held[j] for j in options)
        gives = any(free[key] for key in mine) and any(j != i and held[i] & theirs for j, theirs in options.items())
        if freed_by_another or gives:
            best = solver.best_legal()
            return best is None or len(best.played) < len(solver.rack)
    return False


def _with_overlapping_windows(
    per_set: list[tuple[int, list[Fate]]], table: Sequence[Sequence[Tile]], copies: Sequence[frozenset[str]]
) -> _FateWays:
    """The ways of ``fate_ways``, those of two joker sets whose windows may share a tile joined
    (every way of one with every way of the other, and the two windows laid as one block).
    Two jokers freed into one successor may have windows sharing tiles (``O8 O9 J O11`` and
    ``O4 O5 O6 O7 O8 J O10``, both jokers freed into ``O8 O9 O10 O11``: the windows
    ``O9 O10 O11`` and ``O8 O9 O10``), which two blocks cannot lay; one block of both can
    (``_merged_windows``). Windows sharing no tile may lie in one set too, but that set splits
    into two valid sets, one holding each. Where that does not do (windows of groups sharing a
    tile, or three sets or more sharing tiles), each set of them has one more way: taken
    apart, its joker anywhere."""
    lines = [_window_lines(ways) for _, ways in per_set]
    linked = [{m for m, other in enumerate(lines) if m != n and lines[n] & other} for n in range(len(per_set))]
    out: _FateWays = []
    done: set[int] = set()
    for n, (i, ways) in enumerate(per_set):
        if n in done:
            continue
        if not linked[n]:
            out.append(((i,), ways))
            continue
        pair = next(iter(linked[n])) if len(linked[n]) == 1 else None
        if pair is not None and linked[pair] == {n}:
            j, other_ways = per_set[pair]
            joined = _joined_ways(i, ways, j, other_ways, table, copies)
            if joined is not None:
                out.append(((i, j), joined))
                done |= {n, pair}
                continue
        anywhere = any(not (way.pins or way.needs or way.variants or way.whole) for way in ways)
        out.append(((i,), ways if anywhere else [*ways, Fate()]))
        done.add(n)
    return out


def _window_lines(ways: list[Fate]) -> set[tuple[tuple[str, object], str]]:
    """The numbered tiles of the windows among ``ways``, by the line they lie on (a run's
    colour, a group's number). A window's joker is its own set's: two windows never share it."""
    out: set[tuple[tuple[str, object], str]] = set()
    for way in ways:
        for variant in way.variants.values():
            numbered = [t for t in variant.tiles if t.color is not None]
            out.update((_line(numbered), t.key) for t in numbered)
    return out


def _line(numbered: Sequence[Tile]) -> tuple[str, object]:
    """The line a window's numbered tiles lie on: a run's colour or a group's number."""
    if len({t.color for t in numbered}) == 1:
        return ("run", numbered[0].color)
    return ("group", numbered[0].number)


def _joined_ways(
    i: int,
    ways: list[Fate],
    j: int,
    other_ways: list[Fate],
    table: Sequence[Sequence[Tile]],
    copies: Sequence[frozenset[str]],
) -> list[Fate] | None:
    """The ways joker sets ``i`` and ``j`` fare together: every way of one with every way of
    the other, and each pair of their windows sharing a tile laid as one block
    (``_merged_windows``); None where such a pair cannot be laid so."""
    joined = [Fate.join([a, b]) for a in ways for b in other_ways]
    for a in ways:
        for b in other_ways:
            if i not in a.variants or j not in b.variants:
                continue
            both = copies[i] & copies[j]
            merged = _merged_windows(i, a.variants[i], table[i], b.variants[j], table[j], both)
            if merged is False:
                return None
            if merged is not None:
                joined.append(merged)
    return joined


def _merged_windows(
    i: int,
    window: Variant,
    tiles: Sequence[Tile],
    other: Variant,
    other_tiles: Sequence[Tile],
    copies: frozenset[str],
) -> Fate | Literal[False] | None:
    """Windows of joker set ``i`` (``tiles``) and another (``other_tiles``) sharing tiles in
    one run, as one block, a way of both: the block is set ``i``'s variant, the other set is
    taken apart (its tiles in the block taken from the pool, its joker anywhere unless its
    window holds it; where both sets hold a copy of a place's tile, set ``i``'s lies there).
    None when they share no tile or cannot lie in one run (a place held by a joker and another
    tile); False for windows of groups (the caller falls back)."""
    numbered = [t for t in window.tiles if t.color is not None]
    other_numbered = [t for t in other.tiles if t.color is not None]
    if _line(numbered) != _line(other_numbered) or not {t.key for t in numbered} & {t.key for t in other_numbered}:
        return None
    if not window.run or not other.run:
        return False
    kept = Counter(t.key for t in tiles if t.color is not None) - Counter(t.key for t in window.released)
    other_kept = Counter(t.key for t in other_tiles if t.color is not None) - Counter(t.key for t in other.released)
    other_rack = Counter(t.key for t in other.from_rack)
    places: dict[int, Tile] = {stands_for_number(t): t for t in window.tiles}
    taken_rack, taken_pool = list(window.from_rack), list(window.from_pool)
    for t in other.tiles:
        at = stands_for_number(t)
        mine = places.get(at)
        if mine is None:
            places[at] = t
            if t.color is None:
                continue  # (the other set's joker: ``freed`` below)
            # (the other set is taken apart: its own tiles are in the pool)
            (taken_rack if other_rack[t.key] and not other_kept[t.key] else taken_pool).append(t)
            continue
        if mine.color is None or t.color is None or mine.key != t.key:
            return None
        if kept[t.key] and other_kept[t.key]:
            # two copies, one of each set: this set's serves the place, the other's stays in
            # the pool with its set, taken apart (J O6 O7 and O4 O5 O6 J into O4 O5 O6 O7, the
            # other O6 elsewhere: no block was made, and the fates missed the move; the
            # least-change oracle, seed 46)
            continue
        if not kept[t.key] and other_kept[t.key]:  # the other set's tile stands in for the copy
            source = taken_rack if any(x.key == t.key for x in taken_rack) else taken_pool
            source.remove(next(x for x in source if x.key == t.key))
            taken_pool.append(t)
        elif not kept[t.key] and t.key in copies:
            return None  # one tile replacing both jokers (SPEC §4: one per joker)
        # else: this set's tile (or one tile from the rack or the table) serves both windows
    block = tuple(places[n] for n in sorted(places))
    # the other set's joker goes to the pool with its set (``pass_problem``), unless its window
    # holds it: then it is the block's, taken from there
    freed = window.freed - (1 if any(t.color is None for t in other.tiles) else 0)
    variant = Variant(block, window.released, tuple(taken_rack), tuple(taken_pool), freed, run=True)
    return Fate(variants={i: variant})

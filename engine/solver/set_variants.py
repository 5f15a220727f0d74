"""The variants of the table's joker sets (see the package docstring): the ways a set holding a
joker may change besides growing (trimmed, jokers freed by their exact tile, read the other way),
their combinations (``variant_combos``), and jokers freed into new sets with two rack tiles
(``two_tile_frees``)."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.sets import RUN
from engine.solver.melds import sets_from
from engine.solver.model import (
    MAX_GROUP,
    MAX_RUN,
)
from engine.tiles import JOKER, Tile, tiles_without

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


_TWO_TILE_JOKERS = 2  # jokers freed at once into new sets with two rack tiles, at most (``two_tile_frees``)
_TWO_TILE_WAYS = 5_000  # ways of laying them listed at most (each a pass); beyond, not proven


@dataclass(frozen=True, slots=True)
class Variant:
    """How a table set holding a joker takes part in a move: kept as ``tiles`` (whole, trimmed,
    or with jokers replaced by their exact tiles), giving ``released`` numbered tiles to the
    pool, taking replacing tiles from the rack or from the pool, and freeing ``freed`` jokers
    into the pool (where they must be used), or ``freed_as`` jokers laid as those tiles (each
    with whether its set is a run, as ``Problem.jokers_laid_as``)."""

    tiles: tuple[Tile, ...]
    released: tuple[Tile, ...] = ()
    from_rack: tuple[Tile, ...] = ()
    from_pool: tuple[Tile, ...] = ()
    freed: int = 0
    run: bool | None = None  # read as a run or a group; None: as the set's best reading
    freed_as: tuple[tuple[Tile, bool], ...] = ()

    @property
    def whole(self) -> bool:
        return not (self.released or self.from_rack or self.from_pool or self.freed or self.freed_as)


VariantPass = tuple[dict[int, Variant], list[Tile], tuple[tuple[Tile, ...], ...]]
"""A pass over joker-set variants: the variants, the rack to play from, sets laid beforehand."""


def two_tile_frees(solver: Suggester) -> list[VariantPass]:
    """Under ``freed_joker_use: new_set_with_two_rack_tiles``: jokers freed by their exact
    tiles from the rack (one, or two of one set or of two sets) and laid in new sets, each
    with at least two rack tiles (both jokers in one such set, or each in its own). Yields
    the variants, the rack left for the rest of the move, and those new sets, for every
    way. More jokers freed at once are left to the fates (``check_fates``)."""
    out: list[VariantPass] = []
    if solver.rules.freed_joker_use != "new_set_with_two_rack_tiles" or solver.rules.joker_release != "replace":
        return out
    per_set: list[list[tuple[int, Variant] | None]] = []
    for i in range(len(solver.table)):
        if i in solver.plain:
            continue
        # under every reading (pressman-2009: J J B11, best read as a group of 11s, frees its
        # B10 joker as the run B9-B11; a brute-force suggest oracle, session 44)
        frees = [
            v
            for reading in solver.readings[i].readings
            for v in _replacements(solver, reading.tiles, reading.joker_options, reading.kind == RUN, _TWO_TILE_JOKERS)
        ]
        if frees:
            per_set.append([None, *((i, v) for v in frees)])
    rack_keys = Counter(t.key for t in solver.rack)
    for combo in itertools.product(*per_set):
        chosen = {i: v for i, v in (c for c in combo if c is not None)}
        freed = sum(v.freed for v in chosen.values())
        from_rack = [t for v in chosen.values() for t in v.from_rack]
        if not chosen or freed > _TWO_TILE_JOKERS or Counter(t.key for t in from_rack) - rack_keys:
            continue
        kept = {i: dataclasses.replace(v, freed=0) for i, v in chosen.items()}
        rest = tiles_without(solver.rack, from_rack)
        for new_sets in _new_sets_with_jokers(rest, freed):
            # a long rack makes hundreds of thousands of ways: a bounded list, not proven
            if len(out) >= _TWO_TILE_WAYS or solver.past_deadline():
                solver.exhausted = True  # (the cap too: the list is not every way)
                return out
            rack_tiles = [t for new_set in new_sets for t in new_set if t.color is not None]
            out.append((kept, tiles_without(solver.rack, rack_tiles), new_sets))
    return out


def variant_combos(solver: Suggester, most: int) -> list[dict[int, Variant]] | None:
    """Every combination of variants of the joker sets other than "all whole" (None when
    there is none), each feasible with the tiles of the rack and of the plain sets, simplest
    first. Listed within the deadline and about ``most`` (four runs of 13 with a joker each
    make more than 500,000: 5.8 s and 290 MB, whatever the budget); past the deadline,
    those found so far, and the answer is not proven; past ``most``, those found so far and
    ``combos_capped`` (``variant_stage`` then solves them all at once or leaves the answer
    unproven)."""
    per_set: list[list[tuple[int, Variant | None]]] = []
    for i in range(len(solver.table)):
        if i not in solver.plain:
            options = variants_of(solver, i)
            if options:
                per_set.append([(i, None), *((i, v) for v in options)])
    if not per_set:
        return None
    rack_keys = Counter(t.key for t in solver.rack)
    pool_keys = Counter(t.key for i in solver.plain for t in solver.table[i])
    out: list[dict[int, Variant]] = []
    for n, combo in enumerate(itertools.product(*per_set)):
        if n % 1024 == 1023 and (solver.past_deadline() or len(out) >= most):
            solver.combos_capped = True
            break
        chosen = {i: v for i, v in combo if v is not None}
        if not chosen:
            continue
        from_rack = Counter(t.key for v in chosen.values() for t in v.from_rack)
        from_pool = Counter(t.key for v in chosen.values() for t in v.from_pool)
        if not (from_rack - rack_keys) and not (from_pool - pool_keys):
            out.append(chosen)
    out.sort(key=lambda c: (len(c), sum(len(v.released) + v.freed for v in c.values())))  # simplest first
    return out or None


def variants_of(solver: Suggester, index: int) -> list[Variant]:
    """The ways a table set holding a joker may change besides growing: trimmed (tiles
    taken out while its jokers stay, unless the rules lock joker sets), or with jokers
    freed by their exact tile (only when freed jokers may go to any set). Under every
    reading of the set: a turn is judged by the reading most favourable to the player
    (SPEC §4), so K1 J J, best read as the run K1 K2 K3, may give a group joker to B1."""
    others = Counter(t.key for t in solver.rack)
    others.update(t.key for k, tiles in enumerate(solver.table) if k != index for t in tiles)
    out: list[Variant] = []
    best = solver.readings[index].best
    for reading in solver.readings[index].readings:
        run = reading.kind == RUN
        found: list[Variant] = []
        if best is not None and reading.tiles != best.tiles:
            # kept whole but read another way, to grow as it: J J K1 (best the run K3 K2
            # K1) takes B1 as a group (pressman-2009: the independent suggest oracle,
            # session 37); K9 K8 J K10 (best K8-K11) takes K6 as K7-K10 (strict-joker:
            # the brute-force suggest oracle, session 42)
            found.append(Variant(reading.tiles, run=run))
        if not solver.rules.joker_sets_locked:
            found += _trims(reading.tiles, run, others)
        if solver.rules.freed_joker_use in ("any_set", "other_set"):
            # under other_set the freed joker may end in the set's own block (a grown run,
            # a group of three made four): such a move is no legal turn and stays out of
            # the floors (``best_score``)
            found += _replacements(solver, reading.tiles, reading.joker_options, run)
        out += found
    return out


def _replacements(
    solver: Suggester,
    tiles: tuple[Tile, ...],
    options: tuple[tuple[Tile, ...], ...],
    run: bool,
    most: int = MAX_GROUP,
) -> list[Variant]:
    """Jokers freed by the exact tile they stand for (in a group of three under
    ``group_joker_needs_both_colours``, both missing colours), from the rack or, when the
    rules allow, from a table set being taken apart; at most ``most`` jokers at once."""
    sources = [True] + ([False] if solver.rules.joker_replacement_from == "rack_or_table" else [])
    jokers = [i for i, t in enumerate(tiles) if t.color is None]
    choices: list[list[tuple[int, tuple[Tile, ...]] | None]] = []
    for position, stands in zip(jokers, options, strict=True):
        ways: list[tuple[int, tuple[Tile, ...]] | None] = [None]
        if run:
            ways.append((position, stands[:1]))
        elif solver.rules.group_joker_needs_both_colours and len(tiles) == 3 and len(stands) > 1:
            ways.append((position, stands))
        else:
            ways += [(position, (tile,)) for tile in stands]
        choices.append(ways)
    out = []
    for combo in itertools.product(*choices):
        picked = [way for way in combo if way is not None]
        put = [t for _, ts in picked for t in ts]
        if not picked or len(picked) > most or len({t.key for t in put}) != len(put):
            continue
        filled = dict(picked)
        laid = tuple(x for i, t in enumerate(tiles) for x in filled.get(i, (t,)))  # in the jokers' places
        if len(laid) > (MAX_RUN if run else MAX_GROUP):
            continue
        for from_rack in itertools.product(sources, repeat=len(put)):
            out.append(
                Variant(
                    laid,
                    from_rack=tuple(t for t, r in zip(put, from_rack, strict=True) if r),
                    from_pool=tuple(t for t, r in zip(put, from_rack, strict=True) if not r),
                    freed=len(picked),
                    run=run,
                )
            )
    return out


def _trims(tiles: tuple[Tile, ...], run: bool, others: Counter[str]) -> list[Variant]:
    """Ways to take numbered tiles out of a set holding a joker so that the jokers stay as
    they are: a run keeps a stretch of at least 3 tiles around its jokers, a group at least 3
    tiles.

    The set must stay its own successor (SPEC §4: the after set sharing the most numbered
    tiles with it). Another set could share the tiles given away plus copies of the tiles
    kept (``others`` counts the tiles elsewhere, on the rack or the table), so the set keeps
    at least that many numbered tiles, and at least one."""
    splits: list[tuple[tuple[Tile, ...], tuple[Tile, ...]]] = []
    if run:
        ordered = tuple(sorted(tiles, key=stands_for_number))
        jokers = [i for i, t in enumerate(ordered) if t.color is None]
        for first in range(jokers[0] + 1):
            for last in range(max(jokers[-1], first + 2), len(ordered)):
                if (first, last) != (0, len(ordered) - 1):
                    splits.append((ordered[first : last + 1], ordered[:first] + ordered[last + 1 :]))
    else:
        plain = [t for t in tiles if t.color is not None]
        for k in range(1, len(plain)):
            for given in itertools.combinations(plain, k):
                kept = list(tiles)
                for t in given:
                    kept.remove(t)
                if len(kept) >= 3:
                    splits.append((tuple(kept), given))
    out = []
    for kept_tiles, given_tiles in splits:
        kept_keys = {t.key for t in kept_tiles if t.color is not None}
        rivals = len(given_tiles) + sum(1 for key in kept_keys if others[key])
        if len(kept_keys) >= max(1, rivals):
            out.append(Variant(kept_tiles, released=given_tiles, run=run))
    return out


def _new_sets_with_jokers(rack: Sequence[Tile], jokers: int) -> Iterator[tuple[tuple[Tile, ...], ...]]:
    """The ways to lay ``jokers`` freed jokers (one or two) in new sets, each set holding a
    joker and at least two tiles of ``rack``: one set, or for two jokers one set holding both
    or two sets holding one each. Listed as they are found: a long rack has very many."""

    def holding(tiles: Sequence[Tile], with_jokers: int) -> list[tuple[Tile, ...]]:
        out = []
        for new_set, _ in sets_from([*tiles, *[JOKER] * with_jokers]):
            numbered_count = sum(1 for t in new_set if t.color is not None)
            if len(new_set) - numbered_count == with_jokers and numbered_count >= 2:
                out.append(new_set)
        return out

    for new_set in holding(rack, jokers):
        yield (new_set,)
    if jokers == 2:
        for first in holding(rack, 1):
            rest = tiles_without(rack, [t for t in first if t.color is not None])
            for second in holding(rest, 1):
                if _set_key(first) <= _set_key(second):
                    yield (first, second)


def _set_key(tiles: tuple[Tile, ...]) -> tuple[str, ...]:
    return tuple(t.code for t in tiles)


def stands_for_number(tile: Tile) -> int:
    if tile.color is not None:
        return tile.number
    assert tile.declared is not None
    return tile.declared.number

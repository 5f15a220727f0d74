"""The change list of a move: how the table after a turn was made from the table before it
and the rack (issue #18; the definitions are in docs/rules-engine.md, "Change lists").

A move is given as ``before`` (the table at the start of the turn), the ``rack`` and
``after`` (the table at its end). Equal tiles are interchangeable, so which before-set a tile
came from is not written in the move: ``changes`` chooses the reading that shows the least
change, and is deterministic.

Definitions
-----------
* Every after-set *continues* at most one before-set and every before-set is continued by at
  most one after-set (a one-to-one matching); an after-set can only continue a before-set it
  holds a numbered tile of (as SPEC §4's successors).
* Every tile of ``after`` has an *origin*: the before-set it lay in, or the rack. Each before
  set's tiles are the origins of exactly its tiles; the rack gives the played tiles.
* A table tile is *moved* when it ends in an after-set other than the one continuing its
  before-set (all the tiles of a before-set nobody continues are moved).
* A before-set is *touched* unless an after-set continues it holding exactly its tiles.
* A *new set* is an after-set that continues no before-set.
* The *disturbance* is (tiles moved, before-sets touched, new sets), compared in that order;
  ``changes`` picks the continuation and the origins that make it smallest. That minimum is
  a property of the move: the least-change tie break of the solver minimises it.
* The kind of an after-set: ``unchanged`` (continues a before-set, exactly its tiles),
  ``extended`` (continues a before-set, all of its tiles plus rack tiles only), ``new`` (rack
  tiles only), ``rearranged`` (everything else: it holds tiles from another before-set, or
  lost tiles of its own). Among the origins showing the least disturbance, rack tiles go
  preferably to sets that are extended or new, table tiles to sets already rearranged, one
  tile (key) at a time: the preference is not searched across keys. With a rack ``R6 R10``
  laid beside runs ``R3 R4 R5``, ``R7 R8 R9``, ``R11 R12 R13`` that take the groups' R6 and
  R10, two runs may be told ``rearranged`` where crediting both table tiles to ``R6 … R10``
  would tell the others ``extended``, with the same disturbance (the steps audit, session 53).
* A before-set is *dissolved* when no after-set continues it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.rules import SABRA
from engine.sets import TableSet, set_identity
from engine.tiles import JOKER_KEY, Tile, sort_key, tile_for_key

UNCHANGED = "unchanged"
EXTENDED = "extended"
REARRANGED = "rearranged"
NEW = "new"
KINDS = (UNCHANGED, EXTENDED, REARRANGED, NEW)
RACK = "rack"
"""The origin of a tile played from the rack, in JSON."""


@dataclass(frozen=True, slots=True)
class SetChange:
    """One after-set: its ``kind``, the before-set it continues (``before``, None when it
    continues none), its tiles as laid and each tile's origin (a before-set index, or None for
    the rack)."""

    kind: str
    before: int | None
    tiles: tuple[Tile, ...]
    origins: tuple[int | None, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "before": self.before,
            "tiles": [
                {"tile": str(t), "from": RACK if o is None else o}
                for t, o in zip(self.tiles, self.origins, strict=True)
            ],
        }


@dataclass(frozen=True, slots=True)
class Disturbance:
    """How much a move disturbs the table, compared lexicographically (fewer is better)."""

    tiles_moved: int
    sets_touched: int
    sets_new: int

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.tiles_moved, self.sets_touched, self.sets_new)

    def to_json(self) -> dict[str, int]:
        return {"tiles_moved": self.tiles_moved, "sets_touched": self.sets_touched, "sets_new": self.sets_new}


@dataclass(frozen=True, slots=True)
class Changes:
    """The change list of a move: one entry per after-set (in the order of ``after``), the
    before-sets dissolved, and the disturbance."""

    sets: tuple[SetChange, ...]
    dissolved: tuple[int, ...]
    disturbance: Disturbance

    def to_json(self) -> dict[str, Any]:
        return {
            "sets": [s.to_json() for s in self.sets],
            "dissolved": list(self.dissolved),
            **self.disturbance.to_json(),
        }


def _tiles(s: Sequence[Tile] | TableSet) -> tuple[Tile, ...]:
    return s.tiles if isinstance(s, TableSet) else tuple(s)


def _counts(tiles: Sequence[Tile]) -> dict[str, int]:
    """The tile keys of a set and how many of each (a plain dict: a set has a few tiles, and
    a ``Counter`` made per set cost most of ``changes``'s time)."""
    counts: dict[str, int] = {}
    for t in tiles:
        counts[t.key] = counts.get(t.key, 0) + 1
    return counts


def _common(one: dict[str, int], other: dict[str, int]) -> dict[str, int]:
    """The multiset intersection of two key counts."""
    return {key: min(n, other[key]) for key, n in one.items() if key in other}


def changes(
    before: Sequence[Sequence[Tile] | TableSet],
    rack: Sequence[Tile],
    after: Sequence[Sequence[Tile] | TableSet],
) -> Changes:
    """The change list of the move ``before`` → ``after`` playing from ``rack`` (see the module
    docstring): the continuation and origins with the least disturbance, deterministic.

    Raises ValueError when ``after`` is not ``before`` plus tiles of ``rack`` (as multisets:
    a table tile went missing, or a tile is neither on the table nor on the rack)."""
    old = [_tiles(s) for s in before]
    new = [_tiles(s) for s in after]
    old_counts = [_counts(s) for s in old]
    new_counts = [_counts(s) for s in new]
    table = Counter(t.key for s in old for t in s)
    laid = Counter(t.key for s in new for t in s)
    if table - laid:
        raise ValueError(f"table tiles missing after the move: {' '.join(sorted((table - laid).elements()))}")
    played = laid - table
    if played - Counter(t.key for t in rack):
        raise ValueError(
            f"tiles neither on the table nor on the rack: {' '.join(sorted((played - Counter(t.key for t in rack)).elements()))}"
        )

    pairs = _continuation(old_counts, new_counts, old, new)
    continues: dict[int, int] = {a: b for b, a in pairs}  # after index -> before index
    # origins: a continuing pair keeps every tile the two share
    slots: list[list[int | None]] = [[None] * len(s) for s in new]
    open_slots: dict[str, list[tuple[int, int]]] = {}  # key -> (after index, position) without origin yet
    leftover: dict[str, list[int]] = {}  # key -> before indices of the copies not placed yet
    kept: list[dict[str, int]] = []
    for a, tiles in enumerate(new):
        b = continues.get(a)
        share = _common(old_counts[b], new_counts[a]) if b is not None else {}
        kept.append(share)
        left = dict(share)
        for i, t in enumerate(tiles):
            if left.get(t.key, 0) > 0:
                left[t.key] -= 1
                slots[a][i] = b
            else:
                open_slots.setdefault(t.key, []).append((a, i))
    after_of = {b: a for a, b in continues.items()}
    for b, counts in enumerate(old_counts):
        a_of_b = after_of.get(b)
        own = kept[a_of_b] if a_of_b is not None else {}
        for key in sorted(counts):
            rest = counts[key] - own.get(key, 0)
            if rest > 0:
                leftover.setdefault(key, []).extend([b] * rest)

    # the remaining table copies go preferably to sets that are rearranged anyway
    tainted = {a for a, b in continues.items() if kept[a] != old_counts[b]}  # lost tiles of its own

    def assign(key: str) -> None:
        sources = sorted(leftover.get(key, []))
        places = open_slots.get(key, [])
        places.sort(key=lambda p: (p[0] not in tainted, p[0] in continues, p[0], p[1]))
        for (a, i), b in zip(places, sources, strict=False):
            slots[a][i] = b
            tainted.add(a)

    keys = sorted(set(open_slots) | set(leftover), key=lambda k: sort_key(tile_for_key(k)))
    forced = [k for k in keys if len(open_slots.get(k, [])) == len(leftover.get(k, []))]
    for key in forced:
        assign(key)
    for key in keys:
        if key not in forced:
            assign(key)

    out: list[SetChange] = []
    for a, tiles in enumerate(new):
        origins = tuple(slots[a])
        b = continues.get(a)
        if b is None:
            kind = NEW if all(o is None for o in origins) else REARRANGED
        elif any(o is not None and o != b for o in origins) or kept[a] != old_counts[b]:
            kind = REARRANGED
        elif len(tiles) == len(old[b]):
            kind = UNCHANGED
        else:
            kind = EXTENDED
        out.append(SetChange(kind, b, tiles, origins))
    moved = sum(len(s) for s in old) - sum(sum(k.values()) for k in kept)
    untouched = sum(1 for s in out if s.kind == UNCHANGED)
    continued = set(continues.values())
    dissolved = tuple(b for b in range(len(old)) if b not in continued)
    disturbance = Disturbance(moved, len(old) - untouched, len(new) - len(continues))
    return Changes(tuple(out), dissolved, disturbance)


def _continuation(
    old: list[dict[str, int]],
    new: list[dict[str, int]],
    old_tiles: Sequence[Sequence[Tile]] = (),
    new_tiles: Sequence[Sequence[Tile]] = (),
) -> list[tuple[int, int]]:
    """The one-to-one matching (before index, after index) keeping the most tiles in place,
    then the most before-sets unchanged, then continuing the most before-sets (so forming the
    fewest new sets): a maximum weight assignment with lexicographic integer weights. Last,
    among equal tiles, a before-set goes on as the after-set laid as it lay, its jokers standing
    for the same tiles (``B11 B12 J`` + ``J B11 B12`` -> ``J=B10 B11 B12 B13`` + ``J B11 B12``:
    the second is the one unchanged, the first extended, its joker moving to B10)."""
    if not old or not new:
        return []
    import numpy as np  # here, not at the top: importing engine.solver's constants stays light
    from scipy.optimize import linear_sum_assignment

    big = len(old) + 2
    tier = min(len(old), len(new)) + 1  # the sets laid as they lay: the lowest criterion
    weights = np.zeros((len(old), len(new)), dtype=np.int64)
    holding: dict[str, list[int]] = {}  # numbered key -> the before-sets holding it
    for b, before_counts in enumerate(old):
        for key in before_counts:
            if key != JOKER_KEY:
                holding.setdefault(key, []).append(b)
    for a, after_counts in enumerate(new):
        # only pairs sharing a numbered tile can continue: the before-sets holding one
        for b in {b for key in after_counts if key != JOKER_KEY for b in holding.get(key, ())}:
            before_counts = old[b]
            share = sum(min(n, before_counts[key]) for key, n in after_counts.items() if key in before_counts)
            same = before_counts == after_counts  # (no zero counts: plain equality)
            weight = share * big * big + (big if same else 0) + 1
            as_laid = same and bool(old_tiles) and laid_alike(old_tiles[b], new_tiles[a])
            weights[b, a] = weight * tier + (1 if as_laid else 0)
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return [(int(b), int(a)) for b, a in zip(rows, cols, strict=True) if weights[b, a] > 0]


def laid_alike(old: Sequence[Tile], new: Sequence[Tile]) -> bool:
    """Whether two sets of the same tiles lie alike: written the same, or sharing a reading
    (``engine.sets.set_identity``, as a turn matches the sets left as they were: ``J O10 O11``
    and ``J=O9 O10 O11``, a group's ``J`` and ``J=K11``), not with a joker moved (``J K10 K11``
    and ``K10 K11 J=K12``; ``B11 B12 J`` and ``J B11 B12``)."""
    if tuple(map(str, old)) == tuple(map(str, new)):
        return True
    (_, mine), (_, theirs) = set_identity(TableSet(tuple(old)), SABRA), set_identity(TableSet(tuple(new)), SABRA)
    return bool(mine & theirs)


def disturbance(
    before: Sequence[Sequence[Tile] | TableSet],
    rack: Sequence[Tile],
    after: Sequence[Sequence[Tile] | TableSet],
) -> Disturbance:
    """The disturbance of a move (see ``changes``)."""
    return changes(before, rack, after).disturbance


def rebuild(
    before: Sequence[Sequence[Tile] | TableSet], rack: Sequence[Tile], change_list: Changes
) -> tuple[tuple[Tile, ...], ...]:
    """The table after the move, built from ``before`` and ``rack`` by following the change
    list only: every tile is taken from the before-set (or the rack) its origin names, every
    before tile is used exactly once, and the kinds, continuations and disturbance must agree
    with the definitions. Raises ValueError on any inconsistency (the tests use it)."""
    pools = [Counter(t.key for t in _tiles(s)) for s in before]
    rack_pool = Counter(t.key for t in rack)
    continued: set[int] = set()
    after: list[tuple[Tile, ...]] = []
    moved = 0
    for n, entry in enumerate(change_list.sets):
        laid: list[Tile] = []
        for tile, origin in zip(entry.tiles, entry.origins, strict=True):
            pool = rack_pool if origin is None else pools[origin]
            if pool[tile.key] <= 0:
                raise ValueError(
                    f"set {n}: {tile} is not left in {'the rack' if origin is None else f'before-set {origin}'}"
                )
            pool[tile.key] -= 1
            laid.append(tile)
            if origin is not None and origin != entry.before:
                moved += 1
        b = entry.before
        if b is not None:
            if b in continued:
                raise ValueError(f"before-set {b} is continued twice")
            if not any(o == b and t.color is not None for t, o in zip(entry.tiles, entry.origins, strict=True)):
                raise ValueError(f"set {n} continues before-set {b} without holding a numbered tile of it")
            continued.add(b)
        own = Counter(t.key for t, o in zip(entry.tiles, entry.origins, strict=True) if o == b and b is not None)
        whole = b is not None and own == Counter(t.key for t in _tiles(before[b]))
        others = any(o is not None and o != b for o in entry.origins)
        rack_tiles = sum(1 for o in entry.origins if o is None)
        if b is None:
            expected = NEW if not any(o is not None for o in entry.origins) else REARRANGED
        elif not whole or others:
            expected = REARRANGED
        else:
            expected = UNCHANGED if not rack_tiles else EXTENDED
        if entry.kind != expected:
            raise ValueError(f"set {n} is {entry.kind}, expected {expected}")
        after.append(tuple(laid))
    if any(+pool for pool in pools):
        raise ValueError("a before tile is not in the change list")
    if tuple(sorted(b for b in range(len(before)) if b not in continued)) != change_list.dissolved:
        raise ValueError("the dissolved sets disagree with the continuations")
    unchanged = sum(1 for s in change_list.sets if s.kind == UNCHANGED)
    expected_disturbance = Disturbance(moved, len(before) - unchanged, len(change_list.sets) - len(continued))
    if expected_disturbance != change_list.disturbance:
        raise ValueError(f"disturbance {change_list.disturbance} disagrees with the list ({expected_disturbance})")
    return tuple(after)

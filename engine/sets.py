"""Reading a set (SPEC §2): every valid reading, the set's value and one primary violation code.

A reading is one way the tiles lie as a run or a group, with the tile each joker stands for.
``read_set`` is the single source of truth for set validity; everything else (melds, turns,
the solver's checks) calls it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.errors import MAX_ERRORS_LISTED, InputError, pointer_token
from engine.rules import SABRA, Rules, RulesLike, resolve_rules
from engine.tiles import COLORS, MAX_NUMBER, MIN_NUMBER, Tile, as_tiles, joker_as, numbered, parse_tiles

RUN = "run"
GROUP = "group"
KINDS = (RUN, GROUP)
MAX_GROUP = len(COLORS)
MAX_RUN = MAX_NUMBER - MIN_NUMBER + 1
SET_FIELDS = frozenset(("tiles", "kind", "id"))
"""The fields of a set's object form (``{"tiles": [...], "kind": "run", "id": "a"}``)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One valid reading of a set.

    ``tiles`` are the set's tiles as this reading lays them: a run in run order with every
    joker declared (``J=R6``); a group in the order given, a joker declared only when a single
    colour is left for it. ``joker_options`` gives, for each joker in ``tiles`` order, every
    tile it may stand for in this reading (one for a run; the missing colours for a group).
    """

    kind: str
    value: int
    tiles: tuple[Tile, ...]
    joker_options: tuple[tuple[Tile, ...], ...]
    joker_keys: tuple[frozenset[str], ...] = field(init=False, repr=False, compare=False)
    """``joker_options`` as sets of tile keys (what turn verification compares)."""

    def __post_init__(self) -> None:
        keys = tuple(frozenset(t.key for t in options) for options in self.joker_options)
        object.__setattr__(self, "joker_keys", keys)


def stood_for_readings(readings: Iterable[Reading]) -> frozenset[tuple[str, tuple[str, ...]]]:
    """Every way a set may be read, its jokers as the tiles they stand for (a group's
    undeclared joker as each missing colour: ``J O7 B7`` shares R7 with ``J=R7 O7 B7``): two
    sets of the same tiles sharing one are the same set, read alike (SPEC §4, a joker's
    identity is its tile)."""
    out = set()
    for r in readings:
        numbered = [t.key for t in r.tiles if not t.is_joker]
        for stood_for in itertools.product(*r.joker_keys):
            if r.kind == RUN or len(set(stood_for)) == len(stood_for):
                out.add((r.kind, tuple(sorted([*numbered, *stood_for]))))
    return frozenset(out)


def set_identity(s: TableSet, rules: Rules) -> tuple[tuple[str, ...], frozenset[tuple[str, tuple[str, ...]]]]:
    """A set's tiles (jokers as jokers, sorted) and every way it reads (``stood_for_readings``;
    an invalid set, with no reading, is its tiles): two sets of equal tiles sharing a reading
    are the same set, however they are written (SPEC §4)."""
    tiles = tuple(sorted(s.keys))
    return tiles, stood_for_readings(s.read(rules).readings) or frozenset({("invalid", tiles)})


@dataclass(frozen=True, slots=True)
class SetReading:
    """The result of reading one set: all its readings (best first) or its primary code."""

    tiles: tuple[Tile, ...]
    readings: tuple[Reading, ...]
    code: str | None

    @property
    def valid(self) -> bool:
        """Whether the set has a reading (``code`` is None)."""
        return self.code is None

    @property
    def best(self) -> Reading | None:
        """The highest-valued reading (SPEC §2: the set's value), None when invalid."""
        return self.readings[0] if self.readings else None

    @property
    def kind(self) -> str | None:
        """The kind of the best reading (``run`` or ``group``), None when invalid."""
        return self.readings[0].kind if self.readings else None

    @property
    def value(self) -> int | None:
        """The set's value: its best reading's (a joker worth the tile it stands for), None when invalid."""
        return self.readings[0].value if self.readings else None

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every kind the set reads as, sorted (both for ``R5 J J``)."""
        return tuple(sorted({r.kind for r in self.readings}))


def read_set(tiles: Iterable[Tile], rules: RulesLike = SABRA, kind: str | None = None) -> SetReading:
    """Read ``tiles`` (in the order they lie) under ``rules``; ``kind`` keeps only readings of
    that kind. Readings are ordered best first: highest value, then run before group.

    Only ``rules.strict_order`` affects a reading, and readings are immutable, so results are
    memoised: a table mostly holds the same sets from one turn to the next. ``rules`` may
    also be anything ``resolve_rules`` reads (a preset name). Raises TypeError for tiles that
    are not ``Tile`` objects and ValueError for a ``kind`` other than ``run`` or ``group``."""
    tiles = tuple(tiles)
    if not isinstance(rules, Rules):
        rules = resolve_rules(rules)
    try:
        memo_key = (tuple([t.code for t in tiles]), rules.strict_order, kind)
    except AttributeError:
        as_tiles(tiles, "a set's tiles")  # (raises the TypeError naming the one that is no Tile)
        raise
    reading = _MEMO.get(memo_key)
    if reading is None:
        _check_kind(kind)
        reading = _read(tiles, rules.strict_order, kind)
        if len(tiles) <= MAX_NUMBER:  # (a longer set is never valid: kept, it would only take memory)
            if len(_MEMO) >= _MEMO_SIZE:
                _MEMO.clear()
            _MEMO[memo_key] = reading
    return reading


def _check_kind(kind: object) -> None:
    if kind is not None and kind not in KINDS:
        raise ValueError(f"a set's kind is 'run', 'group' or None, not {kind!r}")


_MEMO: dict[tuple[tuple[str, ...], bool, str | None], SetReading] = {}
_MEMO_SIZE = 1 << 16


def _read(tiles: tuple[Tile, ...], strict: bool, kind: str | None) -> SetReading:
    if len(tiles) < 3:
        return SetReading(tiles, (), "SET_TOO_SHORT")
    plain = [t for t in tiles if t.color is not None]
    if not plain:
        return SetReading(tiles, (), "SET_ALL_JOKERS")
    first = plain[0]
    same_number = all(t.number == first.number for t in plain)
    same_colour = all(t.color == first.color for t in plain)
    groups = _group_readings(tiles, first.number) if same_number else []
    runs = _run_readings(tiles, first.color, strict) if same_colour else []  # type: ignore[arg-type]
    wanted = groups + runs if kind is None else (groups if kind == GROUP else runs)
    if wanted:
        wanted.sort(key=lambda r: (-r.value, r.kind != RUN))
        return SetReading(tiles, tuple(wanted), None)
    if kind is not None and (groups or runs):
        return SetReading(tiles, (), "KIND_MISMATCH")
    return SetReading(tiles, (), _primary_code(tiles, plain, same_number, same_colour, strict, kind))


# --- groups ------------------------------------------------------------------------------


def _group_readings(tiles: tuple[Tile, ...], number: int) -> list[Reading]:
    if len(tiles) > MAX_GROUP:
        return []
    used: set[str] = set()
    for t in tiles:
        colour = t.color if t.declared is None else t.declared.color
        if t.declared is not None and t.declared.number != number:
            return []
        if colour is None:
            continue
        if colour in used:
            return []
        used.add(colour)
    missing = tuple(numbered(c, number) for c in COLORS if c not in used)
    free_jokers = sum(1 for t in tiles if t.color is None and t.declared is None)
    out = tiles
    if free_jokers == 1 and len(missing) == 1:
        out = tuple(joker_as(missing[0]) if t.color is None and t.declared is None else t for t in tiles)
    options = tuple((t.declared,) if t.declared is not None else missing for t in out if t.color is None)
    return [Reading(GROUP, number * len(tiles), out, options)]


# --- runs --------------------------------------------------------------------------------


def _run_readings(tiles: tuple[Tile, ...], colour: str, strict: bool) -> list[Reading]:
    """Run readings for tiles whose numbered tiles all have ``colour`` (declared jokers count
    as the tile they stand for)."""
    n = len(tiles)
    if n > MAX_RUN:
        return []
    fixed: list[int | None] = []
    for t in tiles:
        if t.color is not None:
            fixed.append(t.number)
        elif t.declared is not None:
            if t.declared.color != colour:
                return []
            fixed.append(t.declared.number)
        else:
            fixed.append(None)
    numbers = [x for x in fixed if x is not None]
    if len(set(numbers)) != len(numbers):
        return []
    start = _ordered_start(fixed, 1)
    if start is not None:
        return [_laid_run(tiles, colour, start, 1)]
    start = _ordered_start(fixed, -1)
    if start is not None:
        return [_laid_run(tiles, colour, start, -1)]
    if strict:
        return []
    low, high = min(numbers), max(numbers)
    spare = n - (high - low + 1)
    if spare < 0:
        return []
    readings = []
    for below in range(spare, -1, -1):
        first = low - below
        last = high + spare - below
        if first >= MIN_NUMBER and last <= MAX_NUMBER:
            readings.append(_bag_run(tiles, colour, first, set(numbers)))
    return readings


def _ordered_start(fixed: list[int | None], step: int) -> int | None:
    """The number at position 0 if the fixed numbers lie in sequence (step +1 ascending, -1
    descending) and every position stays within 1–13; else None."""
    start: int | None = None
    for i, x in enumerate(fixed):
        if x is None:
            continue
        s = x - step * i
        if start is None:
            start = s
        elif s != start:
            return None
    if start is None:
        return None
    end = start + step * (len(fixed) - 1)
    if min(start, end) < MIN_NUMBER or max(start, end) > MAX_NUMBER:
        return None
    return start


def _laid_run(tiles: tuple[Tile, ...], colour: str, start: int, step: int) -> Reading:
    out = tuple(t if t.color is not None else joker_as(numbered(colour, start + step * i)) for i, t in enumerate(tiles))
    return _run_reading(out)


def _bag_run(tiles: tuple[Tile, ...], colour: str, first: int, present: set[int]) -> Reading:
    """The run ``first..first+len-1`` in ascending order: numbered tiles and declared jokers
    in their places, the other jokers declared for the numbers left over."""
    by_number = {fixed.number: t for t in tiles if (fixed := t if t.declared is None else t.declared).color}
    out = tuple(
        by_number[x] if x in present else joker_as(numbered(colour, x)) for x in range(first, first + len(tiles))
    )
    return _run_reading(out)


def _run_reading(tiles: tuple[Tile, ...]) -> Reading:
    value = 0
    options = []
    for t in tiles:
        if t.color is None:
            value += t.declared.number  # type: ignore[union-attr]
            options.append((t.declared,))
        else:
            value += t.number
    return Reading(RUN, value, tiles, tuple(options))  # type: ignore[arg-type]


# --- why a set is invalid ----------------------------------------------------------------


def _primary_code(
    tiles: tuple[Tile, ...],
    plain: list[Tile],
    same_number: bool,
    same_colour: bool,
    strict: bool,
    kind: str | None,
) -> str:
    """The first code of SPEC §2's order that applies to a set with no valid reading."""
    if same_number and kind != RUN:
        if len({t.color for t in plain}) != len(plain):
            return "GROUP_DUPLICATE_COLOUR"
        if len(tiles) > MAX_GROUP:
            return "GROUP_TOO_LARGE"
        return "JOKER_DECLARATION_MISMATCH"
    if same_colour and kind != GROUP:
        numbers = [t.number for t in plain]
        if len(set(numbers)) != len(numbers):
            return "RUN_DUPLICATE_NUMBER"
        if len(tiles) > MAX_RUN:
            return "RUN_TOO_LONG"
        code = _run_shape_code(tiles, numbers, strict)
        return code or "JOKER_DECLARATION_MISMATCH"
    return "NOT_A_SET"


def _run_shape_code(tiles: tuple[Tile, ...], numbers: list[int], strict: bool) -> str | None:
    """Why the tiles, read with every joker undeclared, make no run (None if they do)."""
    n = len(tiles)
    low, high = min(numbers), max(numbers)
    if high - low + 1 > n:
        return "RUN_WRAPAROUND" if _circular_span(numbers) <= n else "RUN_GAP"
    if not strict:
        return None
    fixed = _laid_numbers(tiles)
    if _ordered_start(fixed, 1) is not None or _ordered_start(fixed, -1) is not None:
        return None
    if _in_sequence(fixed, 1) or _in_sequence(fixed, -1):
        return "RUN_OUT_OF_BOUNDS"
    return "RUN_ORDER"


def _laid_numbers(tiles: tuple[Tile, ...]) -> list[int | None]:
    """The number each tile lies as, for the order codes: declared jokers at their declared
    numbers when those fit one run with the numbered tiles (a declared joker too must sit at its
    place in the sequence, SPEC §2), else every joker undeclared (a declaration with no place in
    the run is a mismatch, decided after the order)."""
    undeclared = [t.number if t.color is not None else None for t in tiles]
    colour = next(t.color for t in tiles if t.color is not None)
    laid = [t.declared.number if t.declared is not None else n for t, n in zip(tiles, undeclared, strict=True)]
    if any(t.declared is not None and t.declared.color != colour for t in tiles):
        return undeclared
    numbers = [x for x in laid if x is not None]
    if len(set(numbers)) != len(numbers) or max(numbers) - min(numbers) + 1 > len(tiles):
        return undeclared
    return laid


def _circular_span(numbers: list[int]) -> int:
    """Shortest arc of the 13-number circle (13 followed by 1) covering ``numbers``."""
    ordered = sorted(set(numbers))
    gaps = [b - a for a, b in itertools.pairwise(ordered)]
    gaps.append(ordered[0] + MAX_RUN - ordered[-1])
    return MAX_RUN - max(gaps) + 1


def _in_sequence(fixed: list[int | None], step: int) -> bool:
    """Whether the fixed numbers lie in sequence, ignoring the 1–13 bounds."""
    offsets = {x - step * i for i, x in enumerate(fixed) if x is not None}
    return len(offsets) == 1


@dataclass(frozen=True, slots=True)
class TableSet:
    """A set as a request gives it: its tiles in the order laid, an optional declared ``kind``
    and an optional client ``id`` (used to follow sets across a turn)."""

    tiles: tuple[Tile, ...]
    kind: str | None = None
    id: str | None = None
    keys: tuple[str, ...] = field(init=False, repr=False, compare=False)
    codes: tuple[str, ...] = field(init=False, repr=False, compare=False)
    numbered_counts: Mapping[str, int] = field(init=False, repr=False, compare=False)
    jokers: int = field(init=False, repr=False, compare=False)
    _readings: dict[bool, SetReading] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # (a tuple of its own: an iterator is read once, a list the caller may change)
        object.__setattr__(self, "tiles", as_tiles(self.tiles, "a set's tiles"))
        _check_kind(self.kind)
        if self.id is not None and not isinstance(self.id, str):
            raise TypeError(f"a set's id is a string or None, not {type(self.id).__name__} {self.id!r}")
        object.__setattr__(self, "keys", tuple([t.key for t in self.tiles]))
        object.__setattr__(self, "codes", tuple([t.code for t in self.tiles]))
        counts: dict[str, int] = {}
        jokers = 0
        for t in self.tiles:
            if t.color is not None:
                counts[t.key] = counts.get(t.key, 0) + 1
            else:
                jokers += 1
        object.__setattr__(self, "numbered_counts", MappingProxyType(counts))  # (read-only: sets are shared)
        object.__setattr__(self, "jokers", jokers)

    def __reduce__(self) -> tuple[type[TableSet], tuple[tuple[Tile, ...], str | None, str | None]]:
        # pickled as made (its counts are a read-only view, which pickle cannot copy)
        return TableSet, (self.tiles, self.kind, self.id)

    @property
    def content(self) -> tuple[tuple[str, ...], str]:
        """Its tiles' codes sorted, and its declared kind: what it is, whatever order it was
        laid or listed in (verdicts choose between equal candidates by it, never by listing)."""
        return tuple(sorted(self.codes)), self.kind or ""

    def read(self, rules: RulesLike = SABRA) -> SetReading:
        """``read_set`` of this set, kept on the set (tables carry the same sets turn to turn).
        ``rules`` may be anything ``resolve_rules`` reads, as for ``read_set``."""
        if not isinstance(rules, Rules):
            rules = resolve_rules(rules)
        reading = self._readings.get(rules.strict_order)
        if reading is None:
            reading = self._readings[rules.strict_order] = read_set(self.tiles, rules, self.kind)
        return reading


def read_sets(sets: Iterable[TableSet], rules: Rules = SABRA) -> list[SetReading]:
    """``[s.read(rules) for s in sets]``, with no method call for a set read before (a whole
    table is read on every turn verified)."""
    strict = rules.strict_order
    return [s._readings.get(strict) or s.read(rules) for s in sets]


def share_equal_sets(tables: Iterable[Iterable[TableSet]]) -> list[tuple[TableSet, ...]]:
    """The tables with every set that recurs among them (same tiles in the same order, kind and
    id) as one shared TableSet: its reading is worked out once, and ``verify_turn`` matches a set
    carried over untouched by identity."""
    shared: dict[tuple[tuple[str, ...], str | None, str | None], TableSet] = {}
    return [tuple(shared.setdefault((s.codes, s.kind, s.id), s) for s in table) for table in tables]


def as_table_set(value: TableSet | Iterable[Tile]) -> TableSet:
    """Accept a bare tile sequence wherever a TableSet is expected."""
    return value if isinstance(value, TableSet) else TableSet(tuple(value))


def as_table(value: Iterable[TableSet | Iterable[Tile]]) -> tuple[TableSet, ...]:
    """A table as a tuple of TableSets, bare tile sequences accepted as sets; a tuple of
    TableSets is returned as is (a replay's turns pass each ``after`` on as the next ``before``,
    and what a verification learnt about a table is kept by its identity)."""
    if type(value) is tuple and all([type(s) is TableSet for s in value]):
        return value
    return tuple([as_table_set(s) for s in value])


# --- request notation ------------------------------------------------------------------


def parse_table(value: Any, pointer: str) -> tuple[TableSet, ...]:
    """A table in request form (array of sets; a set is an array of tiles or an object
    ``{"tiles", "kind"?, "id"?}``). Raises InputError with a pointer."""
    if not isinstance(value, list):
        raise InputError("a table must be an array of sets", pointer)
    return tuple(parse_set(s, f"{pointer}/{i}") for i, s in enumerate(value))


def set_object_errors(value: Mapping[str, Any], pointer: str) -> list[InputError]:
    """Every error of a set object's fields but its tiles' own (each unknown field, a missing
    ``tiles`` or one that is no array, a bad ``kind`` or ``id``), at most MAX_ERRORS_LISTED."""
    unknown = sorted(set(value) - SET_FIELDS)[:MAX_ERRORS_LISTED]
    errors = [InputError(f"unknown field {name!r} in a set", f"{pointer}/{pointer_token(name)}") for name in unknown]
    if "tiles" not in value:
        errors.append(InputError("a set object needs 'tiles'", f"{pointer}/tiles"))
    kind, set_id = value.get("kind"), value.get("id")
    if kind is not None and kind not in KINDS:
        errors.append(InputError("'kind' must be 'run' or 'group'", f"{pointer}/kind"))
    if set_id is not None and not isinstance(set_id, str):
        errors.append(InputError("'id' must be a string", f"{pointer}/id"))
    if "tiles" in value and not isinstance(value["tiles"], list):
        errors.append(InputError("expected an array of tiles", f"{pointer}/tiles"))
    return errors


def parse_set(value: Any, pointer: str) -> TableSet:
    """One set in request form; see ``parse_table``. Raises the first error (the service lists
    every one: ``set_object_errors``)."""
    if isinstance(value, Mapping):
        errors = set_object_errors(value, pointer)
        if errors:
            raise errors[0]
        return TableSet(parse_tile_list(value["tiles"], f"{pointer}/tiles"), value.get("kind"), value.get("id"))
    if not isinstance(value, list):
        raise InputError("a set must be an array of tiles or an object with 'tiles'", pointer)
    return TableSet(parse_tile_list(value, pointer))


def parse_tile_list(value: Any, pointer: str) -> tuple[Tile, ...]:
    if not isinstance(value, list):
        raise InputError("expected an array of tiles", pointer)
    try:
        return parse_tiles(value)
    except InputError as exc:
        raise exc.under(pointer) from None

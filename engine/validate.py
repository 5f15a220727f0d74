"""Position checks built on set reading: validating sets (``POST /v1/sets/validate``) and the
initial meld (``POST /v1/melds/check``), plus the shared tile-supply accounting."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import InputError
from engine.rules import SABRA, Rules, RulesLike, resolve_rules
from engine.sets import GROUP, RUN, SetReading, TableSet, as_table
from engine.tiles import JOKER_KEY, Tile, as_tiles, format_tiles
from engine.violations import Violation


def invalid_set_params(table_set: TableSet, reading: SetReading) -> dict[str, Any]:
    """What the message of an invalid set's code needs, alone (``sets/validate``) or wrapped
    (``INVALID_SET``, ``BEFORE_TABLE_INVALID``): the tile count, and the kinds of a
    ``KIND_MISMATCH``."""
    params: dict[str, Any] = {"count": len(reading.tiles)}
    if reading.code == "KIND_MISMATCH":
        params.update(kind=table_set.kind, other=RUN if table_set.kind == GROUP else GROUP)
    return params


def copies_params(tile: str, n: int, others: int) -> dict[str, Any]:
    """The facts of a violation about ``n`` copies of ``tile`` (TILE_NOT_IN_RACK,
    TABLE_TILE_REMOVED), worded by copies when more than one, or when ``others`` copies are
    where the message says it is not (the rack holds one R5 and two are played: "1 copy of
    tile R5 is played beyond those on the player's rack")."""
    if tile == JOKER_KEY:  # ("1 joker is played beyond...", not "1 copy of tile J")
        return {"tile": tile, "count": n, "case": "jokers"}
    return {"tile": tile, "count": n, "case": "copies"} if n > 1 or others else {"tile": tile, "count": n}


def labelled(violation: Violation, table_set: TableSet) -> Violation:
    """``violation`` on ``table_set``, carrying the set's id (if any) for its message."""
    if table_set.id is None:
        return violation
    return dataclasses.replace(violation, params={**violation.params, "set_id": table_set.id})


@dataclass(frozen=True, slots=True)
class SupplyExcess:
    """The first tile (or joker) beyond the supply: ``at`` names its group, ``index`` its place
    in that group, ``count`` how many the request holds in all (in ``groups``)."""

    at: str
    index: int
    key: str
    limit: int
    count: int


def supply_excesses(groups: Iterable[tuple[str, Iterable[Tile]]], rules: Rules) -> list[SupplyExcess]:
    """Each tile key (or the jokers) that a request holds more of than the tile set has,
    once, where the excess first appears; ``groups`` are (pointer, tiles) in request order."""
    supply = rules.supply
    groups = [(at, tuple(tiles)) for at, tiles in groups]
    totals: dict[str, int] = {}
    for _, tiles in groups:
        for t in tiles:
            totals[t.key] = totals.get(t.key, 0) + 1
    if supply.holds(totals):
        return []
    counts: Counter[str] = Counter()
    out: dict[str, SupplyExcess] = {}
    for at, tiles in groups:
        for index, tile in enumerate(tiles):
            key = tile.key
            counts[key] += 1
            if counts[key] > supply.limit(key) and key not in out:
                out[key] = SupplyExcess(at, index, key, supply.limit(key), totals[key])
    return list(out.values())


def supply_params(key: str, limit: int, count: int, tiles: str) -> dict[str, Any]:
    """The facts of a TILE_SUPPLY_EXCEEDED: ``count`` copies of ``key`` where the ``tiles``
    set has ``limit`` (jokers worded as jokers, not as "tile J")."""
    params: dict[str, Any] = {"tile": key, "limit": limit, "count": count, "tiles": tiles}
    if key == JOKER_KEY:
        params["case"] = "jokers"
    return params


def supply_violations(
    groups: Iterable[tuple[str, Iterable[Tile]]], rules: Rules, at_entry: bool = False
) -> list[Violation]:
    """TILE_SUPPLY_EXCEEDED for each ``supply_excesses`` entry, at its group (``at_entry``: at
    the entry itself, ``{group}/{index}``)."""
    name = rules.supply.name
    return [
        Violation(
            "TILE_SUPPLY_EXCEEDED",
            f"{e.at}/{e.index}" if at_entry else e.at,
            supply_params(e.key, e.limit, e.count, name),
        )
        for e in supply_excesses(groups, rules)
    ]


def meld_too_low(at: str, value: int, threshold: int, laid: bool) -> Violation:
    """INITIAL_MELD_TOO_LOW: an opening worth ``value`` where ``threshold`` is needed; worded
    as laying nothing when nothing was ``laid``, and as laying no valid set when tiles were laid
    but none made a valid set under a threshold of 0 (their value 0 reaches it)."""
    params: dict[str, Any] = {"value": value, "threshold": threshold}
    if not laid:  # (under a threshold of 0 without "worth 0 points or more": session 60)
        params["case"] = "nothing" if threshold else "nothing_any"
    elif value == 0 and threshold == 0:
        params["case"] = "no_set"
    return Violation("INITIAL_MELD_TOO_LOW", at, params)


def require_supply(groups: Iterable[tuple[str, Iterable[Tile]]], rules: Rules, sets: Collection[str] = ()) -> None:
    """Raise InputError at the first tile beyond the supply (``{group}/{index}``, or the group
    itself for a group named in ``sets``: a set may be an array or an object holding ``tiles``):
    a request whose racks (or tiles, or pool) hold more copies of a tile, or more jokers, than
    the rules' tile set has describes no real game. Verdicts report TILE_SUPPLY_EXCEEDED instead."""
    excess = supply_excesses(groups, rules)
    if excess:
        first = excess[0]
        what = f"{first.limit} jokers" if first.key == JOKER_KEY else f"{first.limit} of tile {first.key}"
        at = first.at if first.at in sets else f"{first.at}/{first.index}"
        raise InputError(f"the {rules.supply.name} tile set has only {what}", at)


@dataclass(frozen=True, slots=True)
class SetVerdict:
    """One set of a request, read, with every violation found on it."""

    reading: SetReading
    violations: tuple[Violation, ...]

    @property
    def valid(self) -> bool:
        """Whether the set is valid: no violation."""
        return not self.violations

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """One set of the sets/validate answer (SPEC §7), messages in ``lang``."""
        valid = self.valid
        return {
            "valid": valid,
            "kind": self.reading.kind if valid else None,
            "value": self.reading.value if valid else None,
            "readings": [
                {
                    "kind": r.kind,
                    "value": r.value,
                    "tiles": format_tiles(r.tiles),
                    "joker_options": [format_tiles(options) for options in r.joker_options],
                }
                for r in self.reading.readings
            ],
            "violations": [v.to_json(lang) for v in self.violations],
        }


def _read_sets(sets: Sequence[TableSet], rules: Rules, prefix: str) -> list[SetVerdict]:
    supply: dict[str, list[Violation]] = {}  # every tile beyond the supply, by the set where it appears
    for v in supply_violations(((f"{prefix}/{i}", s.tiles) for i, s in enumerate(sets)), rules):
        supply.setdefault(v.at, []).append(v)
    verdicts = []
    for i, table_set in enumerate(sets):
        at = f"{prefix}/{i}"
        reading = table_set.read(rules)
        found = [] if reading.valid else [Violation(str(reading.code), at, invalid_set_params(table_set, reading))]
        found.extend(supply.get(at, ()))
        verdicts.append(SetVerdict(reading, tuple(labelled(v, table_set) for v in found)))
    return verdicts


@dataclass(frozen=True, slots=True)
class SetsVerdict:
    """The verdict of ``validate_sets``: every set read, valid when each is (and the supply holds)."""

    sets: tuple[SetVerdict, ...]

    @property
    def valid(self) -> bool:
        """Whether every set is valid."""
        return all(s.valid for s in self.sets)

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The sets/validate answer (SPEC §7), messages in ``lang``."""
        return {"valid": self.valid, "sets": [s.to_json(lang) for s in self.sets]}


def validate_sets(sets: Iterable[TableSet | Iterable[Tile]], rules: RulesLike = SABRA) -> SetsVerdict:
    """Read every set of a request (pointers ``/sets/i``); the request is valid when every set
    is valid and the tile supply is respected. ``rules`` may be anything ``resolve_rules`` reads."""
    table = as_table(sets)
    return SetsVerdict(tuple(_read_sets(table, resolve_rules(rules), "/sets")))


@dataclass(frozen=True, slots=True)
class MeldVerdict:
    """The verdict of ``check_meld``: the meld's value, the threshold, each set read, and the
    violations (valid when there are none)."""

    value: int
    threshold: int
    sets: tuple[SetVerdict, ...]
    violations: tuple[Violation, ...]

    @property
    def valid(self) -> bool:
        """Whether the meld opens: no violation (every set valid, the value at least the threshold)."""
        return not self.violations

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The melds/check answer (SPEC §7), messages in ``lang`` (``en`` or ``es``)."""
        return {
            "valid": self.valid,
            "value": self.value,
            "threshold": self.threshold,
            "sets": [s.to_json(lang) for s in self.sets],
            "violations": [v.to_json(lang) for v in self.violations],
        }


def check_meld(
    sets: Iterable[TableSet | Iterable[Tile]],
    rack: Iterable[Tile] | None = None,
    rules: RulesLike = SABRA,
) -> MeldVerdict:
    """Would ``sets``, laid from the rack, be a valid initial meld? Value is the sum of each
    valid set's best reading (a joker counts as the tile it stands for). No sets is never an
    initial meld (SPEC §7: value 0, ``INITIAL_MELD_TOO_LOW``), even under a threshold of 0, nor
    are only invalid sets (as ``turns/verify`` judges such an opening). ``rules`` may be
    anything ``resolve_rules`` reads."""
    table = as_table(sets)
    rules = resolve_rules(rules)
    if rack is not None:
        rack = as_tiles(rack, "a rack's tiles")  # (read twice below: an iterator once)
    verdicts = _read_sets(table, rules, "/sets")
    violations: list[Violation] = []
    for i, verdict in enumerate(verdicts):
        for v in verdict.violations:
            if v.code == "TILE_SUPPLY_EXCEEDED":
                violations.append(v)
            else:
                violations.append(Violation("INVALID_SET", f"/sets/{i}", v.params, set_code=v.code))
    if rack is not None:
        violations.extend(supply_violations([("/rack", rack)], rules))
        seen: Counter[str] = Counter()
        available = Counter(t.key for t in rack)
        laid = Counter(t.key for table_set in table for t in table_set.tiles)
        for i, table_set in enumerate(table):
            for tile in table_set.tiles:
                seen[tile.key] += 1
                if seen[tile.key] == available[tile.key] + 1:
                    beyond = laid[tile.key] - available[tile.key]
                    params = copies_params(str(tile.undeclared()), beyond, available[tile.key])
                    violations.append(labelled(Violation("TILE_NOT_IN_RACK", f"/sets/{i}", params), table_set))
    value = sum(v.reading.value or 0 for v in verdicts if v.valid)
    # no valid set laid opens under no threshold (every valid set is worth at least 1)
    if value < max(rules.initial_meld_min, 1):
        violations.append(meld_too_low("/sets", value, rules.initial_meld_min, bool(table)))
    return MeldVerdict(value, rules.initial_meld_min, tuple(verdicts), tuple(violations))

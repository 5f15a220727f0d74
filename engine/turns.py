"""Verifying one turn from the table before it to the table after it (SPEC §4)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from engine.errors import InputError
from engine.rules import SABRA, Rules
from engine.sets import GROUP, RUN, SetReading, TableSet
from engine.tiles import JOKER_KEY, Tile, format_tiles, sort_key, tile_for_key, tiles_without
from engine.validate import supply_violations
from engine.violations import Violation


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """Everything SPEC §4 answers about a turn."""

    action: str  # "play" | "draw"
    played: tuple[Tile, ...]
    rack_after: tuple[Tile, ...]
    opened_after: bool
    initial_meld_value: int | None
    jokers_freed: int
    violations: tuple[Violation, ...]
    penalty_draw: int
    after: tuple[TableSet, ...] | None = None  # the arrangement judged, when the client sent a loose table

    @property
    def valid(self) -> bool:
        return not self.violations

    @property
    def rack_empty(self) -> bool:
        return self.valid and not self.rack_after

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        out: dict[str, Any] = {
            "valid": self.valid,
            "action": self.action,
            "played": format_tiles(self.played),
            "rack_after": format_tiles(self.rack_after),
            "opened_after": self.opened_after,
            "initial_meld": None if self.initial_meld_value is None else {"value": self.initial_meld_value},
            "jokers_freed": self.jokers_freed,
            "rack_empty": self.rack_empty,
            "violations": [v.to_json(lang) for v in self.violations],
            "penalty": None if self.valid else {"draw": self.penalty_draw, "restore_table": True},
        }
        if self.after is not None:
            out["after"] = [format_tiles(s.tiles) for s in self.after]
        return out


def require_rack(rack: Sequence[Tile]) -> None:
    """A player with an empty rack has gone out: a turn for them is a request error."""
    if not rack:
        raise InputError("the rack is empty: this player has already gone out", "/rack")


def verify_turn(
    before: Sequence[TableSet],
    after: Sequence[TableSet],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules = SABRA,
    elapsed_seconds: float | None = None,
) -> TurnVerdict:
    """Judge a turn. Raises InputError (pointer ``/rack``) for an empty rack."""
    require_rack(rack)
    return _Turn(tuple(before), tuple(after), tuple(rack), opened, rules, elapsed_seconds).verdict()


def _keys(tiles: Iterable[Tile]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in tiles:
        counts[t.key] = counts.get(t.key, 0) + 1
    return counts


def _table_keys(sets: Sequence[TableSet]) -> dict[str, int]:
    """Tile counts of a table (never mutated by callers). The last table counted is remembered
    by identity: a replay passes each turn's ``after`` tuple as the next turn's ``before``."""
    global _last_table
    last = _last_table
    if last is not None and last[0] is sets:
        return last[1]
    counts = dict(Counter(chain.from_iterable(s.keys for s in sets)))
    _last_table = (sets, counts)
    return counts


_last_table: tuple[Sequence[TableSet], dict[str, int]] | None = None


def _table_readings(sets: Sequence[TableSet], rules: Rules) -> list[SetReading]:
    """Each set's reading (never mutated by callers), remembered for the last table like
    ``_table_keys``."""
    global _last_readings
    last = _last_readings
    if last is not None and last[0] is sets and last[1] == rules.strict_order:
        return last[2]
    readings = [s.read(rules) for s in sets]
    _last_readings = (sets, rules.strict_order, readings)
    return readings


_last_readings: tuple[Sequence[TableSet], bool, list[SetReading]] | None = None


def _minus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """Multiset difference keeping positive counts (``a - b``). Plain dicts: the hot path of
    every verification builds several of these, and Counter's overhead showed in profiles."""
    return {key: left for key, n in a.items() if (left := n - b.get(key, 0)) > 0}


def _shape(sets: Sequence[TableSet]) -> list[tuple[str, ...]]:
    """A table up to the order of sets and of tiles within sets."""
    return sorted(tuple(sorted(t.key for t in s.tiles)) for s in sets)


@dataclass(frozen=True, slots=True)
class _JokerOutcome:
    violations: tuple[Violation, ...]
    freed: int
    stayed: int
    successor: int | None


class _Turn:
    """The working state of one verification; ``verdict`` runs every check in SPEC §4 order."""

    def __init__(
        self,
        before: tuple[TableSet, ...],
        after: tuple[TableSet, ...],
        rack: tuple[Tile, ...],
        opened: bool,
        rules: Rules,
        elapsed_seconds: float | None,
    ) -> None:
        self.before, self.after, self.rack = before, after, rack
        self.opened, self.rules, self.elapsed = opened, rules, elapsed_seconds
        self.violations: list[Violation] = []
        self.before_keys = before_keys = _table_keys(before)
        self.after_keys = after_keys = _table_keys(after)
        self.played_keys = _minus(after_keys, before_keys)
        self.removed_keys = _minus(before_keys, after_keys)
        self.rack_keys = _keys(rack)
        self.before_readings = _table_readings(before, rules)
        self.after_readings: list[SetReading] | None = None
        self.jokers_freed = 0

    # --- the checks, in order ---------------------------------------------------------

    def verdict(self) -> TurnVerdict:
        self._check_accounting()
        self._check_supply()
        self._check_before_table()
        is_draw = not self.played_keys and not self.removed_keys and _shape(self.before) == _shape(self.after)
        meld_value: int | None = None
        if is_draw:
            action = "draw"
        else:
            action = "play"
            if not self.played_keys:
                self._add("NO_TILE_PLAYED", "/after")
            self._check_after_sets()
            if not self.opened:
                meld_value = self._check_opening()
            self._check_jokers()
        self._check_time()
        valid = not self.violations
        played = self._played_tiles()
        rack_after = self._rack_after(played) if valid and action == "play" else self.rack
        opened_after = self.opened or (valid and meld_value is not None)
        return TurnVerdict(
            action=action,
            played=played,
            rack_after=rack_after,
            opened_after=opened_after,
            initial_meld_value=meld_value if valid and not self.opened else None,
            jokers_freed=self.jokers_freed,
            violations=tuple(self.violations),
            penalty_draw=self._penalty(),
        )

    def _add(self, code: str, at: str, params: dict[str, Any] | None = None, set_code: str | None = None) -> None:
        self.violations.append(Violation(code, at, params or {}, set_code))

    def _check_accounting(self) -> None:
        for key, count in self.removed_keys.items():
            at = next(f"/before/{i}" for i, s in enumerate(self.before) if any(t.key == key for t in s.tiles))
            self._add("TABLE_TILE_REMOVED", at, {"tile": key, "count": count})
        for key, count in _minus(self.played_keys, self.rack_keys).items():
            at = "/after"
            for i in range(len(self.after) - 1, -1, -1):
                if any(t.key == key for t in self.after[i].tiles):
                    at = f"/after/{i}"
                    break
            self._add("TILE_NOT_IN_RACK", at, {"tile": key, "count": count})

    def _check_supply(self) -> None:
        held = dict(self.before_keys)
        for key, n in self.rack_keys.items():
            held[key] = held.get(key, 0) + n
        if self.rules.supply.holds(held) and self.rules.supply.holds(self.after_keys):
            return
        groups: list[tuple[str, Iterable[Tile]]] = [(f"/before/{i}", s.tiles) for i, s in enumerate(self.before)]
        groups.append(("/rack", self.rack))
        found = supply_violations(groups, self.rules)
        reported = {v.params["tile"] for v in found}
        after_found = supply_violations(((f"/after/{i}", s.tiles) for i, s in enumerate(self.after)), self.rules)
        self.violations.extend(found + [v for v in after_found if v.params["tile"] not in reported])

    def _check_before_table(self) -> None:
        for i, reading in enumerate(self.before_readings):
            if not reading.valid:
                self._add("BEFORE_TABLE_INVALID", f"/before/{i}", {"count": len(reading.tiles)}, reading.code)

    def _check_after_sets(self) -> None:
        self.after_readings = _table_readings(self.after, self.rules)
        for i, reading in enumerate(self.after_readings):
            if not reading.valid:
                params: dict[str, Any] = {"count": len(reading.tiles)}
                if reading.code == "KIND_MISMATCH":
                    kind = self.after[i].kind
                    params.update(kind=kind, other=RUN if kind == GROUP else GROUP)
                self._add("INVALID_SET", f"/after/{i}", params, reading.code)

    def _check_time(self) -> None:
        limit = self.rules.turn_time_limit
        if limit is not None and self.elapsed is not None and self.elapsed > limit:
            self._add("TIME_LIMIT_EXCEEDED", "/elapsed_seconds", {"elapsed": self.elapsed, "limit": limit})

    def _penalty(self) -> int:
        codes = {v.code for v in self.violations}
        penalty = self.rules.timeout_penalty if "TIME_LIMIT_EXCEEDED" in codes else 0
        if codes - {"TIME_LIMIT_EXCEEDED"}:
            penalty = max(penalty, self.rules.failed_turn_penalty)
        return penalty

    # --- opening ----------------------------------------------------------------------

    def _check_opening(self) -> int | None:
        """Check an opening turn; return the meld value when the opening succeeds."""
        assert self.after_readings is not None
        if not self.played_keys:
            return None
        if self.rules.manipulate_on_opening_turn:
            value = self._best_rack_only_value()
        else:
            unmatched = self._unmatched_after_sets()
            if unmatched is None:
                self._add("MANIPULATION_BEFORE_OPENING", "/after")
                return None
            value = sum(self.after_readings[i].value or 0 for i in unmatched)
        if value < self.rules.initial_meld_min:
            self._add("INITIAL_MELD_TOO_LOW", "/after", {"value": value, "threshold": self.rules.initial_meld_min})
            return None
        return value

    def _unmatched_after_sets(self) -> list[int] | None:
        """Indices of the after sets left once every before set is matched to an identical
        after set (up to tile order); None when some before set has no identical match."""
        free: dict[tuple[str, ...], list[int]] = {}
        for i, s in enumerate(self.after):
            free.setdefault(tuple(sorted(t.key for t in s.tiles)), []).append(i)
        for s in self.before:
            matches = free.get(tuple(sorted(t.key for t in s.tiles)))
            if not matches:
                return None
            matches.pop()
        return sorted(i for indices in free.values() for i in indices)

    def _best_rack_only_value(self) -> int:
        """The highest total value of valid after sets made only of played tiles (the played
        multiset shared among them), for an opening that may also manipulate."""
        assert self.after_readings is not None
        candidates = [
            (i, Counter(s.keys))
            for i, s in enumerate(self.after)
            if self.after_readings[i].valid and not (Counter(s.keys) - Counter(self.played_keys))
        ]
        best = 0

        def search(k: int, left: Counter[str], value: int) -> None:
            nonlocal best
            best = max(best, value)
            for j in range(k, len(candidates)):
                i, keys = candidates[j]
                if not (keys - left):
                    search(j + 1, left - keys, value + (self.after_readings[i].value or 0))  # type: ignore[index]

        if len(candidates) <= 16:
            search(0, Counter(self.played_keys), 0)
        else:
            left = Counter(self.played_keys)
            for i, keys in sorted(candidates, key=lambda c: -(self.after_readings[c[0]].value or 0)):  # type: ignore[index]
                if not (keys - left):
                    left -= keys
                    best += self.after_readings[i].value or 0
        return best

    # --- jokers -----------------------------------------------------------------------

    def _check_jokers(self) -> None:
        """Follow every before set holding a joker to its successor and apply the joker rules,
        reading each such set in the way most favourable to the player (SPEC §4)."""
        if not self.before_keys.get(JOKER_KEY):
            return
        joker_sets = [i for i, r in enumerate(self.before_readings) if r.readings and r.readings[0].joker_options]
        if not joker_sets:
            return
        assert self.after_readings is not None
        # A joker set still on the table exactly as it was keeps its jokers: nothing to judge.
        same: dict[tuple[tuple[str, ...], str | None, str | None], list[int]] = {}
        for k, s in enumerate(self.after):
            same.setdefault((s.codes, s.kind, s.id), []).append(k)
        claimed: Counter[int] = Counter()
        outcomes = []
        for i in joker_sets:
            source = self.before[i]
            unchanged = same.get((source.codes, source.kind, source.id))
            if unchanged:
                claimed[unchanged.pop()] += source.keys.count(JOKER_KEY)
                continue
            successors: list[int | None] = list(self._successor_candidates(i)) or [None]
            options = [
                self._follow_joker_set(i, reading.joker_options, k, claimed)
                for reading in self.before_readings[i].readings
                for k in successors
            ]
            best = min(options, key=lambda o: (len(o.violations), o.freed))
            if best.successor is not None:
                claimed[best.successor] += best.stayed
            outcomes.append(best)
        for outcome in outcomes:
            self.violations.extend(outcome.violations)
        self.jokers_freed = sum(o.freed for o in outcomes)
        if self.jokers_freed and not self.opened:
            self._add("JOKER_RELEASED_BEFORE_OPENING", "/after", {"count": self.jokers_freed})
        if self.jokers_freed and self.rules.freed_joker_use == "new_set_with_two_rack_tiles":
            self._check_freed_joker_use(claimed)

    def _successor_candidates(self, i: int) -> list[int]:
        """After sets that may be the successor of before set ``i``: the one with its ``id``,
        else those sharing the most of its numbered tiles."""
        source = self.before[i]
        if source.id is not None:
            for k, s in enumerate(self.after):
                if s.id == source.id:
                    return [k]
        mine = source.numbered_counts
        shared: dict[int, int] = {}
        for k, s in enumerate(self.after):
            theirs = s.numbered_counts
            common = mine.keys() & theirs.keys()
            if common:
                shared[k] = sum(min(mine[key], theirs[key]) for key in common)
        most = max(shared.values(), default=0)
        return sorted(k for k, n in shared.items() if n == most) if most else []

    def _follow_joker_set(
        self, i: int, joker_options: tuple[tuple[Tile, ...], ...], k: int | None, claimed: Counter[int]
    ) -> _JokerOutcome:
        """Judge the jokers of before set ``i`` (standing for ``joker_options``) against the
        successor ``k``."""
        at = f"/after/{k}" if k is not None else f"/before/{i}"
        stayed, freed_options = 0, list(joker_options)
        if k is not None:
            stayed, freed_options = self._stayed_jokers(joker_options, k, claimed[k])
        violations: list[Violation] = []
        rules = self.rules
        locked = rules.joker_sets_locked
        theirs = self.after[k].numbered_counts if k is not None else {}
        mine = self.before[i].numbered_counts
        if locked and _minus(mine, theirs):
            violations.append(Violation("JOKER_SET_BROKEN", at, {}))
        if freed_options and (locked or rules.joker_release == "replace"):
            new_tiles = _minus(theirs, mine)
            both = rules.group_joker_needs_both_colours and len(self.before[i].tiles) == 3
            for options in freed_options:
                needed = [t.key for t in options] if both and len(options) > 1 else None
                if needed is not None:
                    found = all(new_tiles.get(key, 0) > 0 for key in needed)
                    replacement = needed if found else []
                else:
                    key = next((t.key for t in options if new_tiles.get(t.key, 0) > 0), None)
                    found = key is not None
                    replacement = [key] if key is not None else []
                if not found:
                    code = "JOKER_SET_BROKEN" if locked else "JOKER_NOT_REPLACED"
                    tile = " or ".join(str(t) for t in options) if not both else " and ".join(str(t) for t in options)
                    violations.append(Violation(code, at, {"tile": tile}))
                    continue
                for key in replacement:
                    new_tiles[key] -= 1
                    if rules.joker_replacement_from == "rack" and not self.played_keys.get(key):
                        violations.append(Violation("JOKER_REPLACED_FROM_TABLE", at, {"tile": key}))
        return _JokerOutcome(tuple(violations), len(freed_options), stayed, k)

    def _stayed_jokers(
        self, joker_options: tuple[tuple[Tile, ...], ...], k: int, already_claimed: int
    ) -> tuple[int, list[tuple[Tile, ...]]]:
        """How many of the jokers stay in successor ``k`` (a joker of ``k`` standing for one of
        the tiles they stood for), best over ``k``'s readings; and the options of the others."""
        assert self.after_readings is not None
        best_stayed, best_freed = 0, list(joker_options)
        for reading in self.after_readings[k].readings:
            slots = [set(t.key for t in options) for options in reading.joker_options][already_claimed:]
            freed = []
            stayed = 0
            for options in joker_options:
                keys = {t.key for t in options}
                slot = next((n for n, s in enumerate(slots) if s & keys), None)
                if slot is None:
                    freed.append(options)
                else:
                    slots.pop(slot)
                    stayed += 1
            if stayed > best_stayed:
                best_stayed, best_freed = stayed, freed
        return best_stayed, best_freed

    def _check_freed_joker_use(self, claimed: Counter[int]) -> None:
        """Under ``new_set_with_two_rack_tiles`` each freed joker must end in a set that is no
        before set's successor and holds at least two tiles played from the rack."""
        old = {c[0] for i in range(len(self.before)) if len(c := self._successor_candidates(i)) == 1}
        good_slots, bad_sets = 0, []
        for k, s in enumerate(self.after):
            slots = sum(1 for t in s.tiles if t.color is None) - claimed[k]
            if slots <= 0:
                continue
            keys = _keys(s.tiles)
            from_rack = sum(min(n, self.played_keys.get(key, 0)) for key, n in keys.items())
            if k not in old and from_rack >= 2:
                good_slots += slots
            else:
                bad_sets.append(k)
        for n in range(self.jokers_freed - good_slots):
            at = f"/after/{bad_sets[n]}" if n < len(bad_sets) else "/after"
            self._add("FREED_JOKER_MISUSED", at)

    # --- results ----------------------------------------------------------------------

    def _played_tiles(self) -> tuple[Tile, ...]:
        tiles = [tile_for_key(key) for key, n in self.played_keys.items() for _ in range(n)]
        return tuple(sorted(tiles, key=sort_key))

    def _rack_after(self, played: tuple[Tile, ...]) -> tuple[Tile, ...]:
        return tuple(tiles_without(self.rack, played))

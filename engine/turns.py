"""Verifying one turn from the table before it to the table after it (SPEC §4)."""

from __future__ import annotations

import functools
import sys
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any, NamedTuple

import engine.meld_value
from engine.copy_flows import copies_supplied
from engine.errors import InputError
from engine.jokers import JointSteps, JokerVerdict, fewest, follow_jokers
from engine.meld_value import best_meld_value
from engine.rules import SABRA, Rules, RulesLike, resolve_rules
from engine.sets import TableSet, as_table, read_sets, set_identity, share_equal_sets
from engine.tiles import JOKER, JOKER_KEY, Tile, as_tiles, format_tiles, tiles_of_keys, tiles_without_keys
from engine.validate import copies_params, invalid_set_params, labelled, meld_too_low, supply_violations
from engine.violations import Violation

PLAYED_SETS_STEPS = 10_000
"""The most steps of the search for the most an opening that manipulated the table has laid
in new sets of played tiles (``_Turn._played_sets_value``): the search stops at the minimum,
so it is seldom long, but sets sharing tiles can make it exponential in the new sets."""


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
    kept: tuple[TableSet, ...] | None = None
    """Under ``timeout_keeps_valid_sets``, the sets that stay on the table after an invalid
    turn (None: the whole table is restored)."""
    returned: tuple[Tile, ...] = ()
    """With ``kept``: the tiles played this turn that go back to the rack."""
    initial_meld_exact: bool = True
    """False when ``initial_meld_value`` is a lower bound: an opening with manipulation whose
    exact value (the best sets of the played tiles) needs more work than
    ``engine.meld_value.MELD_VALUE_WORK``."""
    jokers_exact: bool = True
    """False when the joker checks judged together ran past their steps
    (``engine.jokers.JOINT_CHECK_STEPS``, or a replay's share of ``REPLAY_JOINT_STEPS``) and
    the turn's jokers were judged set by set, as favourably as the rules allow: the verdict
    may then call legal a turn that is not."""

    @property
    def restore_table(self) -> bool:
        """Whether the table goes back to ``before`` when the turn is illegal: True unless a timeout
        keeps its valid sets (``kept``)."""
        return self.kept is None

    @property
    def valid(self) -> bool:
        """Whether the turn is legal: no violation."""
        return not self.violations

    @property
    def rack_empty(self) -> bool:
        """The player went out: a valid play leaving no tile (a draw never does, even in a
        replay that names none of the player's tiles, all drawn unnamed), or a timed-out play
        whose kept position leaves none and draws no penalty (``timeout_penalty`` 0)."""
        if self.action != "play" or self.rack_after:
            return False
        return self.valid or (self.kept is not None and self.penalty_draw == 0)

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The turns/verify answer (SPEC §4, §7), messages in ``lang``."""
        out: dict[str, Any] = {
            "valid": self.valid,
            "action": self.action,
            "played": format_tiles(self.played),
            "rack_after": format_tiles(self.rack_after),
            "opened_after": self.opened_after,
            "initial_meld": self._initial_meld_json(),
            "jokers_freed": self.jokers_freed,
            "rack_empty": self.rack_empty,
            "violations": [v.to_json(lang) for v in self.violations] if self.violations else [],
            "penalty": None if self.valid else self._penalty_json(),
        }
        if self.after is not None:
            out["after"] = [format_tiles(s.tiles) for s in self.after]
        if not self.jokers_exact:
            out["jokers_exact"] = False
        return out

    def _initial_meld_json(self) -> dict[str, Any] | None:
        if self.initial_meld_value is None:
            return None
        if self.initial_meld_exact:
            return {"value": self.initial_meld_value}
        return {"value": self.initial_meld_value, "exact": False}

    def _penalty_json(self) -> dict[str, Any]:
        if self.kept is None:
            return {"draw": self.penalty_draw, "restore_table": True}
        return {
            "draw": self.penalty_draw,
            "restore_table": False,
            "kept": [format_tiles(s.tiles) for s in self.kept],
            "returned": format_tiles(self.returned),
        }


def require_rack(rack: Sequence[Tile]) -> None:
    """A player with an empty rack has gone out: a turn for them is a request error."""
    if not rack:
        raise InputError("the rack is empty: this player has already gone out", "/rack")


def verify_turn(
    before: Iterable[TableSet | Iterable[Tile]],
    after: Iterable[TableSet | Iterable[Tile]],
    rack: Iterable[Tile],
    opened: bool,
    rules: RulesLike = SABRA,
    elapsed_seconds: float | None = None,
    joint_steps: JointSteps | None = None,
) -> TurnVerdict:
    """Judge a turn. Raises InputError (pointer ``/rack``) for an empty rack. ``joint_steps``:
    the joker checks' steps left to a sequence of turns judged together (a replay's: see
    ``engine.jokers.JointSteps``); None: ``engine.jokers.JOINT_CHECK_STEPS`` for this turn.

    A set may be given as a bare sequence of tiles, ``rules`` as anything ``resolve_rules``
    reads (a preset name); tiles that are not ``Tile`` objects are a TypeError, as an
    ``opened`` that is no bool, and an ``elapsed_seconds`` that is no number of seconds
    (negative, NaN, a string) a TypeError or ValueError."""
    rack, rules = player_arguments(rack, opened, rules)
    check_elapsed(elapsed_seconds)
    # equal sets as one object, as the service's set cache and a replay give them: a set is
    # carried over untouched by identity (``_carried_over``), and an equal one made anew is
    # the same set (an invalid before-set laid again counted as changed told other codes;
    # the library audit, session 55)
    before_table, after_table = share_equal_sets([as_table(before), as_table(after)])
    return _Turn(before_table, after_table, rack, opened, rules, elapsed_seconds, joint_steps).verdict()


def player_arguments(rack: Iterable[Tile], opened: object, rules: RulesLike) -> tuple[tuple[Tile, ...], Rules]:
    """What ``verify_turn``, ``verify_loose_turn`` and ``suggest`` take alike, checked: the rack
    as a tuple of tiles (not empty: ``require_rack``), ``opened`` a bool, the rules resolved."""
    tiles = as_tiles(rack, "a rack's tiles")
    require_rack(tiles)
    check_opened(opened)
    return tiles, resolve_rules(rules)


def check_opened(opened: object) -> None:
    """``opened`` is True or False: TypeError otherwise (the string "false" is true)."""
    if type(opened) is not bool:
        raise TypeError(f"opened is True or False, not {opened!r}")


def check_budget(budget_seconds: object, name: str = "budget_seconds") -> None:
    """A time budget is a number of seconds (at most 0: none left): TypeError otherwise (NaN
    would be no budget at all)."""
    if type(budget_seconds) not in (int, float) or budget_seconds != budget_seconds:
        raise TypeError(f"{name} is a number of seconds, not {budget_seconds!r}")
    _check_float(budget_seconds, name)


def _check_float(seconds: object, name: str) -> None:
    """ValueError for an int beyond any float (the clocks are floats, and Python will not
    even print an int of more than 4,300 digits)."""
    try:
        float(seconds)  # type: ignore[arg-type]  # (an int or float: checked by the callers)
    except OverflowError:
        raise ValueError(f"{name} is a number of seconds, not an integer beyond {sys.float_info.max:g}") from None


def check_elapsed(elapsed_seconds: object) -> None:
    """``elapsed_seconds`` is None or a number of seconds: TypeError or ValueError otherwise
    (NaN would pass every time limit)."""
    if elapsed_seconds is None:
        return
    if type(elapsed_seconds) is bool or not isinstance(elapsed_seconds, int | float):
        raise TypeError(f"elapsed_seconds is a number of seconds or None, not {elapsed_seconds!r}")
    if not elapsed_seconds >= 0:  # (NaN too)
        raise ValueError(f"elapsed_seconds is a number of seconds of at least 0, not {elapsed_seconds!r}")
    _check_float(elapsed_seconds, "elapsed_seconds")


def _by_tiles(indices: Iterable[int], sets: Sequence[TableSet]) -> list[int]:
    """The set indices in the order of the sets' tiles (sorted codes, then kind): an order
    that does not depend on how the turn lists its sets (equal sets tie by index: they are
    interchangeable)."""
    return sorted(indices, key=lambda i: (sets[i].content, i))


def _count(keys: Iterable[str]) -> dict[str, int]:
    """Multiset of a few tile keys (a plain loop beats Counter's overhead on a few tiles)."""
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return counts


def _table_keys(sets: tuple[TableSet, ...]) -> dict[str, int]:
    """Tile counts of a table (never mutated by callers). The last table a verification ended
    with is remembered by identity: a replay passes each turn's ``after`` tuple as the next
    turn's ``before``."""
    memo = _memo
    if memo is not None and memo.table is sets:
        return memo.keys()
    return Counter(chain.from_iterable([s.keys for s in sets]))  # counts in C: a whole table is large


class _TableMemo:
    """What the last valid play learnt about its ``after`` table, for the next turn of a
    replay: every set reads valid under ``strict_order``, and its tile counts (worked out from
    the before table's counts when first asked for; threads asking at once get equal dicts)."""

    __slots__ = ("_before_keys", "_keys", "_played", "_removed", "strict_order", "table")

    def __init__(
        self,
        table: tuple[TableSet, ...],
        strict_order: bool,
        before_keys: dict[str, int],
        played: dict[str, int],
        removed: dict[str, int],
    ) -> None:
        self.table, self.strict_order = table, strict_order
        self._before_keys, self._played, self._removed = before_keys, played, removed
        self._keys: dict[str, int] | None = None

    def keys(self) -> dict[str, int]:
        keys = self._keys
        if keys is None:
            keys = self._keys = _apply(self._before_keys, self._played, self._removed)
        return keys


_memo: _TableMemo | None = None


def _apply(counts: dict[str, int], added: dict[str, int], taken: dict[str, int]) -> dict[str, int]:
    """``counts + added - taken``, as a new dict (``taken`` must be part of ``counts``)."""
    out = dict(counts)
    for key, n in taken.items():
        if out[key] == n:
            del out[key]
        else:
            out[key] -= n
    for key, n in added.items():
        out[key] = out.get(key, 0) + n
    return out


def _minus(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """Multiset difference keeping positive counts (``a - b``). Plain dicts: the hot path of
    every verification builds several of these, and Counter's overhead showed in profiles."""
    return {key: left for key, n in a.items() if (left := n - b.get(key, 0)) > 0}


def _carried_over(before: tuple[TableSet, ...], after: tuple[TableSet, ...]) -> tuple[list[int], list[int]]:
    """The indices (in table order) of the before sets and of the after sets that are not
    carried over untouched. Sets are matched by identity: a replay shares one TableSet among the
    turns that hold the same set, and so does the service's set cache (``verify_turn`` shares
    equal sets of the two tables likewise)."""
    before_ids, after_ids = list(map(id, before)), list(map(id, after))
    before_set, after_set = set(before_ids), set(after_ids)
    if len(before_set) == len(before_ids) and len(after_set) == len(after_ids):
        before_left = [i for i, x in enumerate(before_ids) if x not in after_set]
        after_left = [k for k, x in enumerate(after_ids) if x not in before_set]
        return before_left, after_left
    # A set object appears twice in one table (two identical sets): match one by one.
    return _matched_one_by_one(before_ids, after_ids)


def _matched_one_by_one(before: Sequence[Hashable], after: Sequence[Hashable]) -> tuple[list[int], list[int]]:
    """The indices of ``before`` and of ``after`` left once equal keys are matched in pairs."""
    free: dict[Hashable, list[int]] = {}
    for k, x in enumerate(after):
        free.setdefault(x, []).append(k)
    before_left = []
    for i, x in enumerate(before):
        slots = free.get(x)
        if slots:
            slots.pop()
        else:
            before_left.append(i)
    return before_left, sorted(k for slots in free.values() for k in slots)


def _matched_pairs(
    before: Sequence[tuple[Hashable, frozenset[Hashable]]],
    after: Sequence[tuple[Hashable, frozenset[Hashable]]],
    worth: Sequence[int],
) -> list[int]:
    """The indices of ``after`` left by a largest matching of ``before`` to ``after`` entries
    of equal content (the first member) sharing a reading (the second member, a set of
    readings), among those the one leaving the after entries worth the most (``worth``, the
    same for alike entries). The after entries a matching can cover form a matroid, so taking
    them cheapest first, as many of each kind as the before entries can still serve beside
    those taken (a flow of copies, ``copies_supplied``), gives the cheapest largest matching."""
    kinds: dict[tuple[Hashable, frozenset[Hashable]], list[int]] = {}  # alike after entries
    for k, entry in enumerate(after):
        kinds.setdefault(entry, []).append(k)
    left: list[int] = []
    for content in {entry[0] for entry in kinds}:  # (sets of other tiles never compete)
        supply = Counter(entry for entry in before if entry[0] == content)
        order = sorted((a for a in kinds if a[0] == content), key=lambda a: worth[kinds[a][0]])
        caps = [{b: n for b, n in supply.items() if b[1] & a[1]} for a in order]
        taken = [0] * len(order)
        for t, a in enumerate(order):
            low, high = 0, min(len(kinds[a]), sum(caps[t].values()))
            while low < high:  # the most of this kind served beside those taken (a monotone test)
                taken[t] = (low + high + 1) // 2
                low, high = (taken[t], high) if copies_supplied(taken, caps, supply) else (low, taken[t] - 1)
            taken[t] = low
            left += kinds[a][: len(kinds[a]) - low]
    return sorted(left)


@functools.lru_cache(maxsize=64)
def _remembered_meld_value(played: tuple[tuple[str, int], ...], at_most: int | None) -> int:
    """``best_meld_value``, remembered: a replay continuing after errors may repeat one failed
    opening turn after turn, and its value can cost tenths of a second (XP supply, 100 tiles,
    jokers)."""
    return best_meld_value(dict(played), at_most)


def _shape(sets: Sequence[TableSet]) -> list[tuple[str, ...]]:
    """A table up to the order of sets and of tiles within sets."""
    return sorted(tuple(sorted(t.key for t in s.tiles)) for s in sets)


def same_table(before: Sequence[TableSet], after: Sequence[TableSet]) -> bool:
    """Whether two tables are the same up to the order of sets and of tiles within sets (and
    jokers' declarations): a turn leaving it so played nothing."""
    return _shape(before) == _shape(after)


class _JokerOutcome(NamedTuple):
    violations: tuple[Violation, ...]
    freed: int
    stayed: int


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
        joint_steps: JointSteps | None = None,
    ) -> None:
        self.before, self.after, self.rack = before, after, rack
        self.opened, self.rules, self.elapsed = opened, rules, elapsed_seconds
        self.joint_steps = joint_steps
        self.violations: list[Violation] = []
        self.before_keys = _table_keys(before)
        # Only the sets that changed can differ in tiles: count those.
        self.before_left, self.after_left = _carried_over(before, after)
        change: dict[str, int] = {}  # tile key -> count after minus count before
        for i in self.before_left:
            for key in before[i].keys:
                change[key] = change.get(key, 0) - 1
        for k in self.after_left:
            for key in after[k].keys:
                change[key] = change.get(key, 0) + 1
        # Plain loops: on a turn's few tiles a comprehension's own call costs more than its work.
        rack_keys: dict[str, int] = {}
        for t in rack:
            rack_keys[t.key] = rack_keys.get(t.key, 0) + 1
        played: dict[str, int] = {}
        removed: dict[str, int] = {}
        not_in_rack: dict[str, int] = {}  # played - rack
        for key, n in change.items():
            if n > 0:
                played[key] = n
                short = n - rack_keys.get(key, 0)
                if short > 0:
                    not_in_rack[key] = short
            elif n < 0:
                removed[key] = -n
        self.rack_keys, self.played_keys, self.removed_keys, self.not_in_rack = rack_keys, played, removed, not_in_rack
        self.before_valid = False  # every before set reads valid
        self.jokers_freed = 0
        self.jokers_exact = True  # the joint joker checks had the steps they needed
        self.invalid_after: set[int] = set()  # after sets reported as INVALID_SET
        self.meld_exact = True  # the opening value reported is exact

    @property
    def after_keys(self) -> dict[str, int]:
        """The after table's tile counts: before + played - removed."""
        return _apply(self.before_keys, self.played_keys, self.removed_keys)

    # --- the checks, in order ---------------------------------------------------------

    def verdict(self) -> TurnVerdict:
        self._check_accounting()
        self._check_supply()
        self._check_before_table()
        is_draw = (
            not self.played_keys
            and not self.removed_keys
            and ((not self.before_left and not self.after_left) or same_table(self.before, self.after))
        )
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
        self._label_sets()
        valid = not self.violations
        if valid and action == "play":
            self._remember_after()
            if not self.opened and self.rules.manipulate_on_opening_turn:
                meld_value = self._reported_meld_value(self.played_keys)
        kept = self._kept_position(action) if not valid and self.rules.timeout_keeps_valid_sets else None
        if kept is not None:
            # ``played``, ``rack_after``, ``opened_after``, the opening's value and the jokers
            # freed describe the kept position (SPEC §4)
            sets, returned, alone = kept
            return replace(
                alone,
                violations=tuple(self.violations),
                penalty_draw=self._penalty(),
                kept=sets,
                returned=returned,
                jokers_exact=self.jokers_exact and alone.jokers_exact,
            )
        return TurnVerdict(
            action=action,
            played=self._played_tiles(),
            rack_after=self._rack_after() if valid and action == "play" else self.rack,
            opened_after=self.opened or (valid and meld_value is not None),
            initial_meld_value=meld_value if valid and not self.opened else None,
            jokers_freed=self.jokers_freed,
            violations=tuple(self.violations),
            penalty_draw=self._penalty(),
            initial_meld_exact=self.meld_exact,
            jokers_exact=self.jokers_exact,
        )

    def _label_sets(self) -> None:
        """Every violation about one set (pointing at it: ``/after/2``) starts with that set's id
        when it has one (SPEC §1: ids are echoed in messages); a violation that names its set
        itself (``set_id``, a joker set's pointing at its successor) keeps it."""
        if not self.violations or (all(s.id is None for s in self.before) and all(s.id is None for s in self.after)):
            return
        tables = {"before": self.before, "after": self.after}
        for n, v in enumerate(self.violations):
            parts = v.at.split("/")  # ["", "after", "2"]
            if len(parts) == 3 and parts[1] in tables and parts[2].isdigit() and "set_id" not in v.params:
                self.violations[n] = labelled(v, tables[parts[1]][int(parts[2])])

    def _kept_position(self, action: str) -> tuple[tuple[TableSet, ...], tuple[Tile, ...], TurnVerdict] | None:
        """Under ``timeout_keeps_valid_sets``, what stays after a turn over time (SPEC §4): the
        after sets but the invalid ones, when every violation other than the time is an
        ``INVALID_SET`` made only of tiles played this turn, something played stays and the
        kept position is a legal turn by itself (on an opening turn: its sets reach the
        minimum). Returns the sets kept, the tiles returned and the verdict of the kept position
        (judged in time); None: restore."""
        others = [v for v in self.violations if v.code != "TIME_LIMIT_EXCEEDED"]
        if len(others) == len(self.violations):
            return None  # not over time
        if action == "draw":
            if others:
                return None
            kept_before = _Turn(self.before, self.before, self.rack, self.opened, self.rules, None, self.joint_steps)
            return self.before, (), kept_before.verdict()
        if any(v.code != "INVALID_SET" for v in others):
            return None
        invalid = self.invalid_after
        returned = _count(key for k in invalid for key in self.after[k].keys)
        if _minus(returned, self.played_keys) or not _minus(self.played_keys, returned):
            return None  # an invalid set holds a table tile, or nothing played stays
        kept = tuple(s for k, s in enumerate(self.after) if k not in invalid)
        # One reading of every tile for both questions: a returned set may not be the
        # successor holding a freed joker's tile, as if its copy were the table's, while it goes
        # back to the rack as the rack's.
        alone = _Turn(self.before, kept, self.rack, self.opened, self.rules, None, self.joint_steps).verdict()
        if not alone.valid:
            return None
        # (a joker back on the rack stands for nothing)
        returned_tiles = tuple(JOKER if t.is_joker else t for k in sorted(invalid) for t in self.after[k].tiles)
        return kept, returned_tiles, alone

    def _add(self, code: str, at: str, params: dict[str, Any] | None = None, set_code: str | None = None) -> None:
        self.violations.append(Violation(code, at, params or {}, set_code))

    def _check_accounting(self) -> None:
        """One violation per tile, pointing at a before set that held it (removed) or an after
        set that holds it (not in the rack): one that is not laid again as it was, if any, then
        the first in the order of their tiles (``TableSet.content``: whatever order the turn
        lists its sets in); each code's violations are listed in table order (by set, then by the tile's
        place in the set)."""
        if not self.removed_keys and not self.not_in_rack:
            return
        contents = [s.content[0] for s in (*self.before, *self.after)]
        relaid_before, relaid_after = _matched_one_by_one(contents[: len(self.before)], contents[len(self.before) :])
        changed_before, changed_after = set(relaid_before), set(relaid_after)
        removed = []
        for key, n in self.removed_keys.items():
            holding = (i for i, s in enumerate(self.before) if key in s.keys)
            i = min(holding, key=lambda i: (i not in changed_before, self.before[i].content, i))
            removed.append((i, self.before[i].keys.index(key), key, n))
        after_keys = self.after_keys
        for i, _, key, n in sorted(removed):
            self._add("TABLE_TILE_REMOVED", f"/before/{i}", copies_params(key, n, after_keys.get(key, 0)))
        missing = []
        for key, n in self.not_in_rack.items():
            holding = (k for k, s in enumerate(self.after) if key in s.keys)
            k = min(holding, key=lambda k: (k not in changed_after, self.after[k].content, k))
            missing.append((k, self.after[k].keys.index(key), key, n))
        for k, _, key, n in sorted(missing):
            self._add("TILE_NOT_IN_RACK", f"/after/{k}", copies_params(key, n, self.rack_keys.get(key, 0)))

    def _reported_meld_value(self, played: dict[str, int]) -> int:
        """The value a successful opening with manipulation reports: the exact best sets of
        ``played`` within ``MELD_VALUE_WORK``, else the best found (``meld_exact`` false).
        Legality never depends on it: the opening already reached its minimum."""
        counts = self._within_supply(played)
        value, self.meld_exact = engine.meld_value.bounded_meld_value(counts, engine.meld_value.MELD_VALUE_WORK)
        return value if self.meld_exact else max(value, self.rules.initial_meld_min)  # reached, as checked

    def _best_meld_value(self, played: dict[str, int], at_most: int | None = None) -> int:
        """The most valid sets of ``played`` could be worth (SPEC §4, an opening with
        manipulation), or ``at_most`` when they reach it. Copies beyond the tile set are left
        out: such a turn is illegal anyway (``TILE_SUPPLY_EXCEEDED``), and the tile set bounds
        the work."""
        return _remembered_meld_value(tuple(sorted(self._within_supply(played).items())), at_most)

    def _within_supply(self, played: dict[str, int]) -> dict[str, int]:
        """``played`` without the copies beyond the tile set (the opening values leave them out)."""
        supply = self.rules.supply
        return {key: min(n, supply.limit(key)) for key, n in played.items()}

    def _check_supply(self) -> None:
        held = dict(self.before_keys)
        for key, n in self.rack_keys.items():
            held[key] = held.get(key, 0) + n
        # after = before + played - removed, so with every played tile in the rack the after
        # table holds no more of any tile than before + rack.
        if self.rules.supply.holds(held) and (not self.not_in_rack or self.rules.supply.holds(self.after_keys)):
            return
        groups: list[tuple[str, Iterable[Tile]]] = [(f"/before/{i}", s.tiles) for i, s in enumerate(self.before)]
        groups.append(("/rack", self.rack))
        found = supply_violations(groups, self.rules)
        reported = {v.params["tile"] for v in found}
        after_found = supply_violations(((f"/after/{i}", s.tiles) for i, s in enumerate(self.after)), self.rules)
        self.violations.extend(found + [v for v in after_found if v.params["tile"] not in reported])

    def _check_before_table(self) -> None:
        memo = _memo
        if memo is not None and memo.table is self.before and memo.strict_order == self.rules.strict_order:
            self.before_valid = True
            return
        found = len(self.violations)
        for i, reading in enumerate(read_sets(self.before, self.rules)):
            if reading.code is not None:
                params = invalid_set_params(self.before[i], reading)
                invalid = Violation("BEFORE_TABLE_INVALID", f"/before/{i}", params, reading.code)
                self.violations.append(labelled(invalid, self.before[i]))
        self.before_valid = len(self.violations) == found

    def _check_after_sets(self) -> None:
        # A set carried over untouched reads as it did before the turn.
        indices = self.after_left if self.before_valid else range(len(self.after))
        for i in indices:
            reading = self.after[i].read(self.rules)
            if reading.code is not None:
                params = invalid_set_params(self.after[i], reading)
                invalid = Violation("INVALID_SET", f"/after/{i}", params, reading.code)
                self.violations.append(labelled(invalid, self.after[i]))
                self.invalid_after.add(i)

    def _remember_after(self) -> None:
        """Keep what the next turn of a replay needs about this (valid) turn's after table."""
        global _memo
        _memo = _TableMemo(self.after, self.rules.strict_order, self.before_keys, self.played_keys, self.removed_keys)

    def _check_time(self) -> None:
        limit = self.rules.turn_time_limit
        if limit is not None and self.elapsed is not None and self.elapsed > limit:
            self._add("TIME_LIMIT_EXCEEDED", "/elapsed_seconds", {"elapsed": self.elapsed, "limit": limit})

    def _penalty(self) -> int:
        if not self.violations:
            return 0
        codes = {v.code for v in self.violations}
        penalty = self.rules.timeout_penalty if "TIME_LIMIT_EXCEEDED" in codes else 0
        if codes - {"TIME_LIMIT_EXCEEDED"}:
            penalty = max(penalty, self.rules.failed_turn_penalty)
        return penalty

    # --- opening ----------------------------------------------------------------------

    def _check_opening(self) -> int | None:
        """Check an opening turn, reporting every violation (beside ``NO_TILE_PLAYED`` too);
        return the meld value when the opening succeeds."""
        manipulated = False
        minimum = self.rules.initial_meld_min
        # an opening lays at least one set, even under a minimum of 0 (melds/check with no sets,
        # SPEC §7): every valid set is worth at least 1
        reach = max(minimum, 1)
        # only tiles from the player's own rack open: a tile the rack does not hold
        # (TILE_NOT_IN_RACK) counts for nothing
        from_rack = _minus(self.played_keys, self.not_in_rack)
        if self.rules.manipulate_on_opening_turn:
            # the exact value matters only when the turn is valid: verdict() asks for it then
            value = self._best_meld_value(from_rack, reach)
        else:
            unmatched, manipulated = self._unmatched_after_sets()
            if manipulated:
                self._add("MANIPULATION_BEFORE_OPENING", "/after")
            if manipulated or self.not_in_rack:
                # the new sets count only when made of tiles played from the rack ("all from
                # the rack"). Once a before set changed, an after set identical to a before set
                # may be the played copies (equal tiles are interchangeable, SPEC §4: the
                # reading most favourable to the player), the table's own copies having moved:
                # `K11 K12 K13` + `K8 K9 K10` -> `K8 ... K13` + `K11 K12 K13` with K11 K12 K13
                # played lays a new set worth 36 (it counted 0). Not one holding a joker: the
                # joker checks take such a set as the table's own, its joker unmoved (the
                # session's review: `R11 J R13` left as it was counted as played).
                candidates = unmatched
                if manipulated:
                    kept = set(unmatched)
                    candidates = [
                        i for i, s in enumerate(self.after) if i in kept or all(t.key != JOKER_KEY for t in s.tiles)
                    ]
                value = self._played_sets_value(candidates, reach, from_rack)
            else:
                value = sum(self.after[i].read(self.rules).value or 0 for i in unmatched)
        if value < reach:
            self.violations.append(meld_too_low("/after", value, minimum, bool(self.played_keys)))
            return None
        return None if manipulated else value

    def _unmatched_after_sets(self) -> tuple[list[int], bool]:
        """Indices of the after sets left once the before sets are matched to after sets of
        the same tiles read alike (sharing a reading), and whether some before set has no
        match: beside an untouched ``J K9 K10`` a new ``K9 K10 J`` is worth 30, beside an
        untouched ``K9 K10 J`` a new ``J K9 K10`` 27, whatever the order of the sets (the equal
        tiles decided it by listing: an independent turn oracle, session 44)."""
        rules = self.rules
        # A before set stayed as it was in an after set of its tiles sharing a reading (sets of
        # the same tiles read apart are not the same set: `J R4 R5` for `R4 R5 J` moved its
        # joker from R6 to R3; an independent white-box review, session 49: that joker was
        # counted in a new set while its set counted as unchanged). The most favourable
        # matching leaves the new sets worth the most (xp: beside `R9 J J` laid `J J R9`, a
        # new `R9 J J` is worth 30), whatever the order of the sets.
        # (an invalid set, with no reading, left as it was is the same tiles: it got an "unchanged
        # set" code beside BEFORE_TABLE_INVALID; the opening audit, session 50)
        after_left = _matched_pairs(
            [set_identity(s, rules) for s in self.before],
            [set_identity(s, rules) for s in self.after],
            [s.read(rules).value or 0 for s in self.after],
        )
        return after_left, len(self.after) - len(after_left) < len(self.before)

    def _played_sets_value(self, indices: list[int], minimum: int, played: dict[str, int]) -> int:
        """The most the valid after sets ``indices`` made only of the tiles ``played`` (tile
        counts) are worth together, each copy in one set (equal tiles being interchangeable,
        the choice most favourable to the player), or ``minimum`` once they reach it (or when
        the search runs past ``PLAYED_SETS_STEPS``: no shortfall is claimed then)."""
        sets: list[tuple[int, Counter[str]]] = []
        for i in indices:
            value = self.after[i].read(self.rules).value
            keys = Counter(t.key for t in self.after[i].tiles)
            if value is not None and all(played.get(key, 0) >= n for key, n in keys.items()):
                sets.append((value, keys))
        sets.sort(key=lambda vk: -vk[0])
        after_j = [sum(v for v, _ in sets[j:]) for j in range(len(sets) + 1)]  # the most the rest adds
        best, steps = 0, PLAYED_SETS_STEPS

        def search(j: int, value: int, left: Counter[str]) -> bool:
            """Whether the minimum is reached (or the steps run out), from set ``j`` on."""
            nonlocal best, steps
            best = max(best, value)
            steps -= 1
            if best >= minimum or steps < 0:
                return True
            if j == len(sets) or value + after_j[j] <= best:
                return False
            v, keys = sets[j]
            if all(left[key] >= n for key, n in keys.items()) and search(j + 1, value + v, left - keys):
                return True
            return search(j + 1, value, left)

        return minimum if search(0, 0, Counter(played)) else best

    # --- jokers -----------------------------------------------------------------------

    def _check_jokers(self) -> None:
        """Follow the jokers of every joker set that changed (engine.jokers, SPEC §4). Not when
        the table before or after holds more than the tile set: the turn is illegal anyway
        (``TILE_SUPPLY_EXCEEDED``), and copies no game has can make the search of their places
        grow without bound. (Beyond the tile set on ``before`` + ``rack`` only, the tables are
        a game's, and their jokers are judged.)"""
        if not self.before_keys.get(JOKER_KEY):
            return
        supply = self.rules.supply
        if any(v.code == "TILE_SUPPLY_EXCEEDED" for v in self.violations) and not (
            supply.holds(self.before_keys) and supply.holds(self.after_keys)
        ):
            return
        before, after = self.before, self.after
        # A joker set still on the table exactly as it was keeps its jokers: nothing to judge.
        changed = [i for i in self.before_left if before[i].jokers and self._holds_joker(before[i])]
        if not changed:
            return
        # So does one laid again identically (equal, though not the same object; or in another
        # order that every reading keeps: a group's tiles, a run laid the other way).
        relaid: dict[tuple[tuple[str, ...], str | None], list[int]] = {}
        for k in self.after_left:
            if after[k].jokers:
                relaid.setdefault((after[k].codes, after[k].kind), []).append(k)
        moved = []
        left_as_they_were: list[tuple[int, int]] = []  # (before set, after set) laid again identically
        for i in changed:
            same = relaid.get((before[i].codes, before[i].kind))
            if same:
                left_as_they_were.append((i, same.pop()))
            else:
                moved.append(i)
        open_after = [k for ks in relaid.values() for k in ks]
        for i in list(moved):
            match = next((k for k in open_after if self._read_alike(before[i], after[k])), None)
            if match is not None:
                moved.remove(i)
                open_after.remove(match)
                left_as_they_were.append((i, match))
        # ... unless a moved set's joker may stay in one, or be replaced by a copy there: then
        # the turn may read best with that set moved too (SPEC §4: the assignment most
        # favourable to the player), e.g. ``K8 O8 J`` + ``K8 O8 R8 J`` -> ``K8 O8 J`` +
        # ``K8 O8 R8`` + ``R6 R7 R8 J`` with R6 R7 R8 played: the B8 joker stays in ``K8 O8 J``,
        # the other joker is replaced by R8 and goes to the run
        reopened = self._reopened(moved, left_as_they_were) if moved else []
        moved = sorted(moved + [i for i, _ in reopened])
        open_after = sorted(open_after + [k for _, k in reopened])
        kept = {k for i, k in left_as_they_were if (i, k) not in reopened}  # their after sets
        candidates = self._successor_candidates(moved)
        if candidates is not None and reopened:
            candidates = sorted({*candidates, *(k for _, k in reopened)})
        if self.rules.joker_sets_locked:
            # A locked set left as it was keeps its tiles: none of them is a moved set's copy.
            left = {*self.after_left, *(k for _, k in reopened)}
            kept.update(k for k in range(len(after)) if after[k].jokers and k not in left)
            candidates = [k for k in (range(len(after)) if candidates is None else candidates) if k not in kept]
        # The search takes the sets in an order of their tiles, not of their listing: its steps,
        # and so whether it runs past JOINT_CHECK_STEPS, never depend on how the turn was listed.
        moved = _by_tiles(moved, before)
        open_after = _by_tiles(open_after, after)
        candidates = _by_tiles(range(len(after)) if candidates is None else candidates, after)
        outcome = follow_jokers(
            before, after, moved, open_after, self.played_keys, self.rules, self.opened, candidates, self.joint_steps
        )
        if self._may_swap(outcome):
            # a freed joker misused where it lies may be another set's joker: the two swapped,
            # each freed into a set the rule allows (SPEC §4: jokers are interchangeable and the
            # assignment most favourable to the player counts), e.g. ``R4 R5 J`` + ``K9 B9 J`` ->
            # ``J R4 R5 R6`` + ``K9 B9 J`` under a free release and ``other_set``: the run's joker
            # went to the group, the group's to the run. So every joker set is followed.
            every = _by_tiles([i for i, s in enumerate(before) if self._holds_joker(s)], before)
            if len(every) > len(moved):
                hosts = _by_tiles([k for k, s in enumerate(after) if s.jokers], after)
                everywhere = _by_tiles(range(len(after)), after)
                swapped = follow_jokers(
                    before, after, every, hosts, self.played_keys, self.rules, self.opened, everywhere, self.joint_steps
                )
                self.jokers_exact = self.jokers_exact and swapped.exact
                # (under locked sets only a swap freeing the other set's joker too: where that
                # joker stays, its set keeps its tiles, which the swapped reading would lend)
                real = not self.rules.joker_sets_locked or swapped.freed > outcome.freed
                if real and (len(swapped.violations), swapped.freed) < (len(outcome.violations), outcome.freed):
                    outcome = swapped
        # (the readings the search left untried with fewer violations, of the verdict kept)
        outcome = fewest(outcome)
        self.violations.extend(outcome.violations)
        self.jokers_freed = outcome.freed
        self.jokers_exact = self.jokers_exact and outcome.exact
        if (
            outcome.freed
            and not self.opened
            and not self.rules.manipulate_on_opening_turn
            and all(v.code != "MANIPULATION_BEFORE_OPENING" for v in self.violations)
        ):
            # a joker freed changed its set, though the set's tiles are all on the table again
            # (``R4 R5 J`` laid as ``J R4 R5``: its joker stood for R6, now for R3)
            self._add("MANIPULATION_BEFORE_OPENING", "/after")

    def _may_swap(self, outcome: JokerVerdict) -> bool:
        """Whether swapping a misused freed joker with the joker of a set left as it was may
        read better: under ``other_set``, and under ``new_set_with_two_rack_tiles`` where that
        set, laid again of played copies, may be a new set (pressman-2009, ``K11 O11 B11 J`` +
        ``R1 J O1`` -> ``J R1 O1`` + ``K1 R1 O1`` + ``J B11 K11 R11`` + ``B11 O11 R11``: the
        second set's R1 O1 are in ``K1 R1 O1``, its joker in the group of 11s, the first
        set's in ``J R1 O1`` with the played R1 O1; session 42). Under locked sets too: the
        joker of a set left as it was may have been freed by its exact tile, then the set
        refilled, and the reading where the other set's joker was freed, not its set broken, is
        then the one to try (``R5 K5 J`` + ``J B3 K3`` + ``R3 O3 K3`` -> ``O5 K5 J`` + ``J B3 K3`` +
        ``R3 O3 K3`` + ``R5 R6 R7`` under other_set: the played O5 frees the first joker, the
        R3 beside K3 the second, and the two swap; the same turn with ``J B3 K3`` given a kind on
        one side was followed so and legal: the verdict depended on notation, a metamorphic
        audit, session 45)."""
        misread = (
            ("FREED_JOKER_MISUSED", "JOKER_SET_BROKEN") if self.rules.joker_sets_locked else ("FREED_JOKER_MISUSED",)
        )
        return self.rules.freed_joker_use != "any_set" and any(v.code in misread for v in outcome.violations)

    def _read_alike(self, one: TableSet, other: TableSet) -> bool:
        """Do two sets hold the same tiles and read the same ways (every reading's tiles, a
        run's jokers standing for the same tiles, in any order)?"""
        if one.kind != other.kind or one.jokers != other.jokers or one.numbered_counts != other.numbered_counts:
            return False

        def readings(s: TableSet) -> list[tuple[str, tuple[str, ...]]]:
            return sorted((r.kind, tuple(sorted(t.code for t in r.tiles))) for r in s.read(self.rules).readings)

        return readings(one) == readings(other)

    def _reopened(self, moved: list[int], pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The joker sets left as they were, as (before set, after set) among ``pairs`` and
        among the sets carried over untouched, whose after set holds a joker that may stand for,
        or a copy of, a tile that a moved set's joker (or, in turn, a reopened one's) may stand
        for: judged as moved too, so that the moved joker may stay there, or be replaced by that
        copy while the other joker reads otherwise."""
        before, after = self.before, self.after
        candidates = pairs
        if len(self.after_left) < len(after):  # some sets carried over as the same objects
            left = set(self.after_left)
            carried = [k for k, s in enumerate(after) if s.jokers and k not in left and self._holds_joker(s)]
            if carried:
                candidates = pairs + list(zip(self._carried_before(carried), carried, strict=True))
        if not candidates:
            return []
        wanted = {key for i in moved for key in self._joker_options(before[i])}
        reopened: list[tuple[int, int]] = []
        grown = True
        while grown:
            grown = False
            for i, k in candidates:
                if (i, k) in reopened:
                    continue
                if not (
                    wanted.isdisjoint(self._joker_options(after[k])) and wanted.isdisjoint(after[k].numbered_counts)
                ):
                    reopened.append((i, k))
                    wanted |= self._joker_options(before[i])
                    grown = True
        return reopened

    def _joker_options(self, s: TableSet) -> set[str]:
        """Every tile a joker of ``s`` may stand for, in any of its readings."""
        return {key for reading in s.read(self.rules).readings for keys in reading.joker_keys for key in keys}

    def _carried_before(self, carried: list[int]) -> list[int]:
        """The before sets carried over untouched as the after sets ``carried`` (the same
        objects, matched one by one)."""
        slots: dict[int, list[int]] = {}
        taken = set(self.before_left)
        for i, s in enumerate(self.before):
            if i not in taken:
                slots.setdefault(id(s), []).append(i)
        return [slots[id(self.after[k])].pop() for k in carried]

    def _holds_joker(self, s: TableSet) -> bool:
        """Whether ``s`` is a valid set with a joker (one whose joker is tracked)."""
        return bool(s.jokers and s.read(self.rules).readings)

    def _successor_candidates(self, moved: list[int]) -> list[int] | None:
        """The after sets that can share a numbered tile with the moved sets: the changed ones,
        unless the before table holds another copy of one of their tiles (only then can a set
        carried over untouched hold it too). None: every after set."""
        before_keys = self.before_keys
        for i in moved:
            for key, n in self.before[i].numbered_counts.items():
                if before_keys[key] != n:
                    return None
        return self.after_left

    # --- results ----------------------------------------------------------------------

    def _played_tiles(self) -> tuple[Tile, ...]:
        return tiles_of_keys(self.played_keys)

    def _rack_after(self) -> tuple[Tile, ...]:
        return tuple(tiles_without_keys(self.rack, self.played_keys))

"""Following the table's jokers through a turn (SPEC §4).

The rule, in SPEC's words: a joker's identity is the tile it stands for (§2). A **run joker
stayed** if a joker in some after-run stands for the same tile (joining and splitting runs keeps
it). A **group joker stayed** if it can stand for the same tile in an after-group holding at
least one numbered tile of its before-set. Each joker on ``after`` accounts for at most one joker
of ``before``. The **successors** of a before-set are the after-sets holding at least one of its
numbered tiles; set ids never change a verdict. Equal tiles are interchangeable and readings may
differ, so the turn is judged by the consistent reading and assignment most favourable to the
player, and the verdict never depends on the order in which sets or tiles are listed.

A joker that did not stay was freed, and the rules' policy applies:

- ``JOKER_NOT_REPLACED`` (``joker_release: replace``): no successor holds a copy of the tile it
  stood for (an undeclared group joker stood for any missing colour). Each replacing tile is one
  copy: two jokers standing for R7 need two R7. Under ``group_joker_needs_both_colours`` a group
  of three needs every missing colour that no joker still stands for; a declared group joker
  needs only its declared tile.
- ``JOKER_REPLACED_FROM_TABLE`` (``joker_replacement_from: rack``): more jokers replaced by a tile
  than copies of it were played from the rack.
- ``JOKER_SET_BROKEN`` (``joker_sets_locked``): a joker set keeps its jokers in one successor that
  holds all its numbered tiles, unless every joker was freed by its exact tile (the set is then no
  longer locked); a joker freed without its tile breaks it too (under ``joker_release: replace``,
  when no successor holds a copy of its tile at all, it is ``JOKER_NOT_REPLACED`` as well: both
  rules are broken). A joker that can only stay did
  stay, unless its exact tile lies in its place (a run's: beside a numbered neighbour of the
  joker's place; a group's: in a successor, beside a numbered tile of the group), a copy played
  or taken from a set without a joker.
- ``FREED_JOKER_MISUSED``: under ``other_set`` a freed joker may not end in an after-set of the
  same kind (run or group) holding a numbered tile of its set; under
  ``new_set_with_two_rack_tiles`` it must end in a *new* set (one holding no numbered tile of its
  own before-set and not every numbered tile of any before-set) holding two tiles played from the
  rack, each played tile counting for one such set only.
- ``JOKER_RELEASED_BEFORE_OPENING``: any joker freed on a turn that starts unopened.

How it is judged
----------------
Only the joker sets that changed are followed (``moved``), against the after-sets holding jokers
that no untouched set accounts for (``open_after``). A depth-first search gives every moved
joker, for one reading of its set, a fate: staying on a free after joker (whose set's reading is
fixed by the first joker staying in it) or being freed. At each complete assignment the
replacing copies, the locked sets and the freed jokers' places are judged by small exact
searches of their own. The best assignment has the fewest violations, then the fewest freed
jokers, then the first codes in sorted order, so ties never depend on the listing order. A
branch is cut once a legal assignment is known and the branch has freed more jokers.

The tile set holds at most 4 jokers (XP), so the search is small, and it is cut after
``MAX_ASSIGNMENTS`` complete assignments in any case (the best so far deciding). A turn whose
moved sets, or open after-sets, hold more jokers than the tile set has is not followed at all:
it is illegal anyway (``TILE_SUPPLY_EXCEEDED``); nor is any other turn beyond the tile set
(``engine.turns`` does not call ``follow_jokers`` then: dozens of copies of one tile could make
the replacing tiles' places grow without bound).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.rules import Rules
from engine.sets import GROUP, RUN, Reading, TableSet
from engine.tiles import JOKER_KEY
from engine.violations import Violation

MAX_ASSIGNMENTS = 2000
"""Complete joker assignments judged at most per turn (a bound for requests beyond the tile set)."""

JOINT_CHECK_STEPS = 20_000
"""Steps of the searches for one assignment of copies to the sets hosting freed jokers under
``new_set_with_two_rack_tiles`` (``_Search._new_sets_together``), per turn: a few tens of
milliseconds. Hosts of dozens of tiles with several places for each could take hours; a
budget per call let one turn use it again at each placement of the freed jokers."""


class _OutOfSteps(Exception):
    """``JOINT_CHECK_STEPS`` used up."""


@dataclass(frozen=True, slots=True)
class JokerVerdict:
    """What following the table's jokers found: the violations and how many jokers were freed."""

    violations: tuple[Violation, ...]
    freed: int


def follow_jokers(
    before: Sequence[TableSet],
    after: Sequence[TableSet],
    moved: Sequence[int],
    open_after: Sequence[int],
    played: Mapping[str, int],
    rules: Rules,
    opened: bool,
    successor_candidates: Sequence[int] | None = None,
) -> JokerVerdict:
    """Judge the jokers of the before-sets ``moved`` (valid joker sets not carried over
    untouched) against the jokers of the after-sets ``open_after`` (those no untouched set
    accounts for). ``played`` counts the tiles played from the rack (jokers under ``JOKER_KEY``).
    ``successor_candidates``, when given, are the only after-sets that can share a numbered tile
    with a moved set (a shortcut for large tables, and under ``joker_sets_locked`` without the
    after-sets of the joker sets left as they were, which keep their own tiles; None: every
    after-set)."""
    if not moved:
        return JokerVerdict((), 0)
    most = rules.supply.limit(JOKER_KEY)
    if sum(before[i].jokers for i in moved) > most or sum(after[k].jokers for k in open_after) > most:
        return JokerVerdict((), 0)  # more jokers than the tile set: TILE_SUPPLY_EXCEEDED says it
    return _Search(before, after, moved, open_after, played, rules, opened, successor_candidates).run()


# --- the pieces of the search ------------------------------------------------------------


class _Joker(NamedTuple):
    """A moved joker under one reading of its set: ``source`` is its place in ``moved``."""

    source: int
    options: frozenset[str]  # the tiles it may stand for in that reading
    declared: bool  # a single option (a run joker, a declared or last-colour group joker)


class _Stay(NamedTuple):
    after: int
    position: int  # the joker's place among the after-set's jokers
    tile: str  # the tile both jokers stand for


class _Source:
    """A moved before-set: its index, numbered tiles, successors and readings."""

    __slots__ = ("after", "index", "numbered", "readings", "size", "successors")

    def __init__(self, index: int, s: TableSet, rules: Rules, after: Sequence[TableSet], candidates: Sequence[int]):
        self.index, self.after = index, after
        self.numbered = s.numbered_counts
        self.size = len(s.tiles)
        self.readings = s.read(rules).readings
        mine = self.numbered.keys()
        self.successors = tuple(k for k in candidates if not mine.isdisjoint(after[k].numbered_counts))

    def home(self) -> str:
        """Where a violation about this set points: the successor sharing the most of its tiles."""
        best, most = None, 0
        for k in self.successors:
            theirs = self.after[k].numbered_counts
            shared = sum(min(n, theirs.get(key, 0)) for key, n in self.numbered.items())
            if shared > most:
                best, most = k, shared
        return f"/after/{best}" if best is not None else f"/before/{self.index}"


class _Candidate(NamedTuple):
    key: tuple[int, int, tuple[int, ...]]
    violations: tuple[Violation, ...]
    freed: int
    # under locked sets and a replace release, the replace rule's own violations, reported
    # beside (not ranked: the locked sets' codes already count each joker freed without its tile)
    unreplaced: tuple[Violation, ...] = ()


# Between equally bad assignments, the one whose violations come first here (a joker replaced,
# though from the table, reads better than one not replaced at all).
_CODE_ORDER = {
    code: n
    for n, code in enumerate(
        (
            "JOKER_REPLACED_FROM_TABLE",
            "FREED_JOKER_MISUSED",
            "JOKER_SET_BROKEN",
            "JOKER_NOT_REPLACED",
            "JOKER_RELEASED_BEFORE_OPENING",
        )
    )
}


def _rank(violations: Sequence[Violation], freed: int) -> tuple[int, int, tuple[int, ...]]:
    """Fewest violations, then fewest jokers freed, then the codes in ``_CODE_ORDER``."""
    return len(violations), freed, tuple(sorted(_CODE_ORDER[v.code] for v in violations))


class _Search:
    def __init__(
        self,
        before: Sequence[TableSet],
        after: Sequence[TableSet],
        moved: Sequence[int],
        open_after: Sequence[int],
        played: Mapping[str, int],
        rules: Rules,
        opened: bool,
        successor_candidates: Sequence[int] | None,
    ) -> None:
        self.before, self.after, self.played, self.rules, self.opened = before, after, played, rules, opened
        candidates = range(len(after)) if successor_candidates is None else successor_candidates
        self.sources = [_Source(i, before[i], rules, after, candidates) for i in moved]
        self.open_after = tuple(open_after)
        # Each open after-set's readings (none for an invalid set: its jokers host no stay).
        self.after_readings = {k: after[k].read(rules).readings for k in self.open_after}
        self.locked = rules.joker_sets_locked
        self.needs_tile = self.locked or rules.joker_release == "replace"
        self._readings_chosen: dict[int, Reading] = {}  # source -> the reading being tried
        self.best: _Candidate | None = None
        self.fallback: _Candidate | None = None  # the best assignment freeing a joker that stayed
        self.assignments = 0
        self.joint_steps = JOINT_CHECK_STEPS  # shared by every joint check of the turn
        self._placement_memo: dict[tuple[object, ...], list[Violation]] = {}
        self._replacement_memo: dict[tuple[object, ...], list[Violation]] = {}
        self._holding_memo: dict[tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]], bool] = {}
        self._old_after: dict[int, bool] = {}
        self.after_numbered = self._numbered_in(range(len(after)))  # every numbered tile on the after table
        # the numbered tiles that may be the moved sets' copies: under locked sets, a joker set
        # left as it was keeps its own (it is no successor candidate)
        self.room_sets = frozenset(candidates if self.locked else range(len(after)))
        self.room_numbered = self._numbered_in(self.room_sets) if self.locked else self.after_numbered
        # The copies a turn may bring anywhere: played ones, and those of sets without a joker.
        self._free_copies = dict(played)
        for s in before:
            if not s.jokers:
                for key, n in s.numbered_counts.items():
                    self._free_copies[key] = self._free_copies.get(key, 0) + n
        if self.locked:
            self._unlock_in_turn()

    def _unlock_in_turn(self) -> None:
        """Under locked sets, the copies of a moved set whose every joker, under one of its
        readings, such copies replace in its place (``_replaced_in_place``,
        ``_replaced_in_group``) are such copies too, in turn: a played O12 unlocks
        ``O9 O10 O11 J``, whose O11 then unlocks ``J O12 O13``. A chain starts from played
        tiles or sets without a joker: two sets that would unlock each other stay locked."""
        unlocked: set[int] = set()
        grown = True
        while grown:
            grown = False
            for n, source in enumerate(self.sources):
                if n in unlocked or not any(
                    reading.joker_keys
                    and all(
                        self._replaced_in_place(_Joker(n, keys, True))
                        if reading.kind == RUN
                        else self._replaced_in_group(_Joker(n, keys, len(keys) == 1))
                        for keys in reading.joker_keys
                    )
                    for reading in source.readings
                ):
                    continue
                unlocked.add(n)
                grown = True
                for key, count in source.numbered.items():
                    self._free_copies[key] = self._free_copies.get(key, 0) + count

    def run(self) -> JokerVerdict:
        self._readings(0, [])
        best = self.best or self.fallback
        assert best is not None  # every source has a reading, and freeing all is a fate
        return JokerVerdict((*best.violations, *best.unreplaced), best.freed)

    # --- the depth-first search over readings and fates ---------------------------------

    def _readings(self, n: int, jokers: list[_Joker]) -> None:
        """Choose a reading for each source in turn, then the fates of all their jokers."""
        if n == len(self.sources):
            self._fates(jokers, 0, {}, {}, [], 0, 0)
            return
        for reading in self.sources[n].readings:
            own = [_Joker(n, keys, len(keys) == 1) for keys in reading.joker_keys]
            self._readings_chosen[n] = reading
            self._readings(n + 1, jokers + own)
            if self._done():
                return

    def _done(self) -> bool:
        return self.assignments >= MAX_ASSIGNMENTS

    def _fates(
        self,
        jokers: list[_Joker],
        j: int,
        fixed: dict[int, Reading],
        taken: dict[tuple[str, int], set[str]],
        stays: list[_Stay | None],
        freed: int,
        bound: int,
    ) -> None:
        """Give jokers ``j..`` a fate. ``fixed`` holds the after readings chosen so far,
        ``taken`` the tiles stood for per before-set (``("b", n)``) and after-set (``("a", k)``),
        ``stays`` the fate of each joker before ``j`` (None: freed), ``bound`` the violations
        that the fates so far make certain."""
        best = self.best
        if best is not None:
            fewest, least_freed = best.key[0], best.key[1]
            if bound > fewest or (bound == fewest and (freed > least_freed or (freed == least_freed == fewest == 0))):
                return  # violations and freed jokers only grow: this branch cannot do better
        if self._done():
            return
        if j and (j == len(jokers) or jokers[j].source != jokers[j - 1].source):
            bound += self._settled(jokers, j, stays)
        if j == len(jokers):
            self.assignments += 1
            self._judge(jokers, fixed, stays)
            return
        joker = jokers[j]
        kind = self._readings_chosen[joker.source].kind
        mine = taken.get(("b", joker.source), set())
        used = {(s.after, s.position) for s in stays if s is not None}
        holders = self._group_homes(jokers, stays)
        stays_here: list[tuple[_Stay, Reading]] = []
        for k in self.open_after:
            readings = [fixed[k]] if k in fixed else self.after_readings[k]
            for reading in readings:
                if reading.kind != kind:
                    continue
                if kind != RUN and not self._can_hold_copies(holders | {(joker.source, k)}):
                    continue
                theirs = taken.get(("a", k), set())
                tried: set[frozenset[str]] = set()
                for position, keys in enumerate(reading.joker_keys):
                    if (k, position) in used or keys in tried:
                        continue
                    tried.add(keys)  # jokers of one group with the same options are interchangeable
                    for tile in sorted(joker.options & keys - mine - theirs):
                        stays_here.append((_Stay(k, position, tile), reading))
        # Fates in the order most likely to be best first (the search is cut by the best so far).
        options: list[tuple[_Stay, Reading] | None] = [*stays_here, None]
        if self.locked:  # staying outside a whole successor breaks the set: try freeing before that
            whole = [o for o in stays_here if self._broken(joker.source, {o[0].after}) is None]
            options = [*whole, None, *(o for o in stays_here if o not in whole)]
        for option in options:
            if option is None:
                certain = int(not freed and not self.opened) + int(self._unreplaceable(joker))
                self._fates(jokers, j + 1, fixed, taken, [*stays, None], freed + 1, bound + certain)
                continue
            stay, reading = option
            k = stay.after
            self._fates(
                jokers,
                j + 1,
                fixed if k in fixed else {**fixed, k: reading},
                {**taken, ("b", joker.source): mine | {stay.tile}, ("a", k): taken.get(("a", k), set()) | {stay.tile}},
                [*stays, stay],
                freed,
                bound,
            )

    def _settled(self, jokers: list[_Joker], j: int, stays: list[_Stay | None]) -> int:
        """Violations certain once every joker of the source of joker ``j - 1`` has its fate:
        that set broken under ``joker_sets_locked``."""
        if not self.locked:
            return 0
        n = jokers[j - 1].source
        homes = {stay.after for joker, stay in zip(jokers, stays, strict=False) if joker.source == n and stay}
        return int(self._broken(n, homes) is not None)

    def _unreplaceable(self, joker: _Joker) -> bool:
        """Whether a freed joker that needs one fixed tile finds no copy of it in any successor."""
        if not self.needs_tile or not joker.declared:
            return False
        (tile,) = joker.options
        return not any(self.after[k].numbered_counts.get(tile) for k in self.sources[joker.source].successors)

    # --- judging one complete assignment ------------------------------------------------

    def _judge(self, jokers: list[_Joker], fixed: dict[int, Reading], stays: list[_Stay | None]) -> None:
        freed = [joker for joker, stay in zip(jokers, stays, strict=True) if stay is None]
        if not freed and not self.locked:  # every joker stayed: nothing can be wrong
            self.best = _Candidate((0, 0, ()), (), 0)
            return
        violations: list[Violation] = []
        if freed and self.needs_tile:
            violations += self._replacements(jokers, stays)
        if self.locked:
            violations += self._locked_sets(jokers, stays)
        if freed and self.rules.freed_joker_use != "any_set":
            violations += self._placements(jokers, freed, fixed, stays)
        if freed and not self.opened:
            violations.append(Violation("JOKER_RELEASED_BEFORE_OPENING", "/after", {"count": len(freed)}))
        key = _rank(violations, len(freed))
        unreplaced: tuple[Violation, ...] = ()
        if freed and self.locked and self.rules.joker_release == "replace":
            # SPEC §4: all violations are reported. A joker freed without its tile broke its
            # locked set (above); when no copy of its tile lies in a successor at all it was not
            # replaced either (the replace rule alone, without the locked sets' claims on copies)
            unreplaced = tuple(
                v for v in self._replacements(jokers, stays, locked=False) if v.code == "JOKER_NOT_REPLACED"
            )
        if self.locked and freed and not self._freed_can_leave(jokers, fixed, stays):
            # A joker "freed" where it can only stay did stay (SPEC §4): under locked sets its
            # exact tile elsewhere would otherwise unlock a set that lost a tile.
            if self.fallback is None or key < self.fallback.key:
                self.fallback = _Candidate(key, tuple(violations), len(freed), unreplaced)
            return
        if self.best is None or key < self.best.key:
            self.best = _Candidate(key, tuple(violations), len(freed), unreplaced)

    def _freed_can_leave(self, jokers: list[_Joker], fixed: dict[int, Reading], stays: list[_Stay | None]) -> bool:
        """Whether the freed jokers can each end on an after joker no staying joker took, in a
        place where none of them would stay, or off the table (as many as the after-sets lack)."""
        taken = {(s.after, s.position) for s in stays if s is not None}
        slots = [(k, p) for k in self.open_after for p in range(self.after[k].jokers) if (k, p) not in taken]
        off_table = max(0, len(jokers) - sum(self.after[k].jokers for k in self.open_after))
        freed = [j for j, stay in zip(jokers, stays, strict=True) if stay is None]
        stood_for: dict[tuple[str, int], set[str]] = {("a", s.after): set() for s in stays if s is not None}
        for joker, s in zip(jokers, stays, strict=True):
            if s is not None:
                stood_for[("a", s.after)].add(s.tile)
                stood_for.setdefault(("b", joker.source), set()).add(s.tile)

        stayed_in = self._group_homes(jokers, stays)  # a run joker stays without a copy of its set
        replacing = [joker.options for joker in freed] if self.needs_tile else []

        def must_stay(joker: _Joker, k: int, p: int) -> bool:
            kind = self._readings_chosen[joker.source].kind
            if self._replaced_in_place(joker) if kind == RUN else self._replaced_in_group(joker):
                return False  # its exact tile took its place: freed, wherever it went
            mine = [options for other, options in zip(freed, replacing, strict=False) if other.source == joker.source]
            if kind != RUN and self._may_hold_none_of_one(joker.source, k, mine, stayed_in):
                return False  # a group joker stays only in a successor
            readings = [fixed[k]] if k in fixed else self.after_readings[k]
            gone = stood_for.get(("a", k), set()) | stood_for.get(("b", joker.source), set())
            return bool(readings) and all(r.kind == kind and joker.options & r.joker_keys[p] - gone for r in readings)

        # (nor on one where another of them would stay: the joker there would be that one,
        # stayed, as two run jokers standing for K12 and K13 swapped would both have stayed)
        open_slots = [(k, p) for k, p in slots if not any(must_stay(joker, k, p) for joker in freed)]
        return len(freed) <= len(open_slots) + off_table

    def _replaced_in_place(self, joker: _Joker) -> bool:
        """Whether a run joker's exact tile lies in a successor beside a numbered neighbour of
        the joker's place in its set (``K9`` in ``K6 … K12`` for the joker of ``K8 J K10``), or
        beside the exact tiles of the set's other jokers' places up to one (``O8 O9 O10`` for
        the jokers of ``J J O10``); a copy played or from a set without a joker (a locked set
        keeps its tiles)."""
        (tile,) = joker.options
        if not self._free_copies.get(tile):
            return False
        colour, number = tile[0], int(tile[1:])
        source = self.sources[joker.source]

        def in_place(held: Mapping[str, int]) -> bool:
            for step in (-1, 1):
                key = f"{colour}{number + step}"
                while held.get(key):
                    if key in source.numbered:
                        return True
                    key = f"{colour}{int(key[len(colour) :]) + step}"
            return False

        return any(
            self.after[k].numbered_counts.get(tile) and in_place(self.after[k].numbered_counts)
            for k in source.successors
        )

    def _replaced_in_group(self, joker: _Joker) -> bool:
        """Whether a copy of a tile a group joker stood for lies in a successor: beside a
        numbered tile of its set, the one place where it can replace a group's joker (``O10`` in
        ``R10 O10 B10`` for a joker of ``R10 J J K10``). The copy must be one that could be
        brought there: played, or from a set without a joker (a locked set gives none)."""
        return any(
            self._free_copies.get(tile) and self.after[k].numbered_counts.get(tile)
            for tile in joker.options
            for k in self.sources[joker.source].successors
        )

    def _group_homes(self, jokers: list[_Joker], stays: list[_Stay | None]) -> frozenset[tuple[int, int]]:
        """The pairs (source, after-set) where a group joker stayed: each after-set must hold a
        copy of one of that source's numbered tiles."""
        return frozenset(
            (joker.source, stay.after)
            for joker, stay in zip(jokers, stays, strict=False)
            if stay is not None and self._readings_chosen[joker.source].kind != RUN
        )

    def _whole_homes(self, jokers: list[_Joker], stays: list[_Stay | None]) -> frozenset[tuple[int, int]]:
        """Under ``joker_sets_locked``, the pairs (source, after-set) where a set's staying jokers
        all lie in one after-set holding every numbered tile of the set: it holds all its copies."""
        if not self.locked:
            return frozenset()
        homes: dict[int, set[int]] = {}
        for joker, stay in zip(jokers, stays, strict=False):
            if stay is not None:
                homes.setdefault(joker.source, set()).add(stay.after)
        return frozenset((n, min(ks)) for n, ks in homes.items() if self._broken(n, ks) is None)

    def _can_hold_copies(
        self, holders: frozenset[tuple[int, int]], wholes: frozenset[tuple[int, int]] = frozenset()
    ) -> bool:
        """Whether every pair (source, after-set) in ``holders`` can get its own copy of one of
        the source's numbered tiles, each pair in ``wholes`` getting every copy of its source's
        tiles: equal tiles are interchangeable, yet each copy lies in one set (SPEC §4, the
        consistent assignment), so ``[J J R13]`` has one successor among two after-sets holding
        an R13 when one R13 was played. Memoised."""
        found = self._holding_memo.get((holders, wholes))
        if found is not None:
            return found
        taken: dict[tuple[str, int], int] = {}  # (tile, source or after-set) -> copies given
        for n, k in sorted(wholes):
            theirs = self.after[k].numbered_counts
            for key, copies in self.sources[n].numbered.items():
                taken[key, -1 - n] = copies
                taken[key, k] = taken.get((key, k), 0) + copies
                if taken[key, k] > theirs.get(key, 0):
                    self._holding_memo[holders, wholes] = False
                    return False
        pairs = sorted(holders - wholes)

        def give(m: int) -> bool:
            if m == len(pairs):
                return True
            n, k = pairs[m]
            if k not in self.sources[n].successors:
                return False
            theirs = self.after[k].numbered_counts
            for key, copies in self.sources[n].numbered.items():
                room = theirs.get(key, 0)
                if taken.get((key, -1 - n), 0) < copies and taken.get((key, k), 0) < room:
                    taken[key, -1 - n] = taken.get((key, -1 - n), 0) + 1
                    taken[key, k] = taken.get((key, k), 0) + 1
                    ok = give(m + 1)
                    taken[key, -1 - n] -= 1
                    taken[key, k] -= 1
                    if ok:
                        return True
            return False

        found = self._holding_memo[holders, wholes] = give(0)
        return found

    def _replacements(self, jokers: list[_Joker], stays: list[_Stay | None], locked: bool = True) -> list[Violation]:
        """The fewest violations with which every freed joker gets its own replacing copy
        (memoised by what the freed jokers need and where group jokers stayed). Under locked
        sets an unmet need is ``JOKER_SET_BROKEN`` and the sets kept whole keep their copies;
        ``locked`` False judges the replace rule alone (``JOKER_NOT_REPLACED``)."""
        locked = locked and self.locked
        demands = tuple(self._demands(jokers, stays))
        holders = self._group_homes(jokers, stays)
        wholes = self._whole_homes(jokers, stays) if locked else frozenset()
        memo_key = (demands, holders, wholes, locked)
        found = self._replacement_memo.get(memo_key)
        if found is None:
            missing_code = "JOKER_SET_BROKEN" if locked else "JOKER_NOT_REPLACED"
            found = self._replacement_memo[memo_key] = self._replace(demands, holders, wholes, missing_code)
        return found

    def _replace(
        self,
        demands: tuple[_Demand, ...],
        holders: frozenset[tuple[int, int]],
        wholes: frozenset[tuple[int, int]],
        missing_code: str,
    ) -> list[Violation]:
        capacity: dict[tuple[int, str], int] = {}
        for demand in demands:
            for k in self.sources[demand.source].successors:
                for bundle in demand.bundles:
                    for key in bundle:
                        capacity.setdefault((k, key), self.after[k].numbered_counts.get(key, 0))
        rack_only = self.rules.joker_replacement_from == "rack"
        best: list[Violation] | None = None
        used: dict[str, int] = {}
        chosen: dict[tuple[int, int], set[str]] = {}  # (source, group tag) -> colours given
        homes: list[tuple[int, int]] = []  # (source, after-set) of each replacing tile taken

        def unmet(demand: _Demand) -> list[Violation]:
            return [Violation(missing_code, self.sources[demand.source].home(), {"tile": demand.label})] * demand.weight

        def place(d: int, found: list[Violation]) -> None:
            nonlocal best
            if best is not None and len(found) >= len(best) and _rank(found, 0) >= _rank(best, 0):
                return
            if d == len(demands):
                # every set a replacing tile lies in holds a copy of the joker's set too
                if self._can_hold_copies(holders | {(n, k) for n, k in homes}, wholes):
                    best = list(found)
                return
            demand = demands[d]
            source = self.sources[demand.source]
            given = chosen.setdefault((demand.source, demand.tag), set())
            for bundle in demand.bundles:
                if demand.tag and given.intersection(bundle):
                    continue
                for spots in _spots(bundle, source.successors, capacity):
                    extra = []
                    for k, key in spots:
                        capacity[k, key] -= 1
                        used[key] = used.get(key, 0) + 1
                        if rack_only and used[key] > self.played.get(key, 0):
                            extra.append(Violation("JOKER_REPLACED_FROM_TABLE", f"/after/{k}", {"tile": key}))
                    given.update(bundle)
                    homes.extend((demand.source, k) for k, _ in spots)
                    place(d + 1, found + extra)
                    del homes[len(homes) - len(spots) :]
                    given.difference_update(bundle)
                    for k, key in spots:
                        capacity[k, key] += 1
                        used[key] -= 1
            place(d + 1, found + unmet(demand))

        place(0, [])
        if best is None:
            # no way to give the sets kept whole their copies (two locked sets whole in one
            # after-set holding the copies of one): ``_locked_sets`` says so; here every
            # demand goes unmet
            return [v for demand in demands for v in unmet(demand)]
        return best

    def _demands(self, jokers: list[_Joker], stays: list[_Stay | None]) -> Iterator[_Demand]:
        """What the freed jokers need in their sets' successors, set by set."""
        both_rule = self.rules.group_joker_needs_both_colours
        for n, source in enumerate(self.sources):
            mine = [(joker, stay) for joker, stay in zip(jokers, stays, strict=True) if joker.source == n]
            freed = [joker for joker, stay in mine if stay is None]
            if not freed:
                continue
            if self._readings_chosen[n].kind == RUN:
                for joker in freed:
                    (tile,) = joker.options
                    yield _Demand(n, ((tile,),), 1, 0, tile)
                continue
            for joker in freed:
                if joker.declared:
                    (tile,) = joker.options
                    yield _Demand(n, ((tile,),), 1, 0, tile)
            loose = [joker for joker in freed if not joker.declared]
            if not loose:
                continue
            stood_for = {stay.tile for _, stay in mine if stay is not None}
            colours = tuple(sorted(loose[0].options - stood_for))
            if both_rule and source.size == 3:
                yield _Demand(n, (colours,), len(loose), 0, " and ".join(colours))
            else:
                for _ in loose:
                    yield _Demand(n, tuple((c,) for c in colours), 1, 1, " or ".join(colours))

    def _locked_sets(self, jokers: list[_Joker], stays: list[_Stay | None]) -> list[Violation]:
        """Under ``joker_sets_locked``: a set whose jokers (some of them) stayed must keep them
        in one successor that holds all its numbered tiles."""
        found = []
        for n in range(len(self.sources)):
            homes = {stay.after for joker, stay in zip(jokers, stays, strict=True) if joker.source == n and stay}
            broken = self._broken(n, homes)
            if broken is not None:
                found.append(broken)
        wholes = self._whole_homes(jokers, stays)
        if wholes and not self._can_hold_copies(self._group_homes(jokers, stays), wholes):
            # two locked sets kept whole in one after-set that holds the copies of only one
            found.append(Violation("JOKER_SET_BROKEN", f"/after/{min(k for _, k in wholes)}", {}))
        return found

    def _broken(self, n: int, homes: set[int]) -> Violation | None:
        """``JOKER_SET_BROKEN`` for source ``n`` whose staying jokers are in the after-sets
        ``homes``, unless they are all in one that holds every numbered tile of the set."""
        if not homes:
            return None
        k = min(homes)
        theirs = self.after[k].numbered_counts
        if len(homes) == 1 and all(theirs.get(key, 0) >= c for key, c in self.sources[n].numbered.items()):
            return None
        return Violation("JOKER_SET_BROKEN", f"/after/{k}", {})

    def _placements(
        self, jokers: list[_Joker], freed: list[_Joker], fixed: dict[int, Reading], stays: list[_Stay | None]
    ) -> list[Violation]:
        """The fewest freed jokers misused, over every way of placing them on the after jokers
        that no staying joker took (memoised: many assignments free the same jokers)."""
        free: dict[int, int] = {k: self.after[k].jokers for k in self.open_after}
        for stay in stays:
            if stay is not None:
                free[stay.after] -= 1
        stayed_in = self._group_homes(jokers, stays)  # a run joker stays without a copy of its set
        # A freed joker did not stand for a tile a staying joker of its set stands for.
        stood_for: dict[int, set[str]] = {}
        for joker, stay in zip(jokers, stays, strict=True):
            if stay is not None:
                stood_for.setdefault(joker.source, set()).add(stay.tile)
        freed = [j._replace(options=j.options - stood_for.get(j.source, set())) for j in freed]
        memo_key = (
            tuple(sorted((j.source, self._readings_chosen[j.source].kind, tuple(sorted(j.options))) for j in freed)),
            tuple(free.values()),
            tuple(sorted((k, r.kind) for k, r in fixed.items())),
            tuple(sorted(stayed_in)),
            wholes := self._whole_homes(jokers, stays),
        )
        found = self._placement_memo.get(memo_key)
        if found is None:
            found = self._placement_memo[memo_key] = self._place_freed(freed, fixed, free, stayed_in, wholes)
        return found

    def _place_freed(
        self,
        freed: list[_Joker],
        fixed: dict[int, Reading],
        free: dict[int, int],
        stayed_in: frozenset[tuple[int, int]],
        wholes: frozenset[tuple[int, int]] = frozenset(),
    ) -> list[Violation]:
        """The fewest freed jokers misused (see ``_placements``); ``wholes``: the locked sets
        kept whole, as (source, after-set), whose copies all lie there."""
        rule = self.rules.freed_joker_use
        two_rack_tiles = rule == "new_set_with_two_rack_tiles"
        hosts = [k for k in self.open_after if free[k] > 0]
        if two_rack_tiles:  # a set that cannot hold two played tiles hosts no freed joker well
            hosts = [k for k in hosts if not self._holds_a_before_set(k) and self._played_room(k, free[k] - 1) >= 2]
        best_misused = len(freed) + 1
        best_at: list[int] = []
        replacing: dict[int, list[frozenset[str]]] = {}  # per source, what each freed joker may need
        if self.needs_tile:
            for joker in freed:
                replacing.setdefault(joker.source, []).append(joker.options)

        def avoids(joker: _Joker, k: int, kind: str | None) -> bool:
            """Whether joker's place in ``k`` is good only if ``k`` holds none of its set."""
            return two_rack_tiles or kind == self._readings_chosen[joker.source].kind

        def fits(joker: _Joker, k: int, kind: str | None) -> bool:
            if not avoids(joker, k, kind):
                return True
            return self._may_hold_none_of_one(joker.source, k, replacing.get(joker.source, []), stayed_in)

        def all_hold_none(avoided: frozenset[tuple[int, int]]) -> bool:
            """Whether the sets that must hold none of a source's tiles can, all at once."""
            by_source: dict[int, set[int]] = {}
            for n, k in avoided:
                by_source.setdefault(n, set()).add(k)
            return all(
                len(ks) < 2 or self._may_hold_none_of(n, frozenset(ks), replacing.get(n, []), stayed_in)
                for n, ks in by_source.items()
            ) and (not by_source or self._sources_held_elsewhere(by_source, wholes))

        def place(
            n: int,
            left: dict[int, int],
            kinds: dict[int, str | None],
            good: dict[int, int],
            bad: int,
            avoided: frozenset[tuple[int, int]],
        ) -> None:
            nonlocal best_misused, best_at
            if bad >= best_misused:
                return
            if n == len(freed):
                if good and two_rack_tiles and not self._two_played_each(good, free):
                    return
                if two_rack_tiles and not all(self._new_set(k, avoided, freed) for k in good):
                    return
                # (the set-by-set checks above first: cheaper, and where most placements fail)
                if two_rack_tiles and not self._new_sets_together(sorted(good), avoided, free, good, freed):
                    return
                if not all_hold_none(avoided):
                    return
                best_misused = bad
                best_at = sorted(k for k, room in left.items() if room > 0)
                return
            joker = freed[n]
            for k in hosts:
                if not left[k]:
                    continue
                for kind in _kinds(k, kinds, fixed, self.after_readings):
                    if fits(joker, k, kind):
                        here = avoided | {(joker.source, k)} if avoids(joker, k, kind) else avoided
                        good_here = {**good, k: good.get(k, 0) + 1}
                        place(n + 1, {**left, k: left[k] - 1}, {**kinds, k: kind}, good_here, bad, here)
            place(n + 1, left, kinds, good, bad + 1, avoided)

        place(0, dict(free), {}, {}, 0, frozenset())
        params = {"rule": rule}
        return [
            Violation("FREED_JOKER_MISUSED", f"/after/{best_at[m]}" if m < len(best_at) else "/after", params)
            for m in range(best_misused)
        ]

    def _may_hold_none_of_one(
        self, n: int, k: int, replacing: list[frozenset[str]], stayed_in: frozenset[tuple[int, int]]
    ) -> bool:
        """``_may_hold_none_of`` for one after-set, each freed joker's need judged on its own (the
        jokers of an undeclared group share their options: which one needs which tile is open)."""
        return all(
            self._may_hold_none_of(n, frozenset((k,)), [options], stayed_in) for options in replacing or [frozenset()]
        )

    def _may_hold_none_of(
        self, n: int, ks: frozenset[int], replacing: list[frozenset[str]], stayed_in: frozenset[tuple[int, int]]
    ) -> bool:
        """Whether the after-sets ``ks`` can be read, all at once, as holding no numbered tile of
        source ``n``: equal tiles are interchangeable, so their copies may be other sets' or
        played ones whenever the rest of the after table has room for every copy of the source's
        tiles. Not when that reading would contradict the rest of the verdict: a joker of ``n``
        staying in one of them, or freed jokers of ``n`` whose replacing tiles lie in them and
        find no copy each in the other successors."""
        mine = [k for k in ks if k in self.sources[n].successors]
        if not mine:
            return True
        if any((n, k) in stayed_in for k in mine):
            return False
        inside = self._numbered_in(mine)
        outside = self._numbered_in(m for m in self.sources[n].successors if m not in ks)
        every = self.rules.group_joker_needs_both_colours and self.sources[n].size == 3
        lying_inside = any(inside.get(key) for options in replacing for key in options)
        if lying_inside and not _each_finds_a_copy(replacing, outside, every):
            return False
        return all(
            self.room_numbered.get(key, 0) - inside.get(key, 0) >= c for key, c in self.sources[n].numbered.items()
        )

    def _sources_held_elsewhere(
        self, avoided: Mapping[int, set[int]], wholes: frozenset[tuple[int, int]] = frozenset()
    ) -> bool:
        """Whether one assignment of equal copies puts every copy of each source ``n`` outside
        the after-sets ``avoided[n]``, all sources at once (each alone: ``_may_hold_none_of``),
        and every copy of a locked set kept whole in its after-set (``wholes``: (source,
        after-set)). E.g. ``K1 J K3`` + ``K1 K2 J`` -> ``K1 K2 K3`` + ``K1 K2 K3 J J``, both
        jokers freed into the long run under ``other_set``: its one K1 is either set's, so one
        joker is misused. Per tile, Hall's condition: the copies of every group of sources fit
        in the after-sets that not all of them avoid."""
        avoided = {n: set(ks) for n, ks in avoided.items()}
        for n, home in wholes:
            avoided.setdefault(n, set()).update(k for k in self.room_sets if k != home)
        if len(avoided) < 2:
            return True
        for key in {key for n in avoided for key in self.sources[n].numbered}:
            holders = [n for n in avoided if self.sources[n].numbered.get(key)]
            for size in range(2, len(holders) + 1):
                for group in itertools.combinations(holders, size):
                    shut = set.intersection(*(avoided[n] for n in group)) & self.room_sets
                    room = self.room_numbered.get(key, 0) - sum(self.after[k].numbered_counts.get(key, 0) for k in shut)
                    if sum(self.sources[n].numbered[key] for n in group) > room:
                        return False
        return True

    def _numbered_in(self, ks: Iterable[int]) -> dict[str, int]:
        """The numbered tiles of the after-sets ``ks``, counted together."""
        found: dict[str, int] = {}
        for k in ks:
            for key, n in self.after[k].numbered_counts.items():
                found[key] = found.get(key, 0) + n
        return found

    def _new_set(self, k: int, avoided: frozenset[tuple[int, int]], freed: list[_Joker]) -> bool:
        """Whether after-set ``k`` is a *new* set with one assignment of equal copies for both
        conditions at once: none of its copies comes from the before-sets of the freed jokers
        it holds (``avoided``: (source, after-set) pairs), and for every before-set some tile of
        it is not that set's copy in ``k``. Under ``joker_replacement_from: rack`` the played
        copies that must replace a freed joker (needing one tile) in a successor of its set that
        ``k`` is not (by its tiles, or as it holds none of that set's) are not ``k``'s, where
        another successor holds one. E.g. ``R4 R5 R6`` + ``J R3 R4`` ->
        ``R2 R3 R4`` + ``R2 R3 R4 R5 R6 J``: its R4 is either set's copy, so it holds a tile of
        the joker's set or all of ``R4 R5 R6``: no new set."""
        theirs = self.after[k].numbered_counts
        hosted = {n for n, m in avoided if m == k}  # (holding none of their copies: no successor)
        excluded = self._hosted_before_sets(avoided, k)
        reserved: dict[str, int] = {}
        if self.rules.joker_replacement_from == "rack":
            for joker in freed:
                if joker.declared and (joker.source in hosted or k not in self.sources[joker.source].successors):
                    (tile,) = joker.options
                    elsewhere = (m for m in self.sources[joker.source].successors if m != k)
                    if any(self.after[m].numbered_counts.get(tile) for m in elsewhere):
                        # (where no other successor holds one the joker goes unreplaced anyway)
                        reserved[tile] = reserved.get(tile, 0) + 1
        available = {key: max(0, n - reserved.get(key, 0)) for key, n in self.played.items()}
        for i, s in enumerate(self.before):
            if i not in excluded:
                for key, n in s.numbered_counts.items():
                    available[key] = available.get(key, 0) + n
        if any(n > available.get(key, 0) for key, n in theirs.items()):
            return False
        # each before-set it could hold whole needs a tile of which it holds one copy less
        # than there are (a spare copy of its own, the set's copy being elsewhere)
        threatened = [
            frozenset(s.numbered_counts)
            for i, s in enumerate(self.before)
            if i not in excluded
            and s.numbered_counts
            and all(theirs.get(key, 0) >= n for key, n in s.numbered_counts.items())
        ]
        spare = {key: available[key] - n for key, n in theirs.items()}
        return _each_finds_a_copy(threatened, spare, False)

    def _new_sets_together(
        self,
        hosts: list[int],
        avoided: frozenset[tuple[int, int]],
        free: dict[int, int],
        good: dict[int, int],
        freed: list[_Joker],
    ) -> bool:
        """Whether the sets hosting freed jokers are new sets holding two played tiles each under
        one assignment of equal copies for all of them at once (``_new_set`` and
        ``_two_played_each`` judge the conditions set by set): each copy comes from one place,
        a before-set or the rack; a host takes none from the before-sets of the jokers it holds,
        does not take every copy of any before-set, and takes two played tiles (a played joker
        counting as one). E.g. ``O6 K6 J=B6 R6`` + ``R11 R12 J=R13`` ->
        ``O6 K6 B6 R6`` + ``J R12 B12 K12`` + ``J R11 R12 R13`` with an R12 played: the run's
        joker must go to the group, whose R12 is then the played one, so the run holds all of
        ``R11 R12``; the group's joker cannot go to the run either. Under
        ``joker_replacement_from: rack`` each freed joker also needs a played copy of a tile it
        may stand for in a successor of its set, where the hosts leave one (``O6 J K6`` +
        ``B1 J B3 B4 B5 B6`` -> ``O6 B6 K6`` + ``K11 K12 K13 J`` + ``J B1 … B6``, pressman: the
        played B6 replaces the group's joker, so the run's B6 is its set's own and the run holds
        all of it). Necessary only (the other after-sets take what is left; the copies every
        freed joker may use are pooled). The searches over copies share ``JOINT_CHECK_STEPS`` per
        turn: beyond them the hosts stand as judged set by set (each host's copies are tried in
        every way, which grows exponentially with its tiles)."""
        # the host with the fewest tiles first: its copies are the scarcest choice
        hosts = sorted(hosts, key=lambda k: (sum(self.after[k].numbered_counts.values()), k))
        sources: dict[str, list[tuple[int, int]]] = {}  # key -> [(before-set or -1 for the rack, copies)]
        for i, before_set in enumerate(self.before):
            for key, n in before_set.numbered_counts.items():
                sources.setdefault(key, []).append((i, n))
        for key, n in self.played.items():
            if key != JOKER_KEY:
                sources.setdefault(key, []).append((-1, n))
        left = {(key, i): n for key, found in sources.items() for i, n in found}
        played_jokers = self.played.get(JOKER_KEY, 0)

        host_set = set(hosts)
        taken_by: dict[int, dict[tuple[str, int], int]] = {}

        def replaced(j: int, used: dict[tuple[int, str], int], hosted: bool) -> bool:
            """Whether freed jokers ``j`` on each find a played copy of one of their tiles in a
            successor of their set: in a host, a copy it took from the rack (a host being a
            successor only when it took a copy of that set's); elsewhere, one of the played
            copies the hosts left (``m`` -1 in ``used``). Not ``hosted``: any played
            copy, wherever the hosts take theirs."""
            if j == len(freed):
                return True
            joker = freed[j]
            own = self.sources[joker.source].index
            for key in sorted(joker.options):
                # a host is a successor of the joker's set only when it took one of its copies
                places = [
                    m
                    for m in self.sources[joker.source].successors
                    if self.after[m].numbered_counts.get(key)
                    and (not hosted or m not in host_set or any(i == own and n for (_, i), n in taken_by[m].items()))
                ]
                units = {m: taken_by[m].get((key, -1), 0) for m in places if m in host_set} if hosted else {}
                if any(m not in host_set or not hosted for m in places):
                    units[-1] = left.get((key, -1), 0) if hosted else self.played.get(key, 0)
                for m, n in units.items():
                    if used.get((m, key), 0) < n:
                        used[(m, key)] = used.get((m, key), 0) + 1
                        if replaced(j + 1, used, hosted):
                            return True
                        used[(m, key)] -= 1
            return False

        # under a replacement from the rack, unless the jokers cannot all be replaced by played
        # copies anyway (that is reported as such: the hosts are not judged by it)
        rack_replaced = self.needs_tile and self.rules.joker_replacement_from == "rack" and replaced(0, {}, False)

        def assign(h: int, jokers_left: int) -> bool:
            if h == len(hosts):
                return not rack_replaced or replaced(0, {}, True)
            k = hosts[h]
            banned = self._hosted_before_sets(avoided, k)
            # the tiles with the fewest places first: a dead end shows early
            wanted = sorted(
                self.after[k].numbered_counts.items(),
                key=lambda kv: (sum(1 for i, _ in sources.get(kv[0], []) if i not in banned), kv[0]),
            )
            taken: dict[tuple[str, int], int] = {}
            taken_by[k] = taken

            def tile(t: int) -> bool:
                self.joint_steps -= 1
                if self.joint_steps < 0:
                    raise _OutOfSteps
                if t == len(wanted):
                    whole = any(
                        before_set.numbered_counts
                        and all(taken.get((key, i), 0) >= n for key, n in before_set.numbered_counts.items())
                        for i, before_set in enumerate(self.before)
                    )
                    if whole:
                        return False
                    from_rack = sum(n for (_, i), n in taken.items() if i == -1)
                    jokers = min(free[k] - good[k], jokers_left, max(0, 2 - from_rack))
                    if from_rack + jokers < 2:
                        return False
                    return assign(h + 1, jokers_left - jokers)
                key, count = wanted[t]
                places = [i for i, _ in sources.get(key, []) if i not in banned]
                return any(tile(t + 1) for _ in self._spread(key, count, places, left, taken))

            return tile(0)

        try:
            return assign(0, played_jokers)
        except _OutOfSteps:
            return True

    def _hosted_before_sets(self, avoided: frozenset[tuple[int, int]], k: int) -> set[int]:
        """The before-sets (indices) of the freed jokers after-set ``k`` hosts where it must
        hold none of their tiles (``avoided``: (source, after-set) pairs)."""
        return {self.sources[n].index for n, m in avoided if m == k}

    @staticmethod
    def _spread(
        key: str, count: int, places: list[int], left: dict[tuple[str, int], int], taken: dict[tuple[str, int], int]
    ) -> Iterator[None]:
        """Every way of taking ``count`` copies of ``key`` from ``places`` (as many as each has
        left), applied to ``left`` and ``taken`` while the caller looks further."""
        if count == 0:
            yield
            return
        if not places:
            return
        first, rest = places[0], places[1:]
        for n in range(min(count, left[(key, first)]), -1, -1):
            left[(key, first)] -= n
            taken[(key, first)] = taken.get((key, first), 0) + n
            yield from _Search._spread(key, count - n, rest, left, taken)
            left[(key, first)] += n
            taken[(key, first)] -= n

    def _holds_a_before_set(self, k: int) -> bool:
        """Whether after-set ``k`` must hold every numbered tile of some before-set (so it is no
        new set): it holds every copy on the after table of each of that set's tiles."""
        found = self._old_after.get(k)
        if found is None:
            theirs = self.after[k].numbered_counts
            whole = self.after_numbered
            found = self._old_after[k] = any(
                all(whole.get(key, 0) == theirs.get(key, 0) >= n for key, n in s.numbered_counts.items())
                for s in self.before
            )
        return found

    def _played_room(self, k: int, jokers: int) -> int:
        """How many tiles played this turn after-set ``k`` could hold, ``jokers`` of its jokers
        being free to count as played ones."""
        played = self.played
        room = sum(min(n, played.get(key, 0)) for key, n in self.after[k].numbered_counts.items())
        return room + min(jokers, played.get(JOKER_KEY, 0))

    def _two_played_each(self, good: dict[int, int], free: dict[int, int]) -> bool:
        """Whether every set hosting a well-placed freed joker can hold two tiles played from the
        rack, each played copy counted for one set only (played jokers are the after jokers that
        no staying or freed joker took)."""
        hosts = sorted(k for k, n in good.items() if n)
        caps = []
        for k in hosts:
            cap = dict(self.after[k].numbered_counts)
            cap[JOKER_KEY] = free[k] - good[k]
            caps.append(cap)
        return _supplied([2] * len(hosts), caps, self.played)


def _supplied(demand: Sequence[int], caps: Sequence[Mapping[str, int]], supply: Mapping[str, int]) -> bool:
    """Whether each taker ``t`` can get ``demand[t]`` copies, at most ``caps[t][key]`` of each
    tile and no tile more than ``supply[key]`` in all: a flow, grown one copy at a time along
    augmenting paths (Ford-Fulkerson). Polynomial, where trying every choice took minutes for
    four sets hosting freed jokers among 40 played tiles (session 35's worst-case hunt)."""
    given: list[dict[str, int]] = [{} for _ in demand]
    used: dict[str, int] = {}

    def augment(t: int, takers_seen: set[int], keys_seen: set[str]) -> bool:
        takers_seen.add(t)
        for key, cap in caps[t].items():
            if key in keys_seen or given[t].get(key, 0) >= cap:
                continue
            keys_seen.add(key)
            if used.get(key, 0) < supply.get(key, 0):
                used[key] = used.get(key, 0) + 1
                given[t][key] = given[t].get(key, 0) + 1
                return True
            # another taker holding a copy of it takes something else instead
            for u, theirs in enumerate(given):
                if u not in takers_seen and theirs.get(key, 0) > 0 and augment(u, takers_seen, keys_seen):
                    theirs[key] -= 1
                    given[t][key] = given[t].get(key, 0) + 1
                    return True
        return False

    wanted = list(demand)
    grown = True
    while grown and any(wanted):
        grown = False
        for t, n in enumerate(wanted):
            if n and augment(t, set(), set()):
                wanted[t] -= 1
                grown = True
    return not any(wanted)


def _each_finds_a_copy(needs: list[frozenset[str]], copies: Mapping[str, int], every: bool) -> bool:
    """Whether each need gets its own copy of one of its tiles from ``copies`` (with ``every``:
    every tile of each need is there): a flow (``_supplied``), where trying every way to serve
    the needs took minutes for twenty of them competing for the last copies."""
    needs = [options for options in needs if options]
    if every:
        return all(copies.get(key, 0) for options in needs for key in options)
    return _supplied([1] * len(needs), [dict.fromkeys(sorted(options), 1) for options in needs], copies)


class _Demand(NamedTuple):
    """Copies that freed jokers of one set need in its successors: one ``bundle`` of tiles
    (every tile in it), ``weight`` violations when none can be had. Demands of one set with the
    same non-zero ``tag`` must take different tiles (group jokers stood for different colours)."""

    source: int
    bundles: tuple[tuple[str, ...], ...]
    weight: int
    tag: int
    label: str


def _spots(
    bundle: tuple[str, ...], successors: Sequence[int], capacity: Mapping[tuple[int, str], int]
) -> Iterator[list[tuple[int, str]]]:
    """Every way to take one copy of each tile of ``bundle`` (distinct tiles) from the
    successors' free copies."""
    choices = [[(k, key) for k in successors if capacity.get((k, key), 0) > 0] for key in bundle]
    for spots in itertools.product(*choices):
        yield list(spots)


def _kinds(
    k: int, kinds: dict[int, str | None], fixed: dict[int, Reading], readings: Mapping[int, tuple[Reading, ...]]
) -> list[str | None]:
    """The kinds after-set ``k`` may be read as, given the choices made so far."""
    if k in kinds:
        return [kinds[k]]
    if k in fixed:
        return [fixed[k].kind]
    read_as: list[str | None] = [kind for kind in (RUN, GROUP) if any(r.kind == kind for r in readings[k])]
    return read_as or [None]

"""Where freed jokers may go (``freed_joker_use``, SPEC §4): the fewest freed jokers misused over
every way of placing them on the after jokers no staying joker took (``placements``,
``_place_freed``): under ``other_set`` in a set that may hold none of its own set's tiles
(``_may_hold_none_of``, for several sets at once ``_sources_held_elsewhere``), under ``new_set_with_two_rack_tiles`` in a new set (``_new_set``, and
for all hosts at once ``_new_sets_together``) holding two played tiles (``_two_played_each``);
and whether jokers judged freed can leave their places at all, or only stayed
(``freed_can_leave``). Functions of the joker search's state (``engine.jokers.JokerSearch``),
taken first."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from engine import joker_replacement, joker_stays, locked_joker_sets, new_sets_programme
from engine.copy_flows import copies_supplied, each_finds_a_copy
from engine.sets import GROUP, RUN, Reading
from engine.tiles import JOKER_KEY
from engine.violations import Violation

if TYPE_CHECKING:
    from engine.joker_pieces import CopiesAt, Joker, Stay
    from engine.jokers import JokerSearch


Jointly = Callable[[frozenset[tuple[int, int]], "CopiesAt"], bool]
"""Whether the freed jokers' replacements hold with the (source, after-set) pairs a placement
avoids and the played copies a new set fixes (``placements``)."""

Beside = Callable[[frozenset[tuple[int, int]], "CopiesAt"], list[Violation]]
"""The replacement violations in a placement's own reading: with the (source, after-set) pairs
it avoids and the played copies a new set fixes (``placements``). Under locked sets the jokers
not replaced under the replace rule alone (``JOKER_NOT_REPLACED``, told beside the lock);
without them every replacement violation (told in the stead of those with nothing avoided)."""


class _OutOfSteps(Exception):
    """``engine.jokers.JOINT_CHECK_STEPS`` used up."""


def freed_can_leave(
    search: JokerSearch, jokers: list[Joker], fixed: dict[int, Reading], stays: list[Stay | None]
) -> bool:
    """Whether the freed jokers can each end on an after joker no staying joker took, in a
    place where none of them would stay, or off the table (as many as the after-sets lack)."""
    taken = {(s.after, s.position) for s in stays if s is not None}
    slots = [(k, p) for k in search.open_after for p in range(search.after[k].jokers) if (k, p) not in taken]
    off_table = max(0, len(jokers) - sum(search.after[k].jokers for k in search.open_after))
    freed = [j for j, stay in zip(jokers, stays, strict=True) if stay is None]
    stood_for: dict[tuple[str, int], set[str]] = {("a", s.after): set() for s in stays if s is not None}
    for joker, s in zip(jokers, stays, strict=True):
        if s is not None:
            stood_for[("a", s.after)].add(s.tile)
            stood_for.setdefault(("b", joker.source), set()).add(s.tile)

    stayed_in = joker_stays.group_homes(search, jokers, stays)  # a run joker stays without a copy of its set
    replacing = [joker.options for joker in freed] if search.needs_tile else []

    def must_stay(joker: Joker, k: int, p: int) -> bool:
        kind = search.readings_chosen[joker.source].kind
        if joker_replacement.replaced_by_its_tile(search, joker, kind):
            return False  # its exact tile took its place: freed, wherever it went
        if search.locked and locked_joker_sets.merged_with_exact_tile(
            search, joker, [other.options for other in freed if other.source == joker.source]
        ):
            # its set merged whole into a successor holding its exact tile in its place, a copy
            # of a locked set merged there too (``R1 R2 J`` + ``R3 R4 J`` -> ``R1 R2 R3 R4 J`` +
            # ``R2 J R4``): freed there, whatever its new place stands for (the lock's claim on
            # that copy is judged with the replacements; the set's staying jokers keep their
            # places there); an independent oracle, session 57
            return False
        mine = [options for other, options in zip(freed, replacing, strict=False) if other.source == joker.source]
        if kind != RUN and _may_hold_none_of_one(search, joker.source, k, mine, stayed_in):
            return False  # a group joker stays only in a successor
        readings = [fixed[k]] if k in fixed else search.after_readings[k]
        gone = stood_for.get(("a", k), set()) | stood_for.get(("b", joker.source), set())
        return bool(readings) and all(r.kind == kind and joker.options & r.joker_keys[p] - gone for r in readings)

    # (nor on one where another of them would stay: the joker there would be that one,
    # stayed, as two run jokers standing for K12 and K13 swapped would both have stayed)
    open_slots = [(k, p) for k, p in slots if not any(must_stay(joker, k, p) for joker in freed)]
    return len(freed) <= len(open_slots) + off_table


def placements(
    search: JokerSearch, jokers: list[Joker], freed: list[Joker], fixed: dict[int, Reading], stays: list[Stay | None]
) -> tuple[list[Violation], list[Violation]]:
    """The fewest freed jokers misused, over every way of placing them on the after jokers
    that no staying joker took (memoised: many assignments free the same jokers). With it,
    the same judged without the placements read with their hosts taking the replacing copies
    (``_place_freed``'s ``relaxed``; the same list, the same object, where none reads better):
    what ``engine.jokers`` cuts its search by."""
    free: dict[int, int] = {k: search.after[k].jokers for k in search.open_after}
    for stay in stays:
        if stay is not None:
            free[stay.after] -= 1
    stayed_in = joker_stays.group_homes(search, jokers, stays)  # a run joker stays without a copy of its set
    wholes = locked_joker_sets.whole_homes(search, jokers, stays)  # locked sets keeping their copies
    # A freed joker did not stand for a tile a staying joker of its set stands for.
    stood_for: dict[int, set[str]] = {}
    for joker, stay in zip(jokers, stays, strict=True):
        if stay is not None:
            stood_for.setdefault(joker.source, set()).add(stay.tile)
    freed = [j._replace(options=j.options - stood_for.get(j.source, set())) for j in freed]
    jointly: Jointly | None = None
    unreplaced = 0  # freed jokers without a replacing tile: already told (JOKER_NOT_REPLACED)
    if search.needs_tile:
        found_replacing = joker_replacement.replacements(search, jokers, stays)
        replaced = len(found_replacing)
        unreplaced = sum(v.code != "JOKER_REPLACED_FROM_TABLE" for v in found_replacing)

        def jointly(avoided: frozenset[tuple[int, int]], reserved: CopiesAt = frozenset()) -> bool:
            """Whether the freed jokers are replaced as well with their sources' tiles kept
            out of the after-sets their places avoid (one reading for both rules: pressman-2009,
            ``R2 K2 O2 J`` + ``K2 J B2`` -> ``K2 J B2`` + ``B2 J O2 R2`` + ``K2 O2 R2``, the
            played B2 replaces the first joker beside the set's O2 or R2 only in the set its
            joker must find new; an independent turn oracle, session 43)."""
            return joker_replacement.replaced_within(search, jokers, stays, replaced, avoided, reserved)

    beside: Beside | None = None
    free_both = search.rules.joker_release == "free" and search.rules.group_joker_needs_both_colours
    # (under ``other_set`` only: a ``new_set_with_two_rack_tiles`` placement also keeps the
    # homes of the locked sets kept whole from hosting, a set so kept being broken all the
    # same by a joker of it freed unreplaced, a choice the replace rule alone does not share;
    # the same check there moved one answer of 12,000 out of an independent judge's fewest
    # codes, and into it none; session 59)
    if (
        search.locked
        and (search.rules.joker_release == "replace" or free_both)
        and search.rules.freed_joker_use == "other_set"
    ):

        def beside(avoided: frozenset[tuple[int, int]], reserved: CopiesAt = frozenset()) -> list[Violation]:
            """The jokers not replaced under the replace rule alone (reported beside the locked
            sets, ``engine.jokers``) with the sources' tiles kept out of the after-sets the
            placement avoids: the same reading as the placement's (SPEC §4, one consistent
            assignment; xp strict-joker + ``other_set``, ``K1 K2 J`` + ``K2 K3 J`` + ``K4 K5 J``
            -> ``K3 O3 B3`` + ``K2 R2 O2`` + ``K1 K2 K3 K4 K5 J J`` + ``R6 R7 J``: the K4 joker
            in the long run is misused, or ``K2 K3 J``'s tiles lie in the groups alone and it is
            not replaced; was ``JOKER_SET_BROKEN`` alone, R3J-5 of an independent judge,
            session 58)."""
            found = joker_replacement.replacements(
                search, jokers, stays, locked=False, avoid=avoided, reserved=reserved, group_tiles=free_both
            )
            return [v for v in found if v.code == "JOKER_NOT_REPLACED"]

    elif jointly is not None and not search.locked:

        def beside(avoided: frozenset[tuple[int, int]], reserved: CopiesAt = frozenset()) -> list[Violation]:
            """Without locked sets, the freed jokers' replacements themselves with the sources'
            tiles kept out of the after-sets the placement avoids: a placement costs the
            replacements it loses, and its own are the ones told (SPEC §4, one consistent
            assignment; sabra + rack + ``other_set``, ``J=R7 R8 R9 R10`` + ``R6 R7 R8 J`` +
            ``O13 K13 R13`` -> ``R6 R7 R8 R9`` + ``R13 O13 J K13`` + ``R8 R9 R10 J``, rack
            ``R9``: the table R7 replaces the first joker only if the long run holds the first
            set's tiles, and then a joker in the run of that set's tiles is misused; was
            ``JOKER_REPLACED_FROM_TABLE`` alone, now ``JOKER_NOT_REPLACED``; pressman-2009 with
            both colours, ``J K10 O10`` + ``R10 R11 R12`` -> ``K10 O10 B10`` + ``R11 R12 R13`` +
            ``R10 K10 B10 J``, rack ``B10 B10 K10 R13``: the K10 beside the joker the played
            one, no successor holds R10; was ``JOKER_REPLACED_FROM_TABLE`` +
            ``FREED_JOKER_MISUSED``, now ``JOKER_NOT_REPLACED``; O4-C1/C2/C3 of an independent
            referee, session 59)."""
            return joker_replacement.replacements(search, jokers, stays, avoid=avoided, reserved=reserved)

        jointly = None  # (the cost above in its place)
        unreplaced = len(freed)  # (nor do the places ask for the replacements: they are told)

    memo_key = (
        tuple(sorted((j.source, search.readings_chosen[j.source].kind, tuple(sorted(j.options))) for j in freed)),
        tuple(free.values()),
        tuple(sorted((k, r.kind) for k, r in fixed.items())),
        tuple(sorted(stayed_in)),
        wholes,
        tuple(stays) if search.needs_tile else (),
    )
    found = search.placement_memo.get(memo_key)
    if found is None:
        found = search.placement_memo[memo_key] = _place_freed(
            search, freed, fixed, free, stayed_in, wholes, jointly, unreplaced, beside
        )
    return found


def _place_freed(
    search: JokerSearch,
    freed: list[Joker],
    fixed: dict[int, Reading],
    free: dict[int, int],
    stayed_in: frozenset[tuple[int, int]],
    wholes: frozenset[tuple[int, int]] = frozenset(),
    jointly: Jointly | None = None,
    unreplaced: int = 0,
    beside: Beside | None = None,
) -> tuple[list[Violation], list[Violation]]:
    """The fewest freed jokers misused (see ``placements``); ``wholes``: the locked sets
    kept whole, as (source, after-set), whose copies all lie there; ``jointly``: whether
    the freed jokers' replacements hold with the (source, after-set) pairs a placement
    avoids; ``unreplaced``: how many freed jokers have no replacing tile (so need no copy
    of their set beside one); ``beside``: under locked sets, the jokers not replaced under
    the replace rule alone with those pairs avoided (without them, the replacements
    themselves so judged, told in the stead of those with nothing avoided, the
    cheaper of equal placements the one losing fewer: session 59). A placement whose avoided pairs leave
    more jokers so unreplaced than nothing avoided does costs those too, and the answer is
    then the misused jokers and every ``JOKER_NOT_REPLACED`` of that one reading. Between
    placements costing as many, the one misusing fewer: with nothing avoided the replace rule
    counts a copy in every after-set holding a tile of the set, even where a set kept whole
    holds that tile's only copy, so a placement resting on that count may rest on no reading
    (``J K3 K4`` + ``J K4 K5`` -> ``K4 K5 K6`` + ``J J K3 K4``, strict-joker + ``other_set``:
    the first set kept whole with its joker as K2, the second's freed into the long run would
    be misused only with its K4 there, the kept set's; kept out, no successor holds its K3:
    ``JOKER_SET_BROKEN`` + ``JOKER_NOT_REPLACED``, an independent judge's only fewest codes,
    session 59)."""
    rule = search.rules.freed_joker_use
    two_rack_tiles = rule == "new_set_with_two_rack_tiles"
    hosts = [k for k in search.open_after if free[k] > 0]
    if two_rack_tiles:  # a set that cannot hold two played tiles hosts no freed joker well
        hosts = [k for k in hosts if not _holds_a_before_set(search, k) and _played_room(search, k, free[k] - 1) >= 2]
        # nor the home of a locked set kept whole: it holds every copy of that set, so it is no
        # new set (``R4 J R6`` kept whole in ``R3 R4 J R6 J``: its R6 is the set's, not the
        # played one; an independent turn oracle, session 43)
        homes = {k for _, k in wholes}
        hosts = [k for k in hosts if k not in homes]
    # the before-sets whose copies all lie in their homes: none is a host's (xp, locked sets,
    # ``R3 R4 J R6`` + ``J J R5 R6`` + ``O4 B4 J`` -> ``J R3 R4 J R6`` + ``J R5 R6 R7`` +
    # ``R3 J R5 R6`` + ``O4 K4 B4``: the second set kept whole in the third after-set, its R6 is
    # no new set's; known gap 1 of session 43, from an independent turn oracle)
    kept = frozenset(search.sources[n].index for n, _ in wholes)
    best_misused = len(freed) + 1
    best_at: list[int] = []
    told = len(beside(frozenset(), frozenset())) if beside is not None else 0  # with nothing avoided

    def key(misused: int, extra: int, relaxed: int = 0) -> tuple[int, int, int]:
        """A placement's rank: its cost (the misused jokers and the unreplaced beyond ``told``),
        then between equal costs fewer misused under locked sets, fewer lost replacements
        without them (the reading with nothing kept apart, as before; hand-made case
        h7-s51-356, ``R4 R5 J`` twice -> ``R4 R5 R6 J`` + ``R4 R5 J``, stays misused), then
        a placement whose hosts leave the freed jokers' replacing copies alone over one whose
        hosts take them (``relaxed``, see ``place``)."""
        return (misused + extra, misused if search.locked else extra, relaxed)

    best_key = key(best_misused, 0)
    best_beside: list[Violation] = []  # the best placement's unreplaced, when beyond ``told``
    replacing: dict[int, list[frozenset[str]]] = {}  # per source, what each freed joker may need
    if search.needs_tile:
        for joker in freed:
            replacing.setdefault(joker.source, []).append(joker.options)

    def avoids(joker: Joker, k: int, kind: str | None) -> bool:
        """Whether joker's place in ``k`` is good only if ``k`` holds none of its set."""
        return two_rack_tiles or kind == search.readings_chosen[joker.source].kind

    def fits(joker: Joker, k: int, kind: str | None) -> bool:
        if not avoids(joker, k, kind):
            return True
        return _may_hold_none_of_one(search, joker.source, k, replacing.get(joker.source, []), stayed_in, unreplaced)

    def all_hold_none(avoided: frozenset[tuple[int, int]]) -> bool:
        """Whether the sets that must hold none of a source's tiles can, all at once."""
        by_source: dict[int, set[int]] = {}
        for n, k in avoided:
            by_source.setdefault(n, set()).add(k)
        # jointly where several sets, or several freed jokers of one set, are judged (the
        # jokers of one set each need a copy of their tile outside: session 42)
        return all(
            (len(ks) < 2 and len(replacing.get(n, [])) < 2)
            or _may_hold_none_of(search, n, frozenset(ks), replacing.get(n, []), stayed_in, unreplaced)
            for n, ks in by_source.items()
        ) and (not by_source or _sources_held_elsewhere(search, by_source, wholes, replacing, unreplaced))

    def keep(bad: int, rank: tuple[int, int, int], told_here: list[Violation], left: dict[int, int]) -> None:
        """A placement misusing ``bad`` jokers (those left in ``left``'s hosts), ranked ``rank``,
        its own replacement violations ``told_here``: the best so far."""
        nonlocal best_misused, best_at, best_key, best_beside
        best_misused, best_key, best_beside = bad, rank, told_here
        # (in the order of their tiles: the pointers do not follow the turn's listing; a set
        # holding two misused jokers is named twice: an independent oracle, session 56)
        misused_in = sorted((k for k, room in left.items() if room > 0), key=lambda k: (search.after[k].content, k))
        best_at = [k for k in misused_in for _ in range(left[k])]

    def place(
        n: int,
        left: dict[int, int],
        kinds: dict[int, str | None],
        good: dict[int, int],
        bad: int,
        avoided: frozenset[tuple[int, int]],
    ) -> None:
        if key(bad, 0) >= best_key:
            return  # (no placement below ranks better: it misuses ``bad`` jokers at least)
        if n == len(freed):
            if good and two_rack_tiles and not _two_played_each(search, good, free):
                return
            # (the set-by-set checks first: cheaper, and where most placements fail)
            if two_rack_tiles and not (
                all(_new_set(search, k, avoided, freed, kept) for k in good)
                and _new_sets_together(search, sorted(good), avoided, free, good, freed, stayed_in, kept)
            ):
                if relax and key(bad, max(0, 1 - told), 1) < best_key:
                    deferred.append((bad, left, good, avoided))  # (judged once the others are)
                return
            if not all_hold_none(avoided):
                return
            reserved = _fixed_played(search, good, two_rack_tiles)
            if jointly is not None and avoided and not jointly(avoided, reserved):
                return
            more = beside(avoided, reserved) if beside is not None and avoided else []
            extra = max(0, len(more) - told)
            if key(bad, extra) < best_key:
                keep(bad, key(bad, extra), more if extra or not search.locked else [], left)
            return
        joker = freed[n]
        for k in hosts:
            if not left[k]:
                continue
            for kind in _kinds(k, kinds, fixed, search.after_readings):
                if fits(joker, k, kind):
                    here = avoided | {(joker.source, k)} if avoids(joker, k, kind) else avoided
                    good_here = {**good, k: good.get(k, 0) + 1}
                    place(n + 1, {**left, k: left[k] - 1}, {**kinds, k: kind}, good_here, bad, here)
        place(n + 1, left, kinds, good, bad + 1, avoided)

    def relaxed(bad: int, left: dict[int, int], good: dict[int, int], avoided: frozenset[tuple[int, int]]) -> None:
        """A placement the new-set checks refused, read with its hosts taking the played copies
        those checks keep for the freed jokers' replacements (``_relaxed_hosts``): its cost is
        then the replacements so lost, told as that reading's own (SPEC §4: the consistent
        reading with fewest violations; pressman-2009, ``R4 R5 R6 J`` + ``R7 R8 R9 J`` ->
        ``R4 R5 R6 R7`` + ``R8 R9 R10`` + ``O7 R7 J J`` with R7 R10 O7 played: the played R7
        the group's, the first joker replaced from the table, one violation where the new-set
        checks, keeping that R7 for the run, found both jokers misused; the documented gap of
        session 41, an independent referee's O4-C2 of session 59). Only a reading losing a
        replacement is taken: one losing none is the new-set checks' own question, so no
        verdict changes. Its joint checks spend the turn's ``relaxed_steps``, not its
        ``JOINT_CHECK_STEPS`` (whose use decides which joint checks are exact), and a reading
        whose checks ran out of them is not taken."""
        assert beside is not None
        if search.relaxed_steps <= 0:
            search.relaxed_out = True
            return
        asked = (frozenset(good.items()), avoided)
        ways = relaxed_ways.get(asked)
        if ways is None:
            saved, search.joint_steps = search.joint_steps, search.relaxed_steps
            try:
                ways = _relaxed_hosts(search, good, avoided, free, freed, stayed_in, kept)
                if ways and not all_hold_none(avoided):
                    ways = []
                if search.joint_steps < 0:
                    # (ran out: ``_sources_held_elsewhere`` then answers as favourably as may be,
                    # and the search for the hosts' ways stops where the steps did)
                    ways = []
                    search.relaxed_out = True
            finally:
                search.relaxed_steps, search.joint_steps = search.joint_steps, saved
            relaxed_ways[asked] = ways
        for reserved in ways:
            search.relaxed_steps -= RELAXED_REPLACEMENT_STEPS
            more = beside(avoided, reserved)
            if not more:
                continue  # (every joker replaced: the new-set checks' own question, not this one's)
            extra = max(0, len(more) - told)
            if key(bad, extra, 1) < best_key:
                keep(bad, key(bad, extra, 1), more, left)

    # (the hosts read as taking the freed jokers' replacing copies: without locked sets, where
    # the replacements are a placement's own cost, under a replace release; the placements the
    # new-set checks refused are judged so after every other, cut by the best of those)
    relax = search.relaxing and two_rack_tiles and beside is not None and not search.locked
    deferred: list[tuple[int, dict[int, int], dict[int, int], frozenset[tuple[int, int]]]] = []
    relaxed_ways: dict[tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]], list[CopiesAt]] = {}

    def answer() -> list[Violation]:
        params = {"rule": rule}
        misused = [
            Violation("FREED_JOKER_MISUSED", f"/after/{best_at[m]}" if m < len(best_at) else "/after", params)
            for m in range(best_misused)
        ]
        return misused + best_beside

    place(0, dict(free), {}, {}, 0, frozenset())
    strict, strict_key = answer(), best_key
    deferred.sort(key=lambda leaf: leaf[0])  # (the fewest misused first: they may cut the others)
    for bad, left, good, avoided in deferred:
        if key(bad, max(0, 1 - told), 1) < best_key:
            relaxed(bad, left, good, avoided)
    return (strict if best_key == strict_key else answer()), strict


def _fixed_played(search: JokerSearch, good: Mapping[int, int], two_rack_tiles: bool) -> CopiesAt:
    """Under ``new_set_with_two_rack_tiles``, the copies that must be played ones where they
    lie: every numbered tile of a host holding no more than the two played tiles it needs
    (no joker played: it would count as one). ((after-set, tile), copies)."""
    if not two_rack_tiles or search.played.get(JOKER_KEY, 0):
        return frozenset()
    fixed: list[tuple[tuple[int, str], int]] = []
    for k in good:
        held = search.after[k].numbered_counts
        if sum(held.values()) <= 2:
            fixed.extend(((k, key), n) for key, n in held.items())
    return frozenset(fixed)


def _may_hold_none_of_one(
    search: JokerSearch,
    n: int,
    k: int,
    replacing: list[frozenset[str]],
    stayed_in: frozenset[tuple[int, int]],
    unreplaced: int = 0,
) -> bool:
    """``_may_hold_none_of`` for one after-set, each freed joker's need judged on its own (the
    jokers of an undeclared group share their options: which one needs which tile is open)."""
    return all(
        _may_hold_none_of(search, n, frozenset((k,)), [options], stayed_in, unreplaced)
        for options in replacing or [frozenset()]
    )


def _may_hold_none_of(
    search: JokerSearch,
    n: int,
    ks: frozenset[int],
    replacing: list[frozenset[str]],
    stayed_in: frozenset[tuple[int, int]],
    unreplaced: int = 0,
) -> bool:
    """Whether the after-sets ``ks`` can be read, all at once, as holding no numbered tile of
    source ``n`` (``unreplaced``: how many freed jokers of the turn have no replacing tile at
    all, so need no copy): equal tiles are interchangeable, so their copies may be other sets' or
    played ones whenever the rest of the after table has room for every copy of the source's
    tiles. Not when that reading would contradict the rest of the verdict: a joker of ``n``
    staying in one of them, or freed jokers of ``n`` whose replacing tiles lie in them and
    find no copy each in the other successors."""
    mine = [k for k in ks if k in search.sources[n].successors]
    if not mine:
        return True
    if any((n, k) in stayed_in for k in mine):
        return False
    inside = numbered_in(search, mine)
    outside = numbered_in(search, (m for m in search.sources[n].successors if m not in ks))
    every = search.every_colour(n)
    inside_replacing, outside_replacing = _replacing_copies(search, inside), _replacing_copies(search, outside)
    lying_inside = any(inside_replacing.get(key) for options in replacing for key in options)
    if lying_inside and not any(
        each_finds_a_copy(list(needs), outside_replacing, every)
        for needs in itertools.combinations(replacing, max(0, len(replacing) - unreplaced))
    ):
        return False
    return all(
        search.room_numbered.get(key, 0) - inside.get(key, 0) + search.removed.get(key, 0) >= c
        for key, c in search.sources[n].numbered.items()
    )


def _replacing_copies(search: JokerSearch, held: Mapping[str, int]) -> Mapping[str, int]:
    """The copies among ``held`` that may replace a freed joker: under ``joker_replacement_from:
    rack`` only played ones (at most as many as were played), so a table copy standing in for
    the replacing tile cannot excuse a joker's place (``R7 J O7`` + ``B7 B8 B9 B10`` ->
    ``O7 R7 B7`` + ``J R7 K7`` with K7 R7 played: the table's B7 replaces nothing, so the
    played K7 does, beside the set's R7, and the joker lies with it; session 43)."""
    if search.rules.joker_replacement_from != "rack":
        return held
    return {key: min(n, search.played.get(key, 0)) for key, n in held.items()}


def _sources_held_elsewhere(
    search: JokerSearch,
    avoided: Mapping[int, set[int]],
    wholes: frozenset[tuple[int, int]] = frozenset(),
    replacing: Mapping[int, list[frozenset[str]]] | None = None,
    unreplaced: int = 0,
) -> bool:
    """Whether one assignment of equal copies puts every copy of each source ``n`` outside
    the after-sets ``avoided[n]``, all sources at once (each alone: ``_may_hold_none_of``),
    every copy of a locked set kept whole in its after-set (``wholes``: (source,
    after-set)), and, for each freed joker needing a tile (``replacing``: per source, the
    tiles each may stand for), a copy of its set beside a copy of its tile, so that the tile
    lies in a successor. E.g. ``K1 J K3`` + ``K1 K2 J`` -> ``K1 K2 K3`` + ``K1 K2 K3 J J``,
    both jokers freed into the long run under ``other_set``: its one K1 is either set's, so
    one joker is misused. ``unreplaced`` of the jokers, not replaced at all, need no such copy:
    of the jokers of ``K10 K11 J`` + ``K10 K11 J`` standing for K12 beside one K12 played, the
    one left without it is misused nowhere (an independent turn oracle, session 45). Per tile, a flow of copies (``_copies_fit``), with the copies set
    beside each replacing tile chosen joker by joker, a choice kept only while the copies
    still fit (``JOINT_CHECK_STEPS`` bounds the choices tried)."""
    avoided = {n: set(ks) for n, ks in avoided.items()}
    for n, home in wholes:
        avoided.setdefault(n, set()).update(k for k in search.room_sets if k != home)
    # per joker: (source, after-set, its set's copy's tile, the replacing tile)
    witnesses: list[list[tuple[int, int, str, str]]] = []
    for n, needs in (replacing or {}).items():
        for options in needs:
            ways = [
                (n, k, key, t)
                for k in search.sources[n].successors
                if k in search.room_sets and k not in avoided.get(n, ())
                for t in sorted(options)
                if search.after[k].numbered_counts.get(t)
                for key in search.sources[n].numbered
                if search.after[k].numbered_counts.get(key)
            ]
            if ways:  # (a joker with no way at all is not replaced, whoever holds what: told apart)
                witnesses.append(ways)
                avoided.setdefault(n, set())
    if len(avoided) < 2 and not wholes:  # (one source alone: ``_may_hold_none_of`` judged it,
        return True  # but not a locked set kept whole, whose copies all lie in its home)
    seen: set[tuple[frozenset[tuple[int, int, str]], CopiesAt, int]] = set()

    def witnessed(
        j: int, placed: frozenset[tuple[int, int, str]], replacing_copies: Counter[tuple[int, str]], skips: int
    ) -> bool:
        """Whether jokers ``j`` on each find a copy of their set beside a copy of their tile
        of their own (``replacing_copies``: (after-set, tile) taken so far; each replacing
        tile is one copy: two jokers standing for K5 need two K5, session 43), the copies
        ``placed`` so far fitting (one copy serves the jokers of its set it lies beside)."""
        if j == len(witnesses):
            return True
        for n, k, key, t in witnesses[j]:
            if replacing_copies[(k, t)] >= search.after[k].numbered_counts[t]:
                continue
            taken = replacing_copies + Counter({(k, t): 1})
            way = (n, k, key)
            if way in placed:
                if witnessed(j + 1, placed, taken, skips):
                    return True
                continue
            grown = placed | {way}
            state = (grown, frozenset(taken.items()), skips)
            if state in seen:  # (failed from there already)
                continue
            seen.add(state)
            search.joint_steps -= 1
            if search.joint_steps < 0:
                raise _OutOfSteps
            if _copies_fit(search, avoided, grown) and witnessed(j + 1, grown, taken, skips):
                return True
        return skips > 0 and witnessed(j + 1, placed, replacing_copies, skips - 1)

    try:
        # witnesses only pin copies the flow could place there anyway: none fit, none will
        return _copies_fit(search, avoided, frozenset()) and witnessed(0, frozenset(), Counter(), unreplaced)
    except _OutOfSteps:
        return True  # the turn's JOINT_CHECK_STEPS used up: as favourable as the player may need


def _copies_fit(search: JokerSearch, avoided: Mapping[int, set[int]], placed: frozenset[tuple[int, int, str]]) -> bool:
    """For ``_sources_held_elsewhere``: whether, tile by tile, every copy of each source in
    ``avoided`` finds a place on the after table outside the sets it avoids, the copies
    ``placed`` (source, after-set, tile) lying there already. A flow of copies
    (``copies_supplied``): the sources take copies from the after-sets they may lie in, as
    many as each holds, and from the copies missing from the after table (TABLE_TILE_REMOVED),
    which may be any source's. Each tile is a step of the turn's ``JOINT_CHECK_STEPS``
    (``_OutOfSteps`` past them)."""
    given = Counter((n, key) for n, _, key in placed)
    taken = Counter((k, key) for _, k, key in placed)
    for (n, key), c in given.items():
        if search.sources[n].numbered.get(key, 0) < c:
            return False
    for (k, key), c in taken.items():
        if search.after[k].numbered_counts.get(key, 0) < c:
            return False
    # (in sorted order: a set's order follows the process's hash seed, and so would the steps)
    for key in sorted({key for n in avoided for key in search.sources[n].numbered}):
        search.joint_steps -= 1
        if search.joint_steps < 0:
            raise _OutOfSteps
        holders = [n for n in avoided if search.sources[n].numbered.get(key, 0) > given[(n, key)]]
        if not holders:
            continue
        # places: the after-sets (by index), and -1 for the copies missing from the table
        supply = {
            k: search.after[k].numbered_counts[key] - taken[(k, key)]
            for k in search.room_holders.get(key, ())
            if search.after[k].numbered_counts[key] > taken[(k, key)]
        }
        supply[-1] = search.removed.get(key, 0)
        demand = [search.sources[n].numbered[key] - given[(n, key)] for n in holders]
        caps = [{place: d for place in supply if place not in avoided[n]} for n, d in zip(holders, demand, strict=True)]
        if not copies_supplied(demand, caps, supply):
            return False
    return True


def numbered_in(search: JokerSearch, ks: Iterable[int]) -> dict[str, int]:
    """The numbered tiles of the after-sets ``ks``, counted together."""
    found: dict[str, int] = {}
    for k in ks:
        for key, n in search.after[k].numbered_counts.items():
            found[key] = found.get(key, 0) + n
    return found


def _new_set(
    search: JokerSearch,
    k: int,
    avoided: frozenset[tuple[int, int]],
    freed: list[Joker],
    kept: frozenset[int] = frozenset(),
    reserve: bool = True,
) -> bool:
    """Whether after-set ``k`` is a *new* set with one assignment of equal copies for both
    conditions at once: none of its copies comes from the before-sets of the freed jokers
    it holds (``avoided``: (source, after-set) pairs), and for every before-set some tile of
    it is not that set's copy in ``k``. Under ``joker_replacement_from: rack`` (with a replace
    release: a free one needs no replacing tile) the played
    copies that must replace a freed joker (needing one tile) in a successor of its set that
    ``k`` is not (by its tiles, or as it holds none of that set's) are not ``k``'s, where
    another successor holds one. E.g. ``R4 R5 R6`` + ``J R3 R4`` ->
    ``R2 R3 R4`` + ``R2 R3 R4 R5 R6 J``: its R4 is either set's copy, so it holds a tile of
    the joker's set or all of ``R4 R5 R6``: no new set. ``reserve`` False: those played copies
    may be ``k``'s too, the joker then replaced from the table or not at all (``_relaxed_hosts``)."""
    theirs = search.after[k].numbered_counts
    hosted = {n for n, m in avoided if m == k}  # (holding none of their copies: no successor)
    excluded = _hosted_before_sets(search, avoided, k)
    reserved: dict[str, int] = {}
    if reserve and search.needs_tile and search.rules.joker_replacement_from == "rack":
        for joker in freed:
            if joker.declared and (joker.source in hosted or k not in search.sources[joker.source].successors):
                (tile,) = joker.options
                elsewhere = (m for m in search.sources[joker.source].successors if m != k)
                if any(search.after[m].numbered_counts.get(tile) for m in elsewhere):
                    # (where no other successor holds one the joker goes unreplaced anyway)
                    reserved[tile] = reserved.get(tile, 0) + 1
    # the before-sets whose copies ``k`` may hold: not a hosted joker's, nor a locked set's
    # left as it was or kept whole (its copies lie in it)
    lenders = [
        s
        for i, s in enumerate(search.before)
        if i not in excluded and i not in search.locked_in_place and i not in kept
    ]
    available = {key: max(0, n - reserved.get(key, 0)) for key, n in search.played.items()}
    for s in lenders:
        for key, n in s.numbered_counts.items():
            available[key] = available.get(key, 0) + n
    if any(n > available.get(key, 0) for key, n in theirs.items()):
        return False
    # each before-set it could hold whole needs a tile of which it holds one copy less
    # than there are (a spare copy of its own, the set's copy being elsewhere)
    threatened = [
        frozenset(s.numbered_counts)
        for s in lenders
        if s.numbered_counts and all(theirs.get(key, 0) >= n for key, n in s.numbered_counts.items())
    ]
    spare = {key: available[key] - n for key, n in theirs.items()}
    return each_finds_a_copy(threatened, spare, False)


def _new_sets_together(
    search: JokerSearch,
    hosts: list[int],
    avoided: frozenset[tuple[int, int]],
    free: dict[int, int],
    good: dict[int, int],
    freed: list[Joker],
    stayed_in: frozenset[tuple[int, int]] = frozenset(),
    kept: frozenset[int] = frozenset(),
    witnesses: list[CopiesAt] | None = None,
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
    freed joker may use are pooled). Each host's copies are tried in every way, which grows
    exponentially with its tiles: past ``NEW_SETS_SEARCH_STEPS`` the integer programme of
    ``engine.new_sets_programme`` decides, both out of the turn's ``JOINT_CHECK_STEPS``. A host
    where a group joker of a before-set stays (``stayed_in``: (source, after-set)) takes a copy
    of that set's in the same assignment (pressman-2009, ``O5 K5 J B5`` + ``J K4 B4`` ->
    ``J O5 B5 J`` + ``K5 O5 B5`` + ``B4 R4 K4`` with R4 O5 B5 played: the R5 joker stays beside
    O5 B5 only if one of them is its set's, and the freed joker's new set then holds one played
    tile; session 42). ``witnesses`` given: the hosts alone, whether the freed jokers are
    replaced or not, each assignment found adding the played copies its hosts take to
    ``witnesses`` (``_relaxed_hosts``)."""
    # the host with the fewest tiles first: its copies are the scarcest choice
    hosts = sorted(hosts, key=lambda k: (sum(search.after[k].numbered_counts.values()), k))
    left = new_sets_programme.copy_places(search, kept)  # (tile, before-set or -1 for the rack) -> copies
    sources: dict[str, list[tuple[int, int]]] = {}  # key -> [(place, copies)]
    for (key, i), n in left.items():
        sources.setdefault(key, []).append((i, n))
    played_jokers = search.played.get(JOKER_KEY, 0)

    host_set = set(hosts)
    taken_by: dict[int, dict[tuple[str, int], int]] = {}

    needs = joker_needs(search, freed)

    rack_only = search.rules.joker_replacement_from == "rack"

    def replaced(j: int, used: dict[tuple[int, str], int], hosted: bool) -> bool:
        """Whether the needs ``j`` on of the freed jokers each find a copy of one of their
        tiles in a successor of their set, a host being one only when it took a copy of that
        set's. Under ``joker_replacement_from: rack`` a played copy: in a host, one it took
        from the rack; elsewhere, one of the played copies the hosts left (``m`` -1 in
        ``used``); otherwise any copy there, one a joker. Not ``hosted``: wherever the hosts
        take theirs."""
        if j == len(needs):
            return True
        joker, options = needs[j]
        own = search.sources[joker.source].index
        for key in sorted(options):
            # a host is a successor of the joker's set only when it took one of its copies
            places = [
                m
                for m in search.sources[joker.source].successors
                if search.after[m].numbered_counts.get(key)
                and (not hosted or m not in host_set or any(i == own and n for (_, i), n in taken_by[m].items()))
            ]
            played_cap = None  # (rack-only, not hosted: played copies lying in a successor)
            if not rack_only or not hosted:  # (session 42: a host's copy replaced a joker as no successor)
                units = {m: search.after[m].numbered_counts[key] for m in places}
                if rack_only:
                    # each a played copy lying in one of the joker's successors: as many as lie
                    # there, and no more than were played (pressman-2009, two jokers of
                    # ``J K4 J R4`` beside two played O4, one in ``K4 O4 R4``, the other in a
                    # new set: one is not replaced; an independent audit, session 45)
                    played_cap = search.played.get(key, 0)
            else:
                units = {m: taken_by[m].get((key, -1), 0) for m in places if m in host_set}
                if any(m not in host_set for m in places):
                    units[-1] = left.get((key, -1), 0)
            if played_cap is not None and sum(c for (_, other), c in used.items() if other == key) >= played_cap:
                continue  # (every played copy of it replaces a joker already)
            for m, n in units.items():
                if used.get((m, key), 0) < n:
                    used[(m, key)] = used.get((m, key), 0) + 1
                    if replaced(j + 1, used, hosted):
                        return True
                    used[(m, key)] -= 1
        return False

    # where freed jokers need their tile, unless they cannot all be replaced anyway (that is
    # reported as such: the hosts are not judged by it)
    replacing = witnesses is None and search.needs_tile and replaced(0, {}, False)
    floor = max(0, search.joint_steps - NEW_SETS_SEARCH_STEPS)

    def assign(h: int, jokers_left: int) -> bool:
        if h == len(hosts):
            if witnesses is not None:
                found = frozenset(((m, key), n) for m in hosts for (key, i), n in taken_by[m].items() if i == -1 and n)
                if found not in witnesses:
                    witnesses.append(found)
                return len(witnesses) >= RELAXED_WITNESSES
            return not replacing or replaced(0, {}, True)
        k = hosts[h]
        banned = _hosted_before_sets(search, avoided, k)
        # the tiles with the fewest places first: a dead end shows early
        wanted = sorted(
            search.after[k].numbered_counts.items(),
            key=lambda kv: (sum(1 for i, _ in sources.get(kv[0], []) if i not in banned), kv[0]),
        )
        taken: dict[tuple[str, int], int] = {}
        taken_by[k] = taken

        def tile(t: int) -> bool:
            search.joint_steps -= 1
            if search.joint_steps < floor:
                raise _OutOfSteps
            if t == len(wanted):
                search.joint_steps -= len(search.before)  # (the leaf's own work: every before-set)
                whole = any(
                    before_set.numbered_counts
                    and all(taken.get((key, i), 0) >= n for key, n in before_set.numbered_counts.items())
                    for i, before_set in enumerate(search.before)
                )
                if whole:
                    return False
                if any(
                    m == k and not any(c for (_, i), c in taken.items() if i == search.sources[n].index)
                    for n, m in stayed_in
                ):
                    return False  # a joker staying here needs a copy of its set beside it
                from_rack = sum(n for (_, i), n in taken.items() if i == -1)
                jokers = min(free[k] - good[k], jokers_left, max(0, 2 - from_rack))
                if from_rack + jokers < 2:
                    return False
                return assign(h + 1, jokers_left - jokers)
            key, count = wanted[t]
            places = [i for i, _ in sources.get(key, []) if i not in banned]
            return any(tile(t + 1) for _ in _spread(key, count, places, left, taken))

        return tile(0)

    try:
        return assign(0, played_jokers) or bool(witnesses)
    except _OutOfSteps:
        if witnesses is not None:
            return bool(witnesses)  # (no programme: the assignments found so far, if any)
    # the search ran out of its steps: the integer programme decides, while the turn has steps
    search.joint_steps -= PROGRAMME_STEPS
    if search.joint_steps < 0:
        return True  # the turn's JOINT_CHECK_STEPS used up: as favourable as the player may need
    held = new_sets_programme.new_sets_hold(search, hosts, avoided, free, good, freed, replacing, stayed_in, kept)
    return True if held is None else held


def _relaxed_hosts(
    search: JokerSearch,
    good: dict[int, int],
    avoided: frozenset[tuple[int, int]],
    free: dict[int, int],
    freed: list[Joker],
    stayed_in: frozenset[tuple[int, int]],
    kept: frozenset[int],
) -> list[CopiesAt]:
    """The ways the hosts ``good`` can be new sets holding two played tiles each when the
    played copies that would replace a freed joker may be theirs too (``_new_set`` without
    its reservation, ``_new_sets_together`` without the replacements): per way, the played
    copies the hosts take ((after-set, tile), copies), those taking no more than another
    (the others read no better: a host's played copy replaces a joker only where it lies), at
    most ``RELAXED_WITNESSES``. The search takes at most ``NEW_SETS_SEARCH_STEPS`` of
    ``search.joint_steps`` (the caller's budget), and asks no programme: past them, the ways
    found."""
    if not all(_new_set(search, k, avoided, freed, kept, reserve=False) for k in good):
        return []
    witnesses: list[CopiesAt] = []
    _new_sets_together(search, sorted(good), avoided, free, good, freed, stayed_in, kept, witnesses)
    counted = [Counter(dict(w)) for w in witnesses]
    return [
        w
        for w, c in zip(witnesses, counted, strict=True)
        if not any(other != c and not other - c for other in counted)  # (no way taking less)
    ]


RELAXED_STEPS = 5_000
"""The steps of a turn's relaxed host checks (``_place_freed``'s ``relaxed``: ``_relaxed_hosts``
and the joint check of the sources' copies, each replacement count of such a reading costing
``RELAXED_REPLACEMENT_STEPS``), apart from ``JOINT_CHECK_STEPS`` (about 25-35 ms of CPU at
most). A turn that runs out of them is judged again without any such reading
(``engine.jokers.follow_jokers``: which placements were so read would depend on the order of
the sets), its placements judged by the new-set checks alone, as before session 60: its codes,
not its verdict, may then be more than the fewest. A turn judged set by set (its joint checks
out of steps) reads none so either."""
RELAXED_REPLACEMENT_STEPS = 20
RELAXED_WITNESSES = 8
"""The most ways of the hosts' copies ``_relaxed_hosts`` collects per placement."""


def joker_needs(search: JokerSearch, freed: list[Joker]) -> list[tuple[Joker, frozenset[str]]]:
    """The copies freed jokers need beside their sets (played ones under
    ``joker_replacement_from: rack``): per joker, a copy of one of its tiles; under
    ``group_joker_needs_both_colours``, for the jokers freed from a group of three, one copy of
    each missing colour together (as ``joker_replacement._demands`` asks; session 42: one
    played B8 or K8 was set aside for ``R8 J J``'s joker, and the other counted for a new set
    too)."""
    needs: list[tuple[Joker, frozenset[str]]] = []
    both: dict[int, tuple[Joker, set[str]]] = {}
    for joker in freed:
        if search.every_colour(joker.source):
            both.setdefault(joker.source, (joker, set()))[1].update(joker.options)
        else:
            needs.append((joker, joker.options))
    for joker, colours in both.values():
        needs += [(joker, frozenset((key,))) for key in sorted(colours)]
    return needs


NEW_SETS_SEARCH_STEPS = 50
"""The most steps one call of ``_new_sets_together`` searches for (a complete assignment
counting one step per before-set it checks) before it hands the question to the integer
programme (``engine.new_sets_programme``), which decides it exactly in 0.5-1 ms: on xp turns
freeing four jokers, 62 questions took 385 ms searched first for 300 steps each (1.17 s beside
27 more sets: each complete assignment checks every before-set) and 42-50 ms put to the
programme at once (session 41)."""
PROGRAMME_STEPS = 150
"""What one such programme costs of the turn's ``JOINT_CHECK_STEPS``: a fixed count (a verdict
must not depend on the machine's speed), about its time at the search's few microseconds a
step (0.5-0.7 ms a programme on average, 2.3 ms the slowest of 42,383 in an audit), so that
the steps bound a turn's time either way: about 130 programmes a turn."""


def _hosted_before_sets(search: JokerSearch, avoided: frozenset[tuple[int, int]], k: int) -> set[int]:
    """The before-sets (indices) of the freed jokers after-set ``k`` hosts where it must
    hold none of their tiles (``avoided``: (source, after-set) pairs)."""
    return {search.sources[n].index for n, m in avoided if m == k}


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
        yield from _spread(key, count - n, rest, left, taken)
        left[(key, first)] += n
        taken[(key, first)] -= n


def _holds_a_before_set(search: JokerSearch, k: int) -> bool:
    """Whether after-set ``k`` must hold every numbered tile of some before-set (so it is no
    new set): it holds every copy on the after table of each of that set's tiles, and none of
    them is missing from the after table (a missing copy may be that set's)."""
    found = search.old_after_memo.get(k)
    if found is None:
        theirs = search.after[k].numbered_counts
        whole = search.after_numbered
        found = search.old_after_memo[k] = any(
            all(
                whole.get(key, 0) == theirs.get(key, 0) >= n and not search.removed.get(key)
                for key, n in s.numbered_counts.items()
            )
            for s in search.before
        )
    return found


def _played_room(search: JokerSearch, k: int, jokers: int) -> int:
    """How many tiles played this turn after-set ``k`` could hold, ``jokers`` of its jokers
    being free to count as played ones."""
    played = search.played
    room = sum(min(n, played.get(key, 0)) for key, n in search.after[k].numbered_counts.items())
    return room + min(jokers, played.get(JOKER_KEY, 0))


def _two_played_each(search: JokerSearch, good: dict[int, int], free: dict[int, int]) -> bool:
    """Whether every set hosting a well-placed freed joker can hold two tiles played from the
    rack, each played copy counted for one set only (played jokers are the after jokers that
    no staying or freed joker took)."""
    hosts = sorted(k for k, n in good.items() if n)
    caps = []
    for k in hosts:
        cap = dict(search.after[k].numbered_counts)
        cap[JOKER_KEY] = free[k] - good[k]
        caps.append(cap)
    return copies_supplied([2] * len(hosts), caps, search.played)


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

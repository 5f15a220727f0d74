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
  needs only its declared tile. That setting holds under ``joker_release: free`` too, where it is
  the only need for a tile (``group_tiles``: the jokers of groups of three alone).
- ``JOKER_REPLACED_FROM_TABLE`` (``joker_replacement_from: rack``): more jokers replaced by a tile
  than copies of it were played from the rack.
- ``JOKER_SET_BROKEN`` (``joker_sets_locked``): a joker set keeps its jokers in one successor that
  holds all its numbered tiles, unless every joker was freed by its exact tile (the set is then no
  longer locked); a joker freed without its tile breaks it too (under ``joker_release: replace``,
  when no successor holds a copy of its tile at all, it is ``JOKER_NOT_REPLACED`` as well: both
  rules are broken). A joker that can only stay did
  stay, unless its exact tile lies in its place (a run's: beside a numbered neighbour of the
  joker's place; a group's: in a successor, beside a numbered tile of the group), a copy played
  or taken from a set without a joker (or from a locked set so unlocked first); a copy taken
  out of another locked set frees nothing, and the joker may then stay elsewhere, as it may
  where that successor's numbered tiles keep another such set whole instead.
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
jokers, then the codes in a fixed preference (``joker_pieces.rank``: a joker replaced from
the table reads better than one misused, …), so ties never depend on the listing order.
(The "not replaced" violations reported beside the locked sets' count among the violations;
between equally many, an assignment calling a locked set broken while a played copy of its
joker's tile lies in another successor ranks after the one freeing that joker, and last comes
the one with more of those reported beside: ``locked_joker_sets``.) A
branch is cut once a legal assignment is known and the branch has freed more jokers. A joker
whose set a successor holds whole with its exact tile in its place is read freed, not staying
elsewhere (the set is not broken); its stays elsewhere, the set split, are judged by a second
search with budgets of its own, its answer taken only with fewer violations (``_split_too``: a
locked group of three needing both colours held so beside one colour alone is not unlocked; a
joker so freed may be misused or replaced from the table where staying it breaks the set alone).

``JokerSearch`` holds the state of that search and its order: the readings, the fates and the
judging of each assignment (``_readings``, ``_fates``, ``_judge``). What it judges are the
functions of modules of one concern each, taking that state first: where group jokers stayed
(``engine.joker_stays``), the locked sets (``engine.locked_joker_sets``), the replacing copies
(``engine.joker_replacement``) and where freed jokers may go (``engine.joker_use``, with the
flows of copies of ``engine.copy_flows``); the search's pieces and how assignments rank are in
``engine.joker_pieces``.

The tile set holds at most 4 jokers (XP), so the search is small, and it is cut after
``MAX_ASSIGNMENTS`` complete assignments in any case (the best so far deciding). A turn whose
moved sets, or open after-sets, hold more jokers than the tile set has is not followed at all:
it is illegal anyway (``TILE_SUPPLY_EXCEEDED``); nor is any other turn whose table, before or
after, is beyond the tile set (``engine.turns`` does not call ``follow_jokers`` then: dozens of
copies of one tile could make the replacing tiles' places grow without bound). An excess on
the rack alone leaves both tables a game's: their jokers are followed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine import joker_replacement, joker_stays, joker_use, locked_joker_sets
from engine.joker_pieces import Candidate, Joker, Source, Stay, rank
from engine.rules import Rules
from engine.sets import RUN, Reading, TableSet, set_identity
from engine.tiles import JOKER_KEY
from engine.violations import Violation

MAX_ASSIGNMENTS = 2000
"""Complete joker assignments judged at most per turn (a bound for requests beyond the tile set)."""

JOINT_CHECK_STEPS = 50_000
"""Steps of the joint checks of the freed jokers' hosts (``engine.joker_use``: the searches
over copies, and each integer programme at ``PROGRAMME_STEPS``), per turn: 0.3-0.5 s of CPU at
most (0.66 s beside 36 untouched sets in session 42, 1.0 s beside 94 empty ones in session 43,
until a step looked only at the after-sets holding its tile: 0.45 s for both since).
Hosts of dozens of tiles with several places for each could take hours; a budget per call let
one turn use it again at each placement of the freed jokers. An xp turn freeing four jokers
asked 102 questions of the new-set check (103 programmes, 0.063 s exactly) and ran out of
20,000 steps, judged leniently as legal (a worst-cost audit, session 41)."""


@dataclass(slots=True)
class JointSteps:
    """The steps of the joint checks (``JOINT_CHECK_STEPS``) left to a sequence of turns judged
    together (a replay): each turn takes at most ``JOINT_CHECK_STEPS`` of them, and what it uses
    is gone for the turns after it."""

    left: int


@dataclass(frozen=True, slots=True)
class JokerVerdict:
    """What following the table's jokers found: the violations and how many jokers were freed;
    ``exact`` False when the joint checks ran out of their steps and the turn was judged as
    favourably as the rules allow set by set. ``split_search``: the search that found it, when
    readings with fewer violations may have been left untried (``fewest``)."""

    violations: tuple[Violation, ...]
    freed: int
    exact: bool = True
    split_search: JokerSearch | None = field(default=None, compare=False, repr=False)


def follow_jokers(
    before: Sequence[TableSet],
    after: Sequence[TableSet],
    moved: Sequence[int],
    open_after: Sequence[int],
    played: Mapping[str, int],
    rules: Rules,
    opened: bool,
    successor_candidates: Sequence[int] | None = None,
    joint_steps: JointSteps | None = None,
) -> JokerVerdict:
    """Judge the jokers of the before-sets ``moved`` (valid joker sets not carried over
    untouched) against the jokers of the after-sets ``open_after`` (those no untouched set
    accounts for). ``played`` counts the tiles played from the rack (jokers under ``JOKER_KEY``).
    ``successor_candidates``, when given, are the only after-sets that can share a numbered tile
    with a moved set (a shortcut for large tables, and under ``joker_sets_locked`` without the
    after-sets of the joker sets left as they were, which keep their own tiles; None: every
    after-set). ``joint_steps``: the steps of the joint checks left to the turns judged with
    this one (None: ``JOINT_CHECK_STEPS`` for this turn alone)."""
    if not moved:
        return JokerVerdict((), 0)
    most = rules.supply.limit(JOKER_KEY)
    if sum(before[i].jokers for i in moved) > most or sum(after[k].jokers for k in open_after) > most:
        return JokerVerdict((), 0)  # more jokers than the tile set: TILE_SUPPLY_EXCEEDED says it
    given = JOINT_CHECK_STEPS if joint_steps is None else min(JOINT_CHECK_STEPS, joint_steps.left)
    search = JokerSearch(before, after, moved, open_after, played, rules, opened, successor_candidates, given)
    verdict = search.run()
    if search.relaxed_out and search.joint_steps >= 0:  # (else judged set by set below, without them)
        # the placements read with their hosts taking the replacing copies (``joker_use``,
        # ``relaxed_steps``) ran out of their steps part-way: which were so read depended on
        # the order they came in, so none is (the codes as before session 60; the verdict is
        # the same either way)
        search = search.again(given)
        search.relaxing = False
        verdict = search.run()
    if search.joint_steps < 0:  # (with no steps at all, a joint check asked for runs out at once)
        if given > 0:
            # ran out part-way: which joint checks were judged exactly depended on the order
            # they came in (the order of the sets), so every one is left as judged set by set
            # (SPEC §4: the verdict never depends on the order in which sets are listed)
            verdict = search.again(0).run()
        verdict = JokerVerdict(verdict.violations, verdict.freed, exact=False)
    if joint_steps is not None:
        joint_steps.left -= given - max(0, search.joint_steps)
    if verdict.exact and search.split_left and not search._done() and len(verdict.violations) > 1:
        verdict = JokerVerdict(verdict.violations, verdict.freed, split_search=search)
    return verdict


def fewest(verdict: JokerVerdict) -> JokerVerdict:
    """``verdict``, or the one with fewer violations of the readings it left untried
    (``_split_too``): asked by ``engine.turns`` of the verdict it keeps, once it has chosen it as
    before (which verdict is kept, and the turn's other codes, never depend on those readings)."""
    if verdict.split_search is None:
        return verdict
    return _split_too(verdict.split_search, verdict)


SPLIT_STEPS = 10_000
"""The steps of the joint checks of ``_split_too``'s search, apart from ``JOINT_CHECK_STEPS``
(and not taken from a replay's ``JointSteps``): about 0.1 s of CPU at most for those checks.
Over 3,300 turns of a generator of such turns it used 258 at most."""
SPLIT_ASSIGNMENTS = 200
"""The complete assignments ``_split_too``'s search judges at most (a tenth of
``MAX_ASSIGNMENTS``; 13 at most over those turns)."""


def _split_too(search: JokerSearch, verdict: JokerVerdict) -> JokerVerdict:
    """The verdict again with the jokers of locked sets that their exact tile "replaced" in a
    successor holding their set whole also staying outside it, their set split (the set's
    numbered tiles other equal copies; ``JokerSearch.split_left``). For locked groups of three
    under ``group_joker_needs_both_colours`` one colour does not unlock the set
    (``joker_replacement.unlock_in_turn``), so freed it is broken all the same, and not replaced
    beside that where the other colour is missing; staying, it is broken alone (strict-joker with
    both colours, ``K7 J R7`` -> ``K7 B7 R7`` + ``J R7 B7`` with B7 R7 B7 played: the joker stays
    as O7 beside the set's R7, ``JOKER_SET_BROKEN`` alone, where freed it was
    ``JOKER_NOT_REPLACED`` too; referee6-F2, session 61). Any other joker so freed may be misused
    or replaced from the table where staying breaks its set alone (pressman-2009 with locked
    sets, ``B11 J R11 K11`` + ``B11 R11 O11`` -> ``B11 J R11`` + ``B11 R11 O11 K11`` + ``O2 O3
    O4``: the K11 taken out, ``JOKER_SET_BROKEN`` alone, where the joker freed by the O11 was
    ``FREED_JOKER_MISUSED`` + ``JOKER_REPLACED_FROM_TABLE``; referee8 R8-C1, session 62). A search of its
    own, with budgets of its own (``SPLIT_STEPS``, ``SPLIT_ASSIGNMENTS``), asked only when the
    first found more than one violation: its answer is taken only when complete and exact, and
    with fewer violations, though not none (every reading it adds splits a locked set), so no
    verdict changes and a code list only gets shorter."""
    split = search.again(SPLIT_STEPS)
    split.relaxing = search.relaxing
    split.split_too = True
    split.max_assignments = SPLIT_ASSIGNMENTS
    # cut by the first answer: only an assignment with fewer violations is looked for (no
    # reading's freed jokers reach the count this key bars: it is no answer)
    split.strict_best = Candidate((len(verdict.violations) - 1, 0, 1 << 30, (), 0), (), 0)
    split._readings(0, [])
    best = split.best
    if best is None or split.joint_steps < 0 or split.relaxed_out or split._done():
        return verdict  # (out of its budgets: which readings it saw would depend on them)
    found = JokerVerdict((*best.violations, *best.unreplaced), best.freed)
    if 0 < len(found.violations) < len(verdict.violations):
        return found
    return JokerVerdict(verdict.violations, verdict.freed, verdict.exact)


class JokerSearch:
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
        joint_steps: int,
    ) -> None:
        self.before, self.after, self.played, self.rules, self.opened = before, after, played, rules, opened
        candidates = range(len(after)) if successor_candidates is None else successor_candidates
        self.candidates = successor_candidates
        self.sources = [Source(i, before[i], rules, after, candidates) for i in moved]
        self.open_after = tuple(open_after)
        # Each open after-set's readings (none for an invalid set: its jokers host no stay).
        self.after_readings = {k: after[k].read(rules).readings for k in self.open_after}
        self.locked = rules.joker_sets_locked
        self.needs_tile = self.locked or rules.joker_release == "replace"
        # Under a free release only a group of three's jokers need tiles, and only under
        # ``group_joker_needs_both_colours`` (SPEC §3 states it whatever the release)
        self.group_tiles = not self.needs_tile and rules.group_joker_needs_both_colours
        self.readings_chosen: dict[int, Reading] = {}  # source -> the reading being tried
        self.best: Candidate | None = None
        # the best without the placements read with their hosts taking the replacing copies
        # (``joker_use``): what the search is cut by, so that it visits, and spends the joint
        # checks' steps on, the same assignments as without them (the same verdicts, and the
        # same ``jokers_exact``)
        self.strict_best: Candidate | None = None
        self.fallback: Candidate | None = None  # the best assignment freeing a joker that stayed
        self.assignments = 0
        self.max_assignments = MAX_ASSIGNMENTS
        # locked sets kept whole with a joker's exact tile in its place: whether that joker's
        # stays outside were left untried (``_split_too``), and whether to try them
        self.split_left = False
        self.split_too = False
        self.joint_steps = joint_steps  # shared by every joint check of the turn
        # the placements read with their hosts taking the replacing copies (``joker_use``): a
        # budget apart from the joint checks', none where those have no steps (judged set by set)
        self.relaxing = joint_steps > 0
        self.relaxed_steps = joker_use.RELAXED_STEPS
        self.relaxed_out = False  # (whether a placement went unread so, its steps spent)
        self.placement_memo: dict[tuple[object, ...], tuple[list[Violation], list[Violation]]] = {}
        self.replacement_memo: dict[tuple[object, ...], list[Violation]] = {}
        self.holding_memo: dict[tuple[object, ...], bool] = {}
        self.kept_memo: dict[tuple[object, ...], list[int]] = {}  # (``locked_joker_sets._kept_homes``)
        self.old_after_memo: dict[int, bool] = {}
        self.after_numbered = joker_use.numbered_in(self, range(len(after)))  # every numbered tile on the after table
        # the numbered tiles that may be the moved sets' copies: under locked sets, a joker set
        # left as it was keeps its own (it is no successor candidate)
        self.room_sets = frozenset(candidates if self.locked else range(len(after)))
        self.room_numbered = joker_use.numbered_in(self, self.room_sets) if self.locked else self.after_numbered
        # per tile, the after-sets among them that hold it (a joint check's step looks at those
        # only, not at every after-set: a table padded with sets of other tiles costs no more)
        self.room_holders: dict[str, list[int]] = {}
        for k in sorted(self.room_sets):
            for key in after[k].numbered_counts:
                self.room_holders.setdefault(key, []).append(k)
        # the copies missing from the after table (TABLE_TILE_REMOVED): each may be any
        # before-set's that holds the tile, as is most favourable, so no set must keep it
        before_numbered: Counter[str] = Counter()
        for s in before:
            before_numbered.update(s.numbered_counts)
        self.removed = dict(before_numbered - Counter(self.after_numbered))
        # Under locked sets, the joker sets left as they were keep their copies where they lie:
        # none is another set's (a new set's, say; an independent turn oracle, session 43)
        moved_indices = {source.index for source in self.sources}
        self.locked_in_place = frozenset(
            i for i, s in enumerate(before) if self.locked and s.jokers and i not in moved_indices
        )
        # The copies a turn may bring anywhere: played ones, and those of sets without a joker.
        self.free_copies = dict(played)
        for s in before:
            if not s.jokers:
                for key, n in s.numbered_counts.items():
                    self.free_copies[key] = self.free_copies.get(key, 0) + n
        self.base_free_copies = dict(self.free_copies)  # (before locked sets unlocked add theirs)
        self.unlocked_sources: set[int] = set()  # locked sets whose exact tiles may free every joker
        self.unlocked_without: dict[int, frozenset[int]] = {}  # (``joker_replacement._unlocked_without``)
        # what each joker set holds (``locked_joker_sets.kept_with_exact_tile``)
        # (by tiles and readings: a joker set laid again as it was, whatever its notation: a
        # joker declared as the tile it stands for, or the set's one kind declared)
        self.joker_set_contents = {set_identity(s, rules) for s in before if s.jokers} if self.locked else set()
        # and how many sets without a joker each after-set's tiles could be, left as they were
        # (by tiles alone: a jokerless set has one kind, declared or not)
        self.jokerless_contents = Counter(s.content[0] for s in before if not s.jokers) if self.locked else Counter()
        self.after_contents = Counter(s.content[0] for s in after) if self.locked else Counter()
        if self.locked:
            joker_replacement.unlock_in_turn(self)

    def again(self, joint_steps: int) -> JokerSearch:
        """A new search of the same turn with ``joint_steps`` (and the settings a search starts
        with: the re-runs of ``follow_jokers`` and ``_split_too`` set theirs)."""
        moved = [source.index for source in self.sources]
        return JokerSearch(
            self.before,
            self.after,
            moved,
            self.open_after,
            self.played,
            self.rules,
            self.opened,
            self.candidates,
            joint_steps,
        )

    def run(self) -> JokerVerdict:
        self._readings(0, [])
        best = self.best or self.fallback
        assert best is not None  # every source has a reading, and freeing all is a fate
        return JokerVerdict((*best.violations, *best.unreplaced), best.freed)

    # --- the depth-first search over readings and fates ---------------------------------

    def _readings(self, n: int, jokers: list[Joker]) -> None:
        """Choose a reading for each source in turn, then the fates of all their jokers."""
        if n == len(self.sources):
            self._fates(jokers, 0, {}, {}, [], 0, 0)
            return
        for reading in self.sources[n].readings:
            own = [Joker(n, keys, len(keys) == 1) for keys in reading.joker_keys]
            self.readings_chosen[n] = reading
            self._readings(n + 1, jokers + own)
            if self._done():
                return

    def every_colour(self, n: int) -> bool:
        """Whether source ``n``'s undeclared group jokers need every missing colour together
        (``group_joker_needs_both_colours``, a set of three)."""
        return self.rules.group_joker_needs_both_colours and self.sources[n].size == 3

    def _done(self) -> bool:
        return self.assignments >= self.max_assignments

    def _fates(
        self,
        jokers: list[Joker],
        j: int,
        fixed: dict[int, Reading],
        taken: dict[tuple[str, int], set[str]],
        stays: list[Stay | None],
        freed: int,
        bound: int,
    ) -> None:
        """Give jokers ``j..`` a fate. ``fixed`` holds the after readings chosen so far,
        ``taken`` the tiles stood for per before-set (``("b", n)``) and after-set (``("a", k)``),
        ``stays`` the fate of each joker before ``j`` (None: freed), ``bound`` the violations
        that the fates so far make certain."""
        best = self.strict_best
        if best is not None:
            fewest, split_unlocked, least_freed = best.key[0], best.key[1], best.key[2]
            if bound > fewest or (
                bound == fewest
                and not split_unlocked
                and (freed > least_freed or (freed == least_freed == fewest == 0))
            ):
                return  # violations and freed jokers only grow: this branch cannot do better
        if self._done():
            return
        if j and (j == len(jokers) or jokers[j].source != jokers[j - 1].source):
            bound += locked_joker_sets.settled(self, jokers, j, stays)
        if j == len(jokers):
            self.assignments += 1
            self._judge(jokers, fixed, stays)
            return
        joker = jokers[j]
        kind = self.readings_chosen[joker.source].kind
        mine = taken.get(("b", joker.source), set())
        used = {(s.after, s.position) for s in stays if s is not None}
        holders = joker_stays.group_homes(self, jokers, stays)
        stays_here: list[tuple[Stay, Reading]] = []
        for k in self.open_after:
            readings = [fixed[k]] if k in fixed else self.after_readings[k]
            for reading in readings:
                if reading.kind != kind:
                    continue
                if kind != RUN and not joker_stays.can_hold_copies(self, holders | {(joker.source, k)}):
                    continue
                theirs = taken.get(("a", k), set())
                tried: set[frozenset[str]] = set()
                for position, keys in enumerate(reading.joker_keys):
                    if (k, position) in used or keys in tried:
                        continue
                    tried.add(keys)  # jokers of one group with the same options are interchangeable
                    for tile in sorted(joker.options & keys - mine - theirs):
                        stays_here.append((Stay(k, position, tile), reading))
        # Fates in the order most likely to be best first (the search is cut by the best so far).
        options: list[tuple[Stay, Reading] | None] = [*stays_here, None]
        if self.locked:  # staying outside a whole successor breaks the set: try freeing before that
            whole = [
                o for o in stays_here if locked_joker_sets.joker_set_broken(self, joker.source, {o[0].after}) is None
            ]
            every = self.readings_chosen[joker.source].joker_keys
            if locked_joker_sets.kept_with_exact_tile(self, joker, every) and joker_replacement.replaced_by_its_tile(
                self, joker, kind
            ):
                # a successor holds the set with the joker's exact tile in its place, so the
                # set is not broken (SPEC §4): a joker that left it was freed, and the freed
                # jokers' rules say what is wrong, not JOKER_SET_BROKEN. (Only a copy the turn
                # could bring there frees it: one out of another locked set frees nothing, and
                # the joker may stay elsewhere; session 54; nor one whose successor's numbered
                # tiles hold only one of two sets so kept whole: either may stay; session 58)
                options = [*whole, None]
                split = [o for o in stays_here if o not in whole]
                if split:
                    # staying outside, its set split (the set's numbered tiles read as other
                    # equal copies), may read better: a joker freed so may be misused or
                    # replaced from the table, and one colour there does not unlock a group of
                    # three that needs both (its joker freed so breaks the set all the same)
                    # (``_split_too``)
                    if self.split_too:
                        options += split
                    else:
                        self.split_left = True
            else:
                options = [*whole, None, *(o for o in stays_here if o not in whole)]
        for option in options:
            if option is None:
                certain = int(not freed and not self.opened) + int(joker_replacement.unreplaceable(self, joker))
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

    # --- judging one complete assignment ------------------------------------------------

    def _judge(self, jokers: list[Joker], fixed: dict[int, Reading], stays: list[Stay | None]) -> None:
        freed = [joker for joker, stay in zip(jokers, stays, strict=True) if stay is None]
        if not freed and not self.locked:  # every joker stayed: nothing can be wrong
            self.best = self.strict_best = Candidate((0, 0, 0, (), 0), (), 0)
            return
        if freed and self.rules.freed_joker_use != "any_set":
            placed, strict = joker_use.placements(self, jokers, freed, fixed, stays)
            if strict is not placed:
                self._candidate(jokers, fixed, stays, freed, strict, as_best=False)
            self._candidate(jokers, fixed, stays, freed, placed, as_strict=strict is placed)
        else:
            self._candidate(jokers, fixed, stays, freed, None)

    def _candidate(
        self,
        jokers: list[Joker],
        fixed: dict[int, Reading],
        stays: list[Stay | None],
        freed: list[Joker],
        placed: list[Violation] | None,
        as_best: bool = True,
        as_strict: bool = True,
    ) -> None:
        """Rank one assignment with its freed jokers' places ``placed`` (None: not judged) as
        ``self.best`` (``as_best``) and as ``self.strict_best`` (``as_strict``: places judged
        without the relaxed readings, ``joker_use``)."""
        violations: list[Violation] = []
        if freed and (self.needs_tile or self.group_tiles):
            violations += joker_replacement.replacements(self, jokers, stays)
        if self.locked:
            violations += locked_joker_sets.locked_sets(self, jokers, stays)
        beside: list[Violation] | None = None  # the placement's own unreplaced, when they differ
        if placed is not None:
            own = [v for v in placed if v.code != "FREED_JOKER_MISUSED"]  # the places' own reading's
            if self.locked:
                beside = own or None  # (its jokers not replaced, told beside the lock below)
            elif own:
                # without locked sets, the replacements in the reading of the freed jokers'
                # places, told in the stead of those above (``joker_use``; O4-C1/C2, session 59)
                violations = own
            violations += [v for v in placed if v.code == "FREED_JOKER_MISUSED"]
        if freed and not self.opened:
            violations.append(Violation("JOKER_RELEASED_BEFORE_OPENING", "/after", {"count": len(freed)}))
        unreplaced: tuple[Violation, ...] = ()
        free_both = self.rules.joker_release == "free" and self.rules.group_joker_needs_both_colours
        if freed and self.locked and (self.rules.joker_release == "replace" or free_both):
            # SPEC §4: all violations are reported. A joker freed without its tile broke its
            # locked set (above); when no copy of its tile lies in a successor at all it was not
            # replaced either (the replace rule alone, without the locked sets' claims on copies;
            # under a free release the rule of both colours alone, as without locked sets)
            # (in the reading of the freed jokers' places: where those places keep a set's tiles
            # out of after-sets, its replacing tiles are not there either; ``joker_use``)
            unreplaced = tuple(
                beside
                if beside is not None
                else (
                    v
                    for v in joker_replacement.replacements(self, jokers, stays, locked=False, group_tiles=free_both)
                    if v.code == "JOKER_NOT_REPLACED"
                )
            )
        # (those reported beside count among the violations: a reading "freeing" a joker that
        # stays, to call it not replaced beside a broken lock, read better than both jokers
        # staying in two broken sets; a hand-made examiner, session 54. Between readings
        # otherwise equal, the one without them, whichever colour its jokers stood for; an
        # independent audit, session 45)
        key = (
            *rank(violations, len(freed), locked_joker_sets.split_unlocked(self, jokers, stays), len(unreplaced)),
            len(unreplaced),
        )
        if self.locked and freed and not joker_use.freed_can_leave(self, jokers, fixed, stays):
            # A joker "freed" where it can only stay did stay (SPEC §4): under locked sets its
            # exact tile elsewhere would otherwise unlock a set that lost a tile.
            if self.fallback is None or key < self.fallback.key:
                self.fallback = Candidate(key, tuple(violations), len(freed), unreplaced)
            return
        found = Candidate(key, tuple(violations), len(freed), unreplaced)
        if as_strict and (self.strict_best is None or key < self.strict_best.key):
            self.strict_best = found
        if as_best and (self.best is None or key < self.best.key):
            self.best = found

"""The least-change tie break of ``suggest`` (issue #18): among the moves scoring as much as
the best move found, the one that disturbs the table least (``engine.changes``: fewest table
tiles moved to another set, then fewest before-sets touched, then fewest new sets).

This module holds the tie break's steps and its entry points (``with_least_change``,
``least_change``); the integer programme its last step solves is built and solved in
``least_change_programme``, from the pieces of ``least_change_model``.

First, when the player has opened, ``engine.solver.intact`` looks for a move moving no table
tile that scores as much (every before-set as it lies or grown by rack tiles, jokers
included, new sets of rack tiles): tiles moved 0 being the least possible, its least-touching
move is the least change, proven by itself once it verifies. Then ``engine.solver.few_moved`` lists
every after-set that a move moving at most ``FEW_MOVED`` table tiles can hold and picks the
least disturbing such move scoring as much: when one exists and verifies it is the least
change, proven under every rule edition (the list is a superset of the legal moves). The best
move found caps the bound: the least change moves no more table tiles than it, so when it
moves fewer than ``FEW_MOVED`` the list is only that long (fewer columns), and when it moves
``KNOWN_MOVED`` (three) the step tries three after two, and decides. When it moves more, the
step runs only where the programmes below cannot prove their answer (it seldom finds a move
then, and the programmes find every move it would).
Each explicit step's move is checked in every layout a verdict tells apart (``_layouts``);
when none is a legal turn, the step's next best moves in turn (``TRIES``), each found one
excluded from its programme: the first legal one is its least legal move, proven. A first
step without a legal move leaves the second to run; where the programmes below prove
nothing, the second runs after them too (session 56). With a rack joker the second step checks
its first move only, and its next best ones after the programme with the jokers free (below)
when that proves nothing: there its programme has many optima alike (a joker of the rack or
of the table in the same place), each excluded one more integer programme (xp, ``J O12 O13`` +
``O11 B11 J K11`` with ``K11 O11 O12 K10 J J``: 8 of them, 0.7 s, all no legal turn, where
the free programme proves the least change in 0.06 s; session 57).
Otherwise the integer programme (``least_change_programme``), first in a smaller form (a set
continued by a set of the other kind only through the free sets, counted by necessary
conditions: its optimum bounds the true one from below), whole when the smaller one's move
disturbs more than its bound.

The move found is laid out (continuations in the place of their before-set, unchanged sets
as given, free sets last), checked with ``verify_turn`` and scored again; the caller keeps the
first-found move when it fails. ``proven`` means the programme was solved to optimality and
models every legal move of the position: on an opening, under a free joker release, or with
no joker on the table. Not modelled: a joker set's joker replaced by its tile in a set that
does not continue it, a joker staying in a run split off its set, a joker moved otherwise.
There, the programme with the table's jokers free (as under a free release, but under
``joker_release: replace`` each staying or replaced by a copy of its tile in a successor of
its set, counted: ``least_change_programme._replacement_rows``) is solved first, its smaller
form, for at most ``RELAXED_NODES`` relaxations: its moves are a superset of the legal ones, so
its optimum bounds the least change from below; its move, when a legal turn, is the least
change, proven, and otherwise the programme under the rules looks for a legal
move, proven least when it disturbs no more than that bound (on generated sabra games, least
change proven on 716 of 747 positions against 250 before; bench/README.md, session 30). The
explicit step's least move, when no legal turn, bounds every legal move from below too (its
moves hold every legal one moving that few tiles; the others move more): where the step was
left to the programmes and the free programme stops at its cap, it runs then (sabra games:
slowest 1,015 -> 515 ms, unproven 31 -> 28; session 31)."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.changes import Changes, changes
from engine.rules import Rules
from engine.sets import SetReading, TableSet
from engine.solver.few_moved import few_moved_moves
from engine.solver.intact import INFEASIBLE, intact_moves, played_value
from engine.solver.layout import bag_listing
from engine.solver.least_change_programme import Solved, solve_programme
from engine.solver.model import COLOUR_INDEX, Suggestion
from engine.tiles import JOKER, MAX_NUMBER, MIN_NUMBER, Tile, joker_as, numbered, tiles_of_keys
from engine.turns import verify_turn

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester

FEW_MOVED = 2
"""The most table tiles moved that the explicit second step (``engine.solver.few_moved``)
looks at; beyond, the integer programmes below decide."""
KNOWN_MOVED = 3
"""When the best move found moves at most this many table tiles, so does the least change:
the explicit step then looks at no more than the best move moves (fewer columns, when it moves
fewer than ``FEW_MOVED``), and further than ``FEW_MOVED`` when it moves more (the least change
is then found by the explicit steps, without the integer programmes)."""
RELAXED_NODES = 40
"""The most relaxations of the integer programme with the jokers free, solved first where the
rules' programmes do not model every legal move (see ``least_change``). On generated sabra
games (747 positions) the cap at 20, 40 and 60 left least change unproven on 56, 30 and 25,
the slowest 1% taking 235, 255 and 311 ms and all together 20.9, 20.9 and 23.4 s (xp, 1,083
positions, 20 against 40: 116 and 66 unproven, p99 444 and 496 ms, 50.7 and 52.1 s);
measured in bench/README.md, session 30."""
RELEASING_NODES = 40
"""The most relaxations of the rules' programme freeing jokers in place under ``other_set``,
``new_set_with_two_rack_tiles`` and ``joker_sets_locked`` (see ``least_change``). On generated
pressman-2009 games (747 positions) unbounded, it took p99 from 819 to 1,002 ms for the same
answers (bench/README.md, session 32). It was capped at 0.1 s of wall clock until session 46,
which made answers depend on the machine's load (a hand-made xp case needing 20 relaxations
got a more disturbing move in a loaded test run): on 356 pressman-2009 and 356 strict-joker
positions 40 relaxations gave the same answers as 0.1 s (2 less disturbing) in the same time."""


def with_least_change(move: Suggestion, solved: Suggester, tie_break: str) -> Suggestion:
    """``move`` (the best move ``solved`` found) with its change list; under the
    ``least_change`` tie break replaced by the least disturbing move scoring as much, when one
    is found that verifies and disturbs no more."""
    s = solved
    listed = changes(s.table, s.rack, move.after)
    if not move.played:
        return dataclasses.replace(move, changes=listed, least_change_proven=True)
    if tie_break != "least_change":
        return dataclasses.replace(move, changes=listed)
    # the lexicographic score with the smallest weight that keeps it so (no move is worth more
    # points than the whole rack with every joker at 13, nor plays more tiles than the rack)
    primary = 1 + max(len(s.rack), sum(t.number if t.color is not None else 13 for t in s.rack))
    weights = (primary, 1) if s.tile_weight > s.value_weight else (1, primary)
    floor = len(move.played) * weights[0] + move.value * weights[1]
    known = listed.disturbance.as_tuple()  # the least change disturbs no more
    found = least_change(s.table, s.kinds, s.readings, s.rack, s.opened, s.rules, weights, floor, s.deadline, known)
    if isinstance(found, str):  # KNOWN_LEAST: no move scoring as much disturbs less
        return dataclasses.replace(move, changes=listed, least_change_proven=True)
    if found is None:
        return dataclasses.replace(move, changes=listed)
    better = found.changes or changes(s.table, s.rack, found.after)
    if found.score == floor and better.disturbance.as_tuple() > listed.disturbance.as_tuple():
        return dataclasses.replace(move, changes=listed)  # the programme missed the move found
    return dataclasses.replace(
        move,
        after=found.after,
        played=found.played,
        value=found.value,
        changes=better,
        least_change_proven=found.proven,
        # (a legal move scoring more than the search's best: that best was not optimal)
        optimal_proven=move.optimal_proven and found.score <= floor,
    )


@dataclass(frozen=True, slots=True)
class LeastChange:
    """A move found by the tie break: the table after it, the tiles played, their value, its
    score, whether the programme proved it the least change, and its change list when
    already worked out."""

    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    value: int
    score: int
    proven: bool
    changes: Changes | None = None


KNOWN_LEAST = "known"
"""``least_change``'s answer when the known move (``known``) is proven the least change."""


def least_change(
    table: Sequence[tuple[Tile, ...]],
    kinds: Sequence[str | None],
    readings: Sequence[SetReading],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    deadline: float,
    known: tuple[int, int, int] | None = None,
) -> LeastChange | str | None:
    """The move scoring at least ``floor`` (tile weight, value weight as ``weights``) that
    disturbs the table least, or None (not modelled, no time, or no legal move found).
    ``known``: the disturbance (tiles moved, sets touched, new sets) of a legal move scoring
    ``floor``, when one is known; KNOWN_LEAST when that move is proven the least change."""
    if not opened and rules.manipulate_on_opening_turn:
        # Not modelled as such, but every legal opening is a legal move of an opened player,
        # scoring no less (a table joker set laid again is then read at its best): the least
        # change of the opened position, when it is a legal opening scoring ``floor``, is the
        # least change here too, proven as it is there (and a known move proven least there is
        # least here).
        found = least_change(table, kinds, readings, rack, True, rules, weights, floor, deadline, known)
        if isinstance(found, LeastChange):
            return _checked(table, kinds, rack, False, rules, list(found.after), weights, floor, found.proven)
        return found
    table_counts: Counter[tuple[int, int]] = Counter()
    rack_counts: Counter[tuple[int, int]] = Counter()
    table_jokers = rack_jokers = 0
    for s in table:
        for t in s:
            if t.color is None:
                table_jokers += 1
            else:
                table_counts[(COLOUR_INDEX[t.color], t.number)] += 1
    for t in rack:
        if t.color is None:
            rack_jokers += 1
        else:
            rack_counts[(COLOUR_INDEX[t.color], t.number)] += 1
    opening = not opened
    supply = rack_counts if opening else table_counts + rack_counts
    base = Counter[tuple[int, int]]() if opening else table_counts
    base_jokers = 0 if opening else table_jokers
    jokers = rack_jokers + base_jokers
    w_touch = (sum(supply.values()) + jokers) // 3 + 2
    w_move = w_touch * (len(table) + 1) + 1
    free_release = rules.jokers_move_freely
    # proven: solved to optimality, and every legal move is modelled (a joker set's joker
    # may also be replaced in a set that does not continue it, or stay in a split run)
    exact = opening or free_release or not table_jokers

    def weighed(d: tuple[int, int, int]) -> int:
        return d[0] * w_move + d[1] * w_touch + d[2]

    # the programmes' objective is the weighed disturbance less this constant
    offset = w_move * sum(map(len, table)) + w_touch * len(table)

    def check(after: list[tuple[Tile, ...]], proven: bool) -> LeastChange | None:
        return _checked(table, kinds, rack, opened, rules, after, weights, floor, proven)

    few_skipped = False  # the explicit step left to the programmes
    # the bounds of the explicit step left, its first move checked, for after the free programme
    deferred: tuple[int, ...] = ()
    paused = False  # the explicit step's last run checked its first move only, not a legal turn
    # a bound from below on the weighed disturbance of every legal move (the explicit step's
    # optimum, when its move is no legal turn)
    lower: int | None = None
    # the weighed disturbance of the least disturbing legal move known (the caller's)
    ceiling = None if opening or known is None else weighed(known)

    def explicit(most: int, tries: int = TRIES) -> LeastChange | str | None:
        """The explicit step for at most ``most`` table tiles moved (``_few_moved``, at most
        ``tries`` moves checked): its move when proven least, KNOWN_LEAST when its bound shows
        the caller's move least, INFEASIBLE, else None (its bound, when it gives one, kept in
        ``lower``; ``paused`` when it stopped at ``tries`` moves, fewer than ``TRIES``)."""
        nonlocal lower, paused
        paused = False
        if rack_jokers and exact:
            return None  # (the programmes prove their answer: the step would only cost time)
        few = _few_moved(table, kinds, rack, rules, weights, floor, most, deadline, tries)
        paused = tries < TRIES and isinstance(few, tuple)
        if few == NONE_LEGAL:
            # every legal move scoring floor moves more than ``most`` tiles
            lower = max(lower or 0, weighed((most + 1, 0, 0)))
            return KNOWN_LEAST if ceiling is not None and ceiling <= lower else INFEASIBLE
        if not isinstance(few, tuple):
            return few
        lower = max(lower or 0, weighed(few))
        return KNOWN_LEAST if ceiling is not None and ceiling <= lower else None

    # a move moving no table tile, when one scores as much: proven least by itself
    if not opening:
        moves = intact_moves(table, rack, rules, weights, floor, deadline - time.perf_counter())
        intact = next(moves)
        if isinstance(intact, list):
            found, intact = _legal_intact(intact, moves, deadline, check, rules)
            if found is not None:
                return found
        # else a move moving at most FEW_MOVED table tiles (or as many as a move known to
        # score floor, up to KNOWN_MOVED): proven least by itself too
        if intact == INFEASIBLE or intact is None:
            # (the programmes prove their answer when exact, and mostly under a replace
            # release: the free programme's rows)
            provable = exact or rules.joker_release == "replace"
            bounds = _few_bounds(None if known is None else known[0], provable)
            few_skipped = not bounds
            for k, most in enumerate(bounds):
                # (with a rack joker its first move only: its next best ones, each an integer
                # programme with many optima alike, are left for after the free programme)
                few = explicit(most, 1 if rack_jokers else TRIES)
                if isinstance(few, LeastChange) or few == KNOWN_LEAST:
                    return few
                if few != INFEASIBLE:
                    deferred = bounds[k:] if paused else ()
                    break
    # then the integer programmes (``_programmes``). Where the rules' programmes do not model
    # every legal move (table jokers under a joker release that is not free), the programmes
    # with the jokers free, which model a superset of them, are solved first (at most
    # ``RELAXED_NODES`` relaxations): their optimum bounds the least change from below, and
    # their move, when a legal turn, is the least change; else the rules' programmes look for
    # a legal move, proven least when it disturbs no more than that bound
    holder: LeastChange | str | None = KNOWN_LEAST if ceiling is not None else None

    def attempt(
        free: bool, max_nodes: int | None = None, keep_jokers: bool = False
    ) -> Callable[[bool, int | None], Solved | None]:
        return functools.partial(
            solve_programme,
            table,
            readings,
            rack_counts,
            rack_jokers,
            supply,
            base,
            base_jokers,
            jokers,
            opening,
            rules,
            weights,
            floor,
            deadline,
            w_move,
            w_touch,
            free,
            max_nodes=max_nodes,
            keep_jokers=keep_jokers,
        )

    programmes = functools.partial(_programmes, check, functools.partial(changes, table, rack), weighed, offset)
    if exact:
        return programmes(attempt(free_release), True, ceiling, holder)[0]
    relaxed, bound = programmes(attempt(True, RELAXED_NODES), True, ceiling, holder, smaller_only=True)
    if isinstance(relaxed, str) or (relaxed is not None and relaxed.proven):
        return relaxed
    if deferred and time.perf_counter() < deadline:
        # the free programme proved nothing: the explicit step goes on, as it would have
        # before it (its next best moves: a legal one is the least change, or their bound)
        for most in deferred:
            few = explicit(most)
            if isinstance(few, LeastChange) or few == KNOWN_LEAST:
                return few
            if few != INFEASIBLE:
                break
    if few_skipped and bound is None and time.perf_counter() < deadline:
        # the free programme proved nothing (it stopped at its cap): the explicit step, left
        # out for the programmes, may prove a move least, or bound them from below
        few_skipped = False
        few = explicit(FEW_MOVED)
        if isinstance(few, LeastChange) or few == KNOWN_LEAST:
            return few
    if lower is not None:
        bound = lower if bound is None else max(bound, lower)
        if ceiling is not None and ceiling <= bound:
            return KNOWN_LEAST
    if relaxed is not None:
        ceiling, holder = _weighed_changes(relaxed, weighed), relaxed
        if bound is not None and ceiling <= bound:
            return dataclasses.replace(relaxed, proven=True)
    # (the rules' programmes answer no KNOWN_LEAST: they are not exact)
    limited_use = rules.freed_joker_use != "any_set" or rules.joker_sets_locked
    # (under other_set, new_set_with_two_rack_tiles and locked joker sets first with every
    # joker set's jokers in their places: its moves are more often legal, and it is solved
    # faster)
    legal = programmes(attempt(False, keep_jokers=limited_use), False, ceiling, holder)[0]
    if limited_use and bound is not None and not _within(legal, bound, weighed) and time.perf_counter() < deadline:
        # then with the jokers freed by their exact tiles where these rules allow (in part:
        # ``_freed_elsewhere``), for a move disturbing less: its smaller form, for at most
        # RELEASING_NODES relaxations
        if isinstance(legal, LeastChange):
            ceiling, holder = _weighed_changes(legal, weighed), legal
        releasing_programme = attempt(False, max_nodes=RELEASING_NODES)
        legal = programmes(releasing_programme, False, ceiling, holder, smaller_only=True)[0] or legal
    legal = legal or holder
    if few_skipped and time.perf_counter() < deadline and not _within_or_known(legal, bound, ceiling, weighed):
        # the programmes proved nothing: the explicit step, left out for them, may find a
        # less disturbing move moving at most KNOWN_MOVED tiles, proven least, or bound them
        # from below (session 56: a strict-joker move moving 1 tile where the programmes
        # answered one moving 4)
        for most in (FEW_MOVED, KNOWN_MOVED):
            last = _few_moved(table, kinds, rack, rules, weights, floor, most, deadline)
            if isinstance(last, LeastChange):
                return last
            if isinstance(last, tuple):
                lower = max(lower or 0, weighed(last))
                break
            if last not in (INFEASIBLE, NONE_LEGAL):
                break
            # (every legal move scoring floor moves more than ``most`` tiles)
            lower = max(lower or 0, weighed((most + 1, 0, 0)))
        if lower is not None:
            bound = lower if bound is None else max(bound, lower)
    if isinstance(legal, str):  # the caller's move
        return legal if bound is not None and ceiling is not None and ceiling <= bound else None
    if legal is None or bound is None:
        return legal
    return dataclasses.replace(legal, proven=_within(legal, bound, weighed))


def _programmes(
    check: Callable[[list[tuple[Tile, ...]], bool], LeastChange | None],
    listed: Callable[[Sequence[tuple[Tile, ...]]], Changes],
    weighed: Callable[[tuple[int, int, int]], int],
    offset: int,
    attempt: Callable[[bool, int | None], Solved | None],
    exact: bool,
    ceiling: int | None,
    holder: LeastChange | str | None,
    smaller_only: bool = False,
) -> tuple[LeastChange | str | None, int | None]:
    """The least disturbing legal move the integer programmes find (``attempt(aggregated,
    cutoff)``, see ``solve_programme``; ``exact``: they model every legal move), disturbing no more
    than ``ceiling`` (weighed) when given, a legal move ``holder`` disturbing that much
    (KNOWN_LEAST for the caller's): proven least, or that move proven least when no move of an
    exact model disturbs as little; and for an exact model, a bound from below on the weighed
    disturbance of every legal move (None: none proven). First the smaller model (a set
    continued by a set of the other kind only through the free sets, counted by necessary
    conditions): its optimum bounds the true one from below, so a move it finds disturbing
    exactly that much is the least change; else (unless ``smaller_only``) the full model. A
    move is only answered when it is a legal turn scoring enough (``check``, see ``_checked``),
    with its change list (``listed``)."""

    def checked(after: list[tuple[Tile, ...]], proven: bool) -> LeastChange | None:
        found = check(after, proven)
        return None if found is None else dataclasses.replace(found, changes=listed(found.after))

    fast = attempt(True, None if ceiling is None else ceiling - offset + 1)
    # a legal move of the smaller model that is not proven least: answered (not proven) when
    # the full model finds nothing in time
    fallback: LeastChange | None = None
    bound: int | None = None
    if fast is not None:
        after, optimal, least = fast
        if after is None:  # no move of the smaller model disturbs as little: nor does a legal move
            return (_proven(holder) if optimal and exact else None), None
        if optimal and exact:
            bound = least + offset
        found = checked(after, optimal and exact)
        if found is not None:
            disturbs = _weighed_changes(found, weighed)
            if optimal and disturbs <= least + offset:
                return found, bound
            fallback = dataclasses.replace(found, proven=False)
            if ceiling is not None and disturbs < ceiling:
                ceiling, holder = disturbs, fallback
    if smaller_only:
        return fallback, bound
    full = attempt(False, None if ceiling is None else ceiling - offset + 1)
    if full is None:
        return fallback, bound
    after, optimal, least = full
    if after is None:  # no move of the full model disturbs as little as the one holding the ceiling
        return (_proven(holder) if optimal and exact and holder is not None else fallback), bound
    if optimal and exact:
        bound = least + offset
    found = checked(after, optimal and exact)
    if found is None or (not found.proven and fallback is not None and _disturbance(found) > _disturbance(fallback)):
        return fallback, bound
    return found, bound


def _within_or_known(
    move: LeastChange | str | None,
    bound: int | None,
    ceiling: int | None,
    weighed: Callable[[tuple[int, int, int]], int],
) -> bool:
    """Is ``move`` (a programme's, or KNOWN_LEAST for the caller's, disturbing ``ceiling``)
    proven least by ``bound``?"""
    if isinstance(move, str):
        return bound is not None and ceiling is not None and ceiling <= bound
    return _within(move, bound, weighed)


def _within(move: LeastChange | str | None, bound: int | None, weighed: Callable[[tuple[int, int, int]], int]) -> bool:
    """Is ``move`` (a programme's, with its change list) proven least by ``bound``?"""
    return isinstance(move, LeastChange) and bound is not None and _weighed_changes(move, weighed) <= bound


def _weighed_changes(move: LeastChange, weighed: Callable[[tuple[int, int, int]], int]) -> int:
    """The weighed disturbance of ``move``, its change list known."""
    return weighed(_disturbance(move))


def _disturbance(move: LeastChange) -> tuple[int, int, int]:
    """The disturbance of ``move``, its change list known."""
    assert move.changes is not None
    return move.changes.disturbance.as_tuple()


def _proven(holder: LeastChange | str | None) -> LeastChange | str | None:
    """The move holding the ceiling, proven least."""
    return dataclasses.replace(holder, proven=True) if isinstance(holder, LeastChange) else holder


LAYOUTS = 64
"""The most layouts of a move found by the explicit steps that are checked (``_layouts``)."""
TRIES = 8
"""The most moves of an explicit step (``intact``, ``few_moved``) checked in turn, each the
step's programme's next best once the moves before it proved no legal turn in any layout."""
NONE_LEGAL = "none legal"
"""``_few_moved``'s answer when every move of the step is no legal turn (checked in every
layout): every legal move scoring ``floor`` moves more table tiles."""


def _layouts(after: list[tuple[Tile, ...]], rules: Rules) -> tuple[Iterator[list[tuple[Tile, ...]]], bool]:
    """``after``, then the same move with its sets laid every other way a verdict can tell
    apart (``_relaid``), at most ``LAYOUTS`` layouts; then those with some runs holding a
    joker laid as bags (``layout.bag_listing``), at most ``LAYOUTS`` more; and whether these
    are all of them. The
    steps' programmes score ``J K3 K4`` and ``K3 K4 J`` alike, but beside ``J K6 K7`` laid
    ``K6 K7 J`` only the second is legal (a suggest audit, session 55); ``O2 O3 J`` grown by
    O4 is legal as ``O2 O3 O4 J=O5``, not as ``J=O1 O2 O3 O4``; a set kept whole may have to
    be laid again, ``J O9 O10`` as ``O9 O10 J`` beside ``O9 J O11 O12`` made ``O10 O11 O12``
    under xp (session 56). A bag has every reading of its ordered listings at once: sabra +
    ``other_set``, ``J R8 R9`` kept as ``R8 J R9`` beside ``J R7 R8`` from the rack is legal
    (a reading keeps the table's joker R7) and reads it R10 (25 points, no tile moved), where
    no ordered listing is both (SUGBF2-2, session 63)."""
    choices = [[tiles, *_relaid(tiles)] for tiles in after]
    total = math.prod(len(choice) for choice in choices)
    moves: Iterator[list[tuple[Tile, ...]]] = itertools.islice(
        (list(move) for move in itertools.product(*choices)), LAYOUTS
    )
    bags = [bag_listing(tiles, rules, higher=False) for tiles in after]
    if any(bag is not None for bag in bags):
        # (each set as before or as its bag, at least one a bag)
        with_bags = [[*choice, bag] if bag is not None else choice for choice, bag in zip(choices, bags, strict=True)]
        bagged = math.prod(len(choice) for choice in with_bags)
        more = (
            list(move)
            for move in itertools.product(*with_bags)
            if any(tiles == bag for tiles, bag in zip(move, bags, strict=True))
        )
        moves = itertools.chain(moves, itertools.islice(more, LAYOUTS))
        total = max(total, bagged - total)
    return moves, total <= LAYOUTS


def _relaid(tiles: tuple[Tile, ...]) -> Iterator[tuple[Tile, ...]]:
    """The other layouts of the set ``tiles`` (holding a joker) that a verdict can tell apart,
    each as its most permissive writing: a run of two numbered tiles or more with its jokers
    declared at the other places of a run of the same tiles; one numbered tile with its
    jokers undeclared, at every place among them (read as a run there, and as a group); a
    group of two numbered tiles or more with its jokers undeclared."""
    numbered_tiles = [t for t in tiles if not t.is_joker]
    jokers = len(tiles) - len(numbered_tiles)
    if not jokers:
        return
    if not numbered_tiles:  # (jokers alone: undeclared, read every way)
        if any(t != JOKER for t in tiles):
            yield (JOKER,) * jokers
        return
    if len(numbered_tiles) == 1:
        for at in range(len(tiles)):
            laid = (JOKER,) * at + (numbered_tiles[0],) + (JOKER,) * (jokers - at)
            if laid != tiles:
                yield laid
        return
    colours = {t.color for t in numbered_tiles}
    numbers = {t.number for t in numbered_tiles}
    if len(numbers) == 1 and len(colours) == len(numbered_tiles):
        laid = tuple(numbered_tiles) + (JOKER,) * jokers
        if laid != tiles:
            yield laid
        return
    if len(colours) != 1 or len(numbers) != len(numbered_tiles):
        return
    (colour,) = colours
    assert colour is not None
    length = len(tiles)
    for low in range(max(MIN_NUMBER, max(numbers) - length + 1), min(numbers) + 1):
        high = low + length - 1
        if high > MAX_NUMBER:
            break
        laid = tuple(
            numbered(colour, v) if v in numbers else joker_as(numbered(colour, v)) for v in range(low, high + 1)
        )
        if laid != tiles:
            yield laid


def _legal_layout(
    after: list[tuple[Tile, ...]],
    check: Callable[[list[tuple[Tile, ...]]], LeastChange | None],
    rules: Rules,
) -> tuple[LeastChange | None, bool]:
    """The first layout of ``after`` (``_layouts``) that ``check`` answers, and whether every
    layout was checked (when none is answered: then the move is no legal turn, laid any way)."""
    layouts, complete = _layouts(after, rules)
    for laid in layouts:
        found = check(laid)
        if found is not None:
            return found, complete
    return None, complete


def _legal_intact(
    first: list[tuple[Tile, ...]],
    moves: Iterator[list[tuple[Tile, ...]] | str | None],
    deadline: float,
    check: Callable[[list[tuple[Tile, ...]], bool], LeastChange | None],
    rules: Rules,
) -> tuple[LeastChange | None, str | None]:
    """The first step's least move ``first`` (``intact_moves``' first) in a layout that is a
    legal turn; when it is none in any layout, the step's next best moves in turn (``moves``,
    the rest of that generator; at most ``TRIES``). Answers the least change among the moves moving no tile, proven (the moves
    before it are no legal turn, laid any way), or None with ``INFEASIBLE`` when no such move
    is legal, None when not found."""

    def proven(laid: list[tuple[Tile, ...]]) -> LeastChange | None:
        return check(laid, True)

    found, complete = _legal_layout(first, proven, rules)
    if found is not None or not complete:
        return found, None
    tried = [first]
    for after in moves:
        if not isinstance(after, list):
            return None, after
        if after in tried:
            continue  # (a move checked before, its sets chosen in other roles)
        if len(tried) >= TRIES or time.perf_counter() > deadline:
            break
        tried.append(after)
        found, complete = _legal_layout(after, proven, rules)
        if found is not None or not complete:
            return found, None
    return None, None


def _few_bounds(moved: int | None, provable: bool) -> tuple[int, ...]:
    """The bounds on the table tiles moved that the explicit step tries in turn, given that a
    move scoring as much moves ``moved`` (None: unknown): that many when it is at most
    ``FEW_MOVED`` (the least change is among them), ``FEW_MOVED`` and then that many when it
    is at most ``KNOWN_MOVED`` (the fewer columns first: the least change often moves fewer).
    When it moves more, ``FEW_MOVED`` only where the programmes seldom prove their answer
    (``provable`` false: the step's proof holds under every rule edition); where they can, none:
    on the games bench (free-joker) the step then found nothing on 131 of 148 positions, about
    10 ms each, and the programme finds the other 17 too (bench/README.md, session 19); on
    generated sabra games, where the free programme proves most answers, leaving the step out
    took the median from 19.6 to 16.1 ms, with one answer fewer proven of 747 (session 30)."""
    if moved is None:
        return (FEW_MOVED,)
    if moved > KNOWN_MOVED:
        return () if provable else (FEW_MOVED,)
    if moved <= FEW_MOVED:
        return (max(1, moved),)
    return (FEW_MOVED, moved)


def _few_moved(
    table: Sequence[tuple[Tile, ...]],
    kinds: Sequence[str | None],
    rack: Sequence[Tile],
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    most: int,
    deadline: float,
    tries: int = TRIES,
) -> LeastChange | str | tuple[int, int, int] | None:
    """The least change when it moves at most ``most`` table tiles (proven: see
    ``engine.solver.few_moved``), once its move verifies and its change list shows the
    disturbance the programme counted; ``INFEASIBLE`` when every move scoring ``floor`` moves
    more; the disturbance counted when its move is no legal turn (the step's moves holding
    every legal one moving that few, and the others moving more, no legal move disturbs
    less); else None. A move that is no legal turn in any of its layouts is followed by the
    step's next least disturbing one (at most ``tries`` in all): the first legal one is the
    least change, proven as the first would be; ``NONE_LEGAL`` when none is left, else the
    disturbance counted of the last one checked bounds every legal move from below."""
    moves = few_moved_moves(table, rack, rules, weights, floor, most, deadline - time.perf_counter())
    counted: tuple[int, int, int] | None = None
    illegal: list[list[tuple[Tile, ...]]] = []  # the moves found no legal turn in any layout
    for tried, few in enumerate(moves):
        if not isinstance(few, tuple):
            # (no move left after some were found no legal turn: none is legal)
            return NONE_LEGAL if few == INFEASIBLE and counted is not None else few if counted is None else counted
        after, counted = few
        if after in illegal:  # (the same sets in other roles)
            if tried + 1 >= tries or time.perf_counter() > deadline:
                break
            continue

        def proven(laid: list[tuple[Tile, ...]]) -> LeastChange | None:
            return _checked(table, kinds, rack, True, rules, laid, weights, floor, True)

        found, complete = _legal_layout(after, proven, rules)
        if found is not None:
            listed = changes(table, rack, found.after)
            if listed.disturbance.as_tuple() != counted:
                return None
            return dataclasses.replace(found, changes=listed)
        if not complete or tried + 1 >= tries or time.perf_counter() > deadline:
            break
        illegal.append(after)
    return counted


def _checked(
    table: Sequence[tuple[Tile, ...]],
    kinds: Sequence[str | None],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    after: list[tuple[Tile, ...]],
    weights: tuple[int, int],
    floor: int,
    proven: bool,
) -> LeastChange | None:
    """The move if it is a legal turn scoring at least ``floor`` (a played joker worth the best
    points of a joker after the move, each set read at its best, as ``suggest`` scores)."""
    before = [TableSet(tiles, kind) for tiles, kind in zip(table, kinds, strict=True)]
    if not verify_turn(before, [TableSet(s) for s in after], tuple(rack), opened, rules).valid:
        return None
    played_keys, value = played_value(table, after, rules, opened)
    count = sum(played_keys.values())
    tw, vw = weights
    score = count * tw + value * vw
    if score < floor:
        return None
    return LeastChange(tuple(after), tiles_of_keys(played_keys), value, score, proven)

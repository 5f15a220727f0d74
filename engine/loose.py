"""Verifying a turn whose ``after`` is a loose table: a flat list of tiles, not yet laid out.

The question is whether *some* arrangement of those tiles into sets makes the turn legal
(a loose table is the service's addition, not in SPEC: docs/rules-engine.md, "Loose tables").
Its jokers are undeclared but for declarations copied from ``before`` (``check_undeclared``).
The answer comes from the solver:

1. the tiles are accounted as in any turn (tiles taken off the table, tiles not on the rack,
   more copies of a tile than the tile set has) and an invalid before table: such a turn is
   illegal whatever the arrangement, no arrangement is sought, and its ``after`` is the
   before-sets still whole plus one set of the other tiles; only the accounting violations
   (``ACCOUNTING_CODES``) are told, none about that set, which nobody laid;
2. the same tiles as before: the player drew;
3. otherwise ``suggest`` is asked for the best move playing from exactly the tiles added; when
   it plays all of them, its table is a legal arrangement;
4. failing that, ``arrange`` lays out all the tiles and that arrangement is judged: it is
   legal, or its violations say why not (an illegal opening whose played tiles can be laid
   out by themselves is judged with the before-sets left whole beside them instead: only its
   value is at fault), except when ``suggest``
   did not prove its move the best (its time budget ran out, or its passes do not model every
   joker move): then the turn gets ``ARRANGEMENT_NOT_FOUND`` (a legal layout may exist); when
   the tiles cannot be laid out at all, ``NO_ARRANGEMENT``.

The verdict carries the arrangement it judged in ``after``.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from engine import solver
from engine.errors import InputError
from engine.rules import SABRA, Rules, RulesLike
from engine.sets import TableSet, as_table
from engine.tiles import Tile, as_tiles, sort_key
from engine.turns import TurnVerdict, check_budget, check_elapsed, player_arguments, verify_turn
from engine.violations import Violation

ACCOUNTING_CODES = frozenset(
    {"TABLE_TILE_REMOVED", "TILE_NOT_IN_RACK", "TILE_SUPPLY_EXCEEDED", "BEFORE_TABLE_INVALID", "TIME_LIMIT_EXCEEDED"}
)
"""The violations of a loose turn whose tiles cannot be accounted for: those that do not depend
on an arrangement."""


def verify_loose_turn(
    before: Iterable[TableSet | Iterable[Tile]],
    after_tiles: Iterable[Tile],
    rack: Iterable[Tile],
    opened: bool,
    rules: RulesLike = SABRA,
    elapsed_seconds: float | None = None,
    budget_seconds: float = 2.0,
    at: str = "",
) -> TurnVerdict:
    """Judge a turn whose end state is the multiset ``after_tiles`` (see the module doc).
    ``budget_seconds`` bounds the solver's searches together, not each one. Takes and refuses
    what ``verify_turn`` does (iterators read once, bare tile sequences as sets, a preset's
    name as rules); a declared joker among ``after_tiles`` is an InputError at ``at/i``
    (``at``: where the caller's request holds the tiles, ``check_undeclared``)."""
    before = as_table(before)
    after_tiles = as_tiles(after_tiles, "the loose tiles")
    check_undeclared(after_tiles, before, at)
    rack, rules = player_arguments(rack, opened, rules)
    check_elapsed(elapsed_seconds)
    check_budget(budget_seconds)
    before_keys = Counter(t.key for s in before for t in s.tiles)
    after_keys = Counter(t.key for t in after_tiles)
    if after_keys == before_keys:
        return _judged(before, before, rack, opened, rules, elapsed_seconds)
    played_keys = after_keys - before_keys
    # Accounting problems do not depend on the arrangement: judge one that keeps the table.
    # (More copies than the tile set has, too: and arranging them would cost exponential time.)
    rack_keys = Counter(t.key for t in rack)
    if (
        before_keys - after_keys
        or played_keys - rack_keys
        or not rules.supply.holds(before_keys + rack_keys)
        or not rules.supply.holds(after_keys)
        or any(s.read(rules).code is not None for s in before)  # BEFORE_TABLE_INVALID
    ):
        verdict = _judged(before, _keep_table(before, after_tiles), rack, opened, rules, elapsed_seconds)
        # the set of the other tiles is nobody's arrangement: what it breaks is not the turn's
        accounted = tuple(v for v in verdict.violations if v.code in ACCOUNTING_CODES)
        return dataclasses.replace(verdict, violations=accounted)
    left = Counter(played_keys)  # (one Counter for all: each added copy is taken once)
    played = [t.undeclared() for t in after_tiles if _take(left, t.key)]
    solver.prepare()  # loading the solver (about a second cold) is not part of the budget
    deadline = time.perf_counter() + budget_seconds  # one budget for both searches
    # (the before-sets in an order of their own, their tiles as laid: between equally good
    # arrangements the solver's choice follows the order it is given, and the verdict never
    # depends on the listing, SPEC §4)
    listed: list[TableSet] = sorted(before, key=lambda s: (s.codes, s.kind or ""))
    move = solver.suggest(listed, played, opened, rules, "tiles", budget_seconds)
    if Counter(t.key for t in move.played) == after_keys - before_keys:
        laid = tuple(TableSet(s) for s in move.after)
        return _judged(before, laid, rack, opened, rules, elapsed_seconds)
    layout = solver.arrange(after_tiles, rules, deadline - time.perf_counter())
    if layout.sets is not None:
        laid = tuple(TableSet(s) for s in layout.sets)
        verdict = _judged(before, laid, rack, opened, rules, elapsed_seconds)
        # A layout's faults are not the turn's when the search for a legal one ran out of
        # time: another layout may be legal (a pressman turn was judged illegal under load,
        # legal alone: the concurrency audit, session 47).
        if verdict.valid:
            return verdict
        # Nor when the search did not prove that no move plays every added tile: its passes
        # model the joker rules' moves only in part (pressman-2009 with a free release: a legal
        # layout, ``O1 O2 O3`` + ``O5 O6 O7 O8 J O10`` beside a group taking the run's O6, judged
        # FREED_JOKER_MISUSED loose; the stateful transport audit, session 57).
        if move.optimal_proven:
            return _table_left_whole(before, played, rack, opened, rules, elapsed_seconds, deadline) or verdict
    verdict = _judged(before, before, rack, opened, rules, elapsed_seconds)
    code = "NO_ARRANGEMENT" if layout.arrangeable is False else "ARRANGEMENT_NOT_FOUND"
    params: dict[str, Any] = {"count": len(after_tiles)}
    if len(after_tiles) == 1:  # ("The tile cannot be laid out", not "The 1 tile")
        params["case"] = "one"
    if code == "ARRANGEMENT_NOT_FOUND" and layout.sets is not None and not move.budget_exhausted:
        params["case"] = "unproven"  # (the time held: the search does not model every move)
    problem = Violation(code, "/after", params)
    return TurnVerdict(
        action="play",
        played=tuple(sorted(played, key=sort_key)),
        rack_after=tuple(rack),
        opened_after=opened,
        initial_meld_value=None,
        jokers_freed=0,
        violations=(problem, *[v for v in verdict.violations if v.code == "TIME_LIMIT_EXCEEDED"]),
        penalty_draw=max(rules.failed_turn_penalty, verdict.penalty_draw),
        after=None,
    )


def _table_left_whole(
    before: tuple[TableSet, ...],
    played: Sequence[Tile],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    elapsed_seconds: float | None,
    deadline: float,
) -> TurnVerdict | None:
    """An illegal opening read most favourably: the before-sets left whole and the played
    tiles laid out by themselves, when they can be (then only the opening's value, or the
    time, is at fault), rather than a layout of every tile that breaks table sets up and
    gets MANIPULATION_BEFORE_OPENING or JOKER_RELEASED_BEFORE_OPENING besides, depending on
    the colours' names (SPEC §4: the reading most favourable to the player). None when the
    player had opened (a table left whole beside valid sets of played tiles would have been
    legal: the search found no such layout) or the played tiles cannot be laid out alone."""
    if opened:
        return None
    own = solver.arrange(played, rules, deadline - time.perf_counter())
    if own.sets is None:
        return None
    laid = (*before, *(TableSet(s) for s in own.sets))
    return _judged(before, laid, rack, opened, rules, elapsed_seconds)


LOOSE_DECLARATION = (
    "a loose table's jokers are written J ({tile}): the service lays the tiles out, and a "
    "declaration binds the joker to one tile (SPEC §2); only the declarations of the jokers "
    "on 'before' may be copied; write J, or give the table as sets"
)


def check_undeclared(after_tiles: Sequence[Tile], before: Sequence[TableSet] = (), at: str = "") -> None:
    """Refuse a declared joker among loose tiles (InputError at ``at/index``), but for as many
    copies of each declaration as ``before``'s jokers carry (a table copied as the service
    writes it: ``J=R12`` says nothing ``before`` does not). A played joker's declaration binds
    it (SPEC §2) and the arrangement is sought without it: ``J=R8 R9 R10`` was judged as ``R9
    R10 J=R11``, a legal 30-point opening where the same set laid is worth 27 (the loose audit,
    session 52)."""
    copied = Counter(t.declared.key for s in before for t in s.tiles if t.declared is not None)
    for i, tile in enumerate(after_tiles):
        if tile.declared is None:
            continue
        if copied[tile.declared.key] > 0:
            copied[tile.declared.key] -= 1
            continue
        raise InputError(LOOSE_DECLARATION.format(tile=tile), f"{at}/{i}")


def _keep_table(before: tuple[TableSet, ...], after_tiles: Sequence[Tile]) -> tuple[TableSet, ...]:
    """The before sets still wholly among ``after_tiles``, plus one set of the other tiles."""
    left = Counter(t.key for t in after_tiles)
    kept = []
    for s in before:
        need = Counter(s.keys)
        if not need - left:
            left -= need
            kept.append(s)
    rest = tuple(t for t in after_tiles if _take(left, t.key))
    return (*kept, TableSet(rest)) if rest else tuple(kept)


def _take(counts: Counter[str], key: str) -> bool:
    """Consume one ``key`` from ``counts`` if any is left."""
    if counts[key] > 0:
        counts[key] -= 1
        return True
    return False


def _judged(
    before: tuple[TableSet, ...],
    after: tuple[TableSet, ...],
    rack: Sequence[Tile],
    opened: bool,
    rules: Rules,
    elapsed_seconds: float | None,
) -> TurnVerdict:
    verdict = verify_turn(before, after, rack, opened, rules, elapsed_seconds)
    return dataclasses.replace(verdict, after=after)

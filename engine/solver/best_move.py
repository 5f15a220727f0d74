"""``suggest`` and the state of its passes over one position (``Suggester``): the order of the
passes over the moves considered (see the package docstring) and the assembly of a verified
answer. The passes themselves, the problems they solve and the bounds proving their answer are
the functions of the modules the package docstring names, each taking that state first."""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Iterable, Sequence

import scipy.optimize  # noqa: F401  (engine.changes' matching: loaded with the solver, before any budget's clock)

from engine.errors import InputError
from engine.rules import SABRA, Rules, RulesLike
from engine.sets import TableSet, as_table, read_set
from engine.solver import (
    exhaustive,
    fate_tree,
    fates,
    layout,
    openings,
    pass_problems,
    portfolio,
    prepare,
    value_bound,
    variant_passes,
)
from engine.solver.layout import Outcome
from engine.solver.least_change import with_least_change
from engine.solver.model import (
    LAST,
    OBJECTIVES,
    PRIMARY,
    TIE_BREAKS,
    Suggestion,
)
from engine.tiles import Tile
from engine.turns import check_budget, player_arguments
from engine.validate import require_supply

_FATES_FIRST = 16  # at most this many ways the jokers fare: the fates come before the variants' passes (``_opened``)
_FATES_FIRST_SMALL_RACK = 128  # the same with a rack of at most ``_SMALL_RACK`` tiles (each fate's problem small)
_SMALL_RACK = 4


def _restricting(table_set: TableSet, rules: Rules) -> str | None:
    """The set's declared kind, or None when every reading of its tiles has that kind anyway."""
    readings = TableSet(table_set.tiles).read(rules).readings
    return None if all(r.kind == table_set.kind for r in readings) else table_set.kind


def suggest(
    table: Iterable[TableSet | Iterable[Tile]],
    rack: Iterable[Tile],
    opened: bool,
    rules: RulesLike = SABRA,
    objective: str = "tiles",
    budget_seconds: float = 2.0,
    tie_break: str = "least_change",
) -> Suggestion:
    """The move playing the most rack tiles (``objective="tiles"``) or points (``"value"``)
    such that every table tile and every played tile ends in a valid set, respecting the
    opening and joker rules (see the module docstring for the moves considered).

    When nothing can be played, ``played`` is empty and ``after`` is the table. Among the best
    moves, ``tie_break="least_change"`` answers the one disturbing the table least
    (``engine.solver.least_change``), ``"any"`` the first found; either way the answer carries
    its change list (``engine.changes``).
    Raises ValueError for an unknown objective or tie break, InputError (a ValueError, with the
    pointer ``/table/i`` or ``/rack``) for a table set that is not valid, an empty rack, or more
    of a tile than the tile set has, as the service answers them, and TypeError for tiles that
    are not ``Tile`` objects. ``rules`` may be anything ``resolve_rules`` reads."""
    table = as_table(table)
    rack, rules = player_arguments(rack, opened, rules)
    check_budget(budget_seconds)
    for i, table_set in enumerate(table):
        if not table_set.read(rules).valid:
            raise InputError("the table holds an invalid set; validate it with /v1/sets/validate", f"/table/{i}")
    pointers = [f"/table/{i}" for i in range(len(table))]
    require_supply([*zip(pointers, (s.tiles for s in table), strict=True), ("/rack", rack)], rules, pointers)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, not {tie_break!r}")
    prepare()  # (the first call in a process builds the matrices before the clock starts)
    deadline = time.perf_counter() + budget_seconds
    tiles = [s.tiles for s in table]
    # a declared kind every reading of the set has anyway changes nothing: dropped, the passes
    # that skip declared kinds apply (`K6 J J R6` as a group: nothing played, unproven; the
    # solver audit, session 50)
    kinds = [s.kind and _restricting(s, rules) for s in table]
    suggester = Suggester(tiles, kinds, rack, opened, rules, objective, deadline)
    move = suggester.run()
    if objective == "value" and not move.optimal_proven and time.perf_counter() < deadline:
        # The most tiles' move is a legal move too, and its passes lay freed jokers the value
        # passes may not reach (free-joker + other_set, K1 K2 J=K3 K4 K5 + B2 R2 O2 with
        # O2 K7 O1 K3 K3: 6 points by value, 9 by tiles; the independent suggest oracle,
        # session 37). Not proven: the better of the two is the best found.
        most_tiles = Suggester(tiles, kinds, rack, opened, rules, "tiles", deadline)
        by_tiles = most_tiles.run()
        if not by_tiles.optimal_proven and time.perf_counter() < deadline:
            # a small position's most tiles are settled by enumeration, which stops at the
            # first size holding a legal turn where by points every size is tried, often past
            # its steps (free-joker + new_set_with_two_rack_tiles + rack-only, 20 tiles: R11 J
            # for 24 by value, J R11 R4 for 28 by tiles, proven; the analysis oracle, session 57)
            by_tiles = exhaustive.settle(most_tiles, by_tiles, "any", deadline) or by_tiles
        if by_tiles.value > move.value:
            exhausted = move.budget_exhausted or by_tiles.budget_exhausted
            move = dataclasses.replace(by_tiles, optimal_proven=False, budget_exhausted=exhausted)
    if not move.optimal_proven and time.perf_counter() < deadline:
        settled = exhaustive.settle(suggester, move, tie_break, deadline)
        if settled is not None:
            return settled
    if not move.optimal_proven and time.perf_counter() >= deadline:
        # what could prove it (the most tiles' passes under the value objective, the
        # enumeration of small positions) ran out of time
        move = dataclasses.replace(move, budget_exhausted=True)
    answer = with_least_change(move, suggester, tie_break)
    if answer.least_change_proven and not answer.optimal_proven:
        # the least change is among the best moves: a move not proven best may not be one (a
        # better-scoring move can exist; a brute-force audit, session 48)
        answer = dataclasses.replace(answer, least_change_proven=False)
    return answer


class Suggester:
    """The state of ``suggest``'s passes over one position (the position, the moves found and
    what is known of them), the order of the passes (``run``, ``_opened``, ``_free_passes``) and
    the assembly of their answers (``_answer``)."""

    def __init__(
        self,
        table: list[tuple[Tile, ...]],
        kinds: list[str | None],
        rack: tuple[Tile, ...],
        opened: bool,
        rules: Rules,
        objective: str,
        deadline: float,
    ) -> None:
        self.table = tuple(table)
        self.rack = rack
        self.rack_jokers = sum(1 for t in rack if t.color is None)
        self.opened = opened
        self.rules = rules
        self.deadline = deadline
        self.by_tiles = objective == "tiles"
        self.tile_weight, self.value_weight = (PRIMARY, 1) if self.by_tiles else (1, PRIMARY)
        self.readings = []
        for i, (tiles, kind) in enumerate(zip(table, kinds, strict=True)):
            reading = read_set(tiles, rules, kind)
            if not reading.valid:
                raise ValueError(f"table set {i} is not a valid set ({reading.code})")
            self.readings.append(reading)
        self.kinds = kinds
        self.plain = {i for i, s in enumerate(self.table) if all(t.color is not None for t in s)}
        self.exhausted = False  # the time budget ran out: the answer is not proven optimal
        self.gave_up = False  # a pass used up the work it was allowed
        self.gave_up_bound: int | None = None  # then the best bound of its move's score known
        self.candidates: list[Outcome] = []  # every move found by a pass
        self.verdicts: dict[int, tuple[Outcome, bool]] = {}  # id of a move -> it, whether it is a legal turn
        self.portfolio = portfolio.Portfolio(deadline)
        self.at_once = False  # the variants of the joker sets may be solved at once
        self.variant_start = 0  # HiGHS runs of the portfolio before the variants' passes
        self.settled: bool | None = None  # every variant solved at once (None: not tried)
        self.combos_capped = False  # the list of variant combinations was cut short
        self.upper: int | None = None  # a bound of every move's score (None: none known)
        self.relaxed_known: dict[frozenset[int], list[Outcome] | None] = {}  # relaxed problems solved
        self.pinned = pass_problems.pinned(self)
        self.unsettled: list[int] = []  # scores of fates' best moves that are no legal turn (``_solve_fates``)
        self.fate_problems = 0  # relaxed problems of the fates' tree solved (``_solve_fates``)
        self.fates_settled = False  # the fates' programme settled every fate (``joint_fates_settle``)
        self.joint_failed: set[int] = set()  # best scores under which the fates' programme did not settle them
        self.two_tile = False  # a freed joker may go to a new set with two rack tiles (``two_tile_frees``)
        self.value_exact = False  # the played jokers' value was searched for exactly (``exact_value_pass``)
        self.value_nodes = 0  # nodes of the fates' tree bounding a played joker's points (``_fates_value_settled``)
        # problems solved (``solve_pass``): the need, the search's score and the move (None: none)
        self.solved: dict[tuple[object, ...], tuple[int, int, Outcome | None]] = {}

    # worked out once per position, when first asked for
    freed_joker_tiles = functools.cached_property(fates.freed_joker_tiles)
    fate_ways = functools.cached_property(fates.fate_ways)
    jokers_in_play = functools.cached_property(fates.jokers_in_play)
    joker_copies = functools.cached_property(layout.joker_copies)
    run_jokers_stand_for = functools.cached_property(layout.run_jokers_stand_for)

    # --- passes -----------------------------------------------------------------------

    def run(self) -> Suggestion:
        if self.rack:
            if not self.opened and not self.rules.manipulate_on_opening_turn:
                pass_problems.solve_pass(self, pass_problems.opening_problem(self), untouched=True)
            elif not self.opened:
                openings.opening_with_manipulation(self)
            else:
                self._opened()
            if value_bound.played_joker_value_unproven(self) and not self.value_exact and not self.exhausted:
                value_bound.check_value_bound(self)
        return self._answer()

    def _opened(self) -> None:
        """Best over: every table set kept whole (only extended); plain sets taken apart with
        joker sets kept whole; then, while the bound allows better, every variant of the joker
        sets (trimmed, or jokers freed by their exact tile). Each pass only looks for moves
        better than the best so far (ties keep the table whole). Then the fates of the table's
        jokers bound every legal move (``check_fates``). Under a free joker release all sets
        are taken apart.

        When the jokers fare in few ways (at most ``_FATES_FIRST``) and no freed joker must
        go to a new set with two rack tiles, the fates come before the variants: their
        problems, solved to the end for the proof anyway, most often find the best move
        themselves, and the variants' passes run only when a fate's best move is no legal
        turn and beats every legal move found. Otherwise the fates as one programme come before
        the variants' passes one by one (``variant_stage``)."""
        if self.rules.jokers_move_freely:
            self._free_passes()
            return
        passes = variant_passes.joker_set_passes(self)
        # with a small rack each fate's problem is a small search, and the fates most often
        # settle the position without the variants' stage (bench/README.md, session 39)
        most = _FATES_FIRST_SMALL_RACK if len(self.rack) <= _SMALL_RACK else _FATES_FIRST
        fates_first = bool(passes) and not self.two_tile and math.prod(len(ways) for _, ways in self.fate_ways) <= most
        if passes and not fates_first:
            variant_passes.variant_stage(self, passes)
        fate_tree.check_fates(self)
        if fates_first and fate_tree.fates_unsettled(self):
            variant_passes.variant_stage(self, passes)

    def _free_passes(self) -> None:
        """Under a free joker release: the best move with every set taken apart, then the best
        move keeping every set whole, looked for only at that score (its search is cut short
        by the bound). The answer is as if the whole pass came first: the whole move wins a
        tie; and when the best move is not legal, the whole pass is redone without a floor
        so that its best move is the fallback."""
        full = pass_problems.solve_pass(
            self, pass_problems.pass_problem(self, dissolve=set(range(len(self.table)))), candidate=False
        )
        if full is not None and not self.exhausted and value_bound.played_joker_value_unproven(self):
            full = value_bound.exact_value_pass(self, full)
        if full is None:
            pass_problems.solve_pass(self, pass_problems.pass_problem(self, dissolve=set()), whole=True)
            return
        if not full.played and not self.exhausted:
            return  # nothing can be played (proven): the answer is the table as it is
        # cut short by its floor, the whole pass starts with the search even where the full
        # pass needed the linear bound (its own bound cost more than its search: measured)
        self.portfolio.hard = False
        whole = pass_problems.solve_pass(
            self, pass_problems.pass_problem(self, dissolve=set()), whole=True, floor=full.score
        )
        if whole is not None and whole.score >= full.score:
            return
        self.candidates.append(full)
        if whole is None and not layout.is_legal_turn(self, full):
            pass_problems.solve_pass(self, pass_problems.pass_problem(self, dissolve=set()), whole=True)

    def past_deadline(self) -> bool:
        """Whether the budget has run out; then the answer is not proven (``exhausted``)."""
        if time.perf_counter() > self.deadline:
            self.exhausted = True
            return True
        return False

    def most_score(self, tiles: Sequence[Tile]) -> int:
        """The most these tiles can add to a move's score, played (a joker worth 13): what a
        search for the rest of a move, beside them, need not find."""
        points = sum(t.number if t.color is not None else LAST for t in tiles)
        return len(tiles) * self.tile_weight + points * self.value_weight

    def best_score(self) -> int:
        """The best score of a candidate that is a legal turn: a relaxed problem's move may
        not be, and a move a pass's model took for legal but ``verify_turn`` does not never
        raises the floor of the passes after it, where it would hide the legal moves below it.
        (Only the full pass of a free release records such a move on purpose, with floors of
        its own.)"""
        best = self.best_legal()
        return 0 if best is None else best.score

    def best_legal(self) -> Outcome | None:
        """The candidate scoring most among those that are legal turns (``best_score``)."""
        return max((o for o in self.candidates if layout.is_legal_turn(self, o)), key=lambda o: o.score, default=None)

    def ceiling(self) -> int:
        """No move scores more than playing the whole rack with every joker worth 13."""
        return self.most_score(self.rack)

    # --- answers ------------------------------------------------------------------------

    def _answer(self) -> Suggestion:
        """The best move found that verifies as a legal turn (SPEC §4); every candidate is
        checked by ``verify_turn`` as a safety net, and playing nothing is always legal."""
        value_unproven = value_bound.played_joker_value_unproven(self) and not self.value_exact
        proven = not self.exhausted and not fate_tree.fates_unsettled(self) and not value_unproven
        proven = proven and not fates.unlocked_sets_unmodelled(self)
        for outcome in sorted(self.candidates, key=lambda o: (o.score, o.whole), reverse=True):
            if not outcome.played:
                break
            if layout.is_legal_turn(self, outcome):
                outcome = layout.jokers_read_higher(self, outcome)
                return Suggestion(outcome.after, outcome.played, outcome.value, proven, self.exhausted)
            proven = False  # a move the solver thought legal is not: its model needs fixing
        return Suggestion(self.table, (), 0, proven, self.exhausted)

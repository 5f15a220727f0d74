"""An opening with manipulation (``manipulate_on_opening_turn``): the joker sets kept whole, then
every set taken apart with the table's jokers pinned, the best move playing at least a minimal
meld's tiles (``opening_with_manipulation``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.solver import layout, pass_problems
from engine.solver.melds import minimal_melds
from engine.tiles import Tile

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


_OPENING_PINS = 16  # ways of pinning the table's jokers tried on an opening with manipulation


def opening_with_manipulation(solver: Suggester) -> None:
    """Opening when manipulation is allowed: valid sets made only of played tiles must reach
    the minimum. Tries the plain opening; then the moves of ``_opening_moves``. Jokers on
    the table are never freed before opening.
    The joker sets are kept whole first (growing only); then, as they may also lose tiles
    or be split while their jokers stay, every set is taken apart with the jokers pinned
    as tiles they may stand for, each way of pinning them a relaxed problem
    (``_opening_pins``) whose moves are candidates too, so that when the best of them is
    not a legal turn the answer is not claimed optimal."""
    pass_problems.solve_pass(solver, pass_problems.opening_problem(solver), untouched=True)
    _opening_moves(solver, solver.plain, pins=None)
    if len(solver.plain) < len(solver.table):
        for pins in _opening_pins(solver):
            if solver.exhausted:
                break
            _opening_moves(solver, set(range(len(solver.table))), pins=pins)


def _opening_pins(solver: Suggester) -> list[dict[int, tuple[Tile, ...]]]:
    """Before opening no joker may be freed (SPEC §4): in every legal move each joker of a
    set with one reading stands for one of the tiles it may stand for (a run's in a run,
    a group's for a missing colour in a group of its number). Every way its jokers can do
    so, all sets together, each a relaxed problem of its own (their union holds every
    legal move); beyond ``_OPENING_PINS`` ways, only the jokers ``pinned`` fixes."""
    per_set = []
    for i, reading in enumerate(solver.readings):
        best = reading.best
        if i in solver.plain or best is None or len(reading.readings) != 1:
            continue
        ways = {
            tuple(sorted(combo, key=lambda t: t.key))
            for combo in itertools.product(*best.joker_options)
            if len({t.key for t in combo}) == len(combo)
        }
        per_set.append([(i, way) for way in sorted(ways, key=lambda way: [t.key for t in way])])
    if math.prod(len(ways) for ways in per_set) > _OPENING_PINS:
        return [solver.pinned]
    return [dict(combo) for combo in itertools.product(*per_set)]


def _opening_moves(solver: Suggester, dissolve: set[int], pins: Mapping[int, tuple[Tile, ...]] | None) -> None:
    """The best opening move with the sets in ``dissolve`` taken apart (the others kept
    whole). The minimum is a condition on the tiles played, not on where they end (SPEC
    §4: the meld may be laid first, then joined to table sets): the best move ignoring it,
    when that is a legal turn; else, for every minimal meld, the best move playing at
    least its tiles, anywhere."""
    bound = pass_problems.solve_pass(
        solver, pass_problems.pass_problem(solver, dissolve=dissolve, pins=pins), candidate=False
    )
    if bound is None or solver.exhausted or solver.best_score() >= bound.score:
        return
    if layout.is_legal_turn(solver, bound):
        solver.candidates.append(bound)
        return
    for meld in minimal_melds(solver.rack, solver.rules.initial_meld_min, solver.deadline):
        if solver.past_deadline():
            return
        laid = [t for s in meld for t in s]
        # the search does not score a played joker it must place as the move does (a table
        # joker is no played tile): a lower floor for each, which only costs search
        floor = solver.best_score() + 1 - solver.most_score([t for t in laid if t.color is None])
        pass_problems.solve_pass(
            solver,
            pass_problems.pass_problem(solver, dissolve=dissolve, rack=solver.rack, must=laid, pins=pins),
            floor=floor,
        )
        if solver.best_score() >= bound.score:
            return
    solver.past_deadline()  # (the listing may have stopped there)

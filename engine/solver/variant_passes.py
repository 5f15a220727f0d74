"""The passes over the variants of the joker sets (an opened player, see the package docstring):
grouped by the sets they change, each group bounded by its relaxed problem, one pass per
combination, or all combinations at once (``_all_choices``) (``variant_stage``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.solver import choices, fate_tree, pass_problems, set_variants
from engine.solver.model import (
    RELAXED_CALLS,
    OutOfTime,
)
from engine.solver.set_variants import VariantPass

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


_ONE_BY_ONE = 3  # HiGHS runs spent on passes over variants before all are solved at once
_VARIANT_COMBOS = 50_000  # variant combinations listed at most, ~40 MB (``variant_combos``); beyond, not proven
_AT_ONCE_COMBOS = 5_000  # the same where they can all be solved at once (``_all_choices``)


def joker_set_passes(solver: Suggester) -> list[VariantPass]:
    """The passes of ``_opened`` keeping the joker sets whole; returns the passes over
    their variants (none: the fates of the jokers bound the rest, ``check_fates``)."""
    pass_problems.solve_pass(solver, pass_problems.pass_problem(solver, dissolve=set()), whole=True)
    pass_problems.solve_pass(
        solver, pass_problems.pass_problem(solver, dissolve=solver.plain), floor=solver.best_score() + 1
    )
    two_tile = set_variants.two_tile_frees(solver)
    solver.two_tile = bool(two_tile)
    # without a rack joker every combination can be solved at once, exactly (``_all_choices``):
    # then a shorter list will do
    at_once = not two_tile and not solver.rack_jokers
    combos = set_variants.variant_combos(solver, _AT_ONCE_COMBOS if at_once else _VARIANT_COMBOS) or []
    passes: list[VariantPass] = [(c, list(solver.rack), ()) for c in combos]
    solver.at_once = bool(combos) and at_once
    return passes + two_tile


def variant_stage(solver: Suggester, passes: list[VariantPass]) -> None:
    """The passes over the variants of the joker sets, while they may beat the best move.
    The fates as one programme (``joint_fates_settle``) come first when every joker set
    taken apart may beat it: they bound every legal move, so settling them settles these
    passes too. On the hard bench's sabra/xp rows (360, two runs alternated, minimum of four)
    the sum went 8,541 -> 7,770 ms and the max 781 -> 585 ms (xp 3301/59); rows where the
    programme does not settle the fates cost up to 70 ms more (bench/README.md, session
    26)."""
    solver.variant_start = solver.portfolio.solves
    if solver.best_score() >= solver.ceiling():
        return
    by_support: dict[frozenset[int], list[VariantPass]] = {}
    for variant_pass in passes:
        by_support.setdefault(frozenset(variant_pass[0]), []).append(variant_pass)
    # every joker set taken apart bounds every pass: when that cannot beat the best move,
    # none can; when its move is legal, it is the best of them all
    everything = frozenset().union(*by_support)
    found = pass_problems.solve_relaxed(solver, everything, RELAXED_CALLS)
    if pass_problems.relaxed_settles(solver, found) or fate_tree.joint_fates_settle(solver):
        return
    solver.variant_start = solver.portfolio.solves  # (the fates' programme is not one of the passes)
    solver.upper = found[0].score if found else solver.gave_up_bound
    solver.relaxed_known[everything] = found
    for support in sorted(by_support, key=lambda sets: (len(sets), sorted(sets))):
        if solver.exhausted or solver.settled or solver.best_score() >= _upper(solver):
            return  # (settled: every combination of variants was solved at once)
        _variant_passes(solver, support, by_support[support])
    if solver.combos_capped and not solver.settled and solver.best_score() < _upper(solver):
        # the passes left out combinations: only the programme of them all settles them
        if solver.at_once and solver.settled is None:
            solver.settled = _all_choices(solver)
        solver.exhausted = solver.exhausted or not solver.settled


def _variants_settled(solver: Suggester) -> bool:
    """Whether every combination of variants has been solved at once: when the rack
    holds no joker, by one integer programme (``_all_choices``), once the passes one by one
    have needed ``_ONE_BY_ONE`` bounds or programmes of their own without settling them
    (most positions settle them with the search alone, far quicker)."""
    if solver.settled is None and solver.at_once and solver.portfolio.solves - solver.variant_start >= _ONE_BY_ONE:
        solver.settled = _all_choices(solver)
    return bool(solver.settled)


def _all_choices(solver: Suggester) -> bool:
    """Every combination of variants of the joker sets in one integer programme
    (``choices``), its move a candidate: True when that settled them (none beats the
    best move, or the best of them is a legal turn, or the time ran out), False when its
    move is not legal (the passes go on one by one). The rack holds no joker: no joker
    is played, so where jokers stand is worth nothing and the programme is pooled."""
    options = [
        [
            choices.Choice(pass_problems.table_block(solver, i, None)),
            *(pass_problems.variant_choice(solver, i, v) for v in set_variants.variants_of(solver, i)),
        ]
        for i in range(len(solver.table))
        if i not in solver.plain
    ]
    try:
        solver.portfolio.check_deadline()
        solved = choices.solve(pass_problems.choices_problem(solver), options, solver.deadline, solver.best_score() + 1)
    except OutOfTime:
        solver.exhausted = True
        return True
    if solved is None:
        return True
    score, laid, proven, picked = solved
    outcome = pass_problems.legal_choices_move(solver, score, laid, picked)
    if outcome is None:
        return False
    solver.candidates.append(outcome)
    solver.exhausted = solver.exhausted or not proven
    return True


def _upper(solver: Suggester) -> int:
    """The best bound known of every move's score: the ceiling, or the relaxed problem of
    every joker set with variants when it has one."""
    return solver.ceiling() if solver.upper is None else min(solver.ceiling(), solver.upper)


def _variant_passes(solver: Suggester, support: frozenset[int], passes: list[VariantPass]) -> None:
    """The passes changing exactly the joker sets in ``support``. Any of them rebuilds the
    tiles of those sets somehow, with their jokers anywhere: that relaxed problem bounds
    them all (its work is capped, it may cost more than it saves). When it cannot beat
    the best move, none can; when its own move is legal, it is the best of them."""
    if support in solver.relaxed_known:
        found, solver.gave_up_bound = solver.relaxed_known[support], solver.upper
    else:
        found = pass_problems.solve_relaxed(solver, support, RELAXED_CALLS)
    if pass_problems.relaxed_settles(solver, found):
        return
    bound = min(found[0].score if found else solver.gave_up_bound or solver.ceiling(), _upper(solver))
    for variants, rack, fixed in passes:
        if solver.exhausted or solver.best_score() >= bound or _variants_settled(solver):
            return
        pass_problems.solve_pass(
            solver,
            pass_problems.pass_problem(solver, dissolve=solver.plain, rack=rack, variants=variants),
            fixed=fixed,
            floor=solver.best_score() + 1 - solver.most_score([t for s in fixed for t in s]),
        )

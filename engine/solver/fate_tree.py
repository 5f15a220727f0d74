"""The fates of the table's jokers bounding every legal move (``check_fates``, see the package
docstring): their relaxed problems searched as a tree, the joker sets decided one by one
(``_solve_fates``), or first all of them as one integer programme (``_fates_settled_at_once``)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.solver import choices, layout, pass_problems
from engine.solver.fates import Fate
from engine.solver.layout import Blocks, Outcome
from engine.solver.model import (
    RELAXED_CALLS,
    OutOfTime,
    Problem,
)
from engine.solver.pass_problems import tile_keys
from engine.tiles import Tile

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


_FATE_PROBLEMS = 128  # relaxed problems of the fates' tree at most (``_solve_fates``); beyond, not proven
_JOINT_FATES = 4  # fates from which they are first tried as one programme (``_solve_fates``)
_JOINT_FATE_NODES = 16  # relaxations of that programme at most (``_fates_settled_at_once``)


def check_fates(solver: Suggester) -> None:
    """Whether a legal move may beat the best move found, which the passes do not model
    (a set whose jokers were freed taken apart, a joker staying in a set made of other
    tiles, a freed joker in a new set mixing table tiles...). Every legal move gives each
    table joker a fate (SPEC §4): it stayed, standing for one of the tiles it may stand for,
    or it was freed, and a copy of its tile lies in a successor of its set. One relaxed
    problem per way the jokers fare (``_fates``), every other set taken apart, holds every
    legal move giving them those fates. None of them beating the best move proves it; a
    legal move of one that does is taken; an illegal one has its tiles laid out anew
    (``_rearranged``): a legal layout scoring as much is taken, else the answer is left
    unproven. The relaxed problem of every joker set taken apart with its jokers anywhere
    comes first: it bounds them all."""
    joker_sets = frozenset(range(len(solver.table))) - solver.plain
    if not joker_sets or solver.exhausted or solver.fates_settled or solver.best_score() >= solver.ceiling():
        return
    # a relaxed problem's move is its optimum: one already known that does not beat the
    # best move settles it as well as a new one would
    known = solver.relaxed_known.get(joker_sets)
    if known is not None and (not known or known[0].score <= solver.best_score()):
        return
    if pass_problems.relaxed_settles(solver, known or pass_problems.solve_relaxed(solver, joker_sets, RELAXED_CALLS)):
        return
    _solve_fates(solver)


def _solve_fates(solver: Suggester) -> None:
    """The relaxed problems of the fates, looking for a move better than the best, as a
    tree: the joker sets (fewest ways first) are decided one by one, each node's problem
    giving the sets decided their ways and taking the others apart, their jokers anywhere
    (those ``pinned`` laid as their tiles), which holds every fate below it. A node with no
    better move, or whose move is a legal turn (or has a legal layout scoring as much),
    settles its subtree; only the others are refined, down to the fates themselves, whose
    moves that are no legal turn leave the answer unproven (under the pressman rule, after
    one more split: ``_settle_freed_as``). Each problem is solved to the
    end (under the deadline): every one is needed for the proof, where a relaxed bound's
    work is capped (capped, 4 of 8 fates of the hard bench's xp-jokers #19 gave up).

    With ``_JOINT_FATES`` fates or more, all of them are first tried as one programme
    (``_fates_settled_at_once``), which settles them at once or leaves them to the tree: on
    the hard bench's three seeds (720 rows) it settled 11 of the 15 trees it was tried on,
    classic-big-rack sabra seed 2 turn 44 in 190 ms where the tree took 340 ms; on trees
    that their first few problems settle it costs up to 60 ms more (bench/README.md,
    session 25). It is not tried again under the same best move (``variant_stage`` may
    have tried it)."""
    solver.fate_problems = 0
    if joint_fates_settle(solver):
        return
    sets, set_ways = sorted_fates(solver)
    _refine(solver, [], sets, set_ways)


def sorted_fates(solver: Suggester) -> tuple[list[tuple[int, ...]], list[list[Fate]]]:
    """The joker sets (or pairs, ``fate_ways``), fewest ways first, and their ways."""
    ways = sorted(solver.fate_ways, key=lambda set_ways: len(set_ways[1]))
    return [i for i, _ in ways], [w for _, w in ways]


def joint_fates_settle(solver: Suggester) -> bool:
    """``_fates_settled_at_once`` where the fates number ``_JOINT_FATES`` or more, unless
    it already failed with the best move as it is."""
    sets, set_ways = sorted_fates(solver)
    if math.prod(map(len, set_ways)) < _JOINT_FATES or solver.best_score() in solver.joint_failed:
        return False
    if _fates_settled_at_once(solver, sets, set_ways):
        solver.fates_settled = True
        return True
    solver.joint_failed.add(solver.best_score())
    return False


def _fates_settled_at_once(solver: Suggester, sets: list[tuple[int, ...]], ways: list[list[Fate]]) -> bool:
    """Whether one integer programme settles the fates giving the joker sets ``sets``
    one of their ``ways`` each: every way as a choice of ``choices`` (a variant, or the
    set kept whole as its block; a joker staying: its set taken apart, the joker given as
    the tile it stands for), one per joker set. Each fate's problem is that programme with
    its choices taken, less the rows keeping a staying joker's tile in a run or a group:
    when the programme has no move beating the best move, no fate has; when its best move
    is a legal turn, that move beats every legal move of those fates. Solved by our own
    branch and bound for at most ``_JOINT_FATE_NODES`` relaxations (a cap on work); else,
    or when its move is no legal turn, the tree decides. Only where the rack holds no
    joker (where jokers stand is then worth nothing: the programme is pooled, as
    ``_all_choices``'s), no way needs a rack tile played (``Fate.needs``) and no two
    sets' ways are joined (``_with_overlapping_windows``: a choice is one set's)."""
    if solver.rack_jokers or any(len(entry) > 1 for entry in sets):
        return False
    if any(way.needs for set_ways in ways for way in set_ways):
        return False
    options: list[list[choices.Choice]] = []
    staying: dict[choices.Choice, list[tuple[str, bool]]] = {}  # a choice's staying jokers, as ``laid_as``
    for (i,), set_ways in zip(sets, ways, strict=True):
        options.append([])
        for way in set_ways:
            choice = _fate_choice(solver, i, way)
            options[-1].append(choice)
            if choice.block is None:
                staying[choice] = [(t.key, pass_problems.pinned_in_run(solver, i, t)) for t in way.pins.get(i, ())]
    solver.portfolio.solves += 1
    try:
        solver.portfolio.check_deadline()
        best = choices.best_within(
            pass_problems.choices_problem(solver),
            options,
            solver.deadline,
            solver.best_score() + 1,
            _JOINT_FATE_NODES,
        )
    except OutOfTime:
        return False
    if best is None:
        return True
    score, laid, picked = best
    outcome = pass_problems.legal_choices_move(
        solver, score, laid, picked, [e for c in picked for e in staying.get(c, ())]
    )
    if outcome is None:
        return False
    solver.candidates.append(outcome)
    return True


def _fate_choice(solver: Suggester, index: int, way: Fate) -> choices.Choice:
    """How joker set ``index`` fares in ``way``, as a choice of the integer programme."""
    if index in way.variants:
        return pass_problems.variant_choice(solver, index, way.variants[index])
    if index in way.whole:
        return choices.Choice(pass_problems.table_block(solver, index, None))
    tiles = solver.table[index]
    stays = way.pins.get(index, ())
    return choices.Choice(
        None, tile_keys((*tiles, *stays)), freed=sum(1 for t in tiles if t.color is None) - len(stays)
    )


def _refine(solver: Suggester, chosen: list[Fate], sets: list[tuple[int, ...]], ways: list[list[Fate]]) -> None:
    """The children of the node deciding ``chosen`` (the ways of the first sets of
    ``sets``), each solved and, unless settled, refined (``_solve_fates``)."""
    for way in ways[len(chosen)]:
        if solver.exhausted or solver.best_score() >= solver.ceiling():
            return  # (a legal move may play the whole rack: none can beat it)
        if solver.fate_problems >= _FATE_PROBLEMS:
            solver.unsettled.append(solver.ceiling())  # not all settled: not proven
            return
        path = [*chosen, way]
        fate = Fate.join(path)
        problem = problem_of_fate(solver, fate, undecided_pins(solver, sets, len(path)))
        if problem is None:
            continue  # no move fares so
        solver.fate_problems += 1
        move = pass_problems.solve_pass(
            solver, problem, floor=solver.best_score() + 1, candidate=False, programme_soon=True
        )
        if move is None:
            continue
        if len(path) == len(ways):
            if not layout.took_legal(solver, move):
                _settle_freed_as(solver, fate, move)
            continue
        # a node above the fates: its move, when legal, settles its subtree; a legal layout of
        # its tiles (``layout._rearranged``) is looked for only when its children leave a better
        # move unsettled (generated games, 3,324 positions: of 286 such layouts looked for
        # first, 8 settled their subtree, at 4.2 s in all; bench/README.md, session 39)
        if layout.is_legal_turn(solver, move):
            solver.candidates.append(move)
            continue
        problems, left = solver.fate_problems, len(solver.unsettled)
        _refine(solver, path, sets, ways)
        if (_unsettled_since(solver, left) or solver.exhausted) and layout.took_legal(solver, move):
            del solver.unsettled[left:]  # (the layout scores as much as every move below)
            solver.fate_problems = problems  # (as when it settled the subtree first)


def _unsettled_since(solver: Suggester, left: int) -> bool:
    """Whether a fate's move that is no legal turn, left unsettled after the first ``left``
    (``unsettled``), beats every legal move found."""
    best = solver.best_score()
    return any(score > best for score in solver.unsettled[left:])


def _settle_freed_as(solver: Suggester, fate: Fate, move: Outcome) -> None:
    """A fate whose move (``move``) is no legal turn and beats the best: under
    ``freed_joker_use: new_set_with_two_rack_tiles`` its freed joker is laid as each tile
    it may stand for in a new set (``_freed_as_fates``), each problem solved like the
    tree's; the moves no legal turn and beating the best leave the answer unproven."""
    narrower = _freed_as_fates(solver, fate)
    if narrower is None:
        solver.unsettled.append(move.score)
        return
    for way in narrower:
        if solver.exhausted or solver.best_score() >= solver.ceiling():
            return
        if solver.fate_problems >= _FATE_PROBLEMS:
            solver.unsettled.append(move.score)
            return
        problem = problem_of_fate(solver, way, {})
        if problem is None:
            continue
        solver.fate_problems += 1
        narrow = pass_problems.solve_pass(
            solver, problem, floor=solver.best_score() + 1, candidate=False, programme_soon=True
        )
        if narrow is not None and not layout.took_legal(solver, narrow):
            solver.unsettled.append(narrow.score)


def _freed_as_fates(solver: Suggester, fate: Fate) -> list[Fate] | None:
    """``fate`` with the joker its window frees laid as each tile of ``freed_joker_tiles``,
    one fate each: together they hold every legal move of ``fate`` (that joker ends in a
    new set holding two rack tiles, where it stands for one of those tiles). None where
    those tiles are not worked out, or unless one window frees one joker."""
    if solver.freed_joker_tiles is None:
        return None
    freeing = [i for i, variant in fate.variants.items() if variant.freed]
    if len(freeing) != 1 or fate.variants[freeing[0]].freed != 1:
        return None
    i = freeing[0]
    return [
        dataclasses.replace(
            fate, variants={**fate.variants, i: dataclasses.replace(fate.variants[i], freed=0, freed_as=(stand,))}
        )
        for stand in solver.freed_joker_tiles[i]
    ]


def undecided_pins(solver: Suggester, sets: list[tuple[int, ...]], decided: int) -> dict[int, tuple[Tile, ...]]:
    """The pinned jokers (``pinned``) of the joker sets of ``sets`` after the first
    ``decided``: a node of the fates' tree lays them as their tiles."""
    return {i: solver.pinned[i] for entry in sets[decided:] for i in entry if i in solver.pinned}


def problem_of_fate(
    solver: Suggester,
    fate: Fate,
    undecided: Mapping[int, tuple[Tile, ...]],
    exact_value: bool = False,
    must: tuple[Tile, ...] = (),
) -> tuple[Problem, Blocks] | None:
    """The relaxed problem of the moves giving the jokers ``fate``, the jokers of
    ``undecided`` laid as those tiles, the other undecided ones anywhere (``exact_value``:
    see ``pass_problem``); None when a window takes a tile the table or the rack does not hold
    (no move fares so)."""
    dissolve = set(range(len(solver.table))) - set(fate.variants) - fate.whole
    problem = pass_problems.pass_problem(
        solver,
        dissolve=dissolve,
        pins={**undecided, **fate.pins},
        must=(*fate.needs, *must),
        variants=fate.variants,
        exact_value=exact_value,
    )
    if min(map(min, problem[0].required)) < 0 or min(map(min, problem[0].optional)) < 0:
        return None
    return problem


def fates_unsettled(solver: Suggester) -> bool:
    """Whether a fate's best move, no legal turn, beats every legal move found: a legal
    move giving the jokers that fate may then beat the answer (the fate's problem, solved
    to the end, bounds them)."""
    return any(score > solver.best_score() for score in solver.unsettled)

"""A played joker's value settled (see the package docstring: a played joker is worth the best
joker after the move, which the passes' searches may miss): by the opening's search, by the fates'
tree, or by the problem with every set taken apart scoring the table's jokers at no points
(``check_value_bound``, ``exact_value_pass``)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from engine.rules import Rules
from engine.solver import fate_tree, joker_value, layout, pass_problems
from engine.solver.fates import Fate
from engine.solver.intact import joker_points
from engine.solver.layout import Blocks, Outcome, joker_orders
from engine.solver.melds import minimal_melds
from engine.solver.model import (
    COLOUR_INDEX,
    LAST,
    RELAXED_CALLS,
    Problem,
    RunBlock,
)
from engine.tiles import Tile

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


_VALUE_MELDS = 8  # minimal melds at most whose trees bound an opening's played joker (``_meld_tiles``)
_BAGS = 64  # bags of a pin at most laid beside the fates' problem (``_bags_beside_settled``)
_BAGS_LISTED = 512  # bags of a pin at most listed, their tiles and jokers the problem's or not
_VALUE_NODES = 64  # problems of the fates' tree at most bounding a played joker's points (``_fates_value_settled``)


def check_value_bound(solver: Suggester) -> None:
    """Whether a legal move may score more than the best move, its played jokers valued
    exactly. An opening from the rack alone: ``_opening_value_settled``. An opened
    player's moves, or an opening's with manipulation: their fates
    (``_fates_value_settled``; an opening's, one tree per minimal meld), then, where those did not
    settle it, the problem with every set taken apart and the jokers anywhere, which holds
    every legal move (an opening's with manipulation too) and whose search, scoring the
    table's jokers at no points (``exact_value_pass``), scores each move at least as a legal
    turn does (it may read its jokers at their best): when it has no move better than the
    best, the best is proven, its played jokers' value too; when its better move is a
    legal turn, that move is the best and proven (capped like a relaxed bound). The fates
    first: on the hard bench's 52 rows with a joker on the rack and the table they prove
    every one, in 1,244 ms where the relaxation first took 1,353 (max 127 against 168 ms,
    alternated); of 700 small positions the relaxation after them proves one more
    (bench/README.md, session 27)."""
    if not solver.opened and not solver.rules.manipulate_on_opening_turn:
        solver.value_exact = _opening_value_settled(solver)
        return
    if _fates_value_settled(solver) or solver.exhausted:
        solver.value_exact = not solver.exhausted
        return
    solver.gave_up = False
    better = _exactly_valued(solver, solver.best_score() + 1, RELAXED_CALLS)
    settled = better is None or layout.took_legal(solver, better)
    solver.value_exact = not (solver.exhausted or solver.gave_up) and settled


def _opening_value_settled(solver: Suggester) -> bool:
    """Whether no opening from the rack alone scores more than the best move, its played
    jokers valued exactly. The table stays as it lies, so its jokers' points are fixed, and
    the ``j`` jokers played are worth the best ``j`` of theirs and the played ones' own
    readings. The opening's search scores them at their own readings: its optimum, the best
    move's, bounds the moves whose best ``j`` are all played ones; with ``i`` of the
    table's among them, the openings laying ``i`` rack jokers or more, their ``i`` lowest
    scoring nothing, at the table's best ``i`` (``joker_value.others_best``). The
    relaxation of every set taken apart bounded none of them: it rearranges the table (on
    200 small sabra openings beside a table joker, 12 were proven)."""
    if solver.exhausted or not solver.rack_jokers:
        return False
    # (a set laid again in another order is the same set, and may read its jokers higher:
    # ``J K11 K12`` laid ``K11 K12 J`` makes its joker K13)
    table_points = sorted(
        (p for tiles in solver.table for p in _reordered_joker_points(tiles, solver.rules)), reverse=True
    )
    problem, blocks = pass_problems.opening_problem(solver)
    return all(
        _none_better(solver, joker_value.others_best(problem, i), blocks, sum(table_points[:i]), untouched=True)
        for i in range(1, min(solver.rack_jokers, len(table_points)) + 1)
    )


def _fates_value_settled(solver: Suggester) -> bool:
    """Whether no legal move scores more than the best move, its played joker valued
    exactly, by the fates of the table's jokers (``check_fates``), where the relaxed
    problem of ``check_value_bound`` frees jokers the rules keep. As the fates' tree of
    ``_solve_fates``: the joker sets (fewest ways first) decided one by one, a node's
    problem giving the sets decided their ways and taking the others apart, their jokers
    anywhere (those ``pinned`` laid as their tiles); a node bounding its moves
    (``_fate_value_settled``) settles its subtree. A legal move beating the best found on
    the way is taken. At most ``_VALUE_NODES`` nodes a tree.

    An opening with manipulation frees no joker (every fate keeps them, ``fate_ways``) and
    plays the tiles of a minimal meld at least: one tree per meld, the problems playing its
    numbered tiles (``_meld_tiles``); with none, nothing can be played."""
    if (solver.opened and solver.rules.jokers_move_freely) or not solver.rack_jokers:
        return False
    melds = _meld_tiles(solver)
    if melds is None:
        return False
    sets, ways = fate_tree.sorted_fates(solver)
    for must in melds:
        solver.value_nodes = 0
        if not _value_settled_below(solver, [], sets, ways, must):
            return False
    return True


def _meld_tiles(solver: Suggester) -> list[tuple[Tile, ...]] | None:
    """The rack tiles a legal move must play, each list of them one way: an opened
    player's none; an opening's the numbered tiles of one of its minimal melds (SPEC §4: the
    tiles played make valid sets reaching the minimum, so they hold a minimal meld's; its
    jokers are left out, as played jokers are scored apart, ``joker_value.others_best``).
    None beyond ``_VALUE_MELDS`` of them."""
    if solver.opened:
        return [()]
    found: set[tuple[Tile, ...]] = set()
    for meld in minimal_melds(solver.rack, solver.rules.initial_meld_min, solver.deadline):
        found.add(tuple(sorted((t for s in meld for t in s if t.color is not None), key=lambda t: t.key)))
        if len(found) > _VALUE_MELDS:
            return None
    if solver.past_deadline():  # (the listing may have stopped there)
        return None
    return sorted(found, key=lambda tiles: [t.key for t in tiles])


def _value_settled_below(
    solver: Suggester,
    chosen: list[Fate],
    sets: list[tuple[int, ...]],
    ways: list[list[Fate]],
    must: tuple[Tile, ...],
) -> bool:
    """Whether the node deciding ``chosen`` (the ways of the first sets of ``sets``) or
    else each of its children settles (``_fates_value_settled``), its moves playing
    ``must``."""
    if solver.exhausted or solver.value_nodes >= _VALUE_NODES:
        return False
    solver.value_nodes += 1
    if _fate_value_settled(solver, Fate.join(chosen), fate_tree.undecided_pins(solver, sets, len(chosen)), must):
        return True
    if solver.exhausted or len(chosen) == len(ways):
        return False
    return all(_value_settled_below(solver, [*chosen, way], sets, ways, must) for way in ways[len(chosen)])


def _fate_value_settled(
    solver: Suggester, fate: Fate, undecided: Mapping[int, tuple[Tile, ...]], must: tuple[Tile, ...] = ()
) -> bool:
    """Whether no move giving the jokers ``fate`` (the jokers of ``undecided`` laid as
    those tiles, the other undecided ones anywhere) may beat the best move. Its problem
    scores the ``j`` played jokers at the best ``j`` jokers the search lays, the table's
    freed ones' too (``exact_value``): a move whose best ``j`` are all those is bounded by
    it. Else ``i`` of them are jokers that stay, pinned (laid as their tiles) or kept in a
    block (``joker_value.kept_joker_points``): the problem with the ``i`` lowest jokers it
    lays scoring nothing, at the best ``i`` of those (``joker_value.others_best``), bounds
    it, unless a pin's after-set reads a joker higher (``joker_value.ambiguous_sets``):
    then the problem with that set laid beforehand, at its points (``_set_beside_settled``).
    With one joker on the rack those sets are tried only at points where the numbered tiles
    alone may beat the best move (``_risky_points``). Runs lie in order (see
    ``joker_value``). ``must``: rack tiles the moves play (``_meld_tiles``)."""
    if not _pins_settled(solver, fate, undecided, must):
        return False
    if solver.rules.strict_order:
        return True
    # a run laid as a bag may read a pin above its numbered tiles (``J B6 B7`` with ``B8 J``:
    # ``B7 B6 B8 J J`` reads the pin B5 as B10, a reading keeping it B5): the moves laying
    # one are bounded with the sets holding a run's pin giving their jokers to the search,
    # laid anywhere as the table's, the played ones counting the best laid (the bag read at
    # its best is such a run; a brute force, session 62)
    bags = {
        i
        for i, stands in {**undecided, **fate.pins}.items()
        for t in stands
        if pass_problems.pinned_in_run(solver, i, t)
    }
    if not bags or _pins_settled(solver, fate, undecided, must, raised=True):
        return True
    if _bags_beside_settled(solver, fate, undecided, must):
        return True
    fate = dataclasses.replace(fate, pins={i: s for i, s in fate.pins.items() if i not in bags})
    undecided = {i: s for i, s in undecided.items() if i not in bags}
    return _pins_settled(solver, fate, undecided, must)


def _pins_settled(
    solver: Suggester,
    fate: Fate,
    undecided: Mapping[int, tuple[Tile, ...]],
    must: tuple[Tile, ...],
    raised: bool = False,
) -> bool:
    """``_fate_value_settled`` for the moves laying their runs in order; ``raised``: the
    run pins counted at the most a bag may read them (``joker_value.bag_points``)."""
    fated = _fate_pins(solver, fate, undecided, must)
    if fated is None:
        return True  # no move fares so
    problem, blocks, pins = fated
    return _problem_settled(solver, problem, blocks, pins, raised)


def _fate_pins(
    solver: Suggester, fate: Fate, undecided: Mapping[int, tuple[Tile, ...]], must: tuple[Tile, ...]
) -> tuple[Problem, Blocks, list[tuple[Tile, bool]]] | None:
    """The fate's problem, its kept blocks and its pins (each with whether it lies in a run),
    or None where no move fares so."""
    fate_problem = fate_tree.problem_of_fate(solver, fate, undecided, exact_value=True, must=must)
    if fate_problem is None:
        return None
    problem, blocks = fate_problem
    pinned = {**undecided, **fate.pins}
    pins = [(t, pass_problems.pinned_in_run(solver, i, t)) for i, stands in pinned.items() for t in stands]
    return problem, blocks, pins


def _problem_settled(
    solver: Suggester,
    problem: Problem,
    blocks: Blocks,
    pins: list[tuple[Tile, bool]],
    raised: bool,
    beside: tuple[int, ...] = (),
    fixed: tuple[tuple[Tile, ...], ...] = (),
    from_rack: int = 0,
) -> bool:
    """``_pins_settled`` for ``problem`` (a fate's) and its ``pins``; with ``beside``, the
    points of the jokers of the sets ``fixed`` laid beside it (``_bags_beside_settled``),
    which take ``from_rack`` of the rack's jokers: then its moves count one of the jokers
    outside the search or more (the others are bounded without those sets)."""
    # a kept run's joker below its numbered tiles may read higher where the run is laid as
    # a bag (``joker_value.bag_points``)
    bag = None if solver.rules.strict_order else joker_value.bag_points(problem, blocks)
    kept = [joker_value.kept_joker_points(block, bag) for block in blocks.values()]
    counted = {
        pin: bag(pin[0].number, COLOUR_INDEX[pin[0].color]) if raised and bag and pin[1] else pin[0].number  # type: ignore[index]
        for pin in pins
    }
    # the bag's best reading moves every joker below its numbered tiles above them, not
    # only the pin (or kept joker): the jokers the search lays there (``J J B7 B8`` holding
    # the pin B5 and a played joker B6 reads B7..B10, the played one 9) read just below it,
    # so each raised joker brings the points under it for every joker the search may lay
    # there (the search counts them where it lays them, lower)
    raised_to = [counted[pin] for pin in pins if counted[pin] > pin[0].number]
    if bag:
        for block, raised_points in zip(blocks.values(), kept, strict=True):
            places = joker_value.kept_joker_points(block)
            raised_to += [p for p, q in zip(raised_points, places, strict=True) if p > q]
    under = problem.jokers + len(problem.jokers_laid_as)
    beneath = [p - d for p in raised_to for d in range(1, under + 1) if p - d > 0]
    outside = sorted(
        [counted[pin] for pin in pins] + [p for points in kept for p in points] + beneath + list(beside), reverse=True
    )
    if not beside and not _none_better(solver, problem, blocks):
        return False
    for count in range(1, min(solver.rack_jokers, len(outside)) + 1):
        problem_count = joker_value.others_best(problem, count, from_rack)
        if not _none_better(solver, problem_count, blocks, sum(outside[:count]), fixed):
            return False
    # (with sets beside, every ambiguous set is laid too: ``_risky_points`` bounds the
    # problem alone)
    risky = _risky_points(solver, problem, blocks, outside[0]) if pins and solver.rack_jokers == 1 and not beside else 0
    if not pins or risky > LAST:
        return not solver.exhausted

    def available(tile: Tile) -> bool:
        c, v = COLOUR_INDEX[tile.color], tile.number  # type: ignore[index]
        return problem.required[c][v] + problem.optional[c][v] > 0

    for k, (pin, run) in enumerate(pins):
        others = pins[:k] + pins[k + 1 :]
        for tiles, points in joker_value.ambiguous_sets(pin, run, problem.jokers + len(others), available):
            if points >= risky and not _set_beside_settled(
                solver, problem, blocks, (pin, run), others, tiles, points, outside, counted, fixed, from_rack
            ):
                return False
    return not solver.exhausted


def _risky_points(solver: Suggester, problem: Problem, blocks: Blocks, highest: int) -> int:
    """With one joker on the rack: the least points above ``highest`` a pin's after-set may
    read its jokers at for a move of ``problem`` to beat the best move, by its numbered
    tiles alone (the joker laid, scoring nothing: ``joker_value.others_best``); above
    ``LAST`` when there are none."""
    numbered = joker_value.others_best(problem, 1)
    risky = LAST + 1
    for points in range(LAST, highest, -1):
        if _none_better(solver, numbered, blocks, points) or solver.exhausted:
            break
        risky = points
    return risky


def _set_beside_settled(
    solver: Suggester,
    problem: Problem,
    blocks: Blocks,
    pin: tuple[Tile, bool],
    others: list[tuple[Tile, bool]],
    tiles: tuple[Tile, ...],
    points: int,
    outside: list[int],
    counted: Mapping[tuple[Tile, bool], int],
    fixed: tuple[tuple[Tile, ...], ...] = (),
    played: int = 0,
) -> bool:
    """Whether no move of ``problem`` laying ``tiles`` beside its search (an ambiguous set
    holding ``pin``, and maybe some of the ``others`` pins too, its jokers read at
    ``points`` at most) beats the best move, counting one of that set's jokers or more
    among the ``count`` best jokers the played ones are worth, the others of those from
    the set or the rest of ``outside`` (the pins' and the blocks' points,
    ``joker_value.others_best``; ``counted``: each pin's points among them). ``fixed``: sets
    laid beside the problem already, taking ``played`` of the rack's jokers."""
    in_set_jokers = sum(1 for t in tiles if t.color is None)
    for held in range(min(in_set_jokers - 1, len(others)) + 1):
        for also in itertools.combinations(others, held):
            in_set = [pin, *also]
            laid = joker_value.without_set(problem, in_set, tiles, solver.rack_jokers - played)
            if laid is None:
                continue  # the problem lacks its tiles
            beside, from_rack = laid
            rest = list(outside)
            for pin_in_set in in_set:
                rest.remove(counted[pin_in_set])
            best_others = sorted([points] * (in_set_jokers - 1) + rest, reverse=True)
            for count in range(1, min(solver.rack_jokers, in_set_jokers + len(rest)) + 1):
                lift = points + sum(best_others[: count - 1])
                problem_count = joker_value.others_best(beside, count, played + from_rack)
                if not _none_better(solver, problem_count, blocks, lift, (*fixed, tiles)):
                    return False
    return True


def _bags_beside_settled(
    solver: Suggester, fate: Fate, undecided: Mapping[int, tuple[Tile, ...]], must: tuple[Tile, ...]
) -> bool:
    """``_fate_value_settled`` where counting each run pin at the most a bag may read it
    (``bag_points``) did not settle the fate: that count lets the jokers raising a bag lie
    elsewhere too (``B5 B6 B7 J`` + ``B2 B3 J`` with ``J J R6 R7``: the pin B4 read as B10
    by a bag of three jokers, the rack's two also laid at R8 R9). The moves laying no run
    pin in a bag that reads it higher are bounded as laid in order (``_pins_settled``
    without ``raised``, settled before this is asked); each other move lays some pin's bag,
    one of ``joker_value.raising_bags``, which is laid beside the search with its tiles and
    jokers taken from the problem, its jokers at their points in its best reading, the other
    pins at the most a bag of the rest may read them, or in ambiguous sets laid beside too
    (``_problem_settled``). False (unsettled) where a kept run of the pin's colour may take
    it (its tiles are not the problem's) or beyond ``_BAGS`` bags of a pin."""
    fated = _fate_pins(solver, fate, undecided, must)
    if fated is None:
        return True
    problem, blocks, pins = fated
    kept_runs = {block.colour for block in blocks.values() if isinstance(block, RunBlock)}
    for k, (pin, run) in enumerate(pins):
        if not run:
            continue
        if COLOUR_INDEX[pin.color] in kept_runs:  # type: ignore[index]
            return False
        others = pins[:k] + pins[k + 1 :]
        free = problem.table_jokers + min(solver.rack_jokers, problem.jokers - problem.jokers_required)
        bags = joker_value.raising_bags(problem, pin, others, free, _BAGS_LISTED)
        if bags is None:
            return False
        feasible = []
        for tiles, also, points in bags:
            laid = joker_value.without_set(problem, [(pin, run), *also], tiles, solver.rack_jokers)
            if laid is not None:  # (else the problem lacks its tiles or jokers)
                feasible.append((tiles, also, points, laid))
        if len(feasible) > _BAGS:
            return False
        for tiles, also, points, (beside, from_rack) in feasible:
            # the rest of the move is a move of ``beside``, its other pins counted at the most
            # a bag of its tiles and jokers may read them (or laid in ambiguous sets beside)
            rest = list(others)
            for pin_in_set in also:
                rest.remove(pin_in_set)
            if not _problem_settled(solver, beside, blocks, rest, True, points, (tiles,), from_rack):
                return False
    return not solver.exhausted


def _none_better(
    solver: Suggester,
    problem: Problem,
    blocks: Blocks,
    lift: int = 0,
    fixed: Sequence[tuple[Tile, ...]] = (),
    untouched: bool = False,
) -> bool:
    """Whether no move of ``problem`` (with ``fixed`` laid beside it; ``untouched``: the
    table as it lies) scores, with ``lift`` more points, more than the best legal move.
    Solved to the end; each legal move found beating the best (or a legal layout of its
    tiles, ``_rearranged``) becomes a candidate, and the search goes on above it."""
    while not solver.exhausted:
        best = solver.best_score()
        floor = best + 1 - lift * solver.value_weight
        move = pass_problems.solve_pass(
            solver, (problem, blocks), untouched, fixed=fixed, floor=floor, candidate=False, programme_soon=True
        )
        if move is None:
            return not solver.exhausted
        legal = layout.legal_layout(solver, move, best + 1)
        if legal is None or legal.score <= best:
            return False
        solver.candidates.append(legal)
    return False


def exact_value_pass(solver: Suggester, full: Outcome) -> Outcome:
    """Under a free release: the full pass again, its jokers scored exactly (the table's
    jokers laid, every one as all sets are taken apart, score no points, the others, played,
    theirs: ``Problem.unscored``), looking for a move scoring more than ``full`` (whose
    search scored every joker laid, quicker: ``played_joker_value_unproven``). Solved to
    the end, it proves the better of the two, which it returns."""
    better = _exactly_valued(solver, full.score + 1, None)
    solver.value_exact = not solver.exhausted
    return better or full


def _exactly_valued(solver: Suggester, floor: int, max_calls: int | None) -> Outcome | None:
    """The best move scoring at least ``floor`` with every set taken apart and the jokers
    anywhere, the table's jokers scoring no points (``Problem.unscored``: the played
    jokers at their best points); None when there is none (or the work ran out). Solved
    to the end (no ``max_calls``), it goes to the integer programme soon: it is asked for
    more than the best move found, which is most often the most there is, where goal mode
    spent 40-60 ms failing before the programme (bench/README.md, session 24)."""
    everything = set(range(len(solver.table)))
    problem = pass_problems.pass_problem(solver, dissolve=everything, exact_value=True)
    return pass_problems.solve_pass(
        solver, problem, floor=floor, candidate=False, max_calls=max_calls, programme_soon=max_calls is None
    )


def played_joker_value_unproven(solver: Suggester) -> bool:
    """Whether the passes' searches may miss the best value of a played joker: it is worth
    the best joker after the move, possibly a table joker (``lay_out``, as the tests and
    ``least_change`` score moves), but with a joker on the rack the searches score the
    numbers of the jokers they lay, table jokers too (under a free release too: ``R7 R8 R9``
    + ``R5 R6 R7 R8 J=R9`` with ``J R9 R10 R5`` scored both jokers as R11 and R12, 31
    points, where playing R5 too makes 35), and not a table joker left in a kept or pinned
    set. Then ``exact_value_pass`` (free release) or ``check_value_bound`` settles it, or the answer
    is not claimed optimal. Without a rack joker no joker is played and the search scores
    the table's jokers as tiles only (``Problem.joker_value_weight`` 0): its score is the
    move's. So too on an opening with manipulation, whose searches lay a minimal meld's jokers
    as tiles the move must play, scored as a point each (``openings._opening_moves``): ``O4 J J``
    laid at O5 and O9 beside ``O6 O7 O8`` is worth 39, laid alone 36, and the search told them
    apart no more than the other ways (session 41, the suggest brute force: 36 proven)."""
    has_table_joker = any(t.color is None for s in solver.table for t in s)
    meld_jokers = not solver.opened and solver.rules.manipulate_on_opening_turn
    return (has_table_joker or meld_jokers) and bool(solver.rack_jokers)


def _reordered_joker_points(tiles: Sequence[Tile], rules: Rules) -> tuple[int, ...]:
    """The points of a set's jokers in the order of its tiles that reads them highest (as
    given, or its numbered tiles ascending with the jokers after or before them: laid again,
    a declared joker is declared again, ``J=O10 O11 O12`` laid ``O11 O12 J`` reads it O13)."""
    orders = (tuple(tiles), *joker_orders(tiles))
    return max((joker_points(order, rules) for order in orders), key=sum)

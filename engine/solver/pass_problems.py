"""The problems of ``suggest``'s passes and solving one: table sets taken apart, kept whole as
blocks or as variants, jokers pinned as tiles (``pass_problem``, ``pinned``); one pass solved and its
move laid out (``solve_pass``, through ``portfolio``), a relaxed problem solved once per position; the
problem and the choices of ``choices``' programme of the joker sets."""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from engine.sets import RUN
from engine.solver import choices, layout, portfolio
from engine.solver.layout import Blocks, Outcome
from engine.solver.model import (
    COLOUR_INDEX,
    NCOL,
    GroupBlock,
    OutOfTime,
    Problem,
    RunBlock,
    empty_counts,
)
from engine.solver.reconstruction import Builder, Laid, run_colour
from engine.solver.search import Search
from engine.solver.set_variants import Variant, stands_for_number
from engine.tiles import COLORS, Tile, tiles_without

if TYPE_CHECKING:
    from engine.solver.best_move import Suggester


def choices_problem(solver: Suggester) -> Problem:
    """The problem that ``choices`` extends by the joker sets' choices: the plain sets
    taken apart, no blocks; pooled (the rack holds no joker: where jokers stand is worth
    nothing)."""
    problem, _ = pass_problem(solver, dissolve=solver.plain)
    return dataclasses.replace(problem, run_blocks=[], group_blocks=[], joker_value_weight=0)


def legal_choices_move(
    solver: Suggester, score: int, laid: Laid, picked: list[choices.Choice], laid_as: Sequence[tuple[str, bool]] = ()
) -> Outcome | None:
    """The move of a solution of ``choices``' programme (its score, sets and the choices
    taken; ``laid_as``: its staying jokers, see ``lay_out``), when it is a legal turn
    scoring what the programme says; else None."""
    blocks = {c.block.index: c.block for c in picked if c.block is not None}
    outcome = layout.lay_out(solver, laid, blocks, False, False, (), laid_as)
    return outcome if outcome.score == score and layout.is_legal_turn(solver, outcome) else None


def variant_choice(solver: Suggester, index: int, variant: Variant) -> choices.Choice:
    """A variant of table set ``index`` as a choice of the integer programme."""
    return choices.Choice(
        table_block(solver, index, variant),
        tile_keys(variant.released),
        tile_keys(variant.from_rack),
        tile_keys(variant.from_pool),
        variant.freed,
    )


def solve_relaxed(solver: Suggester, support: frozenset[int], max_calls: int) -> list[Outcome] | None:
    """The relaxed problem of the joker sets in ``support`` (taken apart, their jokers
    anywhere) looking for a move better than the best so far: [] when there is none,
    [move] when there is, None when its work ran out first."""
    solver.gave_up = False
    solver.gave_up_bound = None
    relaxed = solve_pass(
        solver,
        pass_problem(solver, dissolve=solver.plain | support, pins=solver.pinned),
        floor=solver.best_score() + 1,
        candidate=False,
        max_calls=max_calls,
    )
    if relaxed is None:
        return None if solver.gave_up or solver.exhausted else []
    return [relaxed]


def relaxed_settles(solver: Suggester, found: list[Outcome] | None) -> bool:
    """Whether a relaxed problem's answer ends the passes it bounds: none of them can beat
    the best move (or the time ran out), or its own move is legal (the best of them: kept)."""
    if solver.exhausted or found == []:
        return True
    if found and layout.is_legal_turn(solver, found[0]):
        solver.candidates.append(found[0])
        return True
    return False


def solve_pass(
    solver: Suggester,
    problem: tuple[Problem, Blocks],
    untouched: bool = False,
    whole: bool = False,
    fixed: Sequence[tuple[Tile, ...]] = (),
    floor: int | None = None,
    candidate: bool = True,
    max_calls: int | None = None,
    programme_soon: bool = False,
) -> Outcome | None:
    """Solve one problem and lay out its move; None when it has no solution, none scoring
    at least ``floor`` (a move's score, not the search's), or the time ran out (then
    ``solver.exhausted`` is set) or the pass used up its ``max_calls`` (then ``solver.gave_up``
    is set: a cap on work rather than time keeps answers reproducible). ``untouched``:
    the table is not part of the problem and stays as it is. The move is recorded as a
    candidate answer unless ``candidate`` is false. ``programme_soon``: see
    ``portfolio.Portfolio.solve``."""
    if solver.candidates and solver.past_deadline():
        # past the deadline with an answer in hand: loops of small passes (one per variant
        # combination, up to 55,000) checked only ``exhausted``, and ran seconds late
        return None
    p = problem[0]
    # the search also scores the jokers that must be placed (the table's): each is a tile
    # and, unless it scores no points (``Problem.unscored``), stands for at least 1; the
    # move's value counts its played jokers' best points only
    offset = p.jokers_required * (p.tile_weight + (0 if p.unscored else p.joker_weight))
    # a move scores at most the search's score plus the tiles the search does not count
    need = 0 if floor is None else floor - p.uncounted + offset
    laid: Builder | Laid
    # a relaxed problem is solved once: the passes meet the same one again (a fate's node
    # freeing a joker into the pool is the relaxed problem of every joker set: on the hard
    # bench 21 problems of 712, 0.34 s of 8 s); a proven optimum answers every later
    # ``need`` (itself, or None below it), and no move reaching ``need`` every higher one.
    # (Not the candidates' passes: each comes once, and the key costs 50-150 µs.)
    key = None if candidate else (_frozen(p), tuple(problem[1].items()), untouched, whole, tuple(fixed))
    known = None if key is None else solver.solved.get(key)
    if known is not None:
        known_need, known_score, known_outcome = known
        if known_outcome is not None and known_score >= need:
            return known_outcome
        if known_outcome is not None or need >= known_need:
            return None
    if not (p.meld_min or p.feasibility_only):
        try:  # the search, the linear bound, the search aimed at it, the integer programme
            accept = None
            if not candidate and max_calls is not None:

                def accept(laid: Laid) -> bool:
                    return layout.is_legal_turn(
                        solver, layout.lay_out(solver, laid, problem[1], untouched, whole, fixed, p.jokers_laid_as)
                    )

            solved = solver.portfolio.solve(p, need, max_calls, accept, programme_soon)
        except OutOfTime:
            solver.exhausted = True
            return None
        except portfolio.GaveUp as gave_up:
            solver.gave_up = True
            if gave_up.bound is not None:
                solver.gave_up_bound = gave_up.bound + p.uncounted - offset
            return None
        if solved is None:
            _remember(solver, key, need, 0, None)
            return None
        if not solved.proven:
            solver.exhausted = True  # the best move found in time, not proven optimal
        laid = solved.laid
        score = solved.score
    else:
        search = Search(p, solver.deadline, max_calls)
        try:
            found = search.solve(need)
        except OutOfTime:
            if time.perf_counter() > solver.deadline:
                solver.exhausted = True
            else:
                solver.gave_up = True
            return None
        if found is None:
            _remember(solver, key, need, 0, None)
            return None
        score = found
        laid = Builder(search)
        laid.build()
    outcome = layout.lay_out(solver, laid, problem[1], untouched, whole, fixed, p.jokers_laid_as)
    if not solver.exhausted:
        _remember(solver, key, need, score, outcome)
    if candidate:
        solver.candidates.append(outcome)
    return outcome


def _remember(
    solver: Suggester, key: tuple[object, ...] | None, need: int, score: int, outcome: Outcome | None
) -> None:
    """Keep a relaxed problem's answer (``key``: None for the candidates' passes, not kept):
    its best move scoring ``score`` (the search's), or None: no move reaches ``need``."""
    if key is not None:
        solver.solved[key] = (need, score, outcome)


def opening_problem(solver: Suggester) -> tuple[Problem, Blocks]:
    """New sets from the rack only, worth at least the opening minimum."""
    optional = empty_counts()
    for t in solver.rack:
        if t.color is not None:
            optional[COLOUR_INDEX[t.color]][t.number] += 1
    problem = Problem(
        empty_counts(),
        optional,
        solver.rack_jokers,
        0,
        meld_min=max(1, solver.rules.initial_meld_min),
        tile_weight=solver.tile_weight,
        value_weight=solver.value_weight,
    )
    return problem, {}


def pass_problem(
    solver: Suggester,
    dissolve: set[int],
    rack: Sequence[Tile] | None = None,
    variants: dict[int, Variant] | None = None,
    pins: Mapping[int, tuple[Tile, ...]] | None = None,
    must: Sequence[Tile] = (),
    exact_value: bool = False,
) -> tuple[Problem, Blocks]:
    """Table sets in ``dissolve`` give their tiles to the pool (to be placed); the others
    are blocks, kept whole unless ``variants`` says otherwise. The rack's tiles may be
    placed. With ``pins`` (by table set, the tiles its jokers are laid as: ``pinned``, a
    fate's or an opening's), a dissolved set's jokers go to the pool as those tiles, a run
    joker's in a run (``runs_needed``), and its others as jokers; a relaxed problem (any
    ``pins``, even none) also lays the groups of ``_groups_needed``. ``must``: tiles of the
    rack that the move must play (placed like the table's, scored as played).
    ``exact_value``: the table's jokers in the pool score no points (``Problem.unscored``:
    exact when they are all there, ``exact_value_pass``)."""
    rack = tiles_without(solver.rack if rack is None else rack, must)
    variants = variants or {}
    required, optional = empty_counts(), empty_counts()
    jokers = jokers_required = 0
    for t in rack:
        if t.color is None:
            jokers += 1
        else:
            optional[COLOUR_INDEX[t.color]][t.number] += 1
    blocks: Blocks = {}
    uncounted = 0
    for t in must:
        if t.color is None:
            jokers += 1
            jokers_required += 1
        else:
            required[COLOUR_INDEX[t.color]][t.number] += 1
            uncounted += solver.tile_weight + t.number * solver.value_weight
    laid_as: list[tuple[str, bool]] = []
    in_runs: Counter[tuple[int, int]] = Counter()  # (colour, number) of the pinned run jokers
    table_jokers = 0  # the table's jokers in the pool
    for i, tiles in enumerate(solver.table):
        if i in dissolve:
            stands = pins.get(i, ()) if pins is not None else ()
            for t in tiles:
                if t.color is None and stands:
                    at = (COLOUR_INDEX[stands[0].color], stands[0].number)  # type: ignore[index]
                    run = pinned_in_run(solver, i, stands[0])
                    required[at[0]][at[1]] += 1
                    laid_as.append((stands[0].key, run))
                    in_runs[at] += run
                    stands = stands[1:]
                elif t.color is None:
                    jokers += 1
                    jokers_required += 1
                    table_jokers += 1
                else:
                    required[COLOUR_INDEX[t.color]][t.number] += 1
            continue
        variant = variants.get(i)
        blocks[i] = table_block(solver, i, variant)
        if variant is None:
            continue
        for t in variant.released:
            required[COLOUR_INDEX[t.color]][t.number] += 1  # type: ignore[index]
        for counts, taken in ((optional, variant.from_rack), (required, variant.from_pool)):
            for t in taken:
                counts[COLOUR_INDEX[t.color]][t.number] -= 1  # type: ignore[index]
        uncounted += sum(solver.tile_weight + t.number * solver.value_weight for t in variant.from_rack)
        jokers += variant.freed
        jokers_required += variant.freed
        table_jokers += variant.freed
        for t, run in variant.freed_as:
            required[COLOUR_INDEX[t.color]][t.number] += 1  # type: ignore[index]
            laid_as.append((t.key, run))
    group_blocks = [b for b in blocks.values() if isinstance(b, GroupBlock)]
    problem = Problem(
        required,
        optional,
        jokers,
        jokers_required,
        table_jokers if exact_value else 0,
        run_blocks=[b for b in blocks.values() if isinstance(b, RunBlock)],
        group_blocks=group_blocks,
        tile_weight=solver.tile_weight,
        value_weight=solver.value_weight,
        # without a rack joker no joker is played: where the table's jokers stand is worth
        # nothing to the move's value (it counts played jokers only), so the search need
        # not maximise it; whether a move is legal is verify_turn's to say either way
        joker_value_weight=0 if jokers == jokers_required else None,
        uncounted=uncounted,
        groups_needed=(
            _groups_needed(solver, dissolve, {b.number for b in group_blocks}, pins) if pins is not None else ()
        ),
        runs_needed=tuple((c, v, copies) for (c, v), copies in sorted(in_runs.items()) if copies),
        jokers_laid_as=tuple(laid_as),
    )
    return problem, blocks


def _groups_needed(
    solver: Suggester, dissolve: set[int], blocked: set[int], pins: Mapping[int, tuple[Tile, ...]]
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The groups every legal move lays for the group joker sets in ``dissolve`` (one
    reading only): one of the set's number holding a joker or a tile its jokers stand for
    (SPEC §4: a joker stays in a group holding one of the set's tiles, or the tile that
    frees it joins one of them; a locked set stays a group), as (number, colours); with
    jokers of the set laid as ``pins``, a tile they are laid as (a staying joker stays in
    a group). None of a number in ``blocked`` (a group block of it, which is such a
    group), nor under a free release of unlocked sets (a freed joker needs no tile
    there)."""
    if solver.rules.joker_release == "free" and not solver.rules.joker_sets_locked:
        return ()
    out = set()
    for i in dissolve:
        reading = solver.readings[i]
        best = reading.best
        if i in solver.plain or len(reading.readings) != 1 or best is None or best.kind == RUN:
            continue
        number = next(t.number for t in best.tiles if t.color is not None)
        if number in blocked:
            continue
        stands = pins.get(i) or tuple(t for options in best.joker_options for t in options)
        colours = {COLOUR_INDEX[t.color] for t in stands if t.color}
        out.add((number, tuple(sorted(colours))))
    return tuple(sorted(out))


def table_block(solver: Suggester, index: int, variant: Variant | None) -> RunBlock | GroupBlock:
    """Table set ``index`` as a block: its tiles by its best reading, or the variant's."""
    reading = solver.readings[index].best
    assert reading is not None
    tiles = reading.tiles if variant is None else variant.tiles
    original = solver.table[index] if variant is None or variant.whole else tiles
    run = reading.kind == RUN if variant is None or variant.run is None else variant.run
    if run:
        ordered = tuple(sorted(tiles, key=stands_for_number))
        colour = COLOUR_INDEX[run_colour(ordered)]
        start, end = stands_for_number(ordered[0]), stands_for_number(ordered[-1])
        return RunBlock(index, colour, start, end, ordered, original)
    number = next(t.number for t in tiles if t.color is not None)
    used = {COLOUR_INDEX[t.color] for t in tiles if t.color is not None}
    used |= {COLOUR_INDEX[t.declared.color] for t in tiles if t.declared is not None and t.declared.color}
    # a joker of a group stands for the same tile after the move (SPEC §4): where the table
    # set's undeclared jokers filled every colour it lacked (a group of four), they stood
    # for those colours, which a trimmed group then cannot take (K4 B4 J J trimmed to
    # B4 J J taking O4 frees the joker that stood for O4); the jokers a variant frees leave
    lacking = set(COLORS) - {t.color for t in solver.table[index] if t.color is not None}
    freed = variant.freed if variant is not None else 0
    if sum(1 for t in solver.table[index] if t.color is None) - freed == len(lacking):
        used |= {COLOUR_INDEX[c] for c in lacking}
    return GroupBlock(index, number, len(tiles), frozenset(range(NCOL)) - used, tiles, original)


def pinned_in_run(solver: Suggester, index: int, tile: Tile) -> bool:
    """Whether a joker of table set ``index`` pinned as ``tile`` stands in a run (else in a
    group): a run's jokers stand for tiles of its numbered tiles' colour, a group's for
    colours it lacks. A set read both ways is pinned by either reading (``fates``: ``J O4 J``
    as O3 O5 or as two of K4 B4 R4), so its best reading does not tell."""
    return any(t.color == tile.color for t in solver.table[index] if t.color is not None)


def pinned(solver: Suggester) -> dict[int, tuple[Tile, ...]]:
    """The jokers that no move may free, by table set: a freed joker must be replaced by a
    copy of a tile it stands for (SPEC §4), so when none of those has a copy on the table
    or the rack every legal move keeps the joker standing for one of them (a run's joker
    in a run, a group's in a group of its number). A relaxed problem places such jokers
    as those tiles (``pass_problem``; a group's jokers as distinct missing colours: with no
    copy of any elsewhere, any will do), and ``lay_out`` lays them back as jokers. Before
    opening no joker may be freed at all (SPEC §4), so every run joker is pinned then, and
    a group's jokers when they stand for every colour it lacks. Only sets with one reading."""
    free = solver.rules.joker_release == "free" and not solver.rules.joker_sets_locked
    if free and solver.opened:
        return {}
    present = Counter(t.key for t in solver.rack)
    present.update(t.key for s in solver.table for t in s)
    out: dict[int, tuple[Tile, ...]] = {}
    for i, reading in enumerate(solver.readings):
        best = reading.best
        if i in solver.plain or best is None or len(reading.readings) != 1:
            continue
        # before opening a joker stays: a run's standing for its tile, a group's for one of
        # its missing colours (all of them, when its jokers fill every one)
        never_freed = not solver.opened and (
            best.kind == RUN
            or len({t.key for options in best.joker_options for t in options}) == len(best.joker_options)
        )
        if not never_freed and (free or any(present[t.key] for options in best.joker_options for t in options)):
            continue
        stands: list[Tile] = []
        for options in best.joker_options:
            stands += [t for t in options if t not in stands][:1]
        if len(stands) == len(best.joker_options):
            out[i] = tuple(stands)
    return out


def tile_keys(tiles: Sequence[Tile]) -> tuple[tuple[int, int], ...]:
    """The numbered tiles among ``tiles`` as (colour index, number), the jokers left out."""
    return tuple((COLOUR_INDEX[t.color], t.number) for t in tiles if t.color is not None)


def _frozen(problem: Problem) -> tuple[object, ...]:
    """``problem``'s fields as a hashable value (its lists as tuples), to know it again."""

    def frozen(value: object) -> object:
        return tuple(map(frozen, value)) if isinstance(value, list) else value

    return tuple(frozen(getattr(problem, f.name)) for f in dataclasses.fields(problem))

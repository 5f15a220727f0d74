"""The integer programme of the least-change tie break (``least_change``, issue #18): one
programme built and solved (``solve_programme``), with its rows for the before-sets' continuations,
the free sets, the balance of every tile type and the score; its pieces (the model, lanes,
continuation runs, group candidates) are in ``least_change_model``.

A second integer programme, solved by branch and bound over HiGHS's linear relaxations
(``engine.solver.highs.branch_and_bound``) with the score fixed from below at the best move's
and the disturbance minimised (one objective with lexicographic integer weights):

* every before-set ``b`` has one optional *continuation*: a run of its colour (a run-set) or of
  one of its colours (a group-set), or a group of one of its numbers, holding at least one of
  its numbered tiles. A continuation run is one of its *stretches* (a variable per stretch of
  three numbers or more, at most one chosen) with, per number, the numbered tile or a joker
  where the stretch holds it (``Run``: a third of the rows of a lane, below, and a tighter
  relaxation; measured in bench/README.md, session 20). A group is one of the explicit colour
  sets plus jokers of 3–4 tiles. The tiles the continuation shares with ``b`` are *kept*;
  ``b`` is unchanged when all are kept and nothing is added. A continuation run covers only
  the numbers a run holding one of ``b``'s tiles can reach (outwards while the supply has the
  tile or a joker is left for it), and ``b`` unchanged is tied to its exact tiles (at most
  each of its tiles kept in its colour's run, and the stretch of exactly its numbers; for a
  group the one group of its colours and jokers) besides the counting rows: the same
  programme, a tighter relaxation;
* the other after-sets are *free*: per colour one *lane* of any number of runs (per number,
  how many runs start, end, cover it, and hold the numbered tile or a joker there; a run of
  3..13 tiles by the start/end rows; so a long run counts as one set), and counts of every
  group;
* every tile type is balanced: the table's copies are laid, at most the rack's more;
* the score (tiles played and their value, the jokers counting their best points) is at least
  the best move's, and (``objective="tiles"``) the tiles played at least its tiles;
* the objective is ``W_move * moved + W_touch * touched + new sets``, ``moved`` = table tiles
  minus kept tiles.

Table jokers (unless the joker release is free): the continuation of a joker set is of its
kind and covers its jokers' places (a run-set's jokers keep standing for their tiles or are
replaced there by the exact tile; a group-set stays a group of its number); under
``joker_sets_locked`` it keeps every numbered tile. A joker freed by its exact tile goes to
any set under ``freed_joker_use: any_set``. Under ``other_set``, ``new_set_with_two_rack_tiles``
and ``joker_sets_locked`` the jokers first stay in their places; then (see
``least_change.least_change``) a joker freed in place goes where the freed joker use says: any
set, any set but its own set's continuation, or a free set (``_freed_elsewhere``: the other
moves such a joker may make are not modelled, nor these rules' other conditions: the moves are
checked). An opening
without manipulation keeps the table as it is and lays new sets from the rack worth the
minimum, a played joker scoring its own place or a table joker's points (the move's score
reads jokers as interchangeable: ``intact.played_value``); an opening with manipulation is
not modelled.

Each programme's linear relaxation is solved first (about 10-50 ms on the games bench's
programmes of 400-2600 columns): when its optimum is integral it is the programme's (on about
40% of the positions the programme decides), else the branch and bound goes on: it branches
on the tiles of each type played (a relaxation playing a fraction of a tile), then on the
continuations' columns, and seeks only moves disturbing no more than the least disturbing
legal move known (the best move found, then the smaller programme's): 1-33 relaxations per
programme on the games bench (session 23; 1-104 in session 11), where HiGHS's own integer
solver spent 0.1-4 s on the hardest in cut rounds at the root, a lottery of its random seed
(bench/README.md, issue 18, session 11). A first programme over only the sets the relaxation
touches, the others proven unchanged by reduced costs, was measured slower (bench/README.md,
issue 18)."""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from engine.rules import Rules
from engine.sets import RUN, SetReading
from engine.solver import highs
from engine.solver.intact import opening_table_joker_points
from engine.solver.least_change_model import (
    NUMBERS,
    Groups,
    Lane,
    Model,
    Run,
    Shapes,
    colours_as_bits,
    free_shapes,
    present_colours,
    reach,
    shapes_sharing,
)
from engine.solver.model import COLOUR_INDEX
from engine.tiles import COLORS, MAX_NUMBER, Tile

_KEYS = tuple((c, v) for c in range(len(COLORS)) for v in NUMBERS)
"""The tile types (colour index, number), colour by colour."""
Solved = tuple[list[tuple[Tile, ...]] | None, bool, int]
"""A programme's solution: the after table (None: none below the cutoff), whether it is
optimal, and its objective value (``solve_programme``)."""


def solve_programme(
    table: Sequence[tuple[Tile, ...]],
    readings: Sequence[SetReading],
    rack_counts: Counter[tuple[int, int]],
    rack_jokers: int,
    supply: Counter[tuple[int, int]],
    base: Counter[tuple[int, int]],
    base_jokers: int,
    jokers: int,
    opening: bool,
    rules: Rules,
    weights: tuple[int, int],
    floor: int,
    deadline: float,
    w_move: int,
    w_touch: int,
    free_release: bool,
    aggregated: bool,
    cutoff: int | None,
    max_nodes: int | None = None,
    keep_jokers: bool = False,
) -> Solved | None:
    """Build and solve the programme; the after table of its solution, whether it is optimal,
    and its objective value (None: no solution in time, or within ``max_nodes`` relaxations).
    With a ``cutoff`` only solutions of a lower objective are sought: the after table is None
    when none exists. ``keep_jokers``: a joker set's jokers stay in their places (unless the
    release is free), not freed by their exact tiles."""
    tw, vw = weights
    m = Model()

    # free sets: every run started and every group laid is a new set. Outside a free joker
    # release every run holds a tile by a row of its own (``Lane``'s ``tiled``): on 1,500 small
    # other_set positions with a table joker the free programme, capped at RELAXED_NODES, bounded
    # 13 more least changes (17 answers disturbing more than the least -> 4); under a free release
    # (the games bench: one programme's branch and bound 90 -> 431 ms) it is left out
    free_lanes = [
        Lane(m, c, 3 + jokers, supply, jokers, tiled=not rules.jokers_move_freely) for c in range(len(COLORS))
    ]
    for lane in free_lanes:
        for v in NUMBERS:
            m.cost[lane.start[v]] += 1
    free_groups: list[Groups] = []
    for v in NUMBERS:
        shapes, most = free_shapes(tuple(supply.get((c, v), 0) for c in range(len(COLORS))), jokers)
        free_groups.append(Groups(v, shapes, m.vars(most, 1)))
    lanes: list[Lane | Run] = list(free_lanes)
    groups = list(free_groups)
    conts: list[_Continuation] = []

    releases = not keep_jokers
    first_continued = len(m.cost)  # the continuations' columns: branched on first
    if not opening:
        for tiles, reading in zip(table, readings, strict=True):
            cont = _continuation(
                m, tiles, reading, supply, jokers, free_release, releases, rules, w_move, w_touch, aggregated
            )
            conts.append(cont)
            lanes += cont.runs
            groups += cont.groups
        if not free_release and rules.freed_joker_use != "any_set" and releases:
            _freed_elsewhere(m, conts, rack_jokers, rules.freed_joker_use == "new_set_with_two_rack_tiles")
        _cross_kind(m, [r for cont in conts for r in cont.requests], free_lanes, free_groups)
    continued = range(first_continued, len(m.cost))

    # balance of every tile type, and the jokers (the tiles of each type played, and the jokers:
    # whole at every solution, branched on)
    laid = _laid(lanes, groups, tw, vw)
    played_rows = range(len(m.row_lower), len(m.row_lower) + len(_KEYS) + 1)
    for c, v in _KEYS:
        cols, before = laid.by_type[v][c], base.get((c, v), 0)
        m.row_of(cols, [1.0] * len(cols), before, before + rack_counts.get((c, v), 0))
    m.row_of(laid.jokers, laid.jokers_n, base_jokers, base_jokers + rack_jokers)
    # the table's jokers set free under a replace release: rows every legal move meets
    replaced_freely = free_release and rules.joker_release == "replace" and bool(base_jokers)
    if replaced_freely:
        from_rack = rules.joker_replacement_from == "rack"
        # (with a rack joker a run may be laid as a bag: ``_replacement_rows``)
        bags = bool(rack_jokers) and not rules.strict_order
        _replacement_rows(m, readings, lanes, groups, laid, base if from_rack else None, bags)
    # the score: every tile laid, less the table's (a constant); played jokers at their points;
    # and the tiles laid
    picks: list[int] = []  # a joker played counts as its place's number: at most the jokers laid there
    pick_points: list[float] = []
    if rack_jokers:
        held = [col for lane_or_run in lanes for col in lane_or_run.joker.values()]
        picks += m.vars([min(rack_jokers, 1 if m.upper[col] <= 1 else m.upper[col]) for col in held])
        m.pairs(picks, held, [-1] * len(held), -np.inf, 0)
        pick_points += [vw * v for lane_or_run in lanes for v in lane_or_run.joker]
        in_groups = [
            (var, j, g.number, colours)
            for g in groups
            for var, colours, j in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True)
            if j
        ]
        group_picks = m.vars([min(rack_jokers, j * m.upper[var]) for var, j, _, _ in in_groups])
        m.pairs(group_picks, [var for var, _, _, _ in in_groups], [-j for _, j, _, _ in in_groups], -np.inf, 0)
        picks += group_picks
        # a group of one numbered tile reads as a run too (``R5 J J``: 5 6 7), and a table
        # group joker of its number may stay in it (the joker of ``K5 O5 R5 J``) while the
        # move scores it as the run: there its jokers are worth up to the run's highest number
        stay_numbers = _table_jokers(readings)[1] if replaced_freely else {}
        pick_points += [
            vw * max(number, min(MAX_NUMBER, number + j))
            if number in stay_numbers and len(colours) == 1
            else vw * number
            for _, j, number, colours in in_groups
        ]
        if opening and not rules.manipulate_on_opening_turn:
            # the table stays as it lies, and a played joker is worth the best joker after the
            # move, a table joker's too (``intact.played_value``): a column per table joker at
            # its points, taken in a played joker's stead (sabra, ``K10 K11 K12 J`` with
            # ``K9 K10 K11 K12 K13 J``: ``J=K8 K9 .. K13`` scores 68 as two new sets do)
            table_points = opening_table_joker_points(table, rules)
            picks += m.vars([1] * len(table_points))
            pick_points += [vw * p for p in table_points]
        m.row_of(picks + laid.jokers, [1.0] * len(picks) + [-n for n in laid.jokers_n], -base_jokers, -base_jokers)
    constant = sum(n * (tw + vw * key[1]) for key, n in base.items()) + base_jokers * tw
    m.row_of(laid.cols + picks, laid.points + pick_points, floor + constant, np.inf)
    if tw > vw:
        m.row_of(laid.cols, laid.tiles, floor // tw + sum(base.values()) + base_jokers, np.inf)
    if opening:
        meld: dict[int, float] = {}
        for lane in free_lanes:
            for v in NUMBERS:
                meld[lane.tile[v]] = v
                meld[lane.joker[v]] = v
        for g in groups:
            meld.update(zip(g.cols, [g.number * size for size in g.shapes.sizes], strict=True))
        m.row(meld, max(1, rules.initial_meld_min), np.inf)

    left = deadline - time.perf_counter()
    if left <= 0:
        return None
    matrix = m.matrix()
    solved = _least(m, matrix, left, cutoff, continued, played_rows, max_nodes)
    if solved is None:
        return None
    x, optimal, objective = solved
    if x is None:
        return None, optimal, objective
    after = list(table) if opening else []
    for b, cont in enumerate(conts):
        if cont.same is not None and x[cont.same]:
            after.append(table[b])
            continue
        for run in cont.runs:
            after += run.runs(x)
        after += [g.tiles(i) for g in cont.groups for i, var in enumerate(g.cols) if x[var]]
    for lane in free_lanes:
        after += lane.runs(x)
    for g in free_groups:
        for i, var in enumerate(g.cols):
            if x[var]:
                after += [g.tiles(i)] * x[var]
    return after, optimal, objective


class _Laid(NamedTuple):
    """The columns laying tiles (each once), for the balance and score rows."""

    by_type: dict[int, list[list[int]]]  # number -> per colour, the columns laying that tile
    jokers: list[int]  # the columns laying jokers,
    jokers_n: list[float]  # how many
    cols: list[int]  # every column laying tiles,
    points: list[float]  # what it scores (a joker: a tile of no value),
    tiles: list[float]  # how many tiles it lays


def _replacement_rows(
    m: Model,
    readings: Sequence[SetReading],
    lanes: Sequence[Lane | Run],
    groups: Sequence[Groups],
    laid: _Laid,
    table_copies: Counter[tuple[int, int]] | None,
    bags: bool = False,
) -> None:
    """Rows for the table's jokers set free under ``joker_release: replace``: a table joker
    either stays (a run joker: a joker of an after-run stands for its tile; a group joker: it
    can stand for the same tile in an after-group, of its number) or a successor of its set
    holds a copy of a tile it may stand for, one copy per joker (SPEC §4): a successor holds a
    numbered tile of the set, so for a run joker's tile it is a run of that colour, for a group
    joker's a group of that number. So, per tile, the run jokers standing for it are no more
    than the after-runs holding a joker or a copy of it there; per number, the group jokers no
    more than the jokers of that number's after-groups and the copies they hold of the tiles
    those jokers may stand for. With ``table_copies`` (the table's tiles, given under
    ``joker_replacement_from: rack``) the replacing copies are played from the rack: the same
    jokers are no more than those staying jokers and the copies played (laid less the table's).
    A set of one numbered tile and jokers reads both ways (``R13 J J``: a group of 13s, or a
    run), and a move may score it as one while a table joker stays in it by the other: the
    jokers of after-groups of one tile of a run joker's colour within three of its number count
    as staying for it (and ``solve_programme`` scores such a group's jokers as the run's best).
    Necessary conditions only, every legal move meets them; the jokers of a set read more than
    one way are left out (``_table_jokers``). With ``bags`` (a joker on the rack, no
    ``strict_order``) a run joker stays in any after-run of its colour holding a joker at its
    tile or above: a run laid as a bag (SPEC §2 step 3) is legal by the reading keeping the
    joker on its tile and scores by its best reading, the highest, where its jokers may stand
    higher (sabra, ``J B6 B7`` with ``B8 J``: ``B7 B6 B8 J J`` reads B6..B10, the table's
    joker staying as B5 in another reading), and the programme lays a run at one reading, the
    best: its top is then a joker above the tile (session 63: without it, xp + ``other_set``,
    ``J=B6 B7 B8 B9`` + ``O9 O8 J`` + ``B4 .. B9`` with ``O10 K4 K7 B2 B3 O10 O9 J``, a move
    moving 3 tiles was claimed least where one moving 2 scores as much)."""
    run_jokers, group_jokers, group_colours = _table_jokers(readings)
    in_successors: list[tuple[Counter[int], int]] = []  # (terms, at least)
    played: list[tuple[Counter[int], int]] = []
    for (c, v), count in run_jokers.items():
        runs = [run for run in lanes if run.colour == c and v in run.joker]
        staying = Counter(run.joker[v] for run in runs)
        if bags:
            staying = Counter(col for run in lanes if run.colour == c for u, col in run.joker.items() if u >= v)
        # a set of one numbered tile and jokers reads as a group too, and as a run: an
        # after-group of one tile of colour c, within three of v, may read as a run whose
        # joker stands for the tile (the move scoring the set as the group)
        for g in groups:
            if g.number != v and abs(g.number - v) <= 3:
                for col, shape, jokers in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True):
                    if jokers and shape == (c,):
                        staying[col] += jokers
        in_successors.append((staying + Counter(run.tile[v] for run in runs), count))
        if table_copies is not None:
            played.append((staying + Counter(laid.by_type[v][c]), count + table_copies[(c, v)]))
    for number, count in group_jokers.items():
        colours = group_colours[number]
        staying, held = Counter[int](), Counter[int]()
        for g in groups:
            if g.number == number:
                for col, shape, jokers in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True):
                    staying[col] += jokers
                    held[col] += sum(1 for c in shape if c in colours)
        in_successors.append((staying + held, count))
        if table_copies is not None:
            copies = Counter(col for c in colours for col in laid.by_type[number][c])
            played.append((staying + copies, count + sum(table_copies[(c, number)] for c in colours)))
    for terms, least in in_successors + played:
        m.row({col: float(n) for col, n in terms.items()}, least, np.inf)


def _table_jokers(
    readings: Sequence[SetReading],
) -> tuple[Counter[tuple[int, int]], Counter[int], dict[int, set[int]]]:
    """The table's run jokers by the tile they stand for, its group jokers by number and, by
    number, the colours those may stand for (a set read more than one way left out)."""
    run_jokers: Counter[tuple[int, int]] = Counter()
    group_jokers: Counter[int] = Counter()
    group_colours: dict[int, set[int]] = {}
    for reading in readings:
        if len(reading.readings) != 1:
            continue
        best = reading.readings[0]
        for options in best.joker_options:
            keys = [(COLOUR_INDEX[t.color], t.number) for t in options if t.color is not None]
            if best.kind == RUN and len(keys) == 1:
                run_jokers[keys[0]] += 1
            elif best.kind != RUN and keys:
                number = keys[0][1]
                group_jokers[number] += 1
                group_colours.setdefault(number, set()).update(c for c, _ in keys)
    return run_jokers, group_jokers, group_colours


def _laid(lanes: Sequence[Lane | Run], groups: Sequence[Groups], tw: int, vw: int) -> _Laid:
    """The columns laying tiles in ``lanes`` and ``groups``, a tile scoring ``tw`` plus ``vw``
    per point."""
    laid = _Laid({v: [[] for _ in COLORS] for v in NUMBERS}, [], [], [], [], [])
    for lane_or_run in lanes:
        for v, col in lane_or_run.tile.items():
            laid.by_type[v][lane_or_run.colour].append(col)
        laid.cols.extend([*lane_or_run.tile.values(), *lane_or_run.joker.values()])
        laid.points.extend([tw + vw * v for v in lane_or_run.tile] + [tw] * len(lane_or_run.joker))
        laid.jokers.extend(lane_or_run.joker.values())
    laid.tiles.extend([1] * len(laid.cols))  # (one tile each so far)
    laid.jokers_n.extend([1] * len(laid.jokers))
    for g in groups:
        cols, shapes, here = g.cols, g.shapes, laid.by_type[g.number]
        per_tile = tw + vw * g.number
        for var, colours, j in zip(cols, shapes.colours, shapes.jokers, strict=True):
            for c in colours:
                here[c].append(var)
            laid.points.append(len(colours) * per_tile + j * tw)
        laid.cols.extend(cols)
        laid.tiles.extend(shapes.sizes)
        laid.jokers.extend(itertools.compress(cols, shapes.jokers))
        laid.jokers_n.extend(filter(None, shapes.jokers))
    return laid


def _least(
    m: Model,
    matrix: Any,
    time_limit: float,
    cutoff: int | None,
    continued: range,
    played_rows: range,
    max_nodes: int | None = None,
) -> tuple[list[int] | None, bool, int] | None:
    """The model's minimum: a solution, whether it is proven, its objective (None: none found;
    with a ``cutoff``, a None solution when none is below it, proven or not). Solved by
    ``highs.branch_and_bound``: the linear relaxation first (when its optimum is integral it
    is the programme's), then branching on the tiles played of each type and the
    continuations' columns."""
    cost = -np.array(m.cost, dtype=float)
    upper = np.array(m.upper, dtype=float)
    lower_rows, upper_rows = np.array(m.row_lower, dtype=float), np.array(m.row_upper, dtype=float)
    columns = np.zeros(len(cost), dtype=bool)
    columns[continued.start : continued.stop] = True
    found = highs.branch_and_bound(
        cost,
        upper,
        matrix,
        lower_rows,
        upper_rows,
        time_limit,
        cutoff=-np.inf if cutoff is None else -cutoff,
        columns=columns,
        rows=played_rows,
        max_nodes=max_nodes,
    )
    if found.status == highs.NOT_BETTER and cutoff is not None:
        return None, True, cutoff
    if found.x is None:
        return None
    return [round(float(v)) for v in found.x], found.status == highs.OPTIMAL, -round(found.objective)


def _cross_kind(m: Model, requests: list[tuple[str, int, int, int]], lanes: list[Lane], groups: list[Groups]) -> None:
    """Before-sets continued by a free set of the other kind, counted without saying which:
    ("group", number, colour, var) asks for a free group holding that tile, ("run", number,
    colour, var) for a free run holding it. Necessary conditions only: every request has a
    set holding its tile; at any number, requests of any colours are no more than the groups
    holding one of them (Hall's condition, exact for groups; over the colours requested only,
    as a colour nobody asks for only weakens a row); in any stretch of numbers of a
    colour, requests are no more than the runs meeting it."""
    by_group: dict[int, dict[int, list[int]]] = {}
    by_run: dict[int, dict[int, list[int]]] = {}
    for kind, number, colour, var in requests:
        if kind == "group":
            by_group.setdefault(number, {}).setdefault(colour, []).append(var)
        else:
            by_run.setdefault(colour, {}).setdefault(number, []).append(var)
    at_number: dict[int, list[tuple[int, int]]] = {}  # number -> (colour bits, variable) of its groups
    for g in groups:
        if g.number in by_group:
            at_number.setdefault(g.number, []).extend(zip(g.shapes.bits, g.cols, strict=True))
    for number, per_colour in by_group.items():
        here = at_number.get(number, [])
        requested = sorted(per_colour)
        for k in range(1, len(requested) + 1):
            for subset in itertools.combinations(requested, k):
                asked = [v for c in subset for v in per_colour[c]]
                bits = colours_as_bits(subset)
                m.difference(asked, [var for mask, var in here if mask & bits], -np.inf, 0)
    for colour, per_number in by_run.items():
        lane = lanes[colour]
        for n, asked in per_number.items():
            m.difference(asked, [lane.tile[n]], -np.inf, 0)
        numbers = sorted(per_number)
        for i, low in enumerate(numbers):
            # from low to each higher number: the requests so far against the runs meeting them
            # (holding low, or starting after it)
            asked = list(per_number[low])
            meeting = [lane.cover[low]]
            for before, high in itertools.pairwise(numbers[i:]):
                asked += per_number[high]
                meeting += [lane.start[v] for v in range(before + 1, high + 1)]
                m.difference(asked, meeting, -np.inf, 0)


@dataclass(frozen=True, slots=True)
class _Continuation:
    """The candidates continuing one before-set, and its unchanged indicator."""

    runs: list[Run]
    groups: list[Groups]
    same: int | None
    requests: list[tuple[str, int, int, int]]
    # (column, jokers): where it holds jokers beside those of the set staying in their places
    # (with fixed jokers; else every column holding jokers), and those staying
    extra_jokers: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    staying_jokers: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    own_jokers: int = 0


def _continuation(
    m: Model,
    tiles: tuple[Tile, ...],
    reading: SetReading,
    supply: Counter[tuple[int, int]],
    jokers: int,
    free_release: bool,
    releases: bool,
    rules: Rules,
    w_move: int,
    w_touch: int,
    aggregated: bool = False,
) -> _Continuation:
    """The continuation of a before-set: its run and groups, kept tiles and the
    unchanged indicator, with their objective weights (``moved`` counts tiles not kept)."""
    mine = Counter((COLOUR_INDEX[t.color], t.number) for t in tiles if t.color is not None)
    own_jokers = sum(1 for t in tiles if t.color is None)
    best = reading.best
    assert best is not None
    is_run = best.kind == RUN
    fixed_jokers = own_jokers and not free_release
    # ``releases``: a joker may be freed by its exact tile in its place (where it may go: any
    # set, or as the caller's ``_freed_elsewhere`` says; a locked set keeps its numbered tiles)
    extra_jokers: list[tuple[int, float]] = []
    staying_jokers: list[tuple[int, float]] = []
    active: list[int] = []  # the candidates' columns, requests included (one chosen when b is continued)
    kept: list[int] = []  # the columns holding b's tiles,
    kept_n: list[float] = []  # how many of them
    size: list[int] = []  # the candidate sets' columns,
    sizes: list[float] = []  # their sizes
    holder: list[int] = []  # the columns that may hold jokers,
    holds: list[float] = []  # how many
    runs: list[Run] = []
    groups: list[Groups] = []
    requests: list[tuple[str, int, int, int]] = []
    # aggregated: a set without jokers is continued by a set of the other kind through a
    # request on the free sets (it keeps one tile and forms no new set)
    requested = aggregated and not own_jokers
    if requested:
        asked = m.vars([1] * len(mine), -w_move - 1)
        kind = "group" if is_run else "run"
        requests += [(kind, v, c, var) for (c, v), var in zip(sorted(mine), asked, strict=True)]
        active += asked
    for colour in sorted({c for c, _ in mine}):
        if fixed_jokers and not is_run:
            break  # a group holding a joker stays a group
        if requested and not is_run:
            break
        anchors = sorted(v for c, v in mine if c == colour)
        run = Run(m, colour, supply, jokers, reach(colour, anchors, supply, jokers))
        runs.append(run)
        share = [run.tile[v] for v in anchors]
        stretches = list(run.stretches)
        m.difference(share, stretches, 0, np.inf)  # it holds one of b's numbered tiles
        if not is_run:  # a run continuing a group holds the group's tile of its colour
            m.difference(share[:1], stretches, 0, 0)
        active += stretches
        kept += share
        kept_n += [1.0] * len(share)
        size += stretches
        sizes += run.sizes
        holder += run.joker.values()
        holds += [1.0] * len(run.joker)
        places = [t.declared.number for t in best.tiles if t.color is None and t.declared is not None]
        if fixed_jokers:
            for p in places:
                m.row(run.covering(p), 1, 1)
                if not releases:
                    m.row({run.joker[p]: 1}, 1, 1)
            if rules.joker_sets_locked:
                for v in anchors:
                    m.row({run.tile[v]: 1}, 1, 1)
        extra_jokers += [(col, 1.0) for v, col in run.joker.items() if not fixed_jokers or v not in places]
        staying_jokers += [(run.joker[p], 1.0) for p in places if fixed_jokers]
    mine_bits: dict[int, int] = {}  # number -> the colours of b's tiles of it, as a bit set
    for c, v in mine:
        mine_bits[v] = mine_bits.get(v, 0) | 1 << c
    for number in sorted(mine_bits):
        if fixed_jokers and is_run:
            break  # a run holding a joker stays a run
        if requested and is_run:
            break
        shapes, shared = shapes_sharing(present_colours(number, supply), min(jokers, len(COLORS)), mine_bits[number])
        if fixed_jokers:
            allowed = [
                (colours, j, n)
                for colours, j, n in zip(shapes.colours, shapes.jokers, shared, strict=True)
                if (j >= own_jokers or _frees_group_jokers(tiles, mine, colours, j, releases, rules))
                and not (rules.joker_sets_locked and n < len(mine))
            ]
            shapes, shared = Shapes([(colours, j) for colours, j, _ in allowed]), tuple(n for _, _, n in allowed)
        g = Groups(number, shapes, m.vars([1] * len(shapes)))
        groups.append(g)
        active += g.cols
        kept += g.cols
        kept_n += shared
        size += g.cols
        sizes += shapes.sizes
        holder += itertools.compress(g.cols, shapes.jokers)
        holds += filter(None, shapes.jokers)
        kept_here = own_jokers if fixed_jokers else 0
        for col, j in zip(g.cols, shapes.jokers, strict=True):
            if j > kept_here:
                extra_jokers.append((col, float(j - kept_here)))
            if j and kept_here:
                staying_jokers.append((col, float(min(j, kept_here))))
    if not active:
        if fixed_jokers:
            m.row({m.var(0): 1}, 1, 1)  # infeasible: nothing can continue this set
        return _Continuation(runs, groups, None, requests)
    on = m.var(1)
    m.difference(active, [on], 0, 0)
    if fixed_jokers:
        m.row({on: 1}, 1, 1)
    kept_jokers = m.var(own_jokers)
    if own_jokers:
        m.row({kept_jokers: 1, on: -own_jokers}, -np.inf, 0)
        m.row_of([kept_jokers, *holder], [1.0] + [-n for n in holds], -np.inf, 0)
    total = sum(mine.values()) + own_jokers
    same = m.var(1, -w_touch)
    # unchanged: everything kept and nothing added
    m.row_of([*kept, kept_jokers, same], [*kept_n, 1.0, -float(total)], 0, np.inf)
    m.row_of([*size, same], [*sizes, float(MAX_NUMBER)], -np.inf, total + MAX_NUMBER)
    _unchanged_rows(m, same, mine, own_jokers, is_run, runs, groups)
    for k, n in zip(kept, kept_n, strict=True):
        m.cost[k] -= w_move * n
    m.cost[kept_jokers] -= w_move
    # a continuation is not a new set: the objective counts free sets only
    return _Continuation(runs, groups, same, requests, extra_jokers, staying_jokers, own_jokers if fixed_jokers else 0)


def _freed_elsewhere(m: Model, conts: list[_Continuation], rack_jokers: int, new_sets: bool) -> None:
    """Where the jokers freed by their exact tiles may lie, under a freed joker use other than
    any_set: not in their own set's continuation (of its kind, holding its tiles), so beside
    the jokers staying in their places a continuation holds at most the rack's jokers and
    those freed from other sets; under ``new_sets`` in no continuation at all (a new set holds
    no tile of the joker's set and not every tile of any before-set: a continuation seldom
    qualifies). Not every legal move is modelled (a freed joker beside another copy of a tile
    of its set, in a continuation that is a new set), nor is every modelled move legal
    (other_set's kinds, a new set's two rack tiles): the moves are checked."""
    if new_sets:
        extra = [term for cont in conts for term in cont.extra_jokers]
        m.row_of([col for col, _ in extra], [n for _, n in extra], -np.inf, rack_jokers)
        return
    for b, cont in enumerate(conts):
        if not cont.own_jokers or not cont.extra_jokers:
            continue
        others = [c for k, c in enumerate(conts) if k != b]
        # extra(b) <= the rack's jokers + the others' freed ones (their own less those staying)
        terms = [*cont.extra_jokers, *(term for c in others for term in c.staying_jokers)]
        most = rack_jokers + sum(c.own_jokers for c in others)
        m.row_of([col for col, _ in terms], [n for _, n in terms], -np.inf, most)


def _unchanged_rows(
    m: Model,
    same: int,
    mine: Counter[tuple[int, int]],
    own_jokers: int,
    is_run: bool,
    runs: list[Run],
    groups: list[Groups],
) -> None:
    if is_run:
        for run in runs:
            numbers = sorted(v for c, v in mine if c == run.colour)
            m.pairs([same] * len(numbers), [run.tile[v] for v in numbers], [-1.0] * len(numbers), -np.inf, 0)
            if not own_jokers and numbers:  # the run of exactly its numbers
                whole = run.stretches[run.spans[(numbers[0], numbers[-1])]]
                m.row({same: 1.0, whole: -1.0}, -np.inf, 0)
        return
    colours = tuple(sorted({c for c, _ in mine}))
    exact = [
        var
        for g in groups
        for var, shape, j in zip(g.cols, g.shapes.colours, g.shapes.jokers, strict=True)
        if shape == colours and j == own_jokers
    ]
    m.difference([same], exact, -np.inf, 0)


def _frees_group_jokers(
    tiles: tuple[Tile, ...],
    mine: Counter[tuple[int, int]],
    colours: tuple[int, ...],
    jokers: int,
    releases: bool,
    rules: Rules,
) -> bool:
    """Does a group of ``colours`` and ``jokers`` jokers continuing the group ``tiles`` free
    its missing jokers by their exact tiles (a declared joker by its tile; an undeclared one by
    a missing colour, both in a group of three under ``group_joker_needs_both_colours``)?"""
    if not releases:
        return False
    added = {c for c in colours if not mine[(c, next(v for _, v in mine))]}
    declared = {COLOUR_INDEX[t.declared.color] for t in tiles if t.declared is not None and t.declared.color}
    if not declared <= added:
        return False
    freed = sum(1 for t in tiles if t.color is None) - jokers
    if rules.group_joker_needs_both_colours and len(tiles) == 3:
        return len(colours) == len(COLORS)
    return len(added) >= freed

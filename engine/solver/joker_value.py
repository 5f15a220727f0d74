"""The points of a played joker beside a table joker that stays (``suggest``'s value proof over
the fates of the table's jokers, ``value_bound._fates_value_settled``).

A played joker is worth the best joker after the move, a table joker's too, each set read at its
best (``intact.played_value``). A fate's problem lays a joker that stays as the tile it stands
for (a *pin*, ``pass_problems.pass_problem``), so its search cannot see that joker's points.
In a run laid in order, as ``suggest`` lays every run, a joker stands for its place (SPEC §2):
the pin's points are its number, and the search sees where its set's other jokers stand. A set
of one numbered tile and jokers may read two ways, though, and counts at its best reading:
``B9 J J`` as a group of 9s, where the pin stood for K9, and as B9 B10 B11; ``J J O13``,
holding a run's pin as O11, as a group of 13s. ``ambiguous_sets`` lists those sets, each at the
points of its other reading; ``without_set`` is the problem with one of them laid beforehand
(other pins may lie in it too: ``R9 J J J`` holds both jokers of ``K9 R9 J J``). The points of
the jokers kept in blocks are ``kept_joker_points``; ``others_best`` is a problem whose played
jokers may be worth those of jokers its search does not lay.

A run laid out of order is read as a bag (``R6 J R7``: the joker R5 or R8): legal where one
reading keeps a joker that stays (as R5), it counts at its best reading, which may read that
joker at the other end (``J B6 B7`` with ``B8 J``: ``B7 B6 B8 J J`` reads B6..B10, the played
joker worth 10). Without ``strict_order`` a run's pin, and a kept run's joker below its
numbered tiles, are therefore counted at ``bag_points`` (a brute force, session 62: 288
positions claimed a move such a bag beat).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from engine.solver.model import COLOUR_INDEX, LAST, MAX_GROUP, GroupBlock, Problem, RunBlock
from engine.tiles import COLORS, JOKER, MIN_NUMBER, Tile, parse_tile
from engine.tiles import numbered as numbered_tile


def ambiguous_sets(
    pin: Tile, run: bool, extra: int, available: Callable[[Tile], bool]
) -> list[tuple[tuple[Tile, ...], int]]:
    """The sets of one numbered tile and jokers that may hold the joker pinned as ``pin`` (in
    a run or a group) and read a joker higher than ``pin``'s number: with at most ``extra``
    more jokers (four tiles at most: beyond, they read as a run only) and a numbered tile for
    which ``available`` holds. A run's pin stands for its tile in the run reading, where
    every joker stands at its place (which the search sees): the group reading is the other,
    its jokers worth the tile's number (``J J O13``: 13 where the pin stood for O11). A
    group's pin stands for its tile in the group reading: the other is a run of the tile's
    colour, its jokers at their places (``B9 J J``: B11 where the pin stood for K9). Each
    set with the most its jokers read as there."""
    found: list[tuple[tuple[Tile, ...], int]] = []
    for more in range(1, min(extra, MAX_GROUP - 2) + 1):
        if run:
            assert pin.color is not None
            partners = [
                numbered_tile(pin.color, v) for v in range(MIN_NUMBER, LAST + 1) if 0 < abs(v - pin.number) <= more + 1
            ]
        else:
            partners = [numbered_tile(c, pin.number) for c in COLORS]
        for tile in partners:
            tiles = (tile, *(JOKER,) * (more + 1))  # (each partner and size once: no two alike)
            points = tile.number if run else highest_run_place(tile.number, len(tiles))
            if available(tile) and points > pin.number:
                found.append((tiles, points))
    return found


def highest_run_place(number: int, size: int) -> int:
    """The highest place of a run of ``size`` tiles holding ``number`` that is not ``number``'s
    (where one numbered tile's jokers stand at most)."""
    return min(LAST, number + size - 1) if number < LAST else LAST - 1


def without_set(
    problem: Problem, pins: Sequence[tuple[Tile, bool]], tiles: tuple[Tile, ...], rack_jokers: int
) -> tuple[Problem, int] | None:
    """``problem`` (a fate's, its pins laid as their tiles) with the set ``tiles`` laid
    beforehand, holding the jokers pinned as ``pins`` (tile, whether in a run), and the rack
    jokers the set takes (played, their tiles counted outside the search: ``uncounted``);
    None when the problem lacks its tiles. Its numbered tiles come from the table's first (a
    copy of the rack's is the same tile), its other jokers from the table's first."""
    required = [list(row) for row in problem.required]
    optional = [list(row) for row in problem.optional]
    laid_as = list(problem.jokers_laid_as)
    runs_needed = Counter({(c, v): n for c, v, n in problem.runs_needed})
    groups_needed = problem.groups_needed
    for pin, run in pins:
        colour, number = COLOUR_INDEX[pin.color], pin.number  # type: ignore[index]
        required[colour][number] -= 1  # the pin's place: the set lays the joker itself
        laid_as.remove((pin.key, run))
        if run:
            runs_needed[(colour, number)] -= 1
        else:
            groups_needed = tuple(g for g in groups_needed if g[0] != number)
    uncounted = problem.uncounted
    for t in tiles:
        if t.color is None:
            continue
        c = COLOUR_INDEX[t.color]
        if required[c][t.number] > 0:
            required[c][t.number] -= 1
        elif optional[c][t.number] > 0:
            optional[c][t.number] -= 1
            uncounted += problem.tile_weight + t.number * problem.value_weight
        else:
            return None
    others = sum(1 for t in tiles if t.color is None) - len(pins)
    from_table = min(others, problem.table_jokers)
    from_rack = others - from_table
    if from_rack > min(rack_jokers, problem.jokers - problem.jokers_required):
        return None
    laid = dataclasses.replace(
        problem,
        required=required,
        optional=optional,
        jokers=problem.jokers - others,
        jokers_required=problem.jokers_required - from_table,
        table_jokers=problem.table_jokers - from_table,
        uncounted=uncounted + from_rack * problem.tile_weight,
        runs_needed=tuple((c, v, n) for (c, v), n in sorted(runs_needed.items()) if n > 0),
        groups_needed=groups_needed,
        jokers_laid_as=tuple(laid_as),
    )
    return laid, from_rack


def others_best(problem: Problem, count: int, played_beside: int = 0) -> Problem:
    """``problem`` (the table's jokers in it scoring no points, ``Problem.unscored``) where
    ``count`` of the played jokers take the points of jokers its search does not lay (counted
    outside it: the table's that stay, a set laid beforehand) and the others their own: with
    ``played_beside`` rack jokers played beside the search (in that set), at least ``count -
    played_beside`` of the rack's are laid and as many of the lowest jokers laid score no
    points (when ``played_beside`` is more, fewer than the table's: some of the table's freed
    jokers score too). The tiles of the rack jokers it must lay count outside the search
    (``uncounted``), as the search takes every joker it must lay for the table's, at a point
    each unless some score none (``pass_problems.solve_pass``)."""
    more = max(0, count - played_beside)
    unscored = problem.table_jokers + count - played_beside
    out = dataclasses.replace(
        problem,
        jokers_required=problem.jokers_required + more,
        table_jokers=max(0, unscored),
        uncounted=problem.uncounted + more * problem.tile_weight,
    )
    if unscored <= 0 and out.jokers_required:
        out = dataclasses.replace(out, uncounted=out.uncounted + out.jokers_required * out.joker_weight)
    return out


def bag_points(problem: Problem, blocks: Mapping[int, RunBlock | GroupBlock]) -> Callable[[int, int], int]:
    """The most a run's joker standing at ``number`` of colour ``c`` (a pin, or a kept run's
    joker below its numbered tiles) may read when its run is laid as a bag (SPEC §2 step
    3, read at its best): ``number`` itself unless, in the reading keeping it there, it lies
    below two numbered tiles or more of its run and the run does not hold the last tile (a
    bag read at its best is the window of its ordered listing set as high as it goes: with
    the last tile it stays). Then its jokers below the numbered tiles move above the highest
    (``J B6 B7`` grown by B8 and a joker, laid ``B7 B6 B8 J J``: B6..B10, the pin B5 read as
    B10): the run's top, ``low - 1 + numbered + jokers`` (``low`` its lowest numbered tile),
    at most the last. The run climbs from ``number`` to ``low`` over jokers and on over the
    tiles of that colour the problem or a kept run holds, a joker in each gap, with at most
    the jokers that may lie in a run of that colour (the problem's, those laid as its tiles
    or in a group, the kept runs' of that colour)."""
    # the problem lays its pinned jokers (and those freed into a window) as their tiles:
    # jokers, not numbered tiles. A run of colour ``c`` may hold the problem's jokers, those
    # laid as tiles of ``c`` or in a group (laid as any missing colour), and the jokers of
    # the kept runs of ``c``; not the ones laid as runs' tiles of other colours, nor a kept
    # group's
    laid = [(parse_tile(key), run) for key, run in problem.jokers_laid_as]
    laid_as = Counter((COLOUR_INDEX[t.color], t.number) for t, _ in laid)  # type: ignore[index]
    in_runs = [0] * len(COLORS)
    for t, run in laid:
        if run:
            in_runs[COLOUR_INDEX[t.color]] += 1  # type: ignore[index]
    in_groups = sum(1 for _, run in laid if not run)
    kept = [0] * len(COLORS)
    held: list[set[int]] = [
        {v for v in range(MIN_NUMBER, LAST + 1) if problem.required[c][v] + problem.optional[c][v] > laid_as[(c, v)]}
        for c in range(len(COLORS))
    ]
    for block in blocks.values():
        if isinstance(block, RunBlock):
            held[block.colour] |= {t.number for t in block.tiles if t.color is not None}
            kept[block.colour] += sum(1 for t in block.tiles if t.color is None)
    # (the fate's pins are among those laid as tiles or the kept sets' jokers)

    def points(number: int, c: int) -> int:
        # the bag read at its best is the ordered run of its tiles set as high as it goes:
        # its top ``low - 1 + numbered + jokers`` (``low`` its lowest numbered tile), the
        # most any of its jokers reads. In the reading keeping the joker at ``number`` the
        # run climbs from ``number`` to ``low`` over jokers (the joker among them) and on
        # from ``low`` over held tiles and jokers in its gaps: a bag holds two numbered
        # tiles (one is read in order), so at least two held tiles on that climb
        best = number
        jokers = problem.jokers + in_runs[c] + in_groups + kept[c]
        for size in range(1, jokers + 1):  # the jokers in the set, the joker among them
            for low in range(number + 1, min(number + size, LAST) + 1):
                if low not in held[c]:
                    continue
                gaps, count, v = size - (low - number), 0, low
                while v < LAST:  # a bag holding the last tile reads as its own reading
                    if v in held[c]:
                        count += 1
                    elif gaps:
                        gaps -= 1
                    else:
                        break
                    v += 1
                if count >= 2:
                    best = max(best, min(LAST, low - 1 + count + size))
        return best

    return points


def kept_joker_points(block: RunBlock | GroupBlock, bag: Callable[[int, int], int] | None = None) -> tuple[int, ...]:
    """The most the jokers of a block (a table set kept, growing) read as after any move: a
    run's their places (it grows at its ends, in order), a group's its number, or, where it
    holds one numbered tile, the best of a run of four tiles too (``B9 J J``, taking a joker:
    B12; a numbered tile it takes makes it a group only). ``bag`` (no ``strict_order``,
    ``bag_points``): a run's jokers below its numbered tiles at its points, as the run laid
    as a bag may read them above (``J B6 B7`` grown by B8 and a joker, ``B7 B6 B8 J J``)."""
    jokers = sum(1 for t in block.tiles if t.color is None)
    if isinstance(block, RunBlock):
        low = next(place for place, t in enumerate(block.tiles) if t.color is not None)
        return tuple(
            bag(block.start + place, block.colour) if bag and place < low else block.start + place
            for place, t in enumerate(block.tiles)
            if t.color is None
        )
    one = len(block.tiles) - jokers == 1
    return (max(block.number, highest_run_place(block.number, MAX_GROUP)) if one else block.number,) * jokers


def raising_bags(
    problem: Problem, pin: Tile, others: Sequence[tuple[Tile, bool]], free: int, most: int
) -> list[tuple[tuple[Tile, ...], tuple[tuple[Tile, bool], ...], tuple[int, ...]]] | None:
    """The sets a run's joker pinned as ``pin`` may lie in as a bag reading it higher than
    its place (SPEC §2 step 3): two numbered tiles or more of its colour, all above it, from
    the tiles ``problem`` holds (not those it lays for pinned jokers), and jokers (some of
    the ``others`` pins of its colour, ``free`` others at most), so many that a reading
    keeps the pin (its window reaches from it past the highest numbered tile) and the
    highest does not (the window of ``n`` tiles climbs above it: ``number + n <= LAST``;
    with the pin between or above the numbered tiles every window holds its place). Each
    as its tiles listed as a bag (the numbered ones and the jokers, ``pin`` among them),
    the other pins in it, and its jokers' points in its best reading (the highest window
    holding the numbered tiles: no reading of those tiles reads its jokers higher). None
    beyond ``most`` of them."""
    assert pin.color is not None
    c, v = COLOUR_INDEX[pin.color], pin.number
    laid_as = Counter(parse_tile(key).key for key, _ in problem.jokers_laid_as)
    held = [
        w
        for w in range(v + 1, LAST + 1)
        if problem.required[c][w] + problem.optional[c][w] > laid_as[numbered_tile(pin.color, w).key]
    ]
    mates = [o for o in others if o[1] and o[0].color == pin.color]
    found: list[tuple[tuple[Tile, ...], tuple[tuple[Tile, bool], ...], tuple[int, ...]]] = []
    for size in range(3, LAST - v + 1):  # the set's tiles, ``v + size <= LAST``
        reach = [w for w in held if w <= v + size - 1]  # a window from ``v`` holds them
        for count in range(2, min(len(reach), size - 1) + 1):
            jokers = size - count  # the pin among them
            if jokers - 1 > free + len(mates):
                continue
            for numbers in itertools.combinations(reach, count):
                low = min(numbers[0], LAST - size + 1)
                points = tuple(sorted((w for w in range(low, low + size) if w not in numbers), reverse=True))
                tiles = _bag_listed([numbered_tile(pin.color, w) for w in numbers], jokers)
                for held_pins in range(max(0, jokers - 1 - free), min(jokers - 1, len(mates)) + 1):
                    for also in itertools.combinations(mates, held_pins):
                        found.append((tiles, also, points))
                        if len(found) > most:
                            return None
    return found


def _bag_listed(numbered: list[Tile], jokers: int) -> tuple[Tile, ...]:
    """``numbered`` (ascending, two or more of one colour) and ``jokers`` jokers, more than
    fill the gaps between them, listed neither ascending nor descending (read as a bag, SPEC
    §2 step 3: ``O7 J O8``, ``B6 B5 B7 J``)."""
    if len(numbered) == 2:
        return (numbered[0], *(JOKER,) * jokers, numbered[1])
    return (numbered[1], numbered[0], *numbered[2:], *(JOKER,) * jokers)

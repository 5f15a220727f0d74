"""Optimality proofs the bag bound had lost (session 62: a run pin counted at the most a bag
may read it, ``joker_value.bag_points``, with every joker free to raise it and to lie
elsewhere too), recovered by laying each bag that reads a pin higher beside the fates'
problem (``value_bound._bags_beside_settled``, ``joker_value.raising_bags``; helper proofs,
session 63). Each best score is the test suite's brute force's (tests/test_least_change.py:
every split of the tiles into sets, bags included, judged by ``verify_turn``)."""

from __future__ import annotations

import pytest

from engine.rules import resolve_rules
from engine.solver import exhaustive, suggest
from engine.solver.joker_value import raising_bags
from engine.solver.model import COLOUR_INDEX, Problem, empty_counts
from engine.tiles import parse_tile, parse_tiles
from engine.turns import verify_turn
from tests.test_least_change import brute_least_change

# (table, rack, the best (value, tiles played)): xp, opened, by value; session 62's main
# answered each best but claimed none, the position too large to be tried move by move
LOST = [
    # the pin B4 read B8 by `B6 B5 B7 J`, B10 by three jokers more: but those jokers are the
    # rack's, which then leave R6 R7 on the rack
    ([["B5", "B6", "B7", "J"], ["B2", "B3", "J"], ["B2", "K2", "O2"]], ["J", "J", "R7", "R3", "R6"], (30, 4)),
    (
        [["B9", "B10", "J"], ["R9", "R10", "R11", "R12"], ["J", "K9", "K10", "K11", "K12", "K13"]],
        ["O7", "J", "J", "O8"],
        (39, 4),
    ),
    # two pins R6: a bag of one takes the R7 R8 the other's bag would climb over
    ([["B5", "B6", "B7", "B8", "B9", "B10"], ["R4", "R5", "J"], ["J", "R7", "R8"]], ["B8", "J", "J", "R9"], (40, 4)),
    # the best move itself lays a bag (`O7 J O8`, the pin O6 read O9): found legal beside the
    # search, it raises the best found (34 in order) to 35
    ([["J", "O7", "O8", "O9", "O10", "O11"], ["R7", "K7", "B7", "J"]], ["J", "R6", "O8", "J"], (35, 4)),
]


@pytest.fixture
def without_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds alone: no position is settled by trying every move."""
    monkeypatch.setattr(exhaustive, "MOST_TILES", 0)


@pytest.mark.parametrize(("table", "rack", "best"), LOST)
def test_a_bag_laid_beside_the_search_proves_the_best(
    table: list[list[str]], rack: list[str], best: tuple[int, int], without_enumeration: None
) -> None:
    before = [parse_tiles(s) for s in table]
    hand = parse_tiles(rack)
    answer = suggest(before, hand, True, "xp", "value", 30.0)
    assert (answer.value, len(answer.played)) == best
    assert answer.optimal_proven
    assert verify_turn(before, [list(s) for s in answer.after], hand, True, "xp").valid


def test_the_product_proves_them_too() -> None:
    table, rack, best = LOST[0]
    answer = suggest([parse_tiles(s) for s in table], parse_tiles(rack), True, "xp", "value", 30.0)
    assert (answer.value, len(answer.played)) == best
    assert answer.optimal_proven


@pytest.mark.slow
@pytest.mark.parametrize(("table", "rack", "best"), LOST)
def test_the_best_scores_are_the_brute_forces(table: list[list[str]], rack: list[str], best: tuple[int, int]) -> None:
    score, _ = brute_least_change(
        [list(parse_tiles(s)) for s in table], list(parse_tiles(rack)), True, resolve_rules("xp"), "value"
    )
    assert score == best


def _problem(tiles: str, laid_as: tuple[tuple[str, bool], ...] = (), jokers: int = 2) -> Problem:
    required = empty_counts()
    for t in parse_tiles(tiles):
        required[COLOUR_INDEX[t.color]][t.number] += 1  # type: ignore[index]
    return Problem(required, empty_counts(), jokers, 0, jokers_laid_as=laid_as)


def test_raising_bags_hold_the_pin_below_two_numbered_tiles_or_more() -> None:
    b4 = parse_tile("B4")
    bags = raising_bags(_problem("B4 B5 B6 B7", (("B4", True),)), b4, [], 2, 100)
    assert bags is not None
    by_tiles = {tuple(t.key for t in tiles): points for tiles, _, points in bags}
    # `B6 B5 B7 J` reads B5..B8: the pin, kept as B4 in the other reading, worth 8
    assert by_tiles[("B6", "B5", "B7", "J")] == (8,)
    # two numbered tiles, listed with the jokers between them (never ascending or descending)
    assert by_tiles[("B5", "J", "J", "B6")] == (8, 7)
    assert by_tiles[("B6", "B5", "B7", "J", "J", "J")] == (10, 9, 8)
    assert by_tiles[("B5", "J", "B6")] == (7,)
    # another pin's placeholder (B6 for a joker) is no numbered tile of a bag
    pinned = raising_bags(_problem("B4 B5 B6", (("B4", True), ("B6", True))), b4, [(parse_tile("B6"), True)], 2, 100)
    assert pinned is not None and all(t.key != "B6" for tiles, _, _ in pinned for t in tiles)
    # no window above the pin: the highest reading keeps it
    assert raising_bags(_problem("B12 B13", ()), parse_tile("B11"), [], 2, 100) == []
    # beyond the most asked for: None
    assert raising_bags(_problem("B4 B5 B6 B7", (("B4", True),)), b4, [], 2, 3) is None

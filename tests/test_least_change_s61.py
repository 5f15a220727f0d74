"""Session 61, SL-3: on an opening the least-change programme counted a played joker at its own
place only, where ``suggest`` scores it as the best joker after the move, a table joker's too
(``intact.played_value``; jokers are interchangeable). With the table's joker worth more than
the played joker's place, the programme found no move scoring the best move's points (sabra,
``K10 K11 K12 J`` with ``K9 K10 K11 K12 K13 J``: two new sets answered, least change not
proven) or missed the one-set move and claimed the two-set move least (opening-50, ``J K12 K13``
with the same rack; strict_order, ``B11 O11 J R11`` with ``R9 R10 R11 R12 R13 J``)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.changes import changes
from engine.rules import PRESETS, SABRA, Rules
from engine.sets import TableSet
from engine.solver import suggest
from engine.solver.intact import played_value
from engine.tiles import Tile, parse_tiles
from engine.turns import verify_turn
from service.operations import run_operation
from tests.test_least_change import check_suggestion


def T(text: str) -> tuple[Tile, ...]:
    return parse_tiles(text)


STRICT_ORDER = dataclasses.replace(SABRA, strict_order=True)

CASES = [
    # (rules, table, rack, the one new set of the least change)
    (SABRA, ["K10 K11 K12 J"], "K9 K10 K11 K12 K13 J", "J=K8 K9 K10 K11 K12 K13"),
    (PRESETS["opening-50"], ["J K12 K13"], "K10 K11 J K9 K13 K12", "J=K8 K9 K10 K11 K12 K13"),
    (STRICT_ORDER, ["B11 O11 J R11"], "R9 R12 R11 R9 R10 R13 J", "J=R8 R9 R10 R11 R12 R13"),
    (PRESETS["classic-timed"], ["O9 O10 O11", "O13 B13 K13 J"], "O11 O9 J O13 O10 O12", "J=O8 O9 O10 O11 O12 O13"),
]


@pytest.mark.parametrize("objective", ["tiles", "value"])
@pytest.mark.parametrize(("rules", "table", "rack", "run"), CASES)
def test_a_played_joker_worth_a_table_jokers_points_on_an_opening(
    rules: Rules, table: list[str], rack: str, run: str, objective: str
) -> None:
    """The six-run scores as much as two new sets (its joker counted at the table joker's
    points) and lays one new set: the least change, proven."""
    before = [T(s) for s in table]
    result = suggest(before, T(rack), False, rules, objective)
    assert result.optimal_proven
    assert result.changes is not None
    assert result.changes.disturbance.as_tuple() == (0, 0, 1)
    assert result.least_change_proven
    assert [list(s) for s in result.after] == [*map(list, before), list(T(run))]
    assert verify_turn([TableSet(s) for s in before], [TableSet(s) for s in result.after], T(rack), False, rules).valid
    # (the two new sets' move scores as much: the answer keeps the best score)
    keys, value = played_value(before, result.after, rules, False)
    assert (sum(keys.values()), value) == (len(result.played), result.value)


def test_the_table_jokers_points_as_the_move_reads_them() -> None:
    """A table set's jokers at its best reading shared with itself (as it lies)."""
    from engine.solver.intact import opening_table_joker_points

    assert opening_table_joker_points([T("K10 K11 K12 J"), T("R1 R2 R3")], SABRA) == [13]
    assert opening_table_joker_points([T("J K12 K13")], SABRA) == [11]
    assert opening_table_joker_points([T("J O4 O5 J")], PRESETS["xp"]) == [3, 6]
    assert opening_table_joker_points([T("K5 O5 J")], SABRA) == [5]


def test_the_service_answers_one_new_set_proven() -> None:
    body = {
        "rules": "sabra",
        "table": [["K10", "K11", "K12", "J"]],
        "rack": ["K9", "K10", "K11", "K12", "K13", "J"],
        "opened": False,
        "objective": "value",
    }
    answer = run_operation("moves/suggest", body, "en")
    assert answer["value"] == 68 and len(answer["played"]) == 6
    assert answer["least_change_proven"] is True
    assert answer["changes"]["sets_new"] == 1
    assert answer["after"] == [["K10", "K11", "K12", "J"], ["J=K8", "K9", "K10", "K11", "K12", "K13"]]
    verdict = run_operation(
        "turns/verify",
        {"rules": "sabra", "before": body["table"], "after": answer["after"], "rack": body["rack"], "opened": False},
        "en",
    )
    assert verdict["valid"] is True


def _opening(rng: random.Random) -> tuple[list[list[Tile]], list[Tile]]:
    """A table run or group holding a joker, and a rack of a run of its colour around its
    numbers, a joker and a tile or two more."""
    colour = rng.choice("KBOR")
    low = rng.randint(7, 10)
    if rng.random() < 0.6:
        table_set = [f"{colour}{v}" for v in range(low, low + rng.randint(3, 4)) if v <= 13]
    else:
        table_set = [f"{c}{low + 2}" for c in rng.sample("KBOR", rng.randint(3, 4))]
    table_set[rng.randrange(len(table_set))] = "J"
    start = rng.randint(max(1, low - 2), low)
    rack = [f"{colour}{v}" for v in range(start, min(13, start + rng.randint(4, 5)) + 1)]
    rack += ["J", *(f"{rng.choice('KBOR')}{rng.randint(low, 13)}" for _ in range(rng.randint(0, 1)))]
    return [list(T(" ".join(table_set)))], list(T(" ".join(rack)))


@pytest.mark.parametrize("seed", range(3))
def test_openings_beside_a_table_joker_match_brute_force(seed: int) -> None:
    """Small openings with a joker on the table and one on the rack: the best score, and the
    least disturbance among the best moves, proven."""
    rng = random.Random(6100 + seed)
    for _ in range(8):
        before, rack = _opening(rng)
        rules = rng.choice([SABRA, PRESETS["xp"], PRESETS["opening-50"], STRICT_ORDER])
        objective = rng.choice(["tiles", "value"])
        try:
            check_suggestion(before, rack, False, rules, objective, exact=False)
        except ValueError:
            continue  # (more copies of a tile than the tile set has)
        result = suggest(before, rack, False, rules, objective)
        if result.played:
            assert result.least_change_proven, (before, rack)
        assert result.changes == changes(before, rack, result.after)

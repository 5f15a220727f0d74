"""Small positions settled by trying every move (engine.solver.exhaustive), against the test
suite's own brute force (tests/test_least_change.py: every split of the tiles into sets, its
run jokers declared at each place, judged by verify_turn)."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest

from engine.rules import PRESETS, Rules, resolve_rules
from engine.sets import TableSet
from engine.solver import best_move, exhaustive, suggest
from engine.solver.best_move import Suggester
from engine.solver.model import Suggestion
from engine.tiles import Tile, parse_tiles
from engine.turns import verify_turn
from tests.test_least_change import brute_least_change, playable, words

NAMES = ("sabra", "pressman-2009", "strict-joker", "free-joker", "opening-50", "xp")
SETTINGS = (
    ("freed_joker_use", "other_set"),
    ("group_joker_needs_both_colours", True),
    ("strict_order", True),
    ("joker_replacement_from", "rack"),
)


def settled(table: list[list[Tile]], rack: list[Tile], opened: bool, rules: Rules, objective: str) -> Suggestion | None:
    """``settle`` from nothing played (so every size of play is tried)."""
    tiles = [tuple(s) for s in table]
    solver = Suggester(tiles, [None] * len(tiles), tuple(rack), opened, rules, objective, time.perf_counter() + 60)
    nothing = Suggestion(tuple(tiles), (), 0, False, False)
    return exhaustive.settle(solver, nothing, "least_change", time.perf_counter() + 60)


@pytest.mark.parametrize("seed", range(4))
def test_every_move_tried_matches_the_brute_force(seed: int) -> None:
    rng = random.Random(4200 + seed)
    compared = 0
    for _ in range(25):
        table, rack = playable(rng, (5, 10), 3, 3)
        if sum(map(len, table)) + len(rack) > exhaustive.MOST_TILES:
            continue
        rules = PRESETS[rng.choice(NAMES)]
        if rng.random() < 0.4:
            setting, value = rng.choice(SETTINGS)
            rules = dataclasses.replace(rules, **{setting: value})
        opened = rng.random() < 0.85
        objective = rng.choice(["tiles", "tiles", "value"])
        found = settled(table, rack, opened, rules, objective)
        if found is None:  # past its steps
            continue
        compared += 1
        score, least = brute_least_change(table, rack, opened, rules, objective)
        mine = (len(found.played), found.value) if objective == "tiles" else (found.value, len(found.played))
        assert mine == score, (words(table), rack, words(found.after))
        assert found.optimal_proven and found.least_change_proven
        if found.played:
            assert found.changes is not None and found.changes.disturbance.as_tuple() == least
    assert compared >= 15


def test_a_table_joker_declared_is_laid_anew_anywhere() -> None:
    """``J=O7`` replaced by O7 goes to O8 beside O9: 3 tiles. Kept declared, it could stand
    only for O7, and the enumeration found 1 tile and called it the best (caught by the
    brute-force differential before it landed)."""
    found = settled([list(parse_tiles("O5 O6 J=O7"))], list(parse_tiles("O9 O7 O4")), True, PRESETS["sabra"], "tiles")
    assert found is not None and (len(found.played), found.optimal_proven) == (3, True), words(found.after)


@pytest.mark.parametrize(
    ("rules", "table", "rack", "played"),
    [
        # a session-42 audit's hand-made positions the solver's passes did not prove
        ("pressman-2009", ["R4 J R6", "B4 J B6"], "R5 B5 K13", 0),
        ("pressman-2009", ["R7 R8 J"], "R9 R10 K1", 1),
        ("strict-joker", ["R5 R6 J", "R7 B7 O7 J"], "K1 K2", 0),
        ("other_set", ["R4 J R6"], "R5", 0),
        ("other_set", ["R4 J R6 R7 R8"], "R5 K1", 0),
        ("other_set", ["R4 R5 R6 J"], "R7 R8", 1),
    ],
)
def test_small_positions_the_passes_do_not_prove_are_proven(
    rules: str, table: list[str], rack: str, played: int
) -> None:
    setting = (
        dataclasses.replace(PRESETS["sabra"], freed_joker_use="other_set") if rules == "other_set" else PRESETS[rules]
    )
    before = [list(parse_tiles(s)) for s in table]
    result = suggest(before, list(parse_tiles(rack)), True, setting, "tiles", budget_seconds=30)
    assert (len(result.played), result.optimal_proven, result.least_change_proven) == (played, True, True)
    assert brute_least_change(before, list(parse_tiles(rack)), True, setting, "tiles")[0][0] == played


def test_an_enumeration_out_of_time_says_the_budget_ran_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move left unproven because the enumeration that could prove it met the deadline is
    ``budget_exhausted`` (it said the budget held: a brute-force audit on a loaded machine)."""

    def out_of_time(solver: Suggester, move: Suggestion, tie_break: str, deadline: float) -> None:
        while time.perf_counter() < deadline:
            time.sleep(0.001)

    monkeypatch.setattr(exhaustive, "settle", out_of_time)
    rules = dataclasses.replace(PRESETS["pressman-2009"], freed_joker_use="other_set")
    before = [list(parse_tiles("R3 R4 J R6")), list(parse_tiles("B3 K3 J"))]
    result = suggest(before, list(parse_tiles("R5 R5 K4")), True, rules, "tiles", budget_seconds=2)
    assert not result.optimal_proven and result.budget_exhausted


def test_a_value_answer_whose_tiles_passes_ran_out_of_time_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``objective: value`` an unproven answer is compared with the most tiles' move;
    when those passes take the rest of the budget, the answer is ``budget_exhausted`` (it said
    the budget held: the re-check of session 48, xp + new_set_with_two_rack_tiles)."""
    original = best_move.Suggester.run

    def run(self: Suggester) -> Suggestion:
        move = original(self)
        if self.by_tiles:  # (the value passes' comparison) takes the whole budget
            while time.perf_counter() < self.deadline:
                time.sleep(0.001)
            return dataclasses.replace(move, value=0, optimal_proven=False)
        return dataclasses.replace(move, optimal_proven=False)

    monkeypatch.setattr(best_move.Suggester, "run", run)
    before = [list(parse_tiles("R1 R2 R3"))]
    result = suggest(before, list(parse_tiles("R4 K9")), True, PRESETS["sabra"], "value", budget_seconds=0.3)
    assert not result.optimal_proven and result.budget_exhausted


def test_an_answer_not_proven_best_claims_no_least_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """The least change is among the best moves: the passes' 3 tiles (the enumeration, here
    left out, finds the 4 of K2 J=K3 K4 K5 K6) said ``least_change_proven`` (a brute-force
    audit, session 48)."""
    monkeypatch.setattr(exhaustive, "settle", lambda *args: None)
    rules = resolve_rules({"preset": "free-joker", "freed_joker_use": "new_set_with_two_rack_tiles"})
    before = [list(parse_tiles("O2 R2 B2 J")), list(parse_tiles("B12 R12 O12 K12"))]
    result = suggest(before, list(parse_tiles("K2 K4 K5 K6 K13")), True, rules, "tiles", budget_seconds=5)
    assert (len(result.played), result.optimal_proven, result.least_change_proven) == (3, False, False)
    monkeypatch.undo()
    result = suggest(before, list(parse_tiles("K2 K4 K5 K6 K13")), True, rules, "tiles", budget_seconds=5)
    assert (len(result.played), result.optimal_proven, result.least_change_proven) == (4, True, True)


def test_past_its_steps_nothing_is_settled() -> None:
    """A run of twelve and four jokers (xp) splits too many ways: the solver's answer stands.
    (A run of nine and three jokers did until session 48; bags are now only runs and groups.)"""
    table, rack = [list(parse_tiles("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12"))], list(parse_tiles("J J J J"))
    assert settled(table, rack, True, PRESETS["xp"], "tiles") is None
    table, rack = [list(parse_tiles("R3 R4 R5 R6 R7 R8 R9 R10 R11"))], list(parse_tiles("J J J"))
    found = settled(table, rack, True, PRESETS["xp"], "tiles")
    assert found is not None and (len(found.played), found.optimal_proven) == (3, True)


def test_bags_are_runs_and_groups_each_once() -> None:
    first, rest = parse_tiles("R5")[0], list(parse_tiles("R6 R6 R7 B5 K5 O5 R9 J J K9"))
    bags = [tuple(str(rest[i]) for i in mates) for mates in exhaustive._bag_mates(first, rest)]
    assert len(bags) == len(set(bags))
    assert ("B5", "K5") in bags and ("B5", "K5", "O5") in bags and ("J", "J") in bags
    assert ("R6", "R7") in bags and ("R6", "R7", "R9", "J") in bags and ("R7", "R9", "J", "J") in bags
    assert ("R6", "R6") not in bags and ("B5", "R6") not in bags and ("R9", "J") not in bags  # (R5 J R9: a gap)
    assert not list(exhaustive._bag_mates(parse_tiles("J")[0], list(parse_tiles("J J"))))


def test_larger_positions_are_left_to_the_passes() -> None:
    table = [list(parse_tiles(s)) for s in ("R1 R2 R3 R4 R5 R6 R7", "K1 B1 O1", "B9 B10 B11 B12", "O5 O6 O7 O8")]
    assert settled(table, list(parse_tiles("K2 K3 K4")), True, PRESETS["sabra"], "tiles") is None  # 21 tiles
    assert settled(table[:3], list(parse_tiles("K2 K3 K4")), True, PRESETS["sabra"], "tiles") is not None  # 17


@pytest.mark.parametrize(
    ("rules", "table", "rack", "opened", "objective", "played", "value"),
    [
        # a brute-force audit's positions (session 48) the passes left unproven, most with a
        # tile or a set more than a position they prove; 13 to 15 tiles were beyond the
        # enumeration (at most 12), and 12-tile ones ran past its steps trying bags of tiles
        # that share neither number nor colour with the first tile
        (
            {"preset": "strict-joker", "freed_joker_use": "other_set"},
            ["J R7 R8 J", "O6 O7 O8 O9"],
            "R6 R9 K4 K5 O5 R7",
            True,
            "tiles",
            5,
            29,
        ),
        (
            {"preset": "xp", "joker_release": "free", "freed_joker_use": "new_set_with_two_rack_tiles"},
            ["O1 K1 B1 J", "J R3 R4", "R5 K5 J"],
            "R1 R2 R5 R5 K6",
            True,
            "tiles",
            4,
            13,
        ),
        ("sabra", ["O5 K5 J J", "B2 B3 B4"], "B6 R3 O2 B5 K5", True, "tiles", 2, 11),
        (
            {"preset": "free-joker", "freed_joker_use": "new_set_with_two_rack_tiles"},
            ["O2 R2 B2 J", "B12 R12 O12 K12"],
            "K2 K4 K5 K6 K13",
            True,
            "tiles",
            4,
            17,
        ),
        (
            {"preset": "sabra", "manipulate_on_opening_turn": True},
            ["O11 J J", "K6 K7 K8 K9"],
            "K11 R11 R12 R13 O10",
            False,
            "value",
            4,
            47,
        ),
        (
            {"preset": "free-joker", "freed_joker_use": "new_set_with_two_rack_tiles"},
            ["O4 J O6", "B1 R1 K1 O1"],
            "O5 O7 O8 K2 B1",
            True,
            "value",
            3,
            20,
        ),
        (
            {"preset": "strict-joker", "freed_joker_use": "other_set"},
            ["O7 O8 O9 O10", "K6 J J K9", "O11 K11 R11"],
            "K7 K11",
            True,
            "tiles",
            1,
            7,
        ),
        (
            {"preset": "opening-50", "freed_joker_use": "new_set_with_two_rack_tiles"},
            ["J K9 K10 J K12", "K7 B7 R7", "K10 R10 O10"],
            "K7 K8 R8 K8 O12 K9",
            True,
            "tiles",
            5,
            40,
        ),
        (
            {
                "preset": "free-joker",
                "group_joker_needs_both_colours": True,
                "freed_joker_use": "new_set_with_two_rack_tiles",
            },
            ["R7 K7 B7 J", "B7 B8 B9"],
            "B8 R8 O7 K9 O7 O9",
            True,
            "tiles",
            3,
            25,
        ),
    ],
)
def test_positions_of_up_to_16_tiles_the_passes_leave_open_are_proven(
    rules: object, table: list[str], rack: str, opened: bool, objective: str, played: int, value: int
) -> None:
    before = [list(parse_tiles(s)) for s in table]
    result = suggest(before, list(parse_tiles(rack)), opened, resolve_rules(rules), objective, budget_seconds=30)
    assert (len(result.played), result.value, result.optimal_proven, result.least_change_proven) == (
        played,
        value,
        True,
        True,
    )
    after = [TableSet(tiles) for tiles in result.after]
    assert verify_turn([TableSet(tiles) for tiles in before], after, parse_tiles(rack), opened, rules).valid


def test_a_table_set_stays_as_it_lay_between_moves_as_good() -> None:
    """The enumeration met ``J O11 J`` laid as ``J J O11`` before the set as it lay, and
    answered the relaid one: the same move, a table the player must rearrange for nothing."""
    table = [list(parse_tiles("J O11 J")), list(parse_tiles("K9 K10 K8"))]
    result = suggest(table, list(parse_tiles("K10 J K11")), False, PRESETS["xp"], "value", budget_seconds=30)
    assert result.optimal_proven and len(result.played) == 3
    laid = [tuple(map(str, s)) for s in result.after]
    assert all(tuple(map(str, s)) in laid for s in table), laid


@pytest.mark.parametrize("tie_break", ["any", "least_change"])
@pytest.mark.parametrize("played", [True, False])
def test_an_answer_the_enumeration_proves_says_the_budget_held(
    monkeypatch: pytest.MonkeyPatch, tie_break: str, played: bool
) -> None:
    """The passes ran out of time (``budget_exhausted``), then the enumeration, within the
    deadline, proved their move best: the answer is proven and the budget held for it. It
    said ``optimal_proven`` and ``budget_exhausted`` both (free-joker, ``R5 J R7`` with
    ``J K8 B7`` under a 20 ms budget, tie break any; a brute-force audit, session 52)."""
    original = best_move.Suggester.run

    def run(self: Suggester) -> Suggestion:
        move = original(self)
        self.exhausted = True
        return dataclasses.replace(move, optimal_proven=False, budget_exhausted=True)

    monkeypatch.setattr(best_move.Suggester, "run", run)
    table, rack = ("R5 J R7", "J K8 B7") if played else ("R5 R6 R7", "K1 B9")
    result = suggest(
        [list(parse_tiles(table))], list(parse_tiles(rack)), True, PRESETS["free-joker"], "tiles", 30, tie_break
    )
    assert (len(result.played), result.optimal_proven, result.budget_exhausted) == (int(played), True, False)

"""Initial meld checks and scoring (SPEC §5, RULES.md §8)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from engine.errors import InputError
from engine.rules import PRESETS, resolve_rules
from engine.scoring import MatchRound, PlayerRack, ScoringError, rack_value, score_match, score_round
from engine.tiles import parse_tiles
from engine.validate import check_meld, validate_sets


def sets(*texts: str) -> list[tuple]:  # type: ignore[type-arg]
    return [parse_tiles(t) for t in texts]


def players(**racks: str) -> list[PlayerRack]:
    return [PlayerRack(name, parse_tiles(rack)) for name, rack in racks.items()]


def scores(result) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {s["name"]: s["score"] for s in result.to_json()["scores"]}


# --- melds -------------------------------------------------------------------------------


def test_meld_without_sets_is_too_low() -> None:
    verdict = check_meld([])
    assert verdict.value == 0 and [v.code for v in verdict.violations] == ["INITIAL_MELD_TOO_LOW"]
    # SPEC §7 "no sets: value 0, INITIAL_MELD_TOO_LOW", whatever the threshold
    free = check_meld([], rules=resolve_rules({"initial_meld_min": 0}))
    assert [v.code for v in free.violations] == ["INITIAL_MELD_TOO_LOW"] and free.threshold == 0
    assert check_meld(sets("R1 R2 R3"), rules=resolve_rules({"initial_meld_min": 0})).valid
    # only invalid sets lay nothing either, as turns/verify judges that opening (sets audit, s46)
    invalid = check_meld(sets("K10 K11"), rules=resolve_rules({"initial_meld_min": 0}))
    assert [v.code for v in invalid.violations] == ["INVALID_SET", "INITIAL_MELD_TOO_LOW"]
    assert invalid.violations[1].params.get("case") == "no_set"
    assert invalid.violations[1].message().startswith("No valid set is laid from the rack, so nothing opens")
    assert free.violations[0].message().startswith("Nothing is laid")
    # a rack holding one R5 while two are laid: one copy beyond the rack (not "not on the rack")
    extra = check_meld(sets("R5 R6 R7", "R5 B5 O5"), parse_tiles("R5 R6 R7 B5 O5"))
    assert [v.message() for v in extra.violations] == ["1 copy of tile R5 is played beyond those on the player's rack."]


def test_meld_sums_best_readings_and_reports_pointers() -> None:
    verdict = check_meld(sets("R5 J J", "K1 K2"), rules=PRESETS["sabra"])
    assert verdict.value == 18
    assert [(v.code, v.at, v.set_code) for v in verdict.violations] == [
        ("INVALID_SET", "/sets/1", "SET_TOO_SHORT"),
        ("INITIAL_MELD_TOO_LOW", "/sets", None),
    ]


def test_meld_rack_check_counts_copies() -> None:
    verdict = check_meld(sets("R10 R11 R12", "K10 B10 R10"), parse_tiles("R10 R11 R12 K10 B10"))
    assert [(v.code, v.at, v.params["tile"]) for v in verdict.violations] == [("TILE_NOT_IN_RACK", "/sets/1", "R10")]
    assert check_meld(sets("R10 R11 J"), parse_tiles("R10 R11 J")).valid


def test_meld_tile_supply() -> None:
    verdict = check_meld(sets("R10 R11 R12", "R10 R11 R12", "R10 B10 K10"))
    assert "TILE_SUPPLY_EXCEEDED" in [v.code for v in verdict.violations]
    assert check_meld(sets("R10 R11 R12", "R10 R11 R12", "R10 B10 K10"), rules=PRESETS["xp"]).valid


def test_meld_rack_beyond_the_tile_supply() -> None:
    # SPEC §2: "A request holding more copies of a tile (or more jokers) than the tile set has
    # gets TILE_SUPPLY_EXCEEDED"; a rack of three R5 (or three jokers) is no classic rack
    for rack in ("R5 R5 R5 R6 R7", "R5 R6 R7 J J J"):
        verdict = check_meld(sets("R5 R6 R7", "K10 K11 K12"), parse_tiles(rack + " K10 K11 K12"))
        assert [(v.code, v.at) for v in verdict.violations] == [("TILE_SUPPLY_EXCEEDED", "/rack")]
    assert check_meld(sets("R5 R6 R7", "K10 K11 K12"), parse_tiles("R5 R5 R5 R6 R7 K10 K11 K12"), PRESETS["xp"]).valid


def test_validate_sets_supply_on_the_set_where_excess_appears() -> None:
    verdict = validate_sets(sets("R5 R6 R7", "R5 B5 K5", "R5 O5 K5")).to_json()
    assert [s["valid"] for s in verdict["sets"]] == [True, True, False]
    assert verdict["sets"][2]["violations"][0]["code"] == "TILE_SUPPLY_EXCEEDED"
    assert verdict["sets"][2]["violations"][0]["at"] == "/sets/2"
    jokers = validate_sets(sets("R5 J J", "K5 J B5")).to_json()
    assert jokers["sets"][1]["violations"][0]["code"] == "TILE_SUPPLY_EXCEEDED"


def test_spanish_messages() -> None:
    verdict = check_meld(sets("R1 R2 R3"))
    assert "se necesitan al menos 30" in verdict.violations[0].message("es")
    assert "at least 30" in verdict.violations[0].message("en")


# --- rounds ------------------------------------------------------------------------------


def test_rack_value_counts_jokers_by_rule() -> None:
    rack = parse_tiles("R5 B5 J")
    assert rack_value(rack) == 40
    assert rack_value(rack, PRESETS["komoni"]) == 35


def test_worked_example_1() -> None:
    result = score_round(players(A="", B="R5 B5 J", C="K12 K13", D="O1"))
    assert scores(result) == {"A": 66, "B": -40, "C": -25, "D": -1}
    assert result.winner == "A" and result.ended_by == "rack_empty"
    joker25 = score_round(players(A="", B="R5 B5 J", C="K12 K13", D="O1"), resolve_rules({"joker_penalty": 25}))
    assert scores(joker25) == {"A": 61, "B": -35, "C": -25, "D": -1}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("subtract_lowest", {"A": -7, "B": 32, "C": -14, "D": -11}),
        ("plain", {"A": -15, "B": 56, "C": -22, "D": -19}),
        ("all_negative", {"A": -15, "B": -8, "C": -22, "D": -19}),
    ],
)
def test_worked_example_2(mode: str, expected: dict[str, int]) -> None:
    result = score_round(
        players(A="K10 B5", B="R8", C="O9 O13", D="K6 B13"), resolve_rules({"pool_exhausted_scoring": mode})
    )
    assert scores(result) == expected
    assert result.winner == "B" and result.ended_by == "pool_exhausted"


def test_worked_example_3() -> None:
    result = score_round(players(A="", B="R10", C="K7", D="O8"))
    assert scores(result) == {"A": 25, "B": -10, "C": -7, "D": -8}


def test_worked_example_4_match() -> None:
    rounds = [
        MatchRound(tuple(players(A="", B="R5", C="K7 K9", D="O3"))),
        MatchRound(tuple(players(A="R6", B="K11", C="", D="B5"))),
        MatchRound(tuple(players(A="R10 K10 O12", B="B13", C="O2", D=""))),
    ]
    result = score_match(rounds).to_json()
    assert {t["name"]: t["total"] for t in result["totals"]} == {"A": -14, "B": -29, "C": 4, "D": 39}
    assert [[s["score"] for s in r["scores"]] for r in result["rounds"]] == [
        [24, -5, -16, -3],
        [-6, -11, 22, -5],
        [-32, -13, -2, 47],
    ]
    assert result["winner"] == "D" and result["standings"] == ["D", "C", "A", "B"]


def test_tie_for_lowest_splits_the_win() -> None:
    result = score_round(players(A="R5", B="K5", C="O9 O13"))
    assert result.winner is None and result.winners == ("A", "B")
    assert scores(result) == {"A": 8.5, "B": 8.5, "C": -17}
    plain = score_round(players(A="R5", B="K5", C="O9 O13"), resolve_rules({"pool_exhausted_scoring": "plain"}))
    assert scores(plain) == {"A": 11, "B": 11, "C": -22}  # losses 5 + 5 + 22... winners split the losers' 22
    assert sum(s.score for s in plain.scores) == 0


def test_penalty_only() -> None:
    komoni = PRESETS["komoni"]
    result = score_round(players(A="", B="R5 B5 J", C="K12 K13"), komoni)
    assert scores(result) == {"A": 0, "B": 35, "C": 25}
    exhausted = score_round(players(A="K10 B5", B="R8", C="O9 O13"), komoni)
    assert scores(exhausted) == {"A": 15, "B": 0, "C": 22}  # own rack values, not own - lowest
    assert exhausted.winner == "B" and exhausted.ended_by == "pool_exhausted"
    match = score_match(
        [MatchRound(tuple(players(A="", B="R5", C="K1"))), MatchRound(tuple(players(A="R9", B="", C="K1")))], komoni
    )
    assert match.standings == ("C", "B", "A") and match.winner == "C"


@pytest.mark.parametrize("mode", ["subtract_lowest", "plain", "all_negative"])
def test_penalty_only_pool_exhausted_ignores_the_zero_sum_modes(mode: str) -> None:
    rules = resolve_rules({"preset": "komoni", "pool_exhausted_scoring": mode})
    result = score_round(players(A="K10 B5", B="R8", C="O9 J"), rules)
    assert scores(result) == {"A": 15, "B": 0, "C": 34}  # joker 25 under komoni


def test_penalty_only_tie_for_lowest_all_score_zero() -> None:
    result = score_round(players(A="R5", B="K5", C="O9 O13", D="B1 B2 B3"), PRESETS["komoni"])
    assert result.winner is None and result.winners == ("A", "B")
    assert scores(result) == {"A": 0, "B": 0, "C": 22, "D": 6}


def test_penalty_only_match_over_exhausted_rounds() -> None:
    komoni = PRESETS["komoni"]
    match = score_match(
        [
            MatchRound(tuple(players(A="R9", B="R2", C="K1"))),  # C wins with 0; A 9, B 2
            MatchRound(tuple(players(A="", B="R5 J", C="K13"))),  # A goes out; B 30, C 13
        ],
        komoni,
    )
    assert dict(match.totals) == {"A": 9, "B": 32, "C": 13}
    assert match.standings == ("A", "C", "B") and match.winner == "A"


@pytest.mark.parametrize(
    ("racks", "rules", "pointer", "detail"),
    [
        ({"A": "R1 R1", "B": "K2 R1"}, "sabra", "/players/1/rack/1", "only 2 of tile R1"),
        ({"A": "J K1", "B": "J O5 J"}, "sabra", "/players/1/rack/2", "only 2 jokers"),
        ({"A": "R1 R1 R1 R1", "B": "K2"}, "xp", "/players/0/rack/3", "xp tile set has only 3 of tile R1"),
        ({"A": "J J J J J", "B": "K2"}, "xp", "/players/0/rack/4", "only 4 jokers"),
    ],
)
def test_racks_beyond_the_tile_supply_cannot_be_scored(
    racks: dict[str, str], rules: str, pointer: str, detail: str
) -> None:
    with pytest.raises(InputError) as info:
        score_round(players(**racks), resolve_rules(rules))
    assert info.value.pointer == pointer and detail in info.value.message


def test_racks_at_the_tile_supply_are_scored() -> None:
    assert score_round(players(A="R1 R1 J", B="J K5"), resolve_rules("sabra")).winner == "A"
    assert score_round(players(A="R1 R1 R1 J J J J", B=""), resolve_rules("xp")).winner == "B"


def test_a_match_round_beyond_the_supply_points_into_its_round() -> None:
    fine = MatchRound(tuple(players(A="R1 R1", B="")))
    xp_round = MatchRound(tuple(players(A="R1 R1 R1", B="")), rules=resolve_rules("xp"))
    assert score_match([fine, xp_round]).winners == ("B",)  # each round is its own deal
    too_many = MatchRound(tuple(players(A="R1 R1", B="R1")))
    with pytest.raises(InputError) as info:
        score_match([fine, too_many])
    assert info.value.pointer == "/rounds/1/players/1/rack/0"


def test_zero_sum_rounds_sum_to_zero() -> None:
    result = score_round(players(A="R1 R2", B="J", C="K13 B13 O13", D="R7"))
    assert sum(s.score for s in result.scores) == Fraction(0)


@pytest.mark.parametrize(
    ("kwargs", "winner", "pointer"),
    [
        ({"A": "", "B": "", "C": "R1"}, None, "/players/1/rack"),
        ({"A": "", "B": "R1"}, "B", "/winner"),
        ({"A": "", "B": "R1"}, "Z", "/winner"),
        ({"A": "R1"}, None, "/players"),
        ({"A": "R1", "B": "R2", "C": "R3", "D": "R4", "E": "R5"}, None, "/players"),
    ],
)
def test_rounds_that_cannot_be_scored(kwargs: dict[str, str], winner: str | None, pointer: str) -> None:
    with pytest.raises(ScoringError) as info:
        score_round(players(**kwargs), winner=winner)
    assert info.value.pointer == pointer


def test_a_match_is_ranked_the_way_its_rounds_are_scored() -> None:
    """Rounds carrying their own rules rank the match their way (the scoring oracle, session
    36: two komoni rounds in a match without rules named the highest penalty total winner);
    rounds scored both ways cannot be added up."""
    komoni = PRESETS["komoni"]
    rounds = [
        MatchRound(tuple(players(A="", B="R5")), rules=komoni),
        MatchRound(tuple(players(A="R9", B="")), rules=komoni),
    ]
    match = score_match(rounds)
    assert dict(match.totals) == {"A": 9, "B": 5}
    assert match.standings == ("B", "A") and match.winner == "B"
    sabra = PRESETS["sabra"]
    zero_sum = score_match([dataclasses.replace(r, rules=sabra) for r in rounds], komoni)
    assert dict(zero_sum.totals) == {"A": -4, "B": 4} and zero_sum.winner == "B"
    with pytest.raises(ScoringError) as mixed:
        score_match([rounds[0], dataclasses.replace(rounds[1], rules=None)])
    assert mixed.value.pointer == "/rounds/1"
    with pytest.raises(ScoringError) as mixed:
        score_match([dataclasses.replace(rounds[0], rules=None), rounds[1]])
    assert mixed.value.pointer == "/rounds/1/rules"


def test_one_player_is_worded_in_the_singular() -> None:
    with pytest.raises(ScoringError, match=r"^1 player cannot play under the sabra rules \(allowed: 2, 3, 4\)$"):
        score_round(players(A="R1"))


def test_duplicate_names_and_empty_match() -> None:
    with pytest.raises(ScoringError):
        score_round([PlayerRack("A", ()), PlayerRack("A", parse_tiles("R1"))])
    with pytest.raises(ScoringError):
        score_match([])


def test_winner_consistent_with_racks_is_accepted() -> None:
    assert score_round(players(A="", B="R1"), winner="A").winner == "A"
    assert score_round(players(A="R5", B="K5", C="R9"), winner="B").winners == ("A", "B")

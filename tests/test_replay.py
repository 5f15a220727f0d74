"""Replaying hand-written game records (SPEC §6)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import InputError
from engine.replay import parse_game_record, replay_game
from engine.rules import SABRA

A_RACK = ["R1", "R2", "R3", "K10", "B10", "O10", "R11", "R12", "R13", "B1", "B2", "B3", "B4", "J"]
B_RACK = ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9", "O1", "O2", "O3", "O4", "O5"]


def record(turns: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"players": [{"name": "A", "rack": A_RACK}, {"name": "B", "rack": B_RACK}], "turns": turns}
    doc.update(extra)
    return doc


def replay(doc: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    return replay_game(parse_game_record(doc), **kwargs).to_json()


OPEN_A = {"player": "A", "table": [["K10", "B10", "O10"]]}
OPEN_B = {"player": "B", "table": [["K10", "B10", "O10"], ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9"]]}


def test_clean_partial_game_has_no_result() -> None:
    out = replay(
        record(
            [
                OPEN_A,
                {"player": "B", "draw": "R7"},
                {"player": "A", "table": [["K10", "B10", "O10"], ["R11", "R12", "R13"]]},
            ]
        )
    )
    assert out["valid"] and out["first_invalid_turn"] is None and out["result"] is None
    assert [t["action"] for t in out["turns"]] == ["play", "draw", "play"]
    assert out["turns"][0]["initial_meld"] == {"value": 30}


def test_wrong_player_and_unknown_player() -> None:
    out = replay(record([{"player": "B", "draw": "R7"}]))
    assert out["first_invalid_turn"] == 0
    assert out["turns"][0]["violations"][0]["code"] == "WRONG_PLAYER"
    assert out["turns"][0]["violations"][0]["at"] == "/turns/0/player"
    assert replay(record([{"player": "Z", "draw": "R7"}]))["turns"][0]["violations"][0]["code"] == "UNKNOWN_PLAYER"


def test_illegal_play_points_into_the_record() -> None:
    out = replay(record([{"player": "A", "table": [["K10", "B10"]]}]))
    assert out["first_invalid_turn"] == 0 and not out["valid"]
    codes = {(v["code"], v["at"]) for v in out["turns"][0]["violations"]}
    assert ("INVALID_SET", "/turns/0/table/0") in codes


def test_stops_at_first_illegal_turn_unless_continuing() -> None:
    turns = [{"player": "A", "table": [["R1", "R2", "R3"]]}, {"player": "B", "draw": "R7"}, OPEN_A]
    stopped = replay(record(turns))
    assert len(stopped["turns"]) == 1 and stopped["first_invalid_turn"] == 0
    # continuing: A's three penalty draws follow as draw entries, then the game goes on
    penalty = [{"player": "A", "draw": t} for t in ("O13", "O12", "O11")]
    turns = [{"player": "A", "table": [["R1", "R2", "R3"]]}, *penalty, {"player": "B", "draw": "R7"}, OPEN_A]
    going_on = replay(record(turns), continue_on_error=True)
    assert going_on["first_invalid_turn"] == 0
    assert [t["action"] for t in going_on["turns"]] == [
        "play",
        "penalty_draw",
        "penalty_draw",
        "penalty_draw",
        "draw",
        "play",
    ]
    assert all(t["valid"] for t in going_on["turns"][1:])


def test_draws_follow_the_pool() -> None:
    used = set(A_RACK) | set(B_RACK)
    pool = [t for t in ["R7", "R8", "O13"] if t not in used]
    ok = replay(record([{"player": "A", "draw": "R7"}, {"player": "B", "draw": "R8"}], pool=pool))
    assert ok["valid"]
    wrong = replay(record([{"player": "A", "draw": "R8"}], pool=pool))
    assert wrong["turns"][0]["violations"][0]["code"] == "DRAW_MISMATCH"
    # a table turn that plays nothing draws the next pool tile
    implicit = replay(record([{"player": "A", "table": []}, {"player": "B", "draw": "R8"}], pool=pool))
    assert implicit["valid"] and implicit["turns"][0]["action"] == "draw" and implicit["turns"][0]["tile"] == "R7"


def test_pool_exhausted_passes_end_the_round() -> None:
    turns = [{"player": "A", "draw": "R7"}, {"player": "B", "table": []}, {"player": "A", "table": []}]
    out = replay(record(turns, pool=["R7"]))
    assert [t["action"] for t in out["turns"]] == ["draw", "pass", "pass"]
    assert out["valid"] and out["result"]["ended_by"] == "pool_exhausted"
    empty = replay(record([{"player": "A", "draw": "R7"}, {"player": "B", "draw": "R8"}], pool=["R7"]))
    assert empty["turns"][1]["violations"][0]["code"] == "POOL_EMPTY"
    late = replay(record([*turns, {"player": "B", "draw": "R8"}], pool=["R7"]))
    assert late["turns"][3]["violations"][0]["code"] == "GAME_OVER"


def test_end_claim_needs_an_empty_pool() -> None:
    out = replay(record([{"player": "A", "draw": "R7"}], end="pool_exhausted"))
    assert not out["valid"] and out["violations"][0]["code"] == "POOL_NOT_EXHAUSTED"
    done = replay(record([{"player": "A", "draw": "R7"}], pool=["R7"], end="pool_exhausted"))
    assert done["valid"] and done["result"]["winner"] == "B"  # lowest rack: B 60 against A 149
    assert done["result"]["ended_by"] == "pool_exhausted"


def test_going_out_ends_and_scores_the_round() -> None:
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K5", "O9"]}]
    doc = {
        "players": players,
        "turns": [{"player": "A", "table": [["R1", "R2", "R3"]]}],
        "rules": {"deal": 3, "initial_meld_min": 6},
    }
    out = replay(doc)
    assert out["valid"] and out["result"]["winner"] == "A" and out["result"]["ended_by"] == "rack_empty"
    assert {s["name"]: s["score"] for s in out["result"]["scores"]} == {"A": 15, "B": -15}


def test_deal_and_supply_checks() -> None:
    short = replay(record([], players=[{"name": "A", "rack": A_RACK[:13]}, {"name": "B", "rack": B_RACK}]))
    assert short["violations"][0]["code"] == "DEAL_SIZE" and short["violations"][0]["at"] == "/players/0/rack"
    lonely = replay({"players": [{"name": "A", "rack": A_RACK}], "turns": []})
    assert lonely["violations"][0]["code"] == "PLAYER_COUNT"
    triple = ["R1"] * 3 + A_RACK[3:]
    assert (
        replay(record([], players=[{"name": "A", "rack": triple}, {"name": "B", "rack": B_RACK}]))["violations"][0][
            "code"
        ]
        == "TILE_SUPPLY_EXCEEDED"
    )


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([], ""),
        ({"players": []}, "/players"),
        ({"players": [{"name": "A", "rack": ["R0"]}]}, "/players/0/rack/0"),
        ({"players": [{"name": "A", "rack": []}], "turns": [{"player": "A"}]}, "/turns/0"),
        ({"players": [{"name": "A", "rack": []}], "turns": [{"player": "A", "draw": "X1"}]}, "/turns/0/draw"),
        (
            {"players": [{"name": "A", "rack": []}], "turns": [{"player": "A", "table": [["R1", 5]]}]},
            "/turns/0/table/0/1",
        ),
        ({"players": [{"name": "A", "rack": []}], "end": "later"}, "/end"),
        ({"players": [{"name": "A", "rack": []}], "extra": 1}, "/extra"),
        ({"players": [{"name": "A", "rack": []}], "rules": "nope"}, "/rules"),
    ],
)
def test_unreadable_records(doc: Any, pointer: str) -> None:
    with pytest.raises(InputError) as info:
        parse_game_record(doc)
    assert info.value.pointer == pointer


def test_duplicate_player_names() -> None:
    with pytest.raises(InputError):
        replay_game(
            parse_game_record(record([], players=[{"name": "A", "rack": A_RACK}, {"name": "A", "rack": B_RACK}])), SABRA
        )


def test_analysis_marks_missed_plays_and_late_openings() -> None:
    # both players hold an opening (A: K10 B10 O10, B: K1..K9) but draw; A then opens
    doc = record([{"player": "A", "draw": "R7"}, {"player": "B", "draw": "R8"}, OPEN_A], pool=["R7", "R8"])
    out = replay_game(parse_game_record(doc), analyze=True).to_json()
    assert out["analysis"]["missed_plays"] == [0, 1] and out["analysis"]["late_openings"] == [0, 1]
    first = out["turns"][0]["analysis"]
    assert first["play_existed"] and first["opening"] and first["rack_known"]
    assert first["best"]["value"] >= 30
    assert len(out["turns"][1]["analysis"]["best"]["played"]) == 14  # K1-K9 and O1-O5: B could go out
    no_sets = ["R1", "B5", "K9", "O13", "B1", "K3", "O5", "R7", "B9", "K11", "O2", "R4", "B6", "K8"]
    nothing = record(
        [{"player": "A", "draw": "R7"}],
        players=[{"name": "A", "rack": no_sets}, {"name": "B", "rack": B_RACK}],
        pool=["R7"],
    )
    assert (
        replay_game(parse_game_record(nothing), analyze=True).to_json()["turns"][0]["analysis"]["play_existed"] is False
    )
    assert "analysis" not in out["turns"][2]
    assert "analysis" not in replay(doc)


def test_analysis_suggestions_are_legal_turns() -> None:
    from engine.generate import generate_game
    from engine.sets import TableSet
    from engine.turns import verify_turn

    record_ = parse_game_record(generate_game(5, players=3))
    result = replay_game(record_, analyze=True)
    table: tuple[TableSet, ...] = ()
    racks = {p.name: list(p.rack) for p in record_.players}
    opened = dict.fromkeys(racks, False)
    checked = 0
    for turn, replayed in zip(record_.turns, result.turns, strict=True):
        analysis = replayed.analysis
        if analysis is not None and analysis.best is not None and analysis.best.played:
            after = tuple(TableSet(s) for s in analysis.best.after)
            verdict = verify_turn(table, after, tuple(racks[turn.player]), opened[turn.player])
            assert verdict.valid, verdict.violations
            checked += 1
        if replayed.action == "play":
            assert replayed.verdict is not None and turn.table is not None
            table = turn.table
            racks[turn.player] = list(replayed.verdict.rack_after)
            opened[turn.player] = True
        elif replayed.tile is not None:
            racks[turn.player].append(replayed.tile)
    assert checked > 0

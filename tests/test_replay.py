"""Replaying hand-written game records (SPEC §6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from engine.errors import InputError
from engine.replay import parse_game_record, replay_game
from engine.rules import SABRA
from engine.scoring import PlayerRack, score_round
from engine.sets import TableSet
from engine.tiles import SUPPLIES, format_tiles, parse_tiles
from engine.violations import Violation

A_RACK = ["R1", "R2", "R3", "K10", "B10", "O10", "R11", "R12", "R13", "B1", "B2", "B3", "B4", "J"]
B_RACK = ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9", "O1", "O2", "O3", "O4", "O5"]


def record(turns: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"players": [{"name": "A", "rack": A_RACK}, {"name": "B", "rack": B_RACK}], "turns": turns}
    doc.update(extra)
    return doc


def replay(doc: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    return replay_game(parse_game_record(doc), **kwargs).to_json()


def deal(hands: Sequence[str], size: int, pool: str = "", tiles: str = "classic") -> dict[str, Any]:
    """Players A, B, C... whose racks start with ``hands`` and are filled up to ``size`` tiles
    from the rest of the tile set (in supply order), and the pool: ``pool``'s tiles first,
    then every tile left. Racks + pool are exactly the tile set."""
    rest = [str(t) for t in SUPPLIES[tiles].all_tiles()]
    for tile in " ".join([*hands, pool]).split():
        rest.remove(tile)
    racks = []
    for hand in hands:
        take = size - len(hand.split())
        racks.append([*hand.split(), *rest[:take]])
        rest = rest[take:]
    return {
        "players": [{"name": n, "rack": r} for n, r in zip("ABCDEFGH", racks, strict=False)],
        "pool": [*pool.split(), *rest],
    }


def short_game(
    turns: list[dict[str, Any]], hands: Sequence[str] = ("", "", "", ""), end: str | None = None, **rules: Any
) -> dict[str, Any]:
    """Four players dealt 26 tiles each: the pool holds R7 then R8, nothing else."""
    doc = {**deal(hands, 26, "R7 R8"), "rules": {"deal": 26, **rules}, "turns": turns}
    return doc if end is None else {**doc, "end": end}


def codes(turn: dict[str, Any]) -> list[str]:
    return [v["code"] for v in turn["violations"]]


def actions(out: dict[str, Any]) -> list[str]:
    return [t["action"] for t in out["turns"]]


def passes(*players: str, table: list[list[str]] | None = None) -> list[dict[str, Any]]:
    return [{"player": p, "table": table or []} for p in players]


OPEN_A = {"player": "A", "table": [["K10", "B10", "O10"]]}
OPEN_B = {"player": "B", "table": [["K10", "B10", "O10"], ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9"]]}
EMPTY_POOL = [{"player": "A", "draw": "R7"}, {"player": "B", "draw": "R8"}]  # B's draw empties the pool


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


@pytest.mark.parametrize("player", ["B", "Z"])
def test_an_entry_by_a_player_not_on_turn_leaving_the_table_says_draw(player: str) -> None:
    # the entry is not judged, but its action is what it did: the games audit of session 46
    # found "play" for a table entry equal to the table
    out = replay(record([{"player": player, "table": []}]))
    assert [(t["action"], codes(t)) for t in out["turns"]] == [("draw", [out["turns"][0]["violations"][0]["code"]])]
    assert replay(record([{"player": player, "table": [["K10", "B10", "O10"]]}]))["turns"][0]["action"] == "play"


def test_illegal_play_points_into_the_record() -> None:
    out = replay(record([{"player": "A", "table": [["K10", "B10"]]}]))
    assert out["first_invalid_turn"] == 0 and not out["valid"]
    found = {(v["code"], v["at"]) for v in out["turns"][0]["violations"]}
    assert ("INVALID_SET", "/turns/0/table/0") in found


def test_stops_at_first_illegal_turn_unless_continuing() -> None:
    turns = [{"player": "A", "table": [["R1", "R2", "R3"]]}, {"player": "B", "draw": "R7"}, OPEN_A]
    stopped = replay(record(turns))
    assert len(stopped["turns"]) == 1 and stopped["first_invalid_turn"] == 0
    # continuing: A's three penalty draws follow as draw entries, then the game goes on
    penalty = [{"player": "A", "draw": t} for t in ("O13", "O12", "O11")]
    turns = [{"player": "A", "table": [["R1", "R2", "R3"]]}, *penalty, {"player": "B", "draw": "R7"}, OPEN_A]
    going_on = replay(record(turns), continue_on_error=True)
    assert going_on["first_invalid_turn"] == 0
    assert actions(going_on) == ["play", "penalty_draw", "penalty_draw", "penalty_draw", "draw", "play"]
    assert all(t["valid"] for t in going_on["turns"][1:])
    assert going_on["turns"][5]["rack_after"].count("O13") == 1  # the penalty tiles are A's


def test_draws_follow_the_pool() -> None:
    dealt = deal([" ".join(A_RACK), " ".join(B_RACK)], 14, "R7 R8 O13")
    ok = replay({**dealt, "turns": [{"player": "A", "draw": "R7"}, {"player": "B", "draw": "R8"}]})
    assert ok["valid"]
    wrong = replay({**dealt, "turns": [{"player": "A", "draw": "R8"}]})
    assert codes(wrong["turns"][0]) == ["DRAW_MISMATCH"]
    # a table turn that plays nothing draws the next pool tile
    implicit = replay({**dealt, "turns": [{"player": "A", "table": []}, {"player": "B", "draw": "R8"}]})
    assert implicit["valid"] and implicit["turns"][0]["action"] == "draw" and implicit["turns"][0]["tile"] == "R7"


# --- the record as a whole: supply, pool, deal ---------------------------------------------------


def test_deal_checks() -> None:
    short = replay(record([], players=[{"name": "A", "rack": A_RACK[:13]}, {"name": "B", "rack": B_RACK}]))
    assert short["violations"][0]["code"] == "DEAL_SIZE" and short["violations"][0]["at"] == "/players/0/rack"
    lonely = replay({"players": [{"name": "A", "rack": A_RACK}], "turns": []})
    assert lonely["violations"][0]["code"] == "PLAYER_COUNT"
    assert lonely["violations"][0]["message"] == "1 player cannot play under these rules (allowed: 2, 3, 4)."
    # no deal to compare racks with, but the pool must still make up the set (session 49)
    racks = [{"name": "A", "rack": ["R1", "R2"]}, {"name": "B", "rack": ["B1", "B2"]}, {"name": "C", "rack": ["K1"]}]
    crowded = replay({"rules": {"deal": 3, "players": [2]}, "players": racks, "pool": ["R5"], "turns": []})
    assert [(v["code"], v["at"]) for v in crowded["violations"]] == [
        ("PLAYER_COUNT", "/players"),
        ("POOL_MISMATCH", "/pool"),
    ]


@pytest.mark.parametrize(
    ("racks", "pool", "rules", "pointer"),
    [
        ([["R1", "R1", "R1"], ["K1"]], None, "sabra", "/players/0/rack/2"),
        ([["R1", "K2"], ["R1", "R1"]], None, "sabra", "/players/1/rack/1"),
        ([["J", "K2"], ["J", "J"]], None, "sabra", "/players/1/rack/1"),
        ([["R1", "K2"], ["R1"]], ["B1", "R1"], "sabra", "/pool/1"),
        ([["J", "J"], ["K2"]], ["B1", "J"], "sabra", "/pool/1"),
        ([["R1", "R1", "R1", "R1"], ["K2"]], None, "xp", "/players/0/rack/3"),
        ([["J", "J", "J"], ["J", "J"]], None, "xp", "/players/1/rack/1"),
    ],
)
def test_racks_and_pool_beyond_the_supply_make_an_invalid_record(
    racks: list[list[str]], pool: list[str] | None, rules: str, pointer: str
) -> None:
    """SPEC §6: replay checks the tile supply, and a pool that is not exactly the undealt tiles
    makes the record invalid: a verdict (valid false, the record violation at the entry where
    the excess appears, no turn replayed), not a 422 (the SPEC-lawyer audit, session 36)."""
    doc: dict[str, Any] = {
        "players": [{"name": n, "rack": r} for n, r in zip("AB", racks, strict=True)],
        "turns": [{"player": "A", "draw": "K5"}],
        "rules": rules,
    }
    if pool is not None:
        doc["pool"] = pool
    out = replay(doc)
    assert not out["valid"] and out["turns"] == [] and out["result"] is None and out["first_invalid_turn"] is None
    assert [(v["code"], v["at"]) for v in out["violations"] if v["code"] == "TILE_SUPPLY_EXCEEDED"] == [
        ("TILE_SUPPLY_EXCEEDED", pointer)
    ]
    # the deal's and the pool's problems are told beside it (session 42), the excess first
    assert out["violations"][0]["code"] == "TILE_SUPPLY_EXCEEDED"
    assert {v["code"] for v in out["violations"]} <= {"TILE_SUPPLY_EXCEEDED", "DEAL_SIZE", "POOL_MISMATCH"}


def test_racks_at_the_supply_are_replayed() -> None:
    b_rack = ["K1", "K1", "K1", "K2", "K2", "K2", "K3"]
    xp = {"players": [{"name": "A", "rack": ["R1"] * 3 + ["J"] * 4}, {"name": "B", "rack": b_rack}], "turns": []}
    out = replay({**xp, "rules": {"preset": "xp", "deal": 7}})
    assert out["valid"] and out["violations"] == []


def test_pool_must_hold_exactly_the_undealt_tiles() -> None:
    exact = deal([" ".join(A_RACK), " ".join(B_RACK)], 14)
    assert len(exact["pool"]) == 106 - 28 and replay({**exact, "turns": []})["valid"]
    fewer = {**exact, "pool": exact["pool"][1:], "turns": []}  # one K1 left out
    assert exact["pool"][0] == "K1"
    out = replay(fewer)
    assert not out["valid"] and out["turns"] == [] and out["result"] is None
    assert [(v["code"], v["at"]) for v in out["violations"]] == [("POOL_MISMATCH", "/pool")]
    assert "78 tiles" in out["violations"][0]["message"] and "holds 77 (missing: K1)" in out["violations"][0]["message"]
    empty = replay({**exact, "pool": [], "turns": []})
    assert empty["violations"][0]["code"] == "POOL_MISMATCH"
    assert "and 66 more)." in empty["violations"][0]["message"]  # 12 of the 78 missing tiles named
    # in the message's language (the Spanish one said "and 66 more" too: a docs audit, session 43)
    spanish = replay_game(parse_game_record({**exact, "pool": [], "turns": []})).to_json("es")
    assert spanish["violations"][0]["message"].endswith(" y 66 más).")


def test_duplicate_player_names() -> None:
    with pytest.raises(InputError):
        replay_game(
            parse_game_record(record([], players=[{"name": "A", "rack": A_RACK}, {"name": "A", "rack": B_RACK}])), SABRA
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


# --- the end of the round ----------------------------------------------------------------------


GOING_OUT = {
    "players": [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K5", "O9"]}],
    "turns": [{"player": "A", "table": [["R1", "R2", "R3"]]}],
    "rules": {"deal": 3, "initial_meld_min": 6},
}


def test_going_out_ends_and_scores_the_round() -> None:
    out = replay(GOING_OUT)
    assert out["valid"] and out["result"]["winner"] == "A" and out["result"]["ended_by"] == "rack_empty"
    assert {s["name"]: s["score"] for s in out["result"]["scores"]} == {"A": 15, "B": -15}


def test_a_turn_after_going_out_is_round_over_and_the_round_is_still_scored() -> None:
    late = {**GOING_OUT, "turns": [*GOING_OUT["turns"], {"player": "B", "draw": "K2"}, {"player": "A", "table": []}]}
    out = replay(late)
    assert not out["valid"] and out["first_invalid_turn"] == 1 and len(out["turns"]) == 2
    assert out["turns"][1]["action"] == "round_over" and codes(out["turns"][1]) == ["ROUND_OVER"]
    assert out["turns"][1]["violations"][0]["at"] == "/turns/1"
    assert out["result"]["winner"] == "A"  # the round finished before the invalid entry
    going_on = replay(late, continue_on_error=True)
    assert actions(going_on) == ["play", "round_over", "round_over"] and going_on["result"]["winner"] == "A"


def test_play_on_ends_when_every_player_has_passed_in_turn() -> None:
    turns = [*EMPTY_POOL, *passes("C", "D", "A", "B")]
    out = replay(short_game(turns))
    assert out["valid"] and actions(out) == ["draw", "draw", "pass", "pass", "pass", "pass"]
    assert out["result"]["ended_by"] == "pool_exhausted"
    assert replay(short_game(turns), continue_on_error=True)["result"] == out["result"]
    late = replay(short_game([*turns, *passes("C")]))
    assert codes(late["turns"][6]) == ["ROUND_OVER"] and late["result"] == out["result"]


def test_play_on_a_play_starts_the_passes_again() -> None:
    hands = ("", "", "K10 B10 O10", "")
    opened = [["K10", "B10", "O10"]]
    turns = [*EMPTY_POOL, {"player": "C", "table": opened}, *passes("D", "A", "B", table=opened)]
    out = replay(short_game(turns, hands, initial_meld_min=30), continue_on_error=True)
    assert out["valid"] and out["result"] is None  # only three passes since C's play
    done = replay(short_game([*turns, *passes("C", table=opened)], hands))
    assert done["valid"] and done["result"]["ended_by"] == "pool_exhausted"


def test_play_on_an_illegal_restored_turn_counts_as_a_pass() -> None:
    illegal = {"player": "C", "table": [["O1", "O2"]]}  # C holds O1 O2 (oranges from the fill)
    turns = [*EMPTY_POOL, illegal, *passes("D", "A", "B")]
    out = replay(short_game(turns), continue_on_error=True)
    assert out["first_invalid_turn"] == 2 and not out["valid"]
    assert out["turns"][2]["penalty"] == {"draw": 3, "restore_table": True}
    assert out["result"] is not None and out["result"]["ended_by"] == "pool_exhausted"  # result on an invalid replay
    c_rack = sum(s["rack_value"] for s in out["result"]["scores"] if s["name"] == "C")
    assert c_rack == 2 * sum(range(1, 14))  # no penalty tile: the pool is empty


def test_play_on_an_illegal_turn_whose_penalty_empties_the_pool_is_no_pass() -> None:
    """The passes count from the first turn after the pool emptied (docs/rules-engine.md; SPEC
    is silent): A's illegal turn came before, its penalty draws (R7 R8) emptied the pool, so
    B, C and D passing do not end the round; A's pass then does (the scoring oracle, session 36)."""
    illegal = {"player": "A", "table": [["K1", "K2"]]}
    penalty = [{"player": "A", "draw": "R7"}, {"player": "A", "draw": "R8"}]
    turns = [illegal, *penalty, *passes("B", "C", "D")]
    out = replay(short_game(turns), continue_on_error=True)
    assert out["first_invalid_turn"] == 0 and out["result"] is None
    done = replay(short_game([*turns, *passes("A")], end="pool_exhausted"), continue_on_error=True)
    assert done["result"] is not None and done["result"]["ended_by"] == "pool_exhausted"
    assert done["violations"] == []  # (the end claimed agrees)


def test_a_draw_entry_on_an_empty_pool_is_pool_empty() -> None:
    out = replay(short_game([*EMPTY_POOL, {"player": "C", "draw": "K1"}]))
    assert out["first_invalid_turn"] == 2 and codes(out["turns"][2]) == ["POOL_EMPTY"]
    assert out["turns"][2]["violations"][0]["at"] == "/turns/2/draw"
    # continuing, it changed nothing: a pass once the pool is empty
    going_on = replay(
        short_game([*EMPTY_POOL, {"player": "C", "draw": "K1"}, *passes("D", "A", "B")]), continue_on_error=True
    )
    assert going_on["result"] is not None


def test_one_more_turn_starts_after_the_player_who_emptied_the_pool() -> None:
    hands = ("", "", "K10 B10 O10", "")
    opened = [["K10", "B10", "O10"]]
    finals = [{"player": "C", "table": opened}, *passes("D", "A", "B", table=opened)]
    out = replay(short_game([*EMPTY_POOL, *finals], hands, preset="online-sabra"))
    assert out["valid"] and out["result"]["ended_by"] == "pool_exhausted"  # a play does not prolong it
    late = replay(short_game([*EMPTY_POOL, *finals, *passes("C", table=opened)], hands, preset="online-sabra"))
    assert late["first_invalid_turn"] == 6 and codes(late["turns"][6]) == ["ROUND_OVER"]
    assert late["result"] == out["result"]
    # the same turns under play_on: only three passes since C's play, the round goes on
    assert replay(short_game([*EMPTY_POOL, *finals], hands))["result"] is None


def test_one_more_turn_counts_illegal_turns_and_passes_alike() -> None:
    finals = [{"player": "C", "table": [["O1", "O2"]]}, *passes("D", "A", "B")]
    out = replay(short_game([*EMPTY_POOL, *finals], preset="online-sabra"), continue_on_error=True)
    assert out["first_invalid_turn"] == 2 and out["result"]["ended_by"] == "pool_exhausted"


def test_one_more_turn_a_penalty_draw_that_empties_the_pool_counts_as_that_players_draw() -> None:
    hands = ("O1 O2", "", "", "")
    illegal = {"player": "A", "table": [["O1", "O2"]]}
    penalty = [{"player": "A", "draw": "R7"}, {"player": "A", "draw": "R8"}]  # the two tiles left
    turns = [illegal, *penalty, *passes("B", "C", "D", "A")]
    out = replay(short_game(turns, hands, preset="online-sabra"), continue_on_error=True)
    assert actions(out) == ["play", "penalty_draw", "penalty_draw", "pass", "pass", "pass", "pass"]
    assert all(t["valid"] for t in out["turns"][1:]) and out["result"]["ended_by"] == "pool_exhausted"
    late = replay(short_game([*turns, *passes("B")], hands, preset="online-sabra"), continue_on_error=True)
    assert codes(late["turns"][-1]) == ["ROUND_OVER"]
    # penalty draws are not turns: B is next, and B's pass is the first of the last turns
    assert replay(short_game(turns[:-1], hands, preset="online-sabra"), continue_on_error=True)["result"] is None


def test_one_more_turn_from_the_first_player_when_the_pool_was_empty_from_the_start() -> None:
    players = "ABCDEFGH"
    dealt = deal([""] * 8, 20, tiles="xp")
    assert dealt["pool"] == []
    rules = {"preset": "xp", "players": [8], "deal": 20, "pool_exhausted_end": "one_more_turn"}
    out = replay({**dealt, "rules": rules, "turns": passes(*players), "end": "pool_exhausted"})
    assert out["valid"] and out["result"]["ended_by"] == "pool_exhausted"
    wrong_start = replay({**dealt, "rules": rules, "turns": passes(*"BCDEFGHA")})
    assert codes(wrong_start["turns"][0]) == ["WRONG_PLAYER"]
    late = replay({**dealt, "rules": rules, "turns": passes(*players, "A")})
    assert codes(late["turns"][8]) == ["ROUND_OVER"]


# --- penalty draws -------------------------------------------------------------------------------


def test_penalty_draws_on_a_short_pool_take_what_is_left() -> None:
    hands = ("O1 O2", "", "", "")
    illegal = {"player": "A", "table": [["O1", "O2"]]}
    dealt_a = 26
    # unlisted: the two pool tiles go to A before B's turn, the third is not there
    out = replay(short_game([illegal, *passes("B", "C", "D", "A")], hands), continue_on_error=True)
    assert actions(out) == ["play", "pass", "pass", "pass", "pass"] and out["result"] is not None
    a_score = next(s for s in out["result"]["scores"] if s["name"] == "A")
    dealt = short_game([], hands)["players"][0]["rack"]
    assert a_score["rack_value"] == sum(t.number for t in parse_tiles(" ".join(dealt))) + 7 + 8
    assert len(dealt) == dealt_a
    # listed: a third penalty draw entry finds the pool empty
    listed = [illegal, *({"player": "A", "draw": t} for t in ("R7", "R8", "K1"))]
    three = replay(short_game(listed, hands), continue_on_error=True)
    assert actions(three)[1:] == ["penalty_draw"] * 3
    assert [codes(t) for t in three["turns"][1:]] == [[], [], ["POOL_EMPTY"]]


def test_penalty_draws_are_not_turns_for_seat_rotation() -> None:
    illegal = {"player": "A", "table": [["R1", "R2"]]}
    turns = [illegal, {"player": "A", "draw": "O13"}, {"player": "A", "draw": "O12"}, {"player": "B", "draw": "O11"}]
    out = replay(record(turns), continue_on_error=True)
    assert actions(out) == ["play", "penalty_draw", "penalty_draw", "draw"] and out["first_invalid_turn"] == 0
    assert all(t["valid"] for t in out["turns"][1:])  # the third penalty tile was unlisted
    a_next = replay(record([*turns, {"player": "A", "draw": "O11"}]), continue_on_error=True)
    assert a_next["turns"][4]["valid"] and a_next["turns"][4]["action"] == "draw"


# --- the record's end ----------------------------------------------------------------------------


def test_end_mismatch_while_the_pool_still_holds_tiles() -> None:
    out = replay(record([{"player": "A", "draw": "R7"}], end="pool_exhausted"))
    assert not out["valid"] and out["first_invalid_turn"] is None and out["result"] is None
    assert [(v["code"], v["at"]) for v in out["violations"]] == [("END_MISMATCH", "/end")]
    assert "77 tiles" in out["violations"][0]["message"]  # 106 - 28 dealt - 1 drawn


def test_end_mismatch_when_a_player_went_out() -> None:
    out = replay({**GOING_OUT, "end": "pool_exhausted"})
    assert not out["valid"] and out["first_invalid_turn"] is None
    assert out["violations"][0]["code"] == "END_MISMATCH" and "A went out" in out["violations"][0]["message"]
    assert out["result"]["winner"] == "A" and out["result"]["ended_by"] == "rack_empty"


def test_end_mismatch_before_every_player_has_passed() -> None:
    out = replay(short_game([*EMPTY_POOL, *passes("C", "D", "A")], end="pool_exhausted"))
    assert out["first_invalid_turn"] is None and out["result"] is None
    assert out["violations"][0]["code"] == "END_MISMATCH" and "3 of the 4" in out["violations"][0]["message"]
    finals = replay(short_game([*EMPTY_POOL, *passes("C", "D")], preset="online-sabra", end="pool_exhausted"))
    assert finals["violations"][0]["code"] == "END_MISMATCH" and "2 of the 4" in finals["violations"][0]["message"]


def test_end_claim_that_matches_or_is_omitted() -> None:
    turns = [*EMPTY_POOL, *passes("C", "D", "A", "B")]
    claimed = replay(short_game(turns, end="pool_exhausted"))
    omitted = replay(short_game(turns))
    assert claimed["valid"] and omitted["valid"] and claimed == omitted


def test_end_is_judged_when_the_round_ended_before_the_replay_stopped() -> None:
    # an entry after the end stops the replay (ROUND_OVER), but the end is known: A went out
    after_the_end = [*GOING_OUT["turns"], {"player": "B", "draw": "R7"}]
    out = replay({**GOING_OUT, "turns": after_the_end, "end": "pool_exhausted"})
    assert out["turns"][-1]["action"] == "round_over" and out["first_invalid_turn"] == len(after_the_end) - 1
    assert [v["code"] for v in out["violations"]] == ["END_MISMATCH"] and "A went out" in out["violations"][0][
        "message"
    ]
    assert replay({**GOING_OUT, "turns": after_the_end})["violations"] == []  # no claim, no violation


def test_end_is_not_judged_on_a_replay_that_stopped() -> None:
    out = replay(record([{"player": "B", "draw": "R7"}], end="pool_exhausted"))
    assert out["first_invalid_turn"] == 0 and out["violations"] == []
    going_on = replay(record([{"player": "B", "draw": "R7"}], end="pool_exhausted"), continue_on_error=True)
    assert [v["code"] for v in going_on["violations"]] == ["END_MISMATCH"]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_new_codes_have_messages(lang: str) -> None:
    for violation in (
        Violation("ROUND_OVER", "/turns/3", {"turn": 3}),
        Violation("POOL_EMPTY", "/turns/3/draw", {}),
        Violation("POOL_MISMATCH", "/pool", {"count": 3, "expected": 4, "missing": "R5"}),
        Violation("END_MISMATCH", "/end", {"case": "pool_left", "count": 4}),
        Violation("END_MISMATCH", "/end", {"case": "rack_empty", "player": "Ana"}),
        Violation("END_MISMATCH", "/end", {"case": "play_on", "passes": 1, "players": 3}),
        Violation("END_MISMATCH", "/end", {"case": "one_more_turn", "count": 2, "players": 3}),
    ):
        message = violation.message(lang)
        assert message != violation.code and "?" not in message and "{" not in message, message
    wordings = {
        Violation("END_MISMATCH", "/end", {"case": c}).message(lang) for c in ("pool_left", "rack_empty", "play_on")
    }
    assert len(wordings) == 3


# --- timed-out turns that keep their valid sets (timeout_keeps_valid_sets) ----------------------

TIMED_A = "K10 B10 O10 R1 R2 R3 R4 K7 B8 O9"
TIMED_B = "K1 K2 K3 K5 B1 B2 B3 B5 O4 O6"
KEPT = [["K10", "B10", "O10"], ["R1", "R2", "R3"]]
TIMED_TURNS = [
    {"player": "A", "table": [*KEPT, ["R4", "K7"]], "elapsed_seconds": 130},  # over 120 s, R4 K7 invalid
    *({"player": "A", "draw": t} for t in ("O1", "O2", "O3")),
    {"player": "B", "table": KEPT},  # B draws: the kept sets are the table
    {"player": "A", "table": [KEPT[0], ["R1", "R2", "R3", "R4"]]},  # A opened with the kept sets
]


def timed_record() -> dict[str, Any]:
    players = [{"name": "A", "rack": TIMED_A.split()}, {"name": "B", "rack": TIMED_B.split()}]
    return {"rules": "classic-timed", "players": players, "turns": TIMED_TURNS}


def check_kept_replay(out: dict[str, Any]) -> None:
    assert out["first_invalid_turn"] == 0 and actions(out) == ["play", *["penalty_draw"] * 3, "draw", "play"]
    first = out["turns"][0]
    assert {"TIME_LIMIT_EXCEEDED", "INVALID_SET"} <= set(codes(first))
    assert first["penalty"]["restore_table"] is False and first["penalty"]["draw"] == 3
    assert sorted(map(sorted, first["penalty"]["kept"])) == sorted(map(sorted, KEPT))
    assert sorted(first["penalty"]["returned"]) == ["K7", "R4"]
    assert all(t["valid"] for t in out["turns"][1:]), out["turns"]
    assert Counter(out["turns"][5]["rack_after"]) == Counter(["K7", "B8", "O9", "O1", "O2", "O3"])


def test_continuing_after_a_timed_out_turn_keeps_its_valid_sets() -> None:
    check_kept_replay(replay(timed_record(), continue_on_error=True))
    stopped = replay(timed_record())
    assert len(stopped["turns"]) == 1 and stopped["first_invalid_turn"] == 0


def test_a_timed_out_turn_that_keeps_every_set_and_empties_the_rack_goes_out() -> None:
    """A timed-out play whose sets all stay empties the rack; with no penalty tile to draw, the
    player has gone out."""
    run = "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13"
    players = [
        {"name": "A", "rack": run.split()},
        {"name": "B", "rack": ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "O1"]},
    ]
    rules = {"preset": "classic-timed", "deal": 13, "timeout_penalty": 0}
    turns = [{"player": "A", "table": [run.split()], "elapsed_seconds": 121}, {"player": "B", "table": [run.split()]}]
    out = replay({"rules": rules, "players": players, "turns": turns}, continue_on_error=True)
    assert codes(out["turns"][0]) == ["TIME_LIMIT_EXCEEDED"] and out["turns"][0]["penalty"]["restore_table"] is False
    assert out["result"]["winner"] == "A" and out["result"]["ended_by"] == "rack_empty"
    assert codes(out["turns"][1]) == ["ROUND_OVER"]
    # with a penalty tile to draw, the player is back in the round
    again = replay(
        {"rules": {**rules, "timeout_penalty": 1}, "players": players, "turns": turns}, continue_on_error=True
    )
    assert again["result"] is None and again["turns"][1]["valid"]


# --- records without a pool: unnamed draws ---------------------------------------------------------


def test_unnamed_draws_cannot_exceed_the_supply() -> None:
    players = [{"name": "A", "rack": ["R4", "R6", "K5", "B5"]}, {"name": "B", "rack": ["R5", "O1", "O2", "O3"]}]
    draws = [*passes("A", "B", "A", "B")]  # A holds two unnamed tiles; one R5 is on B's rack
    play = {"player": "A", "table": [["R4", "R5", "R6"], ["K5", "B5", "R5"]]}
    out = replay({"rules": {"deal": 4, "initial_meld_min": 6}, "players": players, "turns": [*draws, play]})
    assert out["first_invalid_turn"] == 4 and "TILE_NOT_IN_RACK" in codes(out["turns"][4])
    one = {"player": "A", "table": [["R4", "R5", "R6"]]}
    assert replay({"rules": {"deal": 4, "initial_meld_min": 6}, "players": players, "turns": [*draws, one]})["valid"]


def test_an_unnamed_draw_is_the_next_needed_tile_the_supply_allows() -> None:
    """A tile whose copies are all on other racks cannot be the unnamed draw; the next tile the
    play needs can (h1-3, session 52: only the first needed tiles were tried, so 'K4 O4 R4'
    said O4 was not on the rack and 'O4 K4 R4' did not: the violations followed tile order)."""
    players = [
        {"name": "A", "rack": ["R4", "R10", "R11", "R12", "R13"]},
        {"name": "B", "rack": ["K4", "K4", "B1", "B2", "B3"]},
    ]
    for group in (["K4", "O4", "R4"], ["O4", "K4", "R4"], ["R4", "O4", "K4"]):
        play = {"player": "A", "table": [["R10", "R11", "R12", "R13"], group]}  # A holds one unnamed tile
        out = replay({"rules": {"deal": 5}, "players": players, "turns": [*passes("A", "B"), play]})
        turn = out["turns"][2]
        assert codes(turn) == ["TILE_NOT_IN_RACK"] and "K4" in turn["violations"][0]["message"], (group, turn)


def test_a_player_holding_only_unnamed_tiles_may_still_draw_and_play() -> None:
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K5", "O9"]}]
    run = [["R1", "R2", "R3"]]
    turns = [
        *passes("A", "B"),  # A draws a tile the record does not name
        {"player": "A", "table": run},  # every named tile played: A still holds the unnamed one
        *passes("B", table=run),
        *passes("A", table=run),  # A draws again
        *passes("B", table=run),
        {"player": "A", "table": [["R1", "R2", "R3", "R4", "R5"]]},  # the two unnamed tiles: R4 R5
    ]
    out = replay({"rules": {"deal": 3, "initial_meld_min": 6}, "players": players, "turns": turns})
    assert out["valid"], out
    assert out["turns"][4]["action"] == "draw" and out["turns"][4]["rack_after"] == []
    assert out["turns"][4]["rack_empty"] is False  # (a draw never goes out; before, true)
    # the play of every named tile leaves the unnamed one: not out, though rack_after is empty
    assert out["turns"][2]["rack_after"] == [] and out["turns"][2]["rack_empty"] is False
    assert out["turns"][6]["rack_empty"] and out["result"]["winner"] == "A"


def test_a_rack_of_unnamed_tiles_is_not_empty_when_the_round_is_scored() -> None:
    """Without a pool, a player whose named tiles are all played still holds the unnamed draws:
    when another goes out, the round is scored (it was a 422, "two players have empty racks",
    at a rack of 14 tiles), and a round ended by the empty pool is not won by going out (it
    said ``rack_empty``: an independent replay oracle, session 44)."""
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K2", "K3"]}]
    turns = [
        *passes("A", "B"),  # each draws a tile the record does not name
        {"player": "A", "table": [["R1", "R2", "R3"]]},  # A keeps the unnamed one
        {"player": "B", "table": [["R1", "R2", "R3"], ["K1", "K2", "K3", "K4"]]},  # B's was K4: out
    ]
    out = replay({"rules": {"deal": 3, "initial_meld_min": 6}, "players": players, "turns": turns})
    assert out["valid"] and out["turns"][3]["rack_empty"], out
    result = out["result"]
    assert result["winner"] == "B" and result["ended_by"] == "rack_empty"
    assert result["scores"][0] == {"name": "A", "rack_value": 0, "score": 0, "unnamed_tiles": 1}
    named = PlayerRack("A", (), True), PlayerRack("B", (), True)
    with pytest.raises(InputError, match="two players have empty racks"):
        score_round(named, SABRA)
    ended = score_round(named, SABRA, unnamed=(1, 0))
    assert ended.ended_by == "rack_empty" and ended.winners == ("B",)
    assert score_round(named, SABRA, unnamed=(1, 2)).ended_by == "pool_exhausted"


def test_an_illegal_play_does_not_name_the_unnamed_draw() -> None:
    """The replay assumes an unnamed draw was a tile the play needs; when the play is illegal
    and restored, the rack it reports is the named one (nothing in the record names the tile)."""
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K5", "B9", "O2"]}]
    illegal = {"player": "A", "table": [["R1", "R2", "R3"], ["R4", "R5", "R6"]]}  # one unnamed tile, three needed
    out = replay(
        {"rules": {"deal": 3, "initial_meld_min": 0}, "players": players, "turns": [*passes("A", "B"), illegal]}
    )
    turn = out["turns"][2]
    assert "TILE_NOT_IN_RACK" in codes(turn) and turn["rack_after"] == ["R1", "R2", "R3"]
    assert not turn["rack_empty"] and out["result"] is None


def test_result_names_the_tiles_it_cannot_score() -> None:
    """A draw without a pool is never named, so the rack values leave it out: ``result`` says how
    many tiles per player (SPEC §5 scores racks; an unnamed tile has no number to count)."""
    players = [{"name": "A", "rack": ["R1", "R2", "R3", "R4"]}, {"name": "B", "rack": ["K1", "K5", "O9", "O12"]}]
    turns = [
        {"player": "A", "table": [["R1", "R2", "R3"]]},
        *passes("B", table=[["R1", "R2", "R3"]]),  # B draws a tile the record does not name
        {"player": "A", "table": [["R1", "R2", "R3", "R4"]]},
    ]
    rules = {"deal": 4, "initial_meld_min": 6}
    out = replay({"rules": rules, "players": players, "turns": turns})
    assert out["valid"] and out["result"]["winner"] == "A"
    assert [s.get("unnamed_tiles") for s in out["result"]["scores"]] == [None, 1]
    assert [s["rack_value"] for s in out["result"]["scores"]] == [0, 27]  # B's named tiles only
    pooled = replay({**deal(["R1 R2 R3 R4", "K1 K5 O9 O12"], 4, "B1"), "rules": rules, "turns": turns})
    assert pooled["valid"] and not any("unnamed_tiles" in s for s in pooled["result"]["scores"])
    assert [s["rack_value"] for s in pooled["result"]["scores"]] == [0, 28]  # B drew B1


# --- analysis ----------------------------------------------------------------------------------


def test_analysis_marks_missed_plays_and_late_openings() -> None:
    # both players hold an opening (A: K10 B10 O10, B: K1..K9) but draw; A then opens
    dealt = deal([" ".join(A_RACK), " ".join(B_RACK)], 14, "R7 R8")
    doc = {**dealt, "turns": [{"player": "A", "draw": "R7"}, {"player": "B", "draw": "R8"}, OPEN_A]}
    out = replay_game(parse_game_record(doc), analyze=True).to_json()
    assert out["analysis"]["missed_plays"] == [0, 1] and out["analysis"]["late_openings"] == [0, 1]
    first = out["turns"][0]["analysis"]
    assert first["play_existed"] and first["opening"] and first["rack_known"]
    assert first["best"]["value"] >= 30
    assert len(out["turns"][1]["analysis"]["best"]["played"]) == 14  # K1-K9 and O1-O5: B could go out
    no_sets = ["R1", "B5", "K9", "O13", "B1", "K3", "O5", "R7", "B9", "K11", "O2", "R4", "B6", "K8"]
    nothing = {**deal([" ".join(no_sets), " ".join(B_RACK)], 14, "R7"), "turns": [{"player": "A", "draw": "R7"}]}
    assert (
        replay_game(parse_game_record(nothing), analyze=True).to_json()["turns"][0]["analysis"]["play_existed"] is False
    )
    assert "analysis" not in out["turns"][2]
    assert "analysis" not in replay(doc)


def test_analysis_says_undecided_not_false_when_nothing_was_found_or_searched() -> None:
    """A draw where a play existed (A: B6 goes out, K7 from the group freeing a run joker
    for K6 B6 J) that the solver did not find, unproven, was reported "no play existed"; and
    draws after the record's analysis budget was spent were reported so without a search (the
    independent replay-analysis oracle, session 37). Both are now null, listed as undecided."""
    a_rack = ["K6", "J", "J", "K9", "K10", "O7", "K7", "B7", "R7", "B6"]
    b_rack = ["K1", "B3", "O5", "R9", "K12", "B11", "O13", "R2", "K4", "B9"]
    rules = {"preset": "sabra", "deal": {"2": 10}}
    dealt = {**deal([" ".join(a_rack), " ".join(b_rack)], 10, "B1 B1"), "rules": rules}
    opening = {"player": "A", "table": [["K6", "J", "J", "K9", "K10"], ["O7", "K7", "B7", "R7"]]}
    doc = {**dealt, "turns": [opening, {"player": "B", "draw": "B1"}, {"player": "A", "draw": "B1"}]}
    out = replay_game(parse_game_record(doc), analyze=True).to_json()
    a_draw = out["turns"][2]["analysis"]
    assert a_draw["play_existed"] is not False  # B6 could be played: found (True) or undecided
    if a_draw["play_existed"] is None:
        assert out["analysis"]["undecided"] == [2] and not a_draw["optimal_proven"]
    spent = replay_game(parse_game_record(doc), analyze=True, analyze_budget_seconds=0.0).to_json()
    for index in (1, 2):
        analysis = spent["turns"][index]["analysis"]
        assert analysis["play_existed"] is None and analysis["budget_exhausted"] and analysis["best"] is None
    assert spent["analysis"] == {
        "draws_analyzed": 0,
        "draws_not_searched": 2,
        "missed_plays": [],
        "late_openings": [],
        "undecided": [1, 2],
        "budget_exhausted": True,
    }


def test_analysis_suggestions_are_legal_turns() -> None:
    from engine.generate import generate_game
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


def test_a_repeated_illegal_turn_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Continuing after errors without penalty draws, one illegal turn repeated is the same
    verdict each time: judged once (a 141 KB record repeating a costly joker turn took 24 s)."""
    import engine.replay

    calls = []
    judge = engine.replay.verify_turn

    def counted(*args: Any) -> Any:
        calls.append(args)
        return judge(*args)

    monkeypatch.setattr(engine.replay, "verify_turn", counted)
    bad = {"player": "A", "table": [["R1", "R2", "R3"]]}  # 6 points: below the minimum
    draws = ("R7", "R8", "O13", "O12")
    # (the time taken, without a limit or within it, does not make another turn)
    turns = [e for i, t in enumerate(draws) for e in ({**bad, "elapsed_seconds": 1 + i}, {"player": "B", "draw": t})]
    out = replay(record(turns, rules={"preset": "sabra", "failed_turn_penalty": 0}), continue_on_error=True)
    assert [t["valid"] for t in out["turns"]] == [False, True] * 4
    assert len(calls) == 1
    assert [(v["code"], v["at"]) for v in out["turns"][6]["violations"]] == [("INITIAL_MELD_TOO_LOW", "/turns/6/table")]


def test_one_tile_is_one_tile_in_messages() -> None:
    from engine.violations import render

    assert render("DEAL_SIZE", {"player": "P1", "count": 1, "expected": 14, "players": 2}).startswith(
        "P1 was dealt 1 tile;"
    )
    assert render("DEAL_SIZE", {"player": "P1", "count": 1, "expected": 14, "players": 2}, "es").startswith(
        "P1 recibió 1 ficha;"
    )
    assert render("DEAL_SIZE", {"player": "P1", "count": 13, "expected": 14, "players": 2}).startswith(
        "P1 was dealt 13 tiles;"
    )
    assert render("END_MISMATCH", {"count": 1}).endswith("but 1 tile is still in the pool.")
    assert render("SET_TOO_SHORT", {"count": 2}).endswith("this one has 2.")


# --- the cost of a record ------------------------------------------------------------------------


def test_a_records_turns_share_the_joker_checks_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The joint joker checks of all a record's turns draw on REPLAY_JOINT_STEPS (a record
    continuing after errors may repeat a costly turn a thousand times: 198 s before, session
    40): once they are spent, later turns stand as judged set by set."""
    import engine.replay

    laid = [["K1", "J", "K3"], ["K1", "K2", "J"]]
    misuse = [["K1", "K2", "K3"], ["K1", "K2", "K3", "J", "J"]]  # one K1 for two freed jokers
    doc = {
        "rules": {"deal": 8, "freed_joker_use": "other_set", "initial_meld_min": 0},
        "players": [
            {"name": "A", "rack": ["K1", "J", "K3", "K1", "K2", "J", "K2", "K3"]},
            {"name": "B", "rack": ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8"]},
        ],
        "turns": [{"player": "A", "table": laid}, {"player": "B", "table": laid}, {"player": "A", "table": misuse}],
    }
    assert codes(replay(doc)["turns"][2]) == ["FREED_JOKER_MISUSED"]
    monkeypatch.setattr(engine.replay, "REPLAY_JOINT_STEPS", 0)
    assert replay(doc)["turns"][2]["valid"]


# --- session 42: an independent replay oracle's notes ---------------------------------------------


def _pool_after(dealt: list[str], first: list[str]) -> list[str]:
    pool = format_tiles(SABRA.supply.all_tiles())
    for tile in [*dealt, *first]:
        pool.remove(tile)
    return [*first, *pool]


def test_every_problem_of_the_record_is_told_beside_an_excess() -> None:
    # an excess hid the deal's size and the pool's missing tile (session 42)
    doc = {
        "rules": {"preset": "sabra", "deal": {"2": 3}},
        "players": [{"name": "A", "rack": ["K1", "K1", "K1", "K2"]}, {"name": "B", "rack": ["K1", "K2", "R5"]}],
        "turns": [],
    }
    result = replay_game(parse_game_record(doc)).to_json()
    assert [(v["code"], v["at"]) for v in result["violations"]] == [
        ("TILE_SUPPLY_EXCEEDED", "/players/0/rack/2"),
        ("DEAL_SIZE", "/players/0/rack"),
    ]
    racks = [["R1", "R2", "R3"], ["K4", "K5", "K6"]]
    pool = _pool_after([t for r in racks for t in r], [])
    pool[pool.index("B2")] = "R1"  # a third R1 in the pool, no B2
    doc = {
        "rules": {"preset": "sabra", "deal": {"2": 3}},
        "players": [{"name": "A", "rack": racks[0]}, {"name": "B", "rack": racks[1]}],
        "pool": pool,
        "turns": [],
    }
    result = replay_game(parse_game_record(doc)).to_json()
    assert [v["code"] for v in result["violations"]] == ["TILE_SUPPLY_EXCEEDED", "POOL_MISMATCH"]
    assert "(missing: B2)" in result["violations"][1]["message"]
    assert "exactly the 100 tiles" in result["violations"][1]["message"]


def test_a_table_turn_that_draws_lists_the_tile_drawn_on_the_rack() -> None:
    racks = [["K10", "B10", "O10"], ["K1", "K2", "R5"]]
    doc = {
        "rules": {"preset": "sabra", "deal": {"2": 3}},
        "players": [{"name": "A", "rack": racks[0]}, {"name": "B", "rack": racks[1]}],
        "pool": _pool_after([t for r in racks for t in r], ["R7", "R8"]),
        "turns": [{"player": "A", "table": []}, {"player": "B", "draw": "R8"}, {"player": "A", "table": []}],
    }
    turns = replay_game(parse_game_record(doc)).to_json()["turns"]
    assert [(t.get("tile"), t.get("rack_after")) for t in turns] == [
        ("R7", ["K10", "B10", "O10", "R7"]),
        ("R8", None),
        ("K1", ["K10", "B10", "O10", "R7", "K1"]),
    ]


@pytest.mark.parametrize("continue_on_error", [True, False])
def test_a_timed_out_play_that_keeps_the_last_tile_and_draws_nothing_goes_out(continue_on_error: bool) -> None:
    """Whether the replay goes on after the turn or stops there, the round ended with it (a
    replay stopping at it said rack_empty false and no result: an independent replay oracle,
    session 43)."""
    doc = {
        "rules": {"preset": "classic-timed", "deal": {"2": 3}, "timeout_penalty": 0},
        "players": [{"name": "A", "rack": ["K10", "B10", "O10"]}, {"name": "B", "rack": ["K1", "K2", "R5"]}],
        "turns": [{"player": "A", "table": [["K10", "B10", "O10"]], "elapsed_seconds": 121}],
    }
    result = replay_game(parse_game_record(doc), continue_on_error=continue_on_error).to_json()
    (turn,) = result["turns"]
    assert turn["valid"] is False and turn["rack_after"] == [] and turn["rack_empty"] is True
    assert result["result"]["ended_by"] == "rack_empty" and result["result"]["winner"] == "A"


@pytest.mark.parametrize(("penalty_tile", "actions", "winner"), [("O5", "round_over", "A"), ("K1", "play", "B")])
def test_a_timed_out_play_that_keeps_the_last_tile_and_whose_penalty_draw_is_refused_goes_out(
    penalty_tile: str, actions: str, winner: str
) -> None:
    """A penalty draw entry refused (DRAW_MISMATCH: under continue it draws nothing) left the
    player in the round with an empty rack, judged with the no-pool stand-in tile (a play of a
    pool tile they never held was legal), and a later empty rack made the record a 422 (the
    replay audit, session 50). The pool's own tile, drawn, keeps the player in."""
    doc = {
        "rules": {"preset": "classic-timed", "deal": {"2": 3}, "timeout_penalty": 1},
        "players": [{"name": "A", "rack": ["K10", "B10", "O10"]}, {"name": "B", "rack": ["K11", "B11", "O11"]}],
        "pool": _pool_after(["K10", "B10", "O10", "K11", "B11", "O11"], ["K1"]),
        "turns": [
            {"player": "A", "table": [["K10", "B10", "O10"]], "elapsed_seconds": 121},
            {"player": "A", "draw": penalty_tile},
            {"player": "B", "table": [["K10", "B10", "O10"], ["K11", "B11", "O11"]]},
        ],
    }
    result = replay_game(parse_game_record(doc), continue_on_error=True).to_json()
    assert [t["action"] for t in result["turns"]] == ["play", "penalty_draw", actions]
    assert result["result"]["winner"] == winner and result["result"]["ended_by"] == "rack_empty"

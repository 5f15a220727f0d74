"""A record without ``turns``, and a replay stopped at its last entry (session 59, helper records).

docs/rules-engine.md, Replay: ``turns`` may be omitted (a round dealt and not yet played); a
replay that stops at an illegal turn does not judge the ``end`` claim, even at the last entry.
"""

from service.operations import run_operation

RACK_A = ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "K1"]
RACK_B = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "B13", "K2"]


def record(**extra):
    return {"players": [{"name": "A", "rack": RACK_A}, {"name": "B", "rack": RACK_B}], **extra}


def test_a_record_without_turns_is_a_round_not_yet_played():
    assert run_operation("games/replay", record(), "en") == run_operation("games/replay", record(turns=[]), "en")
    answer = run_operation("games/replay", record(), "en")
    assert answer["valid"] is True and answer["result"] is None and answer["turns"] == []


def test_an_end_claim_without_turns_is_judged():
    answer = run_operation("games/replay", record(end="pool_exhausted"), "en")
    assert answer["valid"] is False
    assert [(v["code"], v["at"]) for v in answer["violations"]] == [("END_MISMATCH", "/end")]
    assert "78 tiles" in answer["violations"][0]["message"]


def test_a_replay_stopped_at_its_last_entry_does_not_judge_end():
    turns = [{"player": "A", "draw": "O1"}, {"player": "B", "table": [["B1", "B2"]]}]
    stopped = run_operation("games/replay", record(turns=turns, end="pool_exhausted"), "en")
    assert stopped["valid"] is False and stopped["first_invalid_turn"] == 1
    assert stopped["violations"] == []
    continued = run_operation("games/replay", record(turns=turns, end="pool_exhausted", continue_on_error=True), "en")
    assert [v["code"] for v in continued["violations"]] == ["END_MISMATCH"]

"""Hand-made solver positions (tests/data/handmade_suggest.json): 160 `/v1/moves/suggest`
positions an independent audit (session 41) wrote by hand with the best move worked out by
reasoning, mostly around jokers: freeing a table joker with its exact tile and reusing it,
jokers that must stay, locked sets, ``other_set``, pressman-2009's new sets, free-joker, group
jokers, two jokers, openings with and without manipulation, xp copies.

``expect.best`` is the optimum: tiles played (``objective`` ``tiles``) or points (``value``);
``expect.disturbance_at_most`` the (tiles moved, sets touched, new sets) of a best move the
auditor found, which the least-change answer may not exceed. Every answer must verify as a
legal turn under the same rules. tests/data/handmade_suggest_s42.json: 257 more from a second
audit (session 42): pressman-2009 and strict-joker in depth, ``other_set``, both colours, xp with
three or four jokers, openings at their exact thresholds, long chains of rearrangement, 47
positions where nothing can be played, least change between clearly different moves;
``expect.value``, where given, the points of the best move by tiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.app import create_app

pytestmark = pytest.mark.http

DATA = Path(__file__).parent / "data"
CASES = [
    *json.loads((DATA / "handmade_suggest.json").read_text(encoding="utf-8")),
    *json.loads((DATA / "handmade_suggest_s42.json").read_text(encoding="utf-8")),
]


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True, "RUMMIKUB_SOLVER_BUDGET_MS": 30_000}).test_client()


@pytest.mark.parametrize("case", CASES, ids=[f"{i}:{case['name']}" for i, case in enumerate(CASES)])
def test_handmade_suggestion(client: FlaskClient, case: dict[str, Any]) -> None:
    request = case["request"]
    answer = client.post("/v1/moves/suggest", json=request).get_json()
    got = len(answer["played"]) if request.get("objective", "tiles") == "tiles" else answer["value"]
    assert got == case["expect"]["best"], answer
    assert answer["optimal_proven"], answer  # (ten of them proven by trying every move: engine.solver.exhaustive)
    if "value" in case["expect"]:
        assert answer["value"] == case["expect"]["value"], answer
    if "disturbance_at_most" in case["expect"]:
        changes = answer["changes"]
        disturbance = [changes["tiles_moved"], changes["sets_touched"], changes["sets_new"]]
        assert disturbance <= case["expect"]["disturbance_at_most"], answer
    if answer["played"]:
        turn = {"before": request["table"], "after": answer["after"], "rack": request["rack"]}
        verdict = client.post(
            "/v1/turns/verify", json={**turn, "opened": request["opened"], "rules": request.get("rules", "sabra")}
        ).get_json()
        assert verdict["valid"], verdict["violations"]


LOCKED = json.loads((DATA / "suggest_locked_s42.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", LOCKED, ids=[case["name"] for case in LOCKED])
def test_a_locked_joker_set_grows_in_any_reading(client: FlaskClient, case: dict[str, Any]) -> None:
    """Under joker_sets_locked a joker set kept whole grew only as its best reading (``J J R5``
    as a group of 5s), and the fates bounding every move kept it so: nothing was played where
    ``J=R3 J=R4 R5 R6`` is legal, and that was claimed optimal (a session-42 brute-force oracle:
    56 of 13,906 locked positions). Each case's better move verifies; the answer scores at
    least as much."""
    request = case["request"]
    better = {"before": request["table"], "after": case["legal_better_move"], "rack": request["rack"]}
    verdict = client.post(
        "/v1/turns/verify", json={**better, "opened": request["opened"], "rules": request["rules"]}
    ).get_json()
    assert verdict["valid"] and sorted(verdict["played"]) == sorted(case["better_played"]), verdict
    answer = client.post("/v1/moves/suggest", json=request).get_json()
    if request.get("objective") == "value":
        assert answer["value"] >= sum(int(t[1:]) for t in case["better_played"]), answer
    else:
        assert len(answer["played"]) >= len(case["better_played"]), answer
    assert answer["optimal_proven"]


@pytest.mark.parametrize("objective", ["tiles", "value"])
def test_a_joker_freed_into_a_new_set_under_a_reading_other_than_the_best(client: FlaskClient, objective: str) -> None:
    """pressman-2009: ``J J B11`` reads best as a group of 11s, yet as the run B9-B11 its B10
    joker is freed by the rack's B10 into the new set ``J O8 O9``. Only the best reading's
    jokers were tried under the two-rack-tiles rule, and nothing was played (a brute-force
    suggest oracle, session 44)."""
    request = {
        "table": [["J", "J", "B11"], ["O6", "R6", "B6", "K6"], ["O7", "B7", "R7"]],
        "rack": ["B10", "O9", "O8", "B7", "R13", "R5"],
        "opened": True,
        "objective": objective,
        "rules": "pressman-2009",
    }
    answer = client.post("/v1/moves/suggest", json=request).get_json()
    assert sorted(answer["played"]) == ["B10", "O8", "O9"], answer
    turn = {"before": request["table"], "after": answer["after"], "rack": request["rack"], "opened": True}
    assert client.post("/v1/turns/verify", json={**turn, "rules": "pressman-2009"}).get_json()["valid"]

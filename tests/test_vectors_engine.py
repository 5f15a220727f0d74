"""Every shared vector through the engine directly."""

from __future__ import annotations

from typing import Any

import pytest

from engine.rules import resolve_rules
from engine.scoring import MatchRound, PlayerRack, score_match, score_round
from engine.sets import parse_table, parse_tile_list
from engine.turns import verify_turn
from engine.validate import check_meld, validate_sets
from tests import vector_cases as vc


def _players(raw: list[dict[str, Any]], pointer: str) -> tuple[PlayerRack, ...]:
    return tuple(
        PlayerRack(p["name"], parse_tile_list(p["rack"], f"{pointer}/{i}/rack"), p.get("opened"))
        for i, p in enumerate(raw)
    )


@pytest.mark.parametrize("case", vc.load("sets"), ids=vc.case_id)
def test_set_vector(case: dict[str, Any]) -> None:
    body = vc.set_request(case)
    verdict = validate_sets(parse_table(body["sets"], "/sets"), resolve_rules(body.get("rules")))
    vc.check_set_result(case, verdict.to_json()["sets"][0])


@pytest.mark.parametrize("case", vc.load("melds"), ids=vc.case_id)
def test_meld_vector(case: dict[str, Any]) -> None:
    body = case["request"]
    rack = parse_tile_list(body["rack"], "/rack") if "rack" in body else None
    verdict = check_meld(parse_table(body["sets"], "/sets"), rack, resolve_rules(body.get("rules")))
    vc.check_meld(case, verdict.to_json())


@pytest.mark.parametrize("case", vc.load("turns"), ids=vc.case_id)
def test_turn_vector(case: dict[str, Any]) -> None:
    body = case["request"]
    verdict = verify_turn(
        parse_table(body["before"], "/before"),
        parse_table(body["after"], "/after"),
        parse_tile_list(body["rack"], "/rack"),
        body["opened"],
        resolve_rules(body.get("rules")),
        body.get("elapsed_seconds"),
    )
    vc.check_turn(case, verdict.to_json())


@pytest.mark.parametrize("case", vc.load("rounds"), ids=vc.case_id)
def test_round_vector(case: dict[str, Any]) -> None:
    body = case["request"]
    result = score_round(_players(body["players"], "/players"), resolve_rules(body.get("rules")), body.get("winner"))
    vc.check_round(case, result.to_json())


@pytest.mark.parametrize("case", vc.load("matches"), ids=vc.case_id)
def test_match_vector(case: dict[str, Any]) -> None:
    body = case["request"]
    rounds = [
        MatchRound(_players(r["players"], f"/rounds/{i}/players"), r.get("winner"))
        for i, r in enumerate(body["rounds"])
    ]
    vc.check_match(case, score_match(rounds, resolve_rules(body.get("rules"))).to_json())

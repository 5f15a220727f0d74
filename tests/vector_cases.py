"""Loading the shared rule vectors (tests/vectors, a copy of ../shared/vectors) and checking a
response against a case's expectations; used by the engine, API and CLI vector tests alike."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from engine import validate
from engine.rules import resolve_rules
from engine.scoring import MatchRound, PlayerRack, score_match, score_round
from engine.sets import parse_table, parse_tile_list
from engine.turns import verify_turn

VECTORS = Path(__file__).parent / "vectors"


def load(name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))
    return cases


def case_id(case: dict[str, Any]) -> str:
    return str(case.get("name") or " ".join(map(str, case.get("set", []))) or json.dumps(case)[:60])


def set_request(case: dict[str, Any]) -> dict[str, Any]:
    """A sets.json case as a POST /v1/sets/validate body."""
    body: dict[str, Any] = {"sets": [case["set"]]}
    if "rules" in case:
        body["rules"] = case["rules"]
    return body


def check_set_result(case: dict[str, Any], result: dict[str, Any]) -> None:
    expect = case["expect"]
    assert result["valid"] is expect["valid"], result
    if expect["valid"]:
        assert result["value"] == expect["value"]
        if "kinds" in expect:
            assert sorted({r["kind"] for r in result["readings"]}) == sorted(expect["kinds"])
    else:
        codes = [v["code"] for v in result["violations"]]
        wanted = expect["code"] if isinstance(expect["code"], list) else [expect["code"]]
        assert codes and codes[0] in wanted, codes


def check_meld(case: dict[str, Any], result: dict[str, Any]) -> None:
    expect = case["expect"]
    assert result["valid"] is expect["valid"], result
    assert set(expect["codes"]) <= {v["code"] for v in result["violations"]}
    if "value" in expect:
        assert result["value"] == expect["value"]


def check_turn(case: dict[str, Any], result: dict[str, Any]) -> None:
    expect = case["expect"]
    assert result["valid"] is expect["valid"], result
    assert set(expect["codes"]) <= {v["code"] for v in result["violations"]}, result["violations"]
    for key, value in expect.items():
        if key in ("valid", "codes"):
            continue
        if key in ("played", "rack_after"):
            assert Counter(result[key]) == Counter(value), key
        elif key == "penalty" and value is not None:
            check_penalty(value, result[key])
        else:
            assert result[key] == value, key


def check_penalty(expect: dict[str, Any], penalty: dict[str, Any] | None) -> None:
    """The keys given must match; ``kept`` as a multiset of sets (each set up to tile order),
    ``returned`` as a multiset of tiles (vectors README)."""
    assert penalty is not None
    for key, value in expect.items():
        if key == "kept":
            assert Counter(tuple(sorted(s)) for s in penalty[key]) == Counter(tuple(sorted(s)) for s in value), key
        elif key == "returned":
            assert Counter(penalty[key]) == Counter(value), key
        else:
            assert penalty[key] == value, key


def check_round(case: dict[str, Any], result: dict[str, Any]) -> None:
    expect = case["expect"]
    for key in ("winner", "ended_by"):
        if key in expect:
            assert result[key] == expect[key]
    assert {s["name"]: s["score"] for s in result["scores"]} == expect["scores"]


def check_match(case: dict[str, Any], result: dict[str, Any]) -> None:
    expect = case["expect"]
    assert {t["name"]: t["total"] for t in result["totals"]} == expect["totals"]
    if "winner" in expect:
        assert result["winner"] == expect["winner"]


# --- the engine's own answer to a request body (what the API and CLI must match) ------------


def engine_players(raw: list[dict[str, Any]], pointer: str) -> tuple[PlayerRack, ...]:
    return tuple(
        PlayerRack(p["name"], parse_tile_list(p["rack"], f"{pointer}/{i}/rack"), p.get("opened"))
        for i, p in enumerate(raw)
    )


def engine_sets(body: dict[str, Any]) -> dict[str, Any]:
    return validate.validate_sets(parse_table(body["sets"], "/sets"), resolve_rules(body.get("rules"))).to_json()


def engine_meld(body: dict[str, Any]) -> dict[str, Any]:
    rack = parse_tile_list(body["rack"], "/rack") if body.get("rack") is not None else None
    return validate.check_meld(parse_table(body["sets"], "/sets"), rack, resolve_rules(body.get("rules"))).to_json()


def engine_turn(body: dict[str, Any]) -> dict[str, Any]:
    verdict = verify_turn(
        parse_table(body["before"], "/before"),
        parse_table(body["after"], "/after"),
        parse_tile_list(body["rack"], "/rack"),
        body["opened"],
        resolve_rules(body.get("rules")),
        body.get("elapsed_seconds"),
    )
    return verdict.to_json()


def engine_round(body: dict[str, Any]) -> dict[str, Any]:
    players = engine_players(body["players"], "/players")
    return score_round(players, resolve_rules(body.get("rules")), body.get("winner")).to_json()


def engine_match(body: dict[str, Any]) -> dict[str, Any]:
    rounds = [
        MatchRound(
            engine_players(r["players"], f"/rounds/{i}/players"),
            r.get("winner"),
            resolve_rules(r["rules"]) if r.get("rules") is not None else None,
        )
        for i, r in enumerate(body["rounds"])
    ]
    return score_match(rounds, resolve_rules(body.get("rules"))).to_json()

"""Loading the shared rule vectors (tests/vectors, a copy of ../shared/vectors) and checking a
response against a case's expectations; used by the engine, API and CLI vector tests alike."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

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
        else:
            assert result[key] == value, key


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

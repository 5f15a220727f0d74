"""Hand-made turns (tests/data/handmade_turns.json): 551 `/v1/turns/verify` cases that two
independent audits (session 41) wrote from SPEC.md and RULES.md alone, each with the sentence
deciding it (``why``), before reading this project's docs: the rulebooks' named manipulations,
jokers under every preset and joker setting, locked sets, both colours, xp copies, openings
with and without manipulation, timeouts keeping their sets. Where SPEC is silent and the
service's documented choice differs from the auditor's reading, the case holds the service's
answer and says why in ``theirs`` (three cases).

``expect``: ``valid``; ``codes`` that must be among the violations; ``exact_codes``, the
sorted codes exactly; ``not_codes``, codes that must not appear; ``set_codes_any``, one of
them an ``INVALID_SET``'s ``set_code``; ``n_invalid``, the count of ``INVALID_SET``; any other
key (dotted for ``penalty.…``) equal to the response's field, tile lists and sets compared as
multisets."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.app import create_app

pytestmark = pytest.mark.http

CASES = json.loads((Path(__file__).parent / "data" / "handmade_turns.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def _same(got: Any, want: Any) -> bool:
    """Equal, lists of tiles as multisets and lists of sets as multisets of multisets."""
    if isinstance(want, list) and isinstance(got, list) and want and all(isinstance(x, list) for x in want):
        return Counter(tuple(sorted(s)) for s in got) == Counter(tuple(sorted(s)) for s in want)
    if isinstance(want, list) and isinstance(got, list):
        return Counter(map(str, got)) == Counter(map(str, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return all(key in got and _same(got[key], value) for key, value in want.items())
    return bool(got == want)


def _field(result: dict[str, Any], dotted: str) -> Any:
    value: Any = result
    for key in dotted.split("."):
        value = None if value is None else value.get(key)
    return value


def test_the_cases_are_many_and_each_says_why() -> None:
    assert len(CASES) >= 500
    assert all(case["why"] and case["expect"].get("valid") is not None for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[f"{i}:{case['name']}" for i, case in enumerate(CASES)])
def test_handmade_turn(client: FlaskClient, case: dict[str, Any]) -> None:
    response = client.post("/v1/turns/verify", json=case["request"])
    assert response.status_code == 200, response.get_data(as_text=True)
    result = response.get_json()
    codes = [v["code"] for v in result["violations"]]
    expect = case["expect"]
    assert result["valid"] is expect["valid"], (case["why"], codes)
    for key, want in expect.items():
        if key == "valid":
            continue
        if key == "codes":
            assert set(want) <= set(codes), (case["why"], codes)
        elif key == "exact_codes":
            assert sorted(codes) == sorted(want), (case["why"], codes)
        elif key == "not_codes":
            assert not set(want) & set(codes), (case["why"], codes)
        elif key == "set_codes_any":
            assert {v.get("set_code") for v in result["violations"] if v["code"] == "INVALID_SET"} & set(want)
        elif key == "n_invalid":
            assert codes.count("INVALID_SET") == want, codes
        else:
            assert _same(_field(result, key), want), (key, _field(result, key), want, case["why"])

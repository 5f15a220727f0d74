"""Hand-made joker cases of a fifth audit (session 49, tests/data/handmade_cases_s49.json):
594 requests written from SPEC.md and RULES.md alone with the answer worked out by hand (the
1/13 ends, two jokers in a set, declared jokers and kinds, identity through splits and
merges, replacement from the rack or the table, freed jokers' uses, locked sets,
``strict_order``, openings and their values, timeouts keeping sets, rack penalties), and 500
turns an own checker judged, across every joker setting. One case SPEC leaves open (a locked
group of three whose joker is "freed" by a missing colour and stays in it) is left out.

``expect``: ``valid``; ``codes`` that must be among the violations (none when valid; any when invalid and empty);
``forbid_codes`` that must not; ``value``, ``kinds`` (the kinds of the valid readings),
``code`` (a set's primary code), ``readings`` ([kind, value] pairs) for a set; any other key
equal to the response's field (``penalty`` compared on the keys given, tiles and sets as
multisets; ``scores`` by player name)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from service.operations import run_operation
from tests.test_handmade_cases import same_answer

CASES = json.loads((Path(__file__).parent / "data" / "handmade_cases_s49.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_handmade_case_s49(case: dict[str, Any]) -> None:
    answer = run_operation(case["op"], case["request"], "en")
    expect = dict(case["expect"])
    if case["op"] == "sets/validate":
        (answer,) = answer["sets"]
        kinds, code, readings = expect.pop("kinds", None), expect.pop("code", None), expect.pop("readings", None)
        if kinds is not None:
            assert sorted({r["kind"] for r in answer["readings"]}) == sorted(kinds), answer
        if code is not None:
            assert answer["violations"][0]["code"] in ([code] if isinstance(code, str) else code), answer
        if readings is not None:
            assert sorted([r["kind"], r["value"]] for r in answer["readings"]) == sorted(readings), answer
    if case["op"] == "rounds/score":
        scores = {s["name"]: s["score"] for s in answer["scores"]}
        assert scores == expect.pop("scores"), answer
    found = [v["code"] for v in answer.get("violations", [])]
    want = expect.pop("codes", None)
    if want is not None:
        assert not (Counter(want) - Counter(found)), (found, answer)
        assert want or not found or not expect.get("valid", True), found  # (invalid: any codes)
    assert not set(expect.pop("forbid_codes", ())) & set(found), found
    for key, value in expect.items():
        assert same_answer(answer.get(key), value), (key, answer.get(key), value)

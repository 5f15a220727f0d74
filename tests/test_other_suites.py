"""Other projects' test cases (tests/other_suites, see its README) through the HTTP API.

Each case was written by another project for its own engine, translated into our notation; the
answer must meet the case's expectation, and every suggestion must verify as a legal turn."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from tests import vector_cases as vc

pytestmark = pytest.mark.http

SUITES = Path(__file__).parent / "other_suites"
KINDS = ("sets", "melds", "turns", "rounds", "matches", "arrange", "suggest")


def _cases(kind: str) -> list[Any]:
    cases = []
    for path in sorted(SUITES.glob("*.json")):
        suite = json.loads(path.read_text(encoding="utf-8"))
        for case in suite.get(kind, []):
            cases.append(pytest.param(case, id=f"{path.stem}:{case['name']}"))
    return cases


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True, "RUMMIKUB_SOLVER_BUDGET_MS": 30_000}).test_client()


def _post(client: FlaskClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    result: dict[str, Any] = response.get_json()
    return result


def test_every_suite_is_well_formed() -> None:
    suites = sorted(SUITES.glob("*.json"))
    assert len(suites) >= 50, "the suites are missing"
    for kind in KINDS:
        assert _cases(kind), f"no {kind} case"
    for path in suites:
        suite = json.loads(path.read_text(encoding="utf-8"))
        source = suite["source"]
        assert path.stem == source["repo"].replace("/", "__")
        assert len(source["commit"]) == 40 and source["files"]
        assert set(suite) <= {"source", *KINDS}, path
        for kind in KINDS:
            for case in suite.get(kind, []):
                assert case["name"] and case["from"] and "expect" in case, (path, case)


def test_the_readme_counts_the_cases_it_holds() -> None:
    """The README's count of other projects' cases is the folder's (it was stale: a docs
    audit, session 43)."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    said = re.search(r"holds ([\d,]+) cases taken from (\d+) other", readme)
    assert said is not None, "README no longer says how many cases tests/other_suites holds"
    cases = sum(len(_cases(kind)) for kind in KINDS)
    assert (int(said[1].replace(",", "")), int(said[2])) == (cases, len(list(SUITES.glob("*.json"))))


@pytest.mark.parametrize("case", _cases("sets"))
def test_set(client: FlaskClient, case: dict[str, Any]) -> None:
    vc.check_set_result(case, _post(client, "/v1/sets/validate", vc.set_request(case))["sets"][0])


# The verdicts whose request is the case's own, by kind: the endpoint and the vectors' check.
VERDICTS = {
    "melds": ("/v1/melds/check", vc.check_meld),
    "turns": ("/v1/turns/verify", vc.check_turn),
    "rounds": ("/v1/rounds/score", vc.check_round),
    "matches": ("/v1/matches/score", vc.check_match),
}


@pytest.mark.parametrize(
    ("kind", "case"), [pytest.param(kind, *param.values, id=param.id) for kind in VERDICTS for param in _cases(kind)]
)
def test_verdict(client: FlaskClient, kind: str, case: dict[str, Any]) -> None:
    path, check = VERDICTS[kind]
    check(case, _post(client, path, case["request"]))


@pytest.mark.parametrize("case", _cases("arrange"))
def test_arrange(client: FlaskClient, case: dict[str, Any]) -> None:
    result = _post(client, "/v1/tables/arrange", case["request"])
    assert result["arrangeable"] is case["expect"]["arrangeable"], result
    if result["arrangeable"]:
        laid = Counter(t for s in result["sets"] for t in s)
        assert sum(laid.values()) == len(case["request"]["tiles"]), result
        checked = _post(client, "/v1/sets/validate", {"sets": result["sets"], "rules": case["request"].get("rules")})
        assert checked["valid"], checked


@pytest.mark.parametrize("case", _cases("suggest"))
def test_suggest(client: FlaskClient, case: dict[str, Any]) -> None:
    body = case["request"]
    result = _post(client, "/v1/moves/suggest", body)
    expect = case["expect"]
    assert result["optimal_proven"] is True, result
    if "played_count" in expect:
        assert len(result["played"]) == expect["played_count"], result
    if "value" in expect:
        assert result["value"] == expect["value"], result
    if result["played"]:
        turn = {
            "before": body["table"],
            "after": result["after"],
            "rack": body["rack"],
            "opened": body["opened"],
            "rules": body.get("rules"),
        }
        verdict = _post(client, "/v1/turns/verify", {k: v for k, v in turn.items() if v is not None})
        assert verdict["valid"], verdict["violations"]

"""Set reading against an independent reader (tests/data/handmade_sets_s42.json): a session-42
audit wrote its own reader of SPEC §2 and compared every field of `/v1/sets/validate` and
`/v1/melds/check` on about 1.2 million sets (exhaustive short sequences over the edges of
runs and groups, declared jokers right and wrong, every preset, `strict_order`, declared
kinds, xp, the supply across sets). These are 1,587 of its sets with the whole expected
answer (messages aside), 22 meld checks and 194 unreadable requests with their pointers."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.app import create_app

pytestmark = pytest.mark.http

DATA = json.loads((Path(__file__).parent / "data" / "handmade_sets_s42.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def _reading(reading: dict[str, Any]) -> str:
    return json.dumps(reading, sort_keys=True)


@pytest.mark.parametrize("case", DATA["sets"], ids=[case["name"] for case in DATA["sets"]])
def test_set_reading(client: FlaskClient, case: dict[str, Any]) -> None:
    response = client.post(case["endpoint"], json=case["request"])
    assert response.status_code == 200, response.get_data(as_text=True)
    result = response.get_json()
    assert result["valid"] is case["expect"]["valid"], case["why"]
    assert len(result["sets"]) == len(case["expect"]["sets"])
    for got, want in zip(result["sets"], case["expect"]["sets"], strict=True):
        assert (got["valid"], got["kind"], got["value"]) == (want["valid"], want["kind"], want["value"]), case["why"]
        assert Counter(map(_reading, got["readings"])) == Counter(map(_reading, want["readings"])), case["why"]
        assert [(v["code"], v["at"]) for v in got["violations"]] == [(v["code"], v["at"]) for v in want["violations"]]


@pytest.mark.parametrize("case", DATA["melds"], ids=[case["name"] for case in DATA["melds"]])
def test_meld_check(client: FlaskClient, case: dict[str, Any]) -> None:
    result = client.post(case["endpoint"], json=case["request"]).get_json()
    want = case["expect"]
    assert (result["valid"], result["value"], result["threshold"]) == (want["valid"], want["value"], want["threshold"])
    assert Counter(v["code"] for v in result["violations"]) == Counter(want["codes"])


@pytest.mark.parametrize("case", DATA["input_errors"], ids=[case["name"] for case in DATA["input_errors"]])
def test_unreadable_request(client: FlaskClient, case: dict[str, Any]) -> None:
    response = client.post(case["endpoint"], json=case["request"])
    assert response.status_code == case["expect"]["status"]
    assert response.mimetype == "application/problem+json"
    pointers = [e["pointer"] for e in response.get_json()["errors"]]
    assert pointers in ([case["expect"]["pointer"]], [case["expect"]["pointer_alt"]]), pointers

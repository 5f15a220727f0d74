"""Every shared rule vector through the HTTP API (Flask test client): the answer must be the
engine's own answer, and must meet the vector's expectations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from tests import vector_cases as vc

pytestmark = pytest.mark.http


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def _post(client: FlaskClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    result: dict[str, Any] = response.get_json()
    return result


def _same_as_engine(
    client: FlaskClient, path: str, body: dict[str, Any], engine: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    result = _post(client, path, body)
    assert result == engine(body)
    return result


@pytest.mark.parametrize("case", vc.load("sets"), ids=vc.case_id)
def test_set_vector(client: FlaskClient, case: dict[str, Any]) -> None:
    result = _same_as_engine(client, "/v1/sets/validate", vc.set_request(case), vc.engine_sets)
    vc.check_set_result(case, result["sets"][0])


@pytest.mark.parametrize("case", vc.load("melds"), ids=vc.case_id)
def test_meld_vector(client: FlaskClient, case: dict[str, Any]) -> None:
    vc.check_meld(case, _same_as_engine(client, "/v1/melds/check", case["request"], vc.engine_meld))


@pytest.mark.parametrize("case", vc.load("turns"), ids=vc.case_id)
def test_turn_vector(client: FlaskClient, case: dict[str, Any]) -> None:
    vc.check_turn(case, _same_as_engine(client, "/v1/turns/verify", case["request"], vc.engine_turn))


@pytest.mark.parametrize("case", vc.load("rounds"), ids=vc.case_id)
def test_round_vector(client: FlaskClient, case: dict[str, Any]) -> None:
    vc.check_round(case, _same_as_engine(client, "/v1/rounds/score", case["request"], vc.engine_round))


@pytest.mark.parametrize("case", vc.load("matches"), ids=vc.case_id)
def test_match_vector(client: FlaskClient, case: dict[str, Any]) -> None:
    vc.check_match(case, _same_as_engine(client, "/v1/matches/score", case["request"], vc.engine_match))


def test_every_vector_file_is_covered() -> None:
    covered = {"sets", "melds", "turns", "rounds", "matches"}
    present = {p.stem for p in vc.VECTORS.glob("*.json")}
    assert present <= covered, f"vector files without an API test: {sorted(present - covered)}"

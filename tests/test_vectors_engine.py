"""Every shared vector through the engine directly."""

from __future__ import annotations

from typing import Any

import pytest

from tests import vector_cases as vc


@pytest.mark.parametrize("case", vc.load("sets"), ids=vc.case_id)
def test_set_vector(case: dict[str, Any]) -> None:
    vc.check_set_result(case, vc.engine_sets(vc.set_request(case))["sets"][0])


@pytest.mark.parametrize("case", vc.load("melds"), ids=vc.case_id)
def test_meld_vector(case: dict[str, Any]) -> None:
    vc.check_meld(case, vc.engine_meld(case["request"]))


@pytest.mark.parametrize("case", vc.load("turns"), ids=vc.case_id)
def test_turn_vector(case: dict[str, Any]) -> None:
    vc.check_turn(case, vc.engine_turn(case["request"]))


@pytest.mark.parametrize("case", vc.load("rounds"), ids=vc.case_id)
def test_round_vector(case: dict[str, Any]) -> None:
    vc.check_round(case, vc.engine_round(case["request"]))


@pytest.mark.parametrize("case", vc.load("matches"), ids=vc.case_id)
def test_match_vector(case: dict[str, Any]) -> None:
    vc.check_match(case, vc.engine_match(case["request"]))

"""The lender cap (``engine.joker_replacement.LENDER_CHOICES``) is wide enough, and applied
(the cutfuzz audit, session 59): this legal turn's one passing naming of lenders is the 24th
tried (index 23), the highest any legal turn was seen to need. Under a cap of 23 it is refused;
under the cap it is legal, as with no cap."""

import json

import pytest

from engine import joker_replacement
from service.operations import run_operation

TURN = {
    "rules": {
        "joker_sets_locked": True,
        "tiles": "xp",
        "group_joker_needs_both_colours": True,
        "joker_release": "replace",
        "freed_joker_use": "any_set",
        "joker_replacement_from": "rack_or_table",
    },
    "before": [["B6", "K6", "J"], ["B6", "R6", "J"], ["K6", "O6", "J"], ["K6", "O6", "R6", "J"]],
    "after": [["B6", "K6", "J"], ["B6", "K6", "O6"], ["B6", "K6", "R6"], ["O6", "R6", "J"], ["J", "J", "K13"]],
    "rack": ["B6", "K13"],
    "opened": True,
}


def _verify() -> dict:
    return run_operation("turns/verify", json.loads(json.dumps(TURN)), "en")


def test_the_cap_holds_the_naming_this_turn_needs() -> None:
    assert joker_replacement.LENDER_CHOICES > 23
    assert _verify()["valid"] is True


@pytest.mark.parametrize(("cap", "valid"), [(23, False), (24, True), (10**9, True)])
def test_the_cap_is_applied(monkeypatch: pytest.MonkeyPatch, cap: int, valid: bool) -> None:
    monkeypatch.setattr(joker_replacement, "LENDER_CHOICES", cap)
    assert _verify()["valid"] is valid

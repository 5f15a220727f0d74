"""Under joker_sets_locked an untouched joker set is the same set however it is written (its
joker declared as the tile it stands for, its one kind declared): the verdict does not change
(SPEC §4; white-box audit h1-F2, session 51)."""

from __future__ import annotations

from typing import Any

import pytest

from service.operations import run_operation

STRICT = {
    "rules": "strict-joker",
    "rack": ["R7", "K4", "B4", "O9"],
    "before": [["R4", "R5", "J"], ["R4", "R5", "R6", "J"]],
    "after": [["R5", "J", "R7"], None, ["R4", "K4", "B4"]],
}
XP = {
    "rules": {"preset": "xp", "joker_sets_locked": True},
    "rack": ["B6", "B11", "R10"],
    "before": [["K3", "B3", "J", "J"], ["O3", "K3", "B3", "J"]],
    "after": [["B3", "J", "J"], None, ["K3", "B6", "B11"]],
}


def _verdict(case: dict[str, Any], written: object, opened: bool) -> tuple[Any, ...]:
    body = {**case, "opened": opened, "after": [written if s is None else s for s in case["after"]]}
    r = run_operation("turns/verify", body, "en")
    return r["valid"], r["jokers_freed"], sorted(v["code"] for v in r["violations"])


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize(
    ("case", "ways"),
    [
        (
            STRICT,
            [["R4", "R5", "R6", "J"], ["R4", "R5", "R6", "J=R7"], {"tiles": ["R4", "R5", "R6", "J"], "kind": "run"}],
        ),
        (
            XP,
            [["O3", "K3", "B3", "J"], ["O3", "K3", "B3", "J=R3"], {"tiles": ["O3", "K3", "B3", "J"], "kind": "group"}],
        ),
    ],
)
def test_an_untouched_joker_set_written_otherwise_is_the_same_set(
    case: dict[str, Any], ways: list[Any], opened: bool
) -> None:
    verdicts = {repr(_verdict(case, way, opened)) for way in ways}
    assert len(verdicts) == 1, verdicts


def test_the_plain_opening_is_a_broken_set() -> None:
    assert _verdict(STRICT, ["R4", "R5", "R6", "J=R7"], False) == (
        False,
        0,
        ["INITIAL_MELD_TOO_LOW", "JOKER_SET_BROKEN", "MANIPULATION_BEFORE_OPENING"],
    )

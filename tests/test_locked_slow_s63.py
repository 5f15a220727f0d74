"""Session 63's exact cut of the locked copy search (``joker_replacement._avoided``), W2SYM-1 of
session 62: ``B8 J O8`` ×2 + ``K8 J R8`` ×2 locked (xp, ``group_joker_needs_both_colours``,
``new_set_with_two_rack_tiles``), laid again as four groups with the played 8s, each joker moved
to a new set of two played tiles: a legal turn of 5.7 s. Its one joint check
(``replaced_within``) avoids, for each set, the new set its joker went to (``avoid``), an
after-set holding none of its tiles: no successor of it, so a pair changing nothing in the
search, yet one that made the twin sets (``twins``) no longer alike, and kept ``may_hold`` from
bounding the lent copies' placements: its first pass laid 9,949 leaves before the chain of
lenders was found.

``_avoided`` leaves out such pairs (those of a set with a tile that one successor alone holds
kept: named at all, ``joker_stays.can_hold_copies`` lays that copy there). Beside it, ``may_hold``
bounds a branch with the pairs kept too (it did not with any), and a count-only question of no
unmet need (``most`` 0) is answered by the first pass, every need met, alone (family turns with an
invalid group, 60 joint checks failing each after 3,700 steps: over 300 s before, 9 s). The
answers are those of before: the turn and two more of its family pinned (en, es), and family turns answered cut
from the first step (``SMALL_SEARCH`` 0) as with the cuts off. The work is counted in calls:
``can_hold_copies`` 57,640 -> 4,580, ``_lenders`` 10,132 -> 149."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine import joker_replacement
from service.operations import run_operation
from tests.test_locked_cuts_s62 import counted
from tests.test_worst_verify_s61 import RULES

SLOW = {
    "before": [["B8", "J", "O8"], ["B8", "J", "O8"], ["K8", "J", "R8"], ["K8", "J", "R8"]],
    "after": [
        ["B8", "O8", "K8"],
        ["B8", "O8", "R8"],
        ["K8", "R8", "B8"],
        ["K8", "R8", "O8"],
        ["K1", "K2", "J"],
        ["R1", "R2", "J"],
        ["B1", "B2", "J"],
        ["O1", "O2", "J"],
    ],
    "rack": ["K8", "R8", "B8", "O8", "K1", "K2", "R1", "R2", "B1", "B2", "O1", "O2"],
    "opened": True,
    "rules": RULES,
}
# Turns of its family that took 5.6-6.0 s before (legal), answered as before
FAMILY = [
    {
        "before": [["R9", "K9", "J"], ["J", "B9", "O9"], ["O9", "B9", "J"], ["R9", "K9", "J"]],
        "after": [
            ["R7", "J", "B7"],
            ["B9", "O9", "K9"],
            ["B9", "R9", "K9"],
            ["O6", "O5", "J"],
            ["K9", "O9", "R9"],
            ["B2", "J", "B3"],
            ["B11", "B10", "J"],
            ["R9", "O9", "B9"],
        ],
        "rack": ["B11", "B10", "B7", "B3", "R7", "O3", "K9", "O6", "B2", "R9", "B9", "O5", "O9"],
        "opened": True,
        "rules": RULES,
    },
    {
        "before": [["J", "R3", "K3"], ["B3", "J", "O3"], ["J", "O3", "B3"], ["R3", "J", "K3"]],
        "after": [
            ["R10", "R9", "J"],
            ["J", "K11", "B11"],
            ["B3", "K3", "R3"],
            ["J", "B11", "O11"],
            ["R5", "K5", "J"],
            ["O3", "K3", "B3"],
            ["R3", "K3", "O3"],
            ["O3", "R3", "B3"],
        ],
        "rack": ["R3", "O11", "B11", "R5", "O3", "B11", "B4", "R9", "R10", "K5", "B3", "K3", "K11"],
        "opened": True,
        "rules": RULES,
    },
]
PLAYED = [
    ["K9", "B2", "B3", "B7", "B9", "B10", "B11", "O5", "O6", "O9", "R7", "R9"],
    ["K3", "K5", "K11", "B3", "B11", "B11", "O3", "O11", "R3", "R5", "R9", "R10"],
]
# Turns whose joint checks avoid sets that are successors of the sets avoiding them (their
# ``may_hold`` bounds them with those pairs, below) beside pairs left out: cheap uncut
CHECKED = [
    {
        "before": [["J", "R13", "K13"], ["J", "B13", "O13"], ["J", "K13", "R13"], ["K13", "J", "R13"]],
        "after": [
            ["O13", "R13", "K13"],
            ["O13", "K13", "B13"],
            ["J", "O13", "B13"],
            ["O6", "J", "K6"],
            ["R13", "R13", "B13", "K13"],
            ["B5", "J", "J", "R5"],
        ],
        "rack": ["B13", "R5", "O13", "O13", "O6", "B13", "B5", "K6"],
        "opened": True,
        "rules": RULES,
    },
    {
        "before": [["O4", "J", "B4"], ["R4", "K4", "J"], ["K4", "J", "R4"], ["K4", "J", "R4"]],
        "after": [
            ["O11", "J", "O12"],
            ["K2", "K3", "J"],
            ["R4", "B4", "K4"],
            ["K4", "O4", "R4", "B4"],
            ["O4", "B4", "J"],
            ["O4", "K4", "R4"],
            ["R2", "J", "R1"],
        ],
        "rack": ["R1", "R2", "B4", "B4", "O12", "O4", "O11", "O4", "K2", "K3"],
        "opened": False,
        "rules": RULES,
    },
    {
        "before": [["J", "R12", "B12"], ["J", "R12", "B12"], ["O12", "J", "K12"], ["J", "O12", "K12"]],
        "after": [
            ["O12", "K12", "J"],
            ["R12", "B12", "O12", "K12"],
            ["R2", "J", "R3"],
            ["R12", "B12", "O12"],
            ["K12", "B12", "R12"],
            ["B9", "J", "J", "O9"],
        ],
        "rack": ["R12", "R2", "B9", "B12", "O9", "R3", "O12", "K12"],
        "opened": True,
        "rules": {**RULES, "joker_replacement_from": "rack"},
    },
]


def verify(body: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    return run_operation("turns/verify", copy.deepcopy(body), lang)


def legal(played: list[str], rack_after: list[str]) -> dict[str, Any]:
    return {
        "valid": True,
        "action": "play",
        "played": played,
        "rack_after": rack_after,
        "opened_after": True,
        "initial_meld": None,
        "jokers_freed": 4,
        "rack_empty": not rack_after,
        "violations": [],
        "penalty": None,
    }


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_answer_is_that_of_before(lang: str) -> None:
    played = ["K1", "K2", "K8", "B1", "B2", "B8", "O1", "O2", "O8", "R1", "R2", "R8"]
    assert verify(SLOW, lang) == legal(played, [])


@pytest.mark.parametrize("i", range(len(FAMILY)))
def test_its_family_answers_as_before(i: int) -> None:
    rack_after = ["O3"] if i == 0 else ["B4"]
    assert verify(FAMILY[i]) == legal(PLAYED[i], rack_after)


def test_the_work_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counted(monkeypatch)
    assert verify(SLOW)["valid"] is True
    assert calls["_lenders"] < 1000  # (10,132 before)
    assert calls["can_hold_copies"] < 10_000  # (57,640 before)


@pytest.mark.parametrize("body", [*CHECKED, SLOW], ids=[*(f"checked{i}" for i in range(len(CHECKED))), "slow"])
def test_the_pairs_left_out_are_those_changing_nothing(monkeypatch: pytest.MonkeyPatch, body: dict[str, Any]) -> None:
    """Every search's ``avoid`` as left (``_avoided``): a pair left out names an after-set that is
    no successor of its source, and a source keeping no pair has no tile one successor alone
    holds; what a source keeps is all its successor pairs."""
    asked: list[tuple[Any, frozenset[tuple[int, int]]]] = []
    replace = joker_replacement._replace

    def spy(
        search: Any, demands: Any, holders: Any, wholes: Any, code: str, avoid: Any = frozenset(), *rest: Any
    ) -> Any:
        asked.append((search, avoid))
        return replace(search, demands, holders, wholes, code, avoid, *rest)

    monkeypatch.setattr(joker_replacement, "_replace", spy)
    verify(body)
    assert any(joker_replacement._avoided(search, avoid) != avoid for search, avoid in asked)
    for search, avoid in asked:
        kept = joker_replacement._avoided(search, avoid)
        assert kept <= avoid
        for n in {n for n, _ in avoid}:
            source = search.sources[n]
            mine = {(m, k) for m, k in avoid if m == n}
            named = {(m, k) for m, k in mine if k in source.successors}
            lone = any(
                not search.removed.get(key)
                and sum(1 for k in source.successors if search.after[k].numbered_counts.get(key)) == 1
                for key in source.numbered
            )
            assert {(m, k) for m, k in kept if m == n} == (mine if lone and not named else named)


@pytest.mark.parametrize("body", CHECKED, ids=[f"checked{i}" for i in range(len(CHECKED))])
def test_cuts_answer_as_the_plain_search(monkeypatch: pytest.MonkeyPatch, body: dict[str, Any]) -> None:
    with monkeypatch.context() as plain:
        plain.setattr(joker_replacement, "SEARCH_CUTS", False)
        expected = {lang: verify(body, lang) for lang in ("en", "es")}
    monkeypatch.setattr(joker_replacement, "SMALL_SEARCH", 0)
    assert {lang: verify(body, lang) for lang in ("en", "es")} == expected
    monkeypatch.setattr(joker_replacement, "SMALL_SEARCH", 1000)
    assert {lang: verify(body, lang) for lang in ("en", "es")} == expected

"""The costliest verify known in session 61 (xp, ``joker_sets_locked`` with
``group_joker_needs_both_colours``, ``freed_joker_use: new_set_with_two_rack_tiles``): two locked
``K7 J R7`` and two locked ``B9 J O9`` laid again whole with a played third colour, their four
jokers in groups of two played tiles. Each placement of the freed jokers its new-set checks pass
asks whether their replacements hold as well with its sets kept apart (``joker_use.placements``'
``jointly``): 293 searches of ``joker_replacement._replace`` with as many keys, 1.4 s of CPU (2.5 s
beside eight untouched jokerless groups, which run out of ``JOINT_CHECK_STEPS`` and are judged
again leniently). Since session 61 the search takes no successor whose copies of the set's tiles
are all played ones a new set fixes there, and ``replaced_within`` asks only whether the count
stays within the one with nothing kept apart: the same answers, a quarter of the work.

The answers are pinned as they were before (every field, en and es); the work is counted in calls
(``_spots``: a demand's ways tried; ``joker_stays.can_hold_copies``: a way's copies laid), not time:
before, 10,400 and 14,976 for the first turn, 21,123 and 31,359 beside the padding."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from engine import joker_replacement, joker_stays
from service.operations import run_operation

RULES = {
    "preset": "xp",
    "joker_sets_locked": True,
    "group_joker_needs_both_colours": True,
    "freed_joker_use": "new_set_with_two_rack_tiles",
}
SLOW = {
    "before": [["K7", "J", "R7"], ["K7", "J", "R7"], ["B9", "J", "O9"], ["B9", "J", "O9"]],
    "after": [
        ["K7", "R7", "B7"],
        ["K7", "R7", "B7"],
        ["J", "R7", "B7"],
        ["J", "K7", "O7"],
        ["B9", "O9", "K9"],
        ["B9", "O9", "K9"],
        ["J", "O9", "K9"],
        ["J", "B9", "R9"],
    ],
    "rack": ["B7", "B7", "B7", "B9", "K7", "K9", "K9", "K9", "O7", "O9", "R7", "R9"],
    "opened": True,
    "rules": RULES,
}
PAD = [[f"R{n}", f"O{n}", f"B{n}"] for n in (1, 2, 3, 4, 5, 11, 12, 13)]
SLOW_PAD = {**SLOW, "before": SLOW["before"] + PAD, "after": SLOW["after"] + PAD}

CODES = [
    ("JOKER_SET_BROKEN", "/after/6"),
    ("JOKER_SET_BROKEN", "/after/2"),
    ("FREED_JOKER_MISUSED", "/after/7"),
    ("FREED_JOKER_MISUSED", "/after/3"),
]
PLAYED = ["K7", "K9", "K9", "K9", "B7", "B7", "B7", "B9", "O7", "O9", "R7", "R9"]
CASES = {"slow": (SLOW, None, (4_000, 3_000)), "slow_pad": (SLOW_PAD, False, (8_000, 6_000))}


def verify(body: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    return run_operation("turns/verify", copy.deepcopy(body), lang)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_answers_are_those_of_before(name: str, lang: str) -> None:
    body, exact, _ = CASES[name]
    found = verify(body, lang)
    assert [(v["code"], v["at"]) for v in found["violations"]] == CODES
    assert found["valid"] is False and found["jokers_freed"] == 2 and found["played"] == PLAYED
    assert found["penalty"] == {"draw": 3, "restore_table": True}
    assert found.get("jokers_exact") is exact  # (the padded turn runs out of the joint checks' steps)
    if lang == "es":
        assert found["violations"][0]["message"].startswith("Con comodines bloqueados")
        assert found["violations"][2]["message"].startswith("Un comodín liberado")


@pytest.mark.parametrize("name", CASES)
def test_the_work_is_bounded(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    body, _, (most_ways, most_layings) = CASES[name]
    calls: Counter[str] = Counter()

    def counted(module: Any, attribute: str) -> None:
        original = getattr(module, attribute)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[attribute] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, attribute, wrapper)

    counted(joker_replacement, "_spots")
    counted(joker_stays, "can_hold_copies")
    assert [(v["code"], v["at"]) for v in verify(body)["violations"]] == CODES
    assert calls["_spots"] < most_ways  # (10,400 / 21,123 before)
    assert calls["can_hold_copies"] < most_layings  # (14,976 / 31,359 before)


def test_every_search_answers_as_the_plain_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each search of ``_replace`` the slow turn asks, cut (the successors a new set's played
    copies fill, the bounded question of ``replaced_within``), against the plain search asked the
    full question: the same violations, or for a bounded question the same answer."""
    original = joker_replacement._replace
    asked: Counter[str] = Counter()

    def both(*args: Any) -> list[Any]:
        found = original(*args)
        *rest, most = args if len(args) == 9 else (*args, None)
        with monkeypatch.context() as plain:
            plain.setattr(joker_replacement, "SEARCH_CUTS", False)
            expected = original(*rest, None)
        if most is None:
            assert found == expected
            asked["full"] += 1
        else:
            assert (len(found) <= most) == (len(expected) <= most)
            asked["bounded"] += 1
        return found

    monkeypatch.setattr(joker_replacement, "_replace", both)
    assert [(v["code"], v["at"]) for v in verify(SLOW)["violations"]] == CODES
    assert asked["bounded"] > 200 and asked["full"] > 50


def test_the_cuts_off_give_the_same_response() -> None:
    found = {lang: verify(SLOW, lang) for lang in ("en", "es")}
    original = joker_replacement.SEARCH_CUTS
    try:
        joker_replacement.SEARCH_CUTS = False
        assert {lang: verify(SLOW, lang) for lang in ("en", "es")} == found
    finally:
        joker_replacement.SEARCH_CUTS = original

"""Hand-made turns of a seventh examiner (session 52, tests/data/handmade_turns_s52.json): 333
turns written from SPEC.md alone, the verdict worked out by hand before running, each also with
its after-table listed the other way round and with both tables reversed and the colours
renamed K→B→O→R→K (999 in all). The families earlier examiners covered least: xp tiles with
three and four jokers, ``strict_order`` with declared jokers, ``new_set_with_two_rack_tiles``
with two freed jokers, ``other_set``, ``joker_replacement_from: rack`` with two jokers standing
for one tile, ``group_joker_needs_both_colours``, timeouts keeping valid sets.

``expect``: ``valid``; ``codes``, each ``CODE`` or ``CODE@pointer`` (the codes answered are
exactly these, as a multiset, plus any of ``optional``: where SPEC leaves the choice, e.g. a
joker code beside an INVALID_SET); ``jokers_freed`` (null: not checked); ``set_code`` of an
INVALID_SET; the penalty's ``restore_table`` and ``draw``. ``reasoning`` is the examiner's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from service.operations import run_operation

CASES = json.loads((Path(__file__).parent / "data" / "handmade_turns_s52.json").read_text(encoding="utf-8"))


def differences(expect: dict[str, Any], answer: dict[str, Any]) -> list[str]:
    """What of ``expect`` the answer does not hold."""
    found: list[str] = []
    if answer["valid"] != expect["valid"]:
        found.append(f"valid {answer['valid']}")
    codes = Counter(v["code"] for v in answer["violations"])
    wanted = Counter(c.split("@")[0] for c in expect["codes"])
    extra = codes - wanted - Counter(expect.get("optional", []))
    if wanted - codes or extra:
        found.append(f"codes {sorted(codes.elements())}")
    places = {(v["code"], v["at"]) for v in answer["violations"]}
    for code, _, pointer in (c.partition("@") for c in expect["codes"] if "@" in c):
        if (code, pointer) not in places:
            found.append(f"{code} not at {pointer}")
    if expect.get("jokers_freed") is not None and answer["jokers_freed"] != expect["jokers_freed"]:
        found.append(f"jokers_freed {answer['jokers_freed']}")
    if "set_code" in expect and expect["set_code"] not in [v.get("set_code") for v in answer["violations"]]:
        found.append("set_code")
    penalty = answer["penalty"] or {}
    for key in ("restore_table", "draw"):
        if key in expect and penalty.get(key) != expect[key]:
            found.append(f"{key} {penalty.get(key)}")
    return found


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_handmade_turn(case: dict[str, Any]) -> None:
    answer = run_operation("turns/verify", case["body"], "en")
    assert differences(case["expect"], answer) == [], case["reasoning"]


def test_the_comparison_can_fail() -> None:
    """A wrong expectation is caught: each fact in turn."""
    case = next(c for c in CASES if c["expect"]["valid"] is False and c["expect"].get("jokers_freed") is not None)
    answer = run_operation("turns/verify", case["body"], "en")
    for wrong in (
        {"valid": True},
        {"codes": [*case["expect"]["codes"], "NO_TILE_PLAYED"]},
        {"codes": ["INVALID_SET@/after/99"]},
        {"jokers_freed": case["expect"]["jokers_freed"] + 1},
        {"restore_table": "never"},
    ):
        assert differences({**case["expect"], **wrong}, answer) != [], wrong

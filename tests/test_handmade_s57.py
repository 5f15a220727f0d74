"""Hand-made exam cases of session 57 (tests/data/handmade_cases_s57.json): 465 requests written by an
examiner from SPEC.md and the docs, each answer worked out by hand before the cases were run: 339
``turns/verify`` turns, 84 ``games/replay`` records, 37 ``rounds/score`` rounds and 5 ``matches/score``
matches. They cover ``strict_order`` with declared jokers, joker identity, split runs, replacing tiles,
new sets, openings under ``manipulate_on_opening_turn``, timeouts and the sets they keep, penalties,
pool exhaustion and ``END_MISMATCH`` / ``ROUND_OVER`` / ``POOL_EMPTY``, locked sets before and after
their exact tile replaces the joker, both colours (``group_joker_needs_both_colours``), invalid sets in
an opening, the ``result`` of invalid replays, and scoring with jokers left on a rack under each
scoring setting.

Each case has ``op`` (verify, replay, score, match), ``body``, ``expect`` and ``reason`` (the examiner's,
citing SPEC). ``expect`` names facts of the answer:
- verify: ``valid``; ``codes`` compared by ``mode``: ``exact`` (the codes answered, with repeats),
  ``contains`` (at least these, with repeats) or ``any_invalid`` (codes not compared); ``set_codes`` (of
  the violations that carry one); ``action``; ``initial_meld`` (its value, or null); ``rack_empty``,
  ``opened_after``, ``played``, ``rack_after``; ``penalty`` (null, or its ``draw``, ``restore_table``,
  ``kept`` sets and ``returned`` tiles).
- replay: ``valid``, ``first_invalid_turn``; the top-level codes, exactly (``top_codes``) or at least
  (``top_codes_contains``); ``turn_codes`` (the codes of a turn, by index); ``result`` (null, "present",
  or its ``winner``, ``winners``, ``ended_by`` and each player's ``rack_value`` and ``score``).
- score: the result, as for a replay. match: ``totals`` by name, ``standings`` (null: not compared)
  and ``winner``.
- ``error``: the request error's HTTP status.

Each verify case (unless ``forms`` is false: five cases with declared set kinds) is also judged in three
other forms, which must give the same ``valid`` and codes: the sets and the rack listed in reverse; set
ids added that mislead (after-set k carries the id of before-set n-1-k); jokers written as objects
(``{"joker": true}``, ``{"joker": true, "as": "r6"}``) and the other tiles in lower case, ``y`` for orange.

14 expectations were revised after the examiner re-read SPEC; their reasons say REVISED.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from service.operations import RequestError, run_operation

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "handmade_cases_s57.json").read_text(encoding="utf-8")
)
OPERATIONS = {"verify": "turns/verify", "replay": "games/replay", "score": "rounds/score", "match": "matches/score"}

Answer = dict[str, Any]


def call(op: str, body: dict[str, Any]) -> tuple[Answer | None, int | None]:
    """The answer, or the HTTP status of the request error."""
    try:
        return run_operation(OPERATIONS[op], copy.deepcopy(body), "en"), None
    except RequestError as error:
        return None, error.status


def codes(answer: Answer) -> list[str]:
    return sorted(v["code"] for v in answer.get("violations") or [])


def set_codes(answer: Answer) -> list[str]:
    return sorted(v["set_code"] for v in answer.get("violations") or [] if v.get("set_code"))


def canonical_set(tiles: list[str]) -> list[str]:
    """A set's tiles in sorted order, every joker as ``J``."""
    return sorted("J" if t.startswith("J") else t for t in tiles)


def canonical_table(sets: list[Any]) -> list[list[str]]:
    return sorted(canonical_set(s["tiles"] if isinstance(s, dict) else s) for s in sets)


def same_number(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 1e-9


def codes_agree(expect: dict[str, Any], got: list[str]) -> bool:
    mode = expect["mode"]
    if mode == "any_invalid":
        return True
    if mode == "contains":
        return not Counter(expect["codes"]) - Counter(got)
    assert mode == "exact", mode
    return sorted(expect["codes"]) == got


def penalty_differences(expect: dict[str, Any] | None, penalty: dict[str, Any] | None) -> list[str]:
    if expect is None:
        return [] if penalty is None else [f"penalty {penalty} (expected null)"]
    if penalty is None:
        return ["penalty null"]
    d: list[str] = []
    for key in ("draw", "restore_table"):
        if key in expect and penalty.get(key) != expect[key]:
            d.append(f"penalty {key} {penalty.get(key)} (expected {expect[key]})")
    if "kept" in expect and canonical_table(penalty.get("kept") or []) != canonical_table(expect["kept"]):
        d.append(f"kept {penalty.get('kept')} (expected {expect['kept']})")
    if "returned" in expect and sorted(penalty.get("returned") or []) != sorted(expect["returned"]):
        d.append(f"returned {penalty.get('returned')} (expected {expect['returned']})")
    return d


def verify_differences(expect: dict[str, Any], answer: Answer) -> list[str]:
    d: list[str] = []
    if answer["valid"] != expect["valid"]:
        d.append(f"valid {answer['valid']} (expected {expect['valid']})")
    if not codes_agree(expect, codes(answer)):
        d.append(f"codes {codes(answer)} (expected {expect['mode']} {expect['codes']})")
    if "set_codes" in expect and set_codes(answer) != sorted(expect["set_codes"]):
        d.append(f"set_codes {set_codes(answer)} (expected {expect['set_codes']})")
    if "initial_meld" in expect:
        meld = answer.get("initial_meld")
        value = meld.get("value") if meld else None
        if value != expect["initial_meld"]:
            d.append(f"initial_meld {meld} (expected value {expect['initial_meld']})")
    for key in ("action", "rack_empty", "opened_after"):
        if key in expect and answer.get(key) != expect[key]:
            d.append(f"{key} {answer.get(key)} (expected {expect[key]})")
    for key in ("played", "rack_after"):
        if key in expect and sorted(answer.get(key) or []) != sorted(expect[key]):
            d.append(f"{key} {answer.get(key)} (expected {expect[key]})")
    if "penalty" in expect:
        d += penalty_differences(expect["penalty"], answer.get("penalty"))
    return d


def result_differences(expect: dict[str, Any] | str | None, result: dict[str, Any] | None) -> list[str]:
    """A round's result: ``expect`` is null (no result), "present" (any result) or its facts."""
    if expect == "present":
        return [] if result is not None else ["result null (expected one)"]
    if expect is None:
        return [] if result is None else [f"result ended by {result.get('ended_by')} (expected null)"]
    assert isinstance(expect, dict)
    if result is None:
        return ["result null"]
    d: list[str] = []
    for key in ("winner", "ended_by"):
        if result.get(key) != expect[key]:
            d.append(f"{key} {result.get(key)} (expected {expect[key]})")
    if sorted(result.get("winners") or []) != sorted(expect["winners"]):
        d.append(f"winners {result.get('winners')} (expected {expect['winners']})")
    scores = {s["name"]: s for s in result.get("scores") or []}
    for want in expect["scores"]:
        got = scores.get(want["name"])
        if (
            got is None
            or not same_number(got.get("rack_value"), want["rack_value"])
            or not same_number(got.get("score"), want["score"])
        ):
            found = None if got is None else (got.get("rack_value"), got.get("score"))
            d.append(f"{want['name']} (rack_value, score) {found} (expected {(want['rack_value'], want['score'])})")
    return d


def replay_differences(expect: dict[str, Any], answer: Answer) -> list[str]:
    d: list[str] = []
    if answer["valid"] != expect["valid"]:
        d.append(f"valid {answer['valid']} (expected {expect['valid']})")
    if "first_invalid_turn" in expect and answer.get("first_invalid_turn") != expect["first_invalid_turn"]:
        d.append(f"first_invalid_turn {answer.get('first_invalid_turn')} (expected {expect['first_invalid_turn']})")
    top = codes(answer)
    if "top_codes" in expect and top != sorted(expect["top_codes"]):
        d.append(f"top-level codes {top} (expected {expect['top_codes']})")
    if "top_codes_contains" in expect and not set(expect["top_codes_contains"]) <= set(top):
        d.append(f"top-level codes {top} (expected to include {expect['top_codes_contains']})")
    turns = answer.get("turns") or []
    for index, want in expect.get("turn_codes", {}).items():
        i = int(index)
        got = codes(turns[i]) if i < len(turns) else None
        if got != sorted(want):
            d.append(f"turn {i} codes {got} (expected {want})")
    if "result" in expect:
        d += result_differences(expect["result"], answer.get("result"))
    return d


def match_differences(expect: dict[str, Any], answer: Answer) -> list[str]:
    d: list[str] = []
    totals = {t["name"]: t["total"] for t in answer.get("totals") or []}
    for name, want in expect["totals"].items():
        if not same_number(totals.get(name), want):
            d.append(f"total of {name} {totals.get(name)} (expected {want})")
    if expect["standings"] is not None and answer.get("standings") != expect["standings"]:
        d.append(f"standings {answer.get('standings')} (expected {expect['standings']})")
    if answer.get("winner") != expect["winner"]:
        d.append(f"winner {answer.get('winner')} (expected {expect['winner']})")
    return d


def differences(case: dict[str, Any], answer: Answer | None, error: int | None) -> list[str]:
    expect = case["expect"]
    if "error" in expect:
        return [] if error == expect["error"] else [f"request error {error} (expected {expect['error']})"]
    if error is not None:
        return [f"request error {error}"]
    assert answer is not None
    op = case["op"]
    if op == "verify":
        return verify_differences(expect, answer)
    if op == "replay":
        return replay_differences(expect, answer)
    if op == "score":
        return result_differences(expect, answer)
    assert op == "match", op
    return match_differences(expect, answer)


# ---- the three other forms of a verify body


def reordered(body: dict[str, Any]) -> dict[str, Any]:
    """The before and after sets and the rack listed in reverse."""
    return {**body, "before": body["before"][::-1], "after": body["after"][::-1], "rack": body["rack"][::-1]}


def with_misleading_ids(body: dict[str, Any]) -> dict[str, Any]:
    """Before-set i gets id ``s<i>``; after-set k gets the id of before-set n-1-k (mod n), ``new<k>`` if
    there is no before-set."""
    n = len(body["before"])
    before = [{"tiles": tiles, "id": f"s{i}"} for i, tiles in enumerate(body["before"])]
    after = [{"tiles": tiles, "id": f"s{(n - 1 - k) % n}" if n else f"new{k}"} for k, tiles in enumerate(body["after"])]
    return {**body, "before": before, "after": after}


def object_joker(tile: str) -> str | dict[str, Any]:
    """``J`` as ``{"joker": true}``, ``J=R6`` as ``{"joker": true, "as": "r6"}``, other tiles in lower
    case with ``y`` for orange."""
    if tile == "J":
        return {"joker": True}
    if tile.startswith("J="):
        return {"joker": True, "as": tile[2:].lower()}
    colour = "y" if tile[0] == "O" else tile[0].lower()
    return colour + tile[1:]


def with_object_jokers(body: dict[str, Any]) -> dict[str, Any]:
    before = [[object_joker(t) for t in tiles] for tiles in body["before"]]
    after = [[object_joker(t) for t in tiles] for tiles in body["after"]]
    rack = [object_joker(t) for t in body["rack"]]
    return {**body, "before": before, "after": after, "rack": rack}


FORMS = {"reordered": reordered, "misleading ids": with_misleading_ids, "object jokers": with_object_jokers}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_handmade_case(case: dict[str, Any]) -> None:
    answer, error = call(case["op"], case["body"])
    assert differences(case, answer, error) == [], case["reason"]
    if case["op"] != "verify" or not case["forms"]:
        return
    assert answer is not None
    for name, form in FORMS.items():
        other, other_error = call("verify", form(case["body"]))
        assert other_error is None, (name, other_error)
        assert other is not None
        assert (other["valid"], codes(other)) == (answer["valid"], codes(answer)), (name, case["reason"])


def test_the_cases_are_all_there() -> None:
    assert len(CASES) == 465
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert Counter(c["op"] for c in CASES) == {"verify": 339, "replay": 84, "score": 37, "match": 5}
    assert sum("REVISED" in c["reason"] for c in CASES) == 14
    verify = [c for c in CASES if c["op"] == "verify"]
    assert sum(c["forms"] for c in verify) == 334
    assert {c["expect"]["valid"] for c in verify} == {True, False}


@pytest.mark.parametrize(
    "case_id, wrong",
    [
        ("A02", {"valid": False}),
        ("A02", {"action": "play"}),
        ("A07", {"codes": ["TILE_SUPPLY_EXCEEDED", "TILE_SUPPLY_EXCEEDED"]}),
        ("H01", {"penalty": {"draw": 3, "restore_table": True}}),
        ("H01", {"penalty": {"kept": [["R4", "R5", "R6"]]}}),
        ("RP1a", {"valid": False}),
        ("S01", {"winner": "B"}),
        ("M01", {"standings": ["C", "A", "B"]}),
        ("S13", {"error": 400}),
    ],
)
def test_a_wrong_expectation_is_caught(case_id: str, wrong: dict[str, Any]) -> None:
    case = next(c for c in CASES if c["id"] == case_id)
    answer, error = call(case["op"], case["body"])
    assert differences({**case, "expect": {**case["expect"], **wrong}}, answer, error) != []

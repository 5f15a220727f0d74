"""Session 61, referee6-F2 (a violation code too many under locked joker sets with
``group_joker_needs_both_colours``): a locked group of three kept whole in a successor beside
one missing colour only was read as kept whole, its joker freed, never as split. One colour
does not unlock such a set (SPEC §4: both missing colours must lie in its successors), so the
joker freed breaks the set all the same (``JOKER_SET_BROKEN``) and, the other colour missing,
is not replaced either (``JOKER_NOT_REPLACED``); the joker staying beside a copy of its set's
tiles elsewhere breaks the set alone: the reading with the fewest violations (SPEC §4, the
consistent reading most favourable to the player). Verdicts never change: every reading so
added splits a locked set."""

from __future__ import annotations

import itertools

import pytest

from engine import jokers
from service.operations import run_operation

STRICT_BOTH = {"preset": "strict-joker", "group_joker_needs_both_colours": True}
XP_BOTH = {"preset": "xp", "joker_sets_locked": True, "group_joker_needs_both_colours": True}

F2_BEFORE = [["K7", "J", "R7"]]
F2_AFTER = [["K7", "B7", "R7"], ["J", "R7", "B7"]]
F2_RACK = ["B7", "R7", "B7"]


def _verify(before: list, after: list, rack: list, rules: object, opened: bool = True) -> dict:
    body = {"before": before, "after": after, "rack": rack, "opened": opened, "rules": rules}
    return run_operation("turns/verify", body, "en")


def _codes(answer: dict) -> list[str]:
    return sorted(v["code"] for v in answer["violations"])


def _orders(sets: list[list[str]]) -> list[list[list[str]]]:
    """Every order of the sets, each set also reversed in one of them."""
    found = []
    for n, order in enumerate(itertools.permutations(sets)):
        found.append([list(s) for s in order])
        found.append([list(reversed(s)) if i == n % len(s) else list(s) for i, s in enumerate(order)])
    return found


@pytest.mark.parametrize("use", ["any_set", "other_set", "new_set_with_two_rack_tiles"])
def test_f2_the_joker_stays_beside_the_sets_r7(use: str) -> None:
    # the joker stays as O7 in ``J R7 B7`` beside the set's R7: the set split, broken alone.
    # Was JOKER_SET_BROKEN + JOKER_NOT_REPLACED (freed, B7 without O7), whatever the order
    rules = {**STRICT_BOTH, "freed_joker_use": use}
    for before in _orders(F2_BEFORE):
        for after in _orders(F2_AFTER):
            answer = _verify(before, after, F2_RACK, rules)
            assert not answer["valid"]
            assert _codes(answer) == ["JOKER_SET_BROKEN"], (before, after)
            assert answer["jokers_freed"] == 0
            home = next(k for k, s in enumerate(after) if "J" in s)
            assert [v["at"] for v in answer["violations"]] == [f"/after/{home}"]


def test_f2_sabra_with_both_colours_reads_it_so_and_is_legal() -> None:
    answer = _verify(F2_BEFORE, F2_AFTER, F2_RACK, {"preset": "sabra", "group_joker_needs_both_colours": True})
    assert answer["valid"]
    assert answer["jokers_freed"] == 0


def test_f2_xp() -> None:
    # xp: the joker of ``K7 J R7`` stood for B7 or O7; freed it needs both
    for after in _orders(F2_AFTER):
        answer = _verify(F2_BEFORE, after, F2_RACK, XP_BOTH)
        assert not answer["valid"]
        assert _codes(answer) == ["JOKER_SET_BROKEN"]
        assert answer["jokers_freed"] == 0


def test_f2_under_a_free_release() -> None:
    # free-joker with locked sets and both colours: freed, the rule of both colours was broken too
    rules = {"preset": "free-joker", "joker_sets_locked": True, "group_joker_needs_both_colours": True}
    answer = _verify(F2_BEFORE, F2_AFTER, F2_RACK, rules)
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_SET_BROKEN"]


def test_f2_before_opening() -> None:
    # staying, no joker was freed before opening: was five codes, JOKER_RELEASED_BEFORE_OPENING
    # and JOKER_NOT_REPLACED among them
    for after in _orders(F2_AFTER):
        answer = _verify(F2_BEFORE, after, F2_RACK, STRICT_BOTH, opened=False)
        assert not answer["valid"]
        assert _codes(answer) == ["INITIAL_MELD_TOO_LOW", "JOKER_SET_BROKEN", "MANIPULATION_BEFORE_OPENING"]
        assert answer["jokers_freed"] == 0


TWO_BEFORE = [["K7", "J", "R7"], ["B9", "J", "O9"]]
TWO_AFTER = [["K7", "B7", "R7"], ["J", "R7", "B7"], ["B9", "K9", "O9"], ["J", "O9", "K9"]]
TWO_RACK = ["B7", "R7", "B7", "K9", "O9", "K9"]


def test_f2_two_locked_groups_in_every_order() -> None:
    # both sets split, each broken alone: was 2x JOKER_SET_BROKEN + 2x JOKER_NOT_REPLACED
    for before in itertools.permutations(TWO_BEFORE):
        for after in itertools.permutations(TWO_AFTER):
            answer = _verify(list(before), list(after), TWO_RACK, STRICT_BOTH)
            assert not answer["valid"]
            assert _codes(answer) == ["JOKER_SET_BROKEN", "JOKER_SET_BROKEN"], (before, after)
            assert answer["jokers_freed"] == 0
            homes = sorted(f"/after/{k}" for k, s in enumerate(after) if "J" in s)
            assert sorted(v["at"] for v in answer["violations"]) == homes


def test_f2_beside_a_locked_run() -> None:
    # a locked run extended with its joker kept beside the group's split: the run is whole
    before = [["R1", "R2", "J"], ["K7", "J", "R7"]]
    after = [["R1", "R2", "J", "R4"], ["K7", "B7", "R7"], ["J", "R7", "B7"]]
    for b in itertools.permutations(before):
        for a in itertools.permutations(after):
            answer = _verify(list(b), list(a), [*F2_RACK, "R4"], STRICT_BOTH)
            assert not answer["valid"]
            assert _codes(answer) == ["JOKER_SET_BROKEN"]
            assert answer["jokers_freed"] == 0


def test_both_colours_there_unlock_the_set() -> None:
    # B7 and O7 both in the successor: the set is unlocked, its joker freed; legal (unchanged)
    after = [["K7", "B7", "R7", "O7"], ["J", "R7", "B7"]]
    answer = _verify(F2_BEFORE, after, [*F2_RACK, "O7"], STRICT_BOTH)
    assert answer["valid"]
    assert answer["jokers_freed"] == 1


def test_the_exact_tile_in_a_runs_place_still_frees_its_joker() -> None:
    # a run's exact tile in its place unlocks it: the joker was freed, not the set split
    # (docs/rules-engine.md, session 45; unchanged)
    rules = {"preset": "pressman-2009", "joker_sets_locked": True}
    answer = _verify(
        [["R4", "R5", "J"], ["R7", "R8", "R9"]], [["R4", "R5", "R6"], ["J", "R7", "R8", "R9"]], ["R6"], rules
    )
    assert not answer["valid"]
    assert _codes(answer) == ["FREED_JOKER_MISUSED"]
    assert answer["jokers_freed"] == 1


def test_a_group_unlocked_by_one_colour_only_is_still_broken() -> None:
    # docs/rules-engine.md, session 55 (unchanged)
    answer = _verify(
        [["J", "O2", "B2"], ["O2", "R2", "J=B2"]], [["B2", "K2", "O2"], ["O2", "R2", "J", "J"]], ["K2"], STRICT_BOTH
    )
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_SET_BROKEN"]


def test_out_of_its_budget_the_first_answer_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    # the split readings' search has budgets of its own: out of them, the answer as before
    monkeypatch.setattr(jokers, "SPLIT_ASSIGNMENTS", 1)
    answer = _verify(F2_BEFORE, F2_AFTER, F2_RACK, STRICT_BOTH)
    assert _codes(answer) == ["JOKER_NOT_REPLACED", "JOKER_SET_BROKEN"]
    monkeypatch.setattr(jokers, "SPLIT_ASSIGNMENTS", 200)
    monkeypatch.setattr(jokers, "SPLIT_STEPS", 0)
    answer = _verify(F2_BEFORE, F2_AFTER, F2_RACK, STRICT_BOTH)
    assert not answer["valid"]


def test_f2_as_the_joker_declared_o7_reads() -> None:
    # declared as O7 (the reading the undeclared joker may take), the set was already read
    # split: now the undeclared joker, or one declared O7 in its new place, reads the same
    for before, after in (
        ([["K7", "J=O7", "R7"]], F2_AFTER),
        (F2_BEFORE, [["K7", "B7", "R7"], ["J=O7", "R7", "B7"]]),
        (F2_BEFORE, F2_AFTER),
    ):
        answer = _verify(before, after, F2_RACK, STRICT_BOTH)
        assert [(v["code"], v["at"]) for v in answer["violations"]] == [("JOKER_SET_BROKEN", "/after/1")]
        assert answer["jokers_freed"] == 0
    # declared B7, the played B7 is its exact tile: freed, legal (unchanged)
    assert _verify([["K7", "J=B7", "R7"]], F2_AFTER, F2_RACK, STRICT_BOTH)["valid"]

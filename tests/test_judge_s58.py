"""A session-58 independent judge (R3J-3): under locked joker sets two sets were each read as
kept whole, with their jokers' exact tile in its place, by one after-set whose numbered tiles
hold only one of them. Both jokers were then taken as freed (neither could stay elsewhere), and
the second lacked its tile: ``JOKER_NOT_REPLACED`` beside ``JOKER_SET_BROKEN``. The most
favourable consistent reading keeps one set whole and has the other's joker stay, its set
split: ``JOKER_SET_BROKEN`` alone (SPEC §4)."""

from __future__ import annotations

import itertools

from service.operations import run_operation


def _verify(before: list, after: list, rack: list, rules: object) -> dict:
    body = {"before": before, "after": after, "rack": rack, "opened": True, "rules": rules}
    return run_operation("turns/verify", body, "en")


def _codes(answer: dict) -> list[str]:
    return sorted(v["code"] for v in answer["violations"])


BEFORE = [["J", "O2", "O1"], ["O1", "O2", "J"]]
AFTER = [["O1", "O2", "O3"], ["O2", "J", "J", "O5"], ["O1", "K1", "B1"]]
RACK = ["O3", "O5", "K1", "B1"]


def test_one_copy_of_a_set_keeps_only_one_of_two_locked_sets_whole() -> None:
    # both jokers stand for O3; the one O1 O2 O3 keeps one set whole (its joker freed, replaced
    # by the played O3), the other's joker stays as O3 in ``O2 J J O5`` (O2-O5), its O1 in the group
    for before in itertools.permutations(BEFORE):
        for after in itertools.permutations(AFTER):
            answer = _verify(list(before), list(after), RACK, "strict-joker")
            assert not answer["valid"]
            assert _codes(answer) == ["JOKER_SET_BROKEN"], (before, after)
            assert answer["jokers_freed"] == 1
            assert answer["violations"][0]["at"] == f"/after/{after.index(AFTER[1])}"


def test_the_same_under_xp_and_other_set() -> None:
    answer = _verify(BEFORE, AFTER, RACK, {"preset": "xp", "joker_sets_locked": True, "freed_joker_use": "other_set"})
    assert _codes(answer) == ["JOKER_SET_BROKEN"]


def test_without_locks_the_reading_keeping_one_joker_is_legal() -> None:
    assert _verify(BEFORE, AFTER, RACK, "sabra")["valid"]


def test_three_runs_sharing_one_long_run() -> None:
    # xp, locked: ``O5 O6 J`` + ``J O7 O8`` + ``J O8 O9`` -> ``O6 J O8`` + the long run O5-O11
    # holding one of each: not every set is whole there, a staying joker breaks one set only
    rules = {"preset": "strict-joker", "tiles": "xp"}
    before = [["O5", "O6", "J"], ["J", "O7", "O8"], ["J", "O8", "O9"]]
    after = [["O6", "J", "O8"], ["O5", "O6", "O7", "O8", "O9", "J", "J"]]
    answer = _verify(before, after, ["O5", "O6"], rules)
    assert _codes(answer) == ["JOKER_SET_BROKEN"]
    assert answer["jokers_freed"] == 2


def test_an_unlocked_sets_own_tile_may_be_anothers_exact_tile() -> None:
    # ``O5 O6 J`` + ``O7 O8 J`` + ``O8 O9 J`` -> ``O5 ... O9`` + ``O8 J O10 J J``: the played O10
    # unlocks the third set, whose O9 unlocks the second, whose O7 then frees the first set's
    # joker; both sets are whole in ``O5 ... O9`` on distinct numbered tiles, so every joker
    # was freed (and none ends in a new set): unchanged by the rule above
    rules = {
        "tiles": "xp",
        "joker_sets_locked": True,
        "joker_release": "replace",
        "freed_joker_use": "new_set_with_two_rack_tiles",
    }
    before = [["O5", "O6", "J"], ["O7", "O8", "J"], ["O8", "O9", "J"]]
    after = [["O5", "O6", "O7", "O8", "O9"], ["O8", "J", "O10", "J", "J"]]
    answer = _verify(before, after, ["O10", "O9"], rules)
    assert _codes(answer) == ["FREED_JOKER_MISUSED"] * 3
    assert answer["jokers_freed"] == 3

"""Session 59, R3J-5 (a violation code too few under locked joker sets): the codes came from
three checks each choosing its own copies. Under ``other_set`` a freed joker's place was judged
good where its set's tiles could be read as lying elsewhere, while the replace rule reported
beside the lock (``JOKER_NOT_REPLACED``) read the same set's tiles as lying there, beside the
replacing copy. One reading answers both (SPEC §4: the consistent reading and assignment most
favourable to the player, all its violations reported): either the joker is misused, or its
set's successors hold no copy of its tile. Between the two, equally many, the one not replaced:
the count of the replace rule with nothing kept apart reads every after-set holding a tile of
the set as a successor, even where a set kept whole holds that copy, so the misused reading may
rest on no assignment (``J K3 K4`` + ``J K4 K5`` below). The answers below are in an independent
judge's fewest codes (session 58's r3-judge); before, they were a code short of any reading."""

from __future__ import annotations

import itertools

from service.operations import run_operation

XP_OTHER = {"preset": "strict-joker", "tiles": "xp", "freed_joker_use": "other_set"}


def _verify(before: list, after: list, rack: list, rules: object) -> dict:
    body = {"before": before, "after": after, "rack": rack, "opened": True, "rules": rules}
    return run_operation("turns/verify", body, "en")


def _codes(answer: dict) -> list[str]:
    return sorted(v["code"] for v in answer["violations"])


R3J5_BEFORE = [["K1", "K2", "J"], ["K2", "K3", "J"], ["K4", "K5", "J"]]
R3J5_AFTER = [["K3", "O3", "B3"], ["K2", "R2", "O2"], ["K1", "K2", "K3", "K4", "K5", "J", "J"], ["R6", "R7", "J"]]
R3J5_RACK = ["K3", "R2", "O2", "O3", "B3", "R6", "R7"]


def test_r3j5_a_freed_joker_is_misused_or_not_replaced_in_one_reading() -> None:
    # ``K2 K3 J``'s joker (K4) is freed: with its K2 or K3 in the long run, the freed joker there
    # is misused; with both in the groups, no successor holds a K4 (not replaced; the judge
    # accepts both). Was JOKER_SET_BROKEN alone, whichever the order of the sets.
    for before in itertools.permutations(R3J5_BEFORE):
        for after in itertools.islice(itertools.permutations(R3J5_AFTER), 0, 24, 5):
            answer = _verify(list(before), list(after), R3J5_RACK, XP_OTHER)
            assert not answer["valid"]
            assert _codes(answer) == ["JOKER_NOT_REPLACED", "JOKER_SET_BROKEN"], (before, after)
            assert answer["jokers_freed"] == 2
            long_run = f"/after/{after.index(R3J5_AFTER[2])}"
            assert {v["at"] for v in answer["violations"]} == {long_run}


def test_r3j5_under_any_set_is_unchanged() -> None:
    # no place is judged under ``any_set``: the lock alone, as before
    rules = {**XP_OTHER, "freed_joker_use": "any_set"}
    answer = _verify(R3J5_BEFORE, R3J5_AFTER, R3J5_RACK, rules)
    assert _codes(answer) == ["JOKER_SET_BROKEN"]


def test_a_set_kept_whole_holds_the_copy_the_misused_reading_needs() -> None:
    # 12,000-turn corpus #5444 (classic tiles): ``J K3 K4``'s joker stays as K2 in ``J J K3 K4``
    # (K1-K4), the set kept whole there with its K3 and K4. ``J K4 K5``'s joker (K3) is freed
    # into that run: its K4 lies in ``K4 K5 K6``, so no successor holds a K3. Misused there
    # instead would need its K4 in the long run, the kept set's. Was JOKER_SET_BROKEN alone; the
    # judge's only fewest codes
    rules = {"preset": "strict-joker", "freed_joker_use": "other_set"}
    answer = _verify(
        [["J", "K3", "K4"], ["J", "K4", "K5"]], [["K4", "K5", "K6"], ["J", "J", "K3", "K4"]], ["K6", "K2"], rules
    )
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_NOT_REPLACED", "JOKER_SET_BROKEN"]
    assert answer["jokers_freed"] == 1


def test_two_runs_into_a_run_and_a_run_of_their_tiles() -> None:
    # 12,000-turn corpus #10827: was 2x SET_BROKEN + NOT_REPLACED
    answer = _verify(
        [["K2", "K3", "J"], ["K4", "K5", "J"]],
        [["J", "K3", "K4", "K5"], ["J", "K2", "K3"]],
        ["K4", "K5", "K1", "K3"],
        XP_OTHER,
    )
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_NOT_REPLACED", "JOKER_NOT_REPLACED", "JOKER_SET_BROKEN", "JOKER_SET_BROKEN"]
    assert answer["jokers_freed"] == 2


def test_rack_only_replacement() -> None:
    # #5587 (rack-only replacement): was JOKER_SET_BROKEN alone
    rules = {**XP_OTHER, "joker_replacement_from": "rack"}
    answer = _verify(
        [["R4", "J", "R6"], ["R6", "J", "R8"]],
        [["R8", "B8", "K8"], ["J", "R4", "J", "R6", "R7"], ["R6", "O6", "K6"]],
        ["R7", "O6", "K6", "B8", "K8"],
        rules,
    )
    assert _codes(answer) == ["JOKER_NOT_REPLACED", "JOKER_SET_BROKEN"]
    assert answer["jokers_freed"] == 1


def test_the_reading_freeing_more_jokers_is_now_the_fewest() -> None:
    # #2180: the reading freeing one joker was JOKER_SET_BROKEN alone only by reading the freed
    # joker's set in two ways; read once it has two violations, and freeing all three jokers
    # has one: FREED_JOKER_MISUSED (the judge's only fewest codes)
    answer = _verify(
        [["J", "J", "O4"], ["O3", "O4", "O5", "J"], ["O2", "O3", "O4"]],
        [["O2", "O3", "O4"], ["J", "J", "O4", "J", "O6"], ["O3", "O4", "O5"]],
        ["O3", "O5", "O5", "O6"],
        XP_OTHER,
    )
    assert not answer["valid"]
    assert _codes(answer) == ["FREED_JOKER_MISUSED"]
    assert answer["jokers_freed"] == 3


def test_group_joker_needs_both_colours() -> None:
    # #2225 (classic tiles, both colours): was one JOKER_NOT_REPLACED fewer
    rules = {"preset": "strict-joker", "freed_joker_use": "other_set", "group_joker_needs_both_colours": True}
    answer = _verify(
        [["R5", "R6", "J"], ["R6", "R7", "J"]], [["J", "J", "R6", "R7"], ["R4", "R5", "R6"]], ["R7", "R4", "R4"], rules
    )
    assert _codes(answer) == [
        "FREED_JOKER_MISUSED",
        "JOKER_NOT_REPLACED",
        "JOKER_NOT_REPLACED",
        "JOKER_SET_BROKEN",
        "JOKER_SET_BROKEN",
    ]


def test_new_set_with_two_rack_tiles_is_left_as_it_was() -> None:
    # #7934: under ``new_set_with_two_rack_tiles`` the same check moved this answer, in the
    # judge's fewest codes, to one that is not (its placements keep locked sets kept whole out
    # of their hosts, a choice the replace rule alone does not share): not applied there
    rules = {
        "preset": "strict-joker",
        "tiles": "xp",
        "freed_joker_use": "new_set_with_two_rack_tiles",
        "joker_replacement_from": "rack",
    }
    answer = _verify(
        [["J", "B6", "J"], ["B7", "B8", "J"], ["B6", "R6", "K6", "J"]],
        [["B6", "J", "B8", "J", "B10"], ["K6", "R6", "B6"], ["B7", "B8", "J"], ["J", "B5", "B6"]],
        ["B6", "B8", "B10", "B5"],
        rules,
    )
    assert _codes(answer) == ["FREED_JOKER_MISUSED", "JOKER_NOT_REPLACED", "JOKER_SET_BROKEN", "JOKER_SET_BROKEN"]
    assert answer["jokers_freed"] == 2

"""A session-58 white-box review: under ``joker_replacement_from: rack`` a joker replaced from
the table anyway (a group of three needing both colours, one colour not played) counted the
played copy of its other colour, which another group needed: that group then read "not
replaced" though both its colours lay, played, in its successor. The code depended on the
colours' names (which group was followed first)."""

from __future__ import annotations

import itertools

from service.operations import run_operation

RACK_BOTH = {"preset": "sabra", "joker_replacement_from": "rack", "group_joker_needs_both_colours": True}


def _renamed(value: list, names: dict[str, str]) -> list:
    return [[t if t == "J" else names[t[0]] + t[1:] for t in s] if isinstance(s, list) else s for s in value]


def test_a_joker_replaced_from_the_table_leaves_the_played_copies_to_the_others() -> None:
    # ``O6 K6 J`` needs R6 and B6: no R6 was played, so its joker is replaced from the table
    # (the R6 of ``R6 K6 J`` and a B6 in its successor); ``R6 K6 J`` needs O6 and B6, both
    # played, in ``K6 B6 O6``: one JOKER_REPLACED_FROM_TABLE, whatever the colours are called
    before = [["O6", "K6", "J"], ["R6", "K6", "J"], ["B6", "B7", "B8", "B9"]]
    after = [["O6", "K6", "B6", "R6"], ["K6", "B6", "O6"], ["B7", "B8", "B9", "J", "J"]]
    rack = [["B6", "O6"]]
    for perm in itertools.permutations("OKBR"):
        names = dict(zip("OKBR", perm, strict=True))
        body = {
            "before": _renamed(before, names),
            "after": _renamed(after, names),
            "rack": _renamed(rack, names)[0],
            "opened": True,
            "rules": RACK_BOTH,
        }
        answer = run_operation("turns/verify", body, "en")
        assert not answer["valid"]
        assert [v["code"] for v in answer["violations"]] == ["JOKER_REPLACED_FROM_TABLE"], perm


def test_four_locked_groups_replaced_from_the_table_twice() -> None:
    # xp with locked sets: the played R6 B6 replace the first group's joker, the played O6
    # and the second B6 the last group's; the two others are replaced from the table
    rules = {**RACK_BOTH, "preset": "xp", "joker_sets_locked": True}
    before = [["O6", "K6", "J"], ["J", "R6", "B6"], ["O6", "K6", "J"], ["R6", "J", "K6"]]
    after = [
        ["R6", "B6", "O6"],
        ["K6", "O6", "R6"],
        ["B6", "K6", "R6"],
        ["K6", "O6", "B6"],
        ["J", "J", "J", "J", "O13"],
    ]
    body = {"before": before, "after": after, "rack": ["R6", "B6", "B6", "O6", "O13"], "opened": True, "rules": rules}
    answer = run_operation("turns/verify", body, "en")
    assert [v["code"] for v in answer["violations"]] == ["JOKER_REPLACED_FROM_TABLE"] * 2

"""Session 59, O4-C1/C2/C3 of an independent referee (codes only, without locked joker sets):
a freed joker's place judged good where its set's tiles could be read as lying elsewhere, while
its replacement was told with those tiles read as lying there (a table copy replacing it, or its
place's copy the table's, making that place a successor). One reading answers both (SPEC §4: the
consistent reading and assignment most favourable to the player): a placement keeping a set's
tiles out of an after-set costs the replacements it loses there, and the replacements told are
that reading's own. The answers below are in the referee's fewest codes; before, no single
assignment gave them. The verdicts were right and are unchanged."""

from __future__ import annotations

import itertools

from service.operations import run_operation


def _verify(before: list, after: list, rack: list, rules: object) -> dict:
    body = {"before": before, "after": after, "rack": rack, "opened": True, "rules": rules}
    return run_operation("turns/verify", body, "en")


def _codes(answer: dict) -> list[str]:
    return sorted(v["code"] for v in answer["violations"])


SABRA_RACK_OTHER = {"preset": "sabra", "joker_replacement_from": "rack", "freed_joker_use": "other_set"}
C1_BEFORE = [["J=R7", "R8", "R9", "R10"], ["R6", "R7", "R8", "J"], ["O13", "K13", "R13"]]
C1_AFTER = [["R6", "R7", "R8", "R9"], ["R13", "O13", "J", "K13"], ["R8", "R9", "R10", "J"]]


def test_o4_c1_the_table_copy_replaces_only_where_a_joker_would_be_misused() -> None:
    # The table R7 of ``R6 R7 R8 R9`` replaces the first set's joker only if that run holds the
    # first set's R8 or R9; then the second set's joker needs the played R9 in a run holding a
    # tile of its own set (misused). Read with ``R6 R7 R8`` the second set's and the played R9:
    # the first set's R7 is not replaced, nothing else is wrong. Was FROM_TABLE alone.
    for before in itertools.permutations(C1_BEFORE):
        for after in itertools.permutations(C1_AFTER):
            answer = _verify(list(before), list(after), ["R9"], SABRA_RACK_OTHER)
            assert not answer["valid"]
            assert _codes(answer) == ["JOKER_NOT_REPLACED"], (before, after)


def test_o4_c1_xp_strict_order() -> None:
    rules = {"preset": "xp", "joker_replacement_from": "rack", "freed_joker_use": "other_set", "strict_order": True}
    before = [
        {"tiles": ["J", "O4", "J"], "kind": "run"},
        ["J", "O4", "O5"],
        ["B13", "K13", "O13"],
        ["O12", "K12", "B12"],
    ]
    after = [["K12", "O12", "B12"], ["B13", "O13", "K13"], ["O4", "O5", "J", "J", "O8"], ["B4", "J=R4", "K4", "O4"]]
    answer = _verify(before, after, ["K4", "B4", "R4", "O3", "B12", "R6", "O8"], rules)
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_NOT_REPLACED"] * 3  # was NOT_REPLACED twice + FROM_TABLE


def test_o4_c2_the_hosts_copy_is_the_played_one() -> None:
    # ``K7 J K6``'s K6 is the played one: the run holds no tile of the joker's set. Was
    # FROM_TABLE + MISUSED.
    before = [["K6", "J=K9", "K8", "J", "K10"], ["R9", "O9", "K9"]]
    after = [["R9", "J", "O9"], ["K6", "K7", "K8", "K9", "K10"], ["K7", "J", "K6"]]
    answer = _verify(before, after, ["K7", "K7", "K6"], SABRA_RACK_OTHER)
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_REPLACED_FROM_TABLE"]


def test_o4_c2_both_colours() -> None:
    # ``R10 K10 B10 J``'s K10 is the played one: no successor of ``J K10 O10`` holds an R10.
    # Was FROM_TABLE + MISUSED.
    rules = {"preset": "pressman-2009", "group_joker_needs_both_colours": True}
    before = [["J", "K10", "O10"], ["R10", "R11", "R12"]]
    after = [["K10", "O10", "B10"], ["R11", "R12", "R13"], ["R10", "K10", "B10", "J"]]
    answer = _verify(before, after, ["B10", "B10", "K10", "R13"], rules)
    assert not answer["valid"]
    assert _codes(answer) == ["JOKER_NOT_REPLACED"]


def test_o4_c3_an_invalid_host() -> None:
    # FROM_TABLE needs the invalid set to hold the group's K10, and then the joker there is
    # misused: INVALID_SET + NOT_REPLACED. Was INVALID_SET + FROM_TABLE.
    rules = {"preset": "pressman-2009", "group_joker_needs_both_colours": True}
    before = [["J", "K10", "O10"], ["R10", "R11", "R12"]]
    after = [["K10", "O10", "B10"], ["R11", "R12", "R13"], ["R10", "J", "K10", "B9"]]
    answer = _verify(before, after, ["B10", "K10", "B9", "R13"], rules)
    assert not answer["valid"]
    assert _codes(answer) == ["INVALID_SET", "JOKER_NOT_REPLACED"]

"""Turns whose ``after`` is a loose table (a flat list of tiles): the service's addition, not in
SPEC (docs/rules-engine.md, "Loose tables")."""

from __future__ import annotations

from collections import Counter

import pytest

import engine.loose
from engine.loose import verify_loose_turn
from engine.rules import PRESETS
from engine.sets import TableSet
from engine.solver import Suggestion
from engine.tiles import parse_tiles
from engine.turns import verify_turn


def table(*rows: str) -> list[TableSet]:
    return [TableSet(parse_tiles(r)) for r in rows]


def loose(text: str) -> tuple:  # type: ignore[type-arg]
    return parse_tiles(text)


def test_an_arrangement_is_found_and_returned() -> None:
    verdict = verify_loose_turn(table("R3 R4 R5"), loose("K2 R3 K1 R4 R6 K3 R5"), loose("R6 K1 K2 K3 O9"), True)
    assert verdict.valid and verdict.after is not None
    assert Counter(t.key for s in verdict.after for t in s.tiles) == Counter(
        t.key for t in loose("K2 R3 K1 R4 R6 K3 R5")
    )
    again = verify_turn(table("R3 R4 R5"), verdict.after, loose("R6 K1 K2 K3 O9"), True)
    assert again.valid
    assert verdict.to_json()["after"] == [[str(t) for t in s.tiles] for s in verdict.after]


def test_rearrangement_needed() -> None:
    # R6 can only be played by splitting the 3..9 run and making two runs around it
    verdict = verify_loose_turn(
        table("B3 B4 B5 B6 B7 B8 B9 B10"), loose("B3 B4 B5 B6 B7 B7 B8 B9 B10"), loose("B7"), True
    )
    assert verdict.valid and verdict.rack_empty


def test_no_arrangement() -> None:
    verdict = verify_loose_turn(table("R3 R4 R5"), loose("R3 R4 R5 K1 K2"), loose("K1 K2 O9"), True)
    assert not verdict.valid and [v.code for v in verdict.violations] == ["NO_ARRANGEMENT"]
    assert verdict.after is None and verdict.penalty_draw == 3


def test_accounting_errors_do_not_depend_on_the_arrangement() -> None:
    removed = verify_loose_turn(table("R3 R4 R5 R6"), loose("R3 R4 R5"), loose("K1"), True)
    assert "TABLE_TILE_REMOVED" in [v.code for v in removed.violations]
    foreign = verify_loose_turn(table("R3 R4 R5"), loose("R3 R4 R5 R6"), loose("K1"), True)
    assert "TILE_NOT_IN_RACK" in [v.code for v in foreign.violations]


def test_accounting_errors_tell_nothing_about_the_set_of_the_other_tiles() -> None:
    """No arrangement is sought when the tiles cannot be accounted for: the other tiles lie in
    one set that nobody laid, and neither its INVALID_SET nor an opening's value on its account
    is a violation of the turn (a docs audit, session 43)."""
    foreign = verify_loose_turn(table(), loose("K5 K6 K7 R9"), loose("K5 K6 K7 K1"), True)
    assert [(v.code, v.at) for v in foreign.violations] == [("TILE_NOT_IN_RACK", "/after/0")]
    removed = verify_loose_turn(table("R1 R2 R3"), loose("R1 R2 K5 K6 K7"), loose("K5 K6 K7"), True)
    assert [(v.code, v.at) for v in removed.violations] == [("TABLE_TILE_REMOVED", "/before/0")]
    opening = verify_loose_turn(table(), loose("K10 K11 K12 R9"), loose("K10 K11 K12 K1"), False)
    assert [v.code for v in opening.violations] == ["TILE_NOT_IN_RACK"] and opening.penalty_draw == 3
    assert opening.after is not None and [s.codes for s in opening.after] == [("K10", "K11", "K12", "R9")]


def test_too_many_copies_are_reported_without_arranging() -> None:
    """The supply is checked before any arrangement (found by a hostile-client fuzz, session
    34: twelve copies of R1 R2 R3 on the table took 15 s to arrange, twenty over 150 s)."""
    many = verify_loose_turn(table(*["R1 R2 R3"] * 12), loose("R1 R2 R3 " * 12 + "K1"), loose("K1"), True)
    assert "TILE_SUPPLY_EXCEEDED" in [v.code for v in many.violations] and not many.valid
    triple = verify_loose_turn(table(), loose("K1 K1 K1"), loose("K1 K1 K1"), True)
    assert [v.code for v in triple.violations][:1] == ["TILE_SUPPLY_EXCEEDED"]  # not NO_ARRANGEMENT
    # (laid as one set, K1 K1 K1 is an invalid set too: loose, it is nobody's set)
    same = verify_turn(table(), table("K1 K1 K1"), loose("K1 K1 K1"), True)
    assert Counter(v.code for v in same.violations) == Counter({"TILE_SUPPLY_EXCEEDED": 1, "INVALID_SET": 1})
    assert [v.code for v in triple.violations] == ["TILE_SUPPLY_EXCEEDED"]


def test_an_invalid_before_table_is_a_verdict_not_a_crash() -> None:
    verdict = verify_loose_turn(table("R1 R2"), loose("R1 R2 R3"), loose("R3"), True)
    assert "BEFORE_TABLE_INVALID" in [v.code for v in verdict.violations] and not verdict.valid


def test_same_tiles_is_a_draw() -> None:
    verdict = verify_loose_turn(table("R3 R4 R5"), loose("R5 R4 R3"), loose("K1"), True)
    assert verdict.valid and verdict.action == "draw"


def test_opening_rules_apply_to_the_arrangement() -> None:
    ok = verify_loose_turn([], loose("O10 K10 B10"), loose("K10 B10 O10 R1"), False)
    assert ok.valid and ok.initial_meld_value == 30
    low = verify_loose_turn([], loose("R1 R2 R3"), loose("R1 R2 R3"), False)
    assert [v.code for v in low.violations] == ["INITIAL_MELD_TOO_LOW"]
    extend = verify_loose_turn(table("R3 R4 R5"), loose("R3 R4 R5 R6"), loose("R6"), False)
    assert not extend.valid
    fifty = verify_loose_turn([], loose("K10 B10 O10"), loose("K10 B10 O10"), False, PRESETS["opening-50"])
    assert [v.code for v in fifty.violations] == ["INITIAL_MELD_TOO_LOW"]


def test_joker_replacement_in_a_loose_table() -> None:
    verdict = verify_loose_turn(table("R5 R6 J R8"), loose("R5 R6 R7 R8 K11 K12 J"), loose("R7 K11 K12"), True)
    assert verdict.valid and verdict.jokers_freed == 1


def test_a_played_copy_of_a_table_tile_is_played_once() -> None:
    """The tiles added to the table are the after tiles less the before ones, each copy once:
    an O11 played beside the table's O11 was taken twice, so the solver was asked to play
    from four tiles and found no move, and the arrangement of all the tiles then judged moved
    the table's joker or manipulated before opening (an independent turn oracle, session 44)."""
    cases = [
        (["J O10 O11"], "K11 B11 O11", True, None),
        (["O8 O9 O10"], "B10 O10 R10 J", False, 40),
        (["K9 K10 K11 K12 K13"], "K11 B11 O11 R11", False, 44),
    ]
    for before, played, opened, meld in cases:
        after = loose(" ".join([*before, played]))
        v = verify_loose_turn(table(*before), after, parse_tiles(played), opened)
        assert v.valid and v.jokers_freed == 0, (before, v.violations)
        assert v.after is not None and v.after[0].tiles == table(*before)[0].tiles
        assert v.initial_meld_value == meld


def test_the_arrangement_judged_does_not_follow_the_order_of_the_before_sets() -> None:
    # two arrangements change the table as little: R5 joins the group, or frees the run's
    # joker (J=R3 R4 R5 R6); the solver took the one the listing met first, so jokers_freed
    # and `after` depended on the order of the sets (the jokers audit of session 46)
    for before_rows, played in ((("R4 J R6", "K5 B5 O5"), "R5"), (("R4 R5 J", "K6 B6 O6"), "R6")):
        before = table(*before_rows)
        after = loose(" ".join([*before_rows, played]))
        verdicts = [
            verify_loose_turn(b, after, parse_tiles(played), True, PRESETS["sabra"]) for b in (before, before[::-1])
        ]
        assert all(v.valid for v in verdicts)
        assert (
            len({(v.jokers_freed, tuple(sorted(tuple(map(str, s.tiles)) for s in v.after or ()))) for v in verdicts})
            == 1
        )


@pytest.mark.parametrize("out_of_time", [True, False])
def test_a_layout_s_faults_are_not_the_turn_s_when_the_search_ran_out_of_time(
    out_of_time: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the search for a legal arrangement stops short (its budget: a loaded server, or
    64 requests at once), the arrangement laid out instead was judged, and a legal turn got its
    faults (JOKER_NOT_REPLACED, FREED_JOKER_MISUSED: the concurrency audit, session 47). When
    the search ran out of time it is ARRANGEMENT_NOT_FOUND.
    Here the layout frees the run's joker into its own run, which pressman-2009 forbids, while
    R5 joining the group is legal."""
    before = table("R4 J R6", "K5 B5 O5")
    after = loose("R4 J R6 K5 B5 O5 R5")
    legal = verify_loose_turn(before, after, parse_tiles("R5 K1"), True, PRESETS["pressman-2009"])
    assert legal.valid  # (the search finds R5 joining the group)

    def stopped_short(table_: object, rack: object, opened: bool, *args: object, **kwargs: object) -> Suggestion:
        return Suggestion(tuple(s.tiles for s in before), (), 0, not out_of_time, out_of_time, None, False)

    monkeypatch.setattr(engine.loose.solver, "suggest", stopped_short)
    verdict = verify_loose_turn(before, after, parse_tiles("R5 K1"), True, PRESETS["pressman-2009"])
    codes = [v.code for v in verdict.violations]
    assert not verdict.valid
    assert codes == (["ARRANGEMENT_NOT_FOUND"] if out_of_time else ["FREED_JOKER_MISUSED"]), codes


def test_an_illegal_opening_is_judged_with_the_table_left_whole() -> None:
    """An opening too low whose played tiles lie as a set of their own was judged on a layout
    of every tile that broke the table's group up, so the verdict told
    MANIPULATION_BEFORE_OPENING as well, or not, depending on the colours' names (the same
    turn with blue and red swapped: the loose-table audit, session 52)."""
    cases = (("R3 B3 K3", "R3 J O3 K3"), ("B3 R3 K3", "B3 J O3 K3"))
    verdicts = [
        verify_loose_turn(table(before), loose(f"K3 B3 R3 {played}"), loose(played), False, PRESETS["sabra"])
        for before, played in cases
    ]
    for (before, _), verdict in zip(cases, verdicts, strict=True):
        assert [v.code for v in verdict.violations] == ["INITIAL_MELD_TOO_LOW"]
        assert verdict.after is not None and table(before)[0] in verdict.after  # the group left whole
        assert verdict.penalty_draw == 3 and verdict.restore_table
    assert all(v.violations[0].params == verdicts[0].violations[0].params for v in verdicts)


def test_a_declared_joker_in_a_loose_table_is_a_request_error() -> None:
    """A declaration binds its joker (SPEC §2) and the layout is sought without it: loose
    ``J=R8 R9 R10`` was judged as ``R9 R10 J=R11``, a legal 30-point opening, where the same set
    laid is worth 27 (the loose audit, session 52). Now a 422 at the joker's index, in both
    forms; an undeclared joker is still laid out."""
    from engine.errors import InputError
    from service.operations import RequestError, run_operation

    rack = ["J", "R9", "R10", "R5", "R6"]
    with pytest.raises(InputError) as raised:
        verify_loose_turn([], parse_tiles(["R9", "J=R8", "R10"]), parse_tiles(rack), False)
    assert raised.value.pointer == "/1"
    for after, pointer in ((["J=R8", "R9", "R10"], "/after/0"), ({"loose": ["R9", "R10", "j=r8"]}, "/after/loose/2")):
        with pytest.raises(RequestError) as refused:
            run_operation("turns/verify", {"before": [], "after": after, "rack": rack, "opened": False}, "en")
        assert refused.value.status == 422
        assert [e["pointer"] for e in refused.value.errors] == [pointer]
        assert "J=R8" in refused.value.errors[0]["detail"]
    laid = run_operation(
        "turns/verify", {"before": [], "after": ["J", "R9", "R10"], "rack": rack, "opened": False}, "en"
    )
    assert laid["valid"] and laid["initial_meld"] == {"value": 30}
    as_sets = {"before": [], "after": [["J=R8", "R9", "R10"]], "rack": rack, "opened": False}
    assert [v["code"] for v in run_operation("turns/verify", as_sets, "en")["violations"]] == ["INITIAL_MELD_TOO_LOW"]


def test_a_loose_table_may_copy_the_declarations_of_befores_jokers() -> None:
    """A table flattened as the service writes it (``J=R12``) says nothing ``before`` does not:
    read as ``J`` (the review of session 52: a 422 there was a regression), each declaration as
    many times as ``before``'s jokers carry it; one more is refused, at its place in either form."""
    from service.operations import RequestError, run_operation

    before = [["R10", "R11", "J=R12"]]
    grown = {"before": before, "after": ["R10", "R11", "J=R12", "R9"], "rack": ["R9", "K1"], "opened": True}
    answer = run_operation("turns/verify", grown, "en")
    assert answer["valid"] and answer["played"] == ["R9"]
    kept = {**grown, "after": ["J=R12", "R11", "R10"]}
    assert run_operation("turns/verify", kept, "en")["action"] == "draw"
    twice = {**grown, "after": ["R10", "R11", "J=R12", "R9", "J=R12", "K1"], "rack": ["R9", "J", "K1"]}
    with pytest.raises(RequestError) as refused:
        run_operation("turns/verify", twice, "en")
    assert [e["pointer"] for e in refused.value.errors] == ["/after/4"]
    with pytest.raises(RequestError) as loose:
        run_operation("turns/verify", {**twice, "after": {"loose": ["R10", "J=R8", "R11"]}}, "en")
    assert [e["pointer"] for e in loose.value.errors] == ["/after/loose/1"]


def test_a_layout_is_not_judged_when_the_search_did_not_prove_the_move_the_best() -> None:
    """pressman-2009 with a free release: O2 frees J=O2 of O1 J=O2 O3, the joker and O10 extend
    O5 O6 O7 O8 (its O6 into K6 B6 R6, the played O6 in its place): legal as sets. The search
    plays O6 only, not proven (its passes do not model this joker move), and the loose turn was
    judged by a layout of all the tiles: FREED_JOKER_MISUSED, a wrong verdict. Now
    ARRANGEMENT_NOT_FOUND, as when the budget runs out (the stateful transport audit, session 57)."""
    rules = {"preset": "pressman-2009", "joker_release": "free"}
    before = [
        TableSet(parse_tiles(s))
        for s in ("K6 B6 R6", "B9 B10 J=B11 B12", "K12 O12 R12", "K13 B13 O13 R13", "O1 J=O2 O3", "O5 O6 O7 O8")
    ]
    rack = parse_tiles("O6 O2 O10")
    as_sets = [
        *(TableSet(parse_tiles(s)) for s in ("K6 B6 R6 O6", "B9 B10 J=B11 B12", "K12 O12 R12", "K13 B13 O13 R13")),
        TableSet(parse_tiles("O1 O2 O3")),
        TableSet(parse_tiles("O5 O6 O7 O8 J O10")),
    ]
    assert verify_turn(before, as_sets, rack, True, rules).valid
    loose = [t for s in as_sets for t in s.tiles]
    verdict = verify_loose_turn(before, [t.undeclared() for t in loose], rack, True, rules)
    assert [v.code for v in verdict.violations] == ["ARRANGEMENT_NOT_FOUND"]

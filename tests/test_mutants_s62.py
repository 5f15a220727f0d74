"""Session 62, mutation testing of the rules engine (helper ``mutants``): each test pins a
behaviour that a hand-made mutant of engine/{sets,validate,rules,loose,replay,turns,meld_value,
locked_joker_sets}.py changed while the existing tests run on it (the module's own files, the
vectors, and the wider files checked: test_api, test_contract, test_library,
test_handmade_cases, test_messages_s60, test_messages_lang_s53) still passed. Each docstring
names the SPEC (or documented) clause it holds; main's answers, checked against SPEC (the
meld values also against an independent brute force)."""

from __future__ import annotations

from typing import Any

import pytest

import engine.loose
from engine.loose import verify_loose_turn
from engine.rules import PRESETS, SABRA, Rules, RulesError, resolve_rules
from engine.sets import TableSet
from engine.solver import Suggestion
from engine.tiles import parse_tiles
from service.operations import run_operation


def _verify(body: dict[str, Any]) -> dict[str, Any]:
    return run_operation("turns/verify", {"opened": True, **body}, "en")


def _codes(answer: dict[str, Any]) -> list[str]:
    return [v["code"] for v in answer["violations"]]


def _set_codes(sets: list[Any], rules: Any = "sabra") -> list[list[str]]:
    answer = run_operation("sets/validate", {"sets": sets, "rules": rules}, "en")
    return [[v["code"] for v in s["violations"]] for s in answer["sets"]]


def _table(*rows: str) -> list[TableSet]:
    return [TableSet(parse_tiles(row.split())) for row in rows]


# --- engine/sets.py ---------------------------------------------------------------------------


def test_strict_order_a_declared_joker_with_no_place_in_the_run_is_a_declaration_mismatch() -> None:
    """SPEC §2: under ``strict_order`` a declared joker must sit at its place in the sequence;
    ``R3 R4 J=R6`` is laid ascending but no run holds R3 R4 R6 in three tiles, so its code is
    ``JOKER_DECLARATION_MISMATCH`` (as without strict_order), not ``RUN_ORDER``. Kills the
    mutant ``max - min + 0 > len(tiles)`` in ``_laid_numbers``."""
    strict = {"preset": "sabra", "strict_order": True}
    assert _set_codes([["R3", "R4", "J=R6"]], strict) == [["JOKER_DECLARATION_MISMATCH"]]
    assert _set_codes([["R3", "R4", "J=R6"]]) == [["JOKER_DECLARATION_MISMATCH"]]
    assert _set_codes([["R3", "J=R4", "R5"]], strict) == [[]]


# --- engine/rules.py --------------------------------------------------------------------------


def test_rule_limits_are_inclusive() -> None:
    """SPEC §3 / openapi.yaml: ``turn_time_limit`` is seconds up to 86400 inclusive, a deal
    1-30 tiles inclusive (as a number or per player count). The largest values are accepted,
    one more is refused. Kills ``<=`` → ``<`` at each bound and ``30`` → ``29``."""
    assert resolve_rules({"turn_time_limit": 86400}).turn_time_limit == 86400
    assert resolve_rules({"deal": 30}).deal_for(4) == 30
    assert resolve_rules({"deal": {"2": 30}}).deal_for(2) == 30
    assert resolve_rules({"deal": 1}).deal_for(2) == 1
    assert resolve_rules({"deal": {"2": 1}}).deal_for(2) == 1
    for bad, pointer in (
        ({"turn_time_limit": 86400.5}, "/turn_time_limit"),
        ({"deal": 31}, "/deal"),
        ({"deal": {"2": 31}}, "/deal/2"),
    ):
        with pytest.raises(RulesError) as info:
            resolve_rules(bad)
        assert info.value.pointer == pointer
    body = {"sets": [["R3", "R4", "R5"]], "rules": {"preset": "sabra", "turn_time_limit": 86400, "deal": 30}}
    assert run_operation("sets/validate", body, "en")["valid"]


@pytest.mark.parametrize(
    "settings",
    [
        {"strict_order": 1},
        {"manipulate_on_opening_turn": "yes"},
        {"deal": ((2, 0), (3, 14), (4, 14))},
        {"deal": ((2, 31), (3, 14), (4, 14))},
        {"deal": ((2, 14), (3, 14), (4, "14"))},
        {"deal": ()},
        {"deal": ((2, 14, 1),)},
        {"deal": ((1, 14),)},
    ],
)
def test_rules_made_in_code_check_booleans_and_deals(settings: dict[str, Any]) -> None:
    """SPEC §3 settings (the library's ``Rules``, engine.__all__): a boolean setting is True or
    False, a deal pairs an allowed player count with 1-30 tiles; anything else is refused
    when made, as resolve_rules refuses it in a request."""
    with pytest.raises((TypeError, ValueError)):
        Rules(**settings)


# --- engine/validate.py (messages: SPEC §4 "messages are for people") ------------------------


def test_kind_mismatch_names_both_kinds() -> None:
    """SPEC §2 ``KIND_MISMATCH``; its message names the declared kind and the other one."""
    answer = run_operation("sets/validate", {"sets": [{"tiles": ["R3", "R4", "R5"], "kind": "group"}]}, "en")
    (violation,) = answer["sets"][0]["violations"]
    assert violation["code"] == "KIND_MISMATCH"
    assert violation["message"] == "This set was declared a group, but it is only valid as a run."


def test_tile_not_in_rack_is_worded_by_copies() -> None:
    """SPEC §4 ``TILE_NOT_IN_RACK``: one copy missing from a rack with none is "Tile R5 is
    played but not on the player's rack"; two copies are counted."""
    one = _verify({"before": [], "after": [["R5", "R6", "R7"]], "rack": ["R6", "R7", "K1"]})
    two = _verify(
        {"before": [], "after": [["R5", "R6", "R7"], ["R5", "B5", "K5"]], "rack": ["R6", "R7", "K1", "B5", "K5"]}
    )
    assert [v["message"] for v in one["violations"]] == ["Tile R5 is played but not on the player's rack."]
    assert [v["message"] for v in two["violations"]] == [
        "2 copies of tile R5 are played beyond those on the player's rack."
    ]


# --- engine/loose.py (docs/rules-engine.md, "Loose tables") ----------------------------------


def test_a_loose_turn_beyond_the_supply_tells_only_the_accounting() -> None:
    """SPEC §4: more copies of a tile on ``before`` and ``rack`` together than the tile set has
    is ``TILE_SUPPLY_EXCEEDED``; a loose table's accounting faults are told alone, with no
    arrangement sought (``NO_ARRANGEMENT`` is not the turn's fault then)."""
    body = {
        "before": [["R5", "R6", "R7"], ["R5", "B5", "K5"]],
        "after": ["R5", "R6", "R7", "R5", "B5", "K5", "O9"],
        "rack": ["R5", "O9"],
    }
    answer = _verify(body)
    assert _codes(answer) == ["TILE_SUPPLY_EXCEEDED"] and not answer["valid"]
    # the verdict's layout: the before-sets still whole, plus one set of the other tiles
    assert answer["after"] == [["R5", "R6", "R7"], ["R5", "B5", "K5"], ["O9"]]


def test_a_loose_table_that_cannot_be_laid_out() -> None:
    """docs/rules-engine.md, loose tables: tiles that cannot be laid out are ``NO_ARRANGEMENT``
    (one tile: "The tile ..."), no joker freed, and a turn over the time limit also tells
    ``TIME_LIMIT_EXCEEDED`` (SPEC §4) with the larger penalty."""
    one = _verify({"before": [], "after": ["R5"], "rack": ["R5", "K1"]})
    assert _codes(one) == ["NO_ARRANGEMENT"] and one["jokers_freed"] == 0
    assert one["violations"][0]["message"].startswith("The tile ")
    rules = {"preset": "sabra", "turn_time_limit": 60, "timeout_penalty": 5}
    many = _verify(
        {
            "before": [["R1", "R2", "R3"]],
            "after": ["R1", "R2", "R3", "K9", "B4"],
            "rack": ["K9", "B4"],
            "elapsed_seconds": 61,
            "rules": rules,
        }
    )
    assert _codes(many) == ["NO_ARRANGEMENT", "TIME_LIMIT_EXCEEDED"]
    assert many["violations"][0]["message"].startswith("The 5 tiles ")
    assert many["jokers_freed"] == 0 and many["penalty"]["draw"] == 5


def _stopped(before: list[TableSet], proven: bool, exhausted: bool) -> Any:
    def suggest(*args: object, **kwargs: object) -> Suggestion:
        return Suggestion(tuple(s.tiles for s in before), (), 0, proven, exhausted, None, False)

    return suggest


@pytest.mark.parametrize("exhausted", [True, False])
def test_a_loose_layout_not_proven_is_not_found(exhausted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/rules-engine.md, loose tables: when the search neither plays every added tile nor
    proves that no move does, an illegal layout gives ``ARRANGEMENT_NOT_FOUND``; its message
    says "unproven" only when the time held."""
    before = _table("R4 J R6", "K5 B5 O5")
    after = parse_tiles(["R4", "J", "R6", "K5", "B5", "O5", "R5"])
    monkeypatch.setattr(engine.loose.solver, "suggest", _stopped(before, False, exhausted))
    verdict = verify_loose_turn(before, after, parse_tiles(["R5", "K1"]), True, PRESETS["pressman-2009"])
    assert [v.code for v in verdict.violations] == ["ARRANGEMENT_NOT_FOUND"]
    assert (verdict.violations[0].params.get("case") == "unproven") is not exhausted


def test_a_legal_loose_layout_stands_when_the_search_stopped_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/rules-engine.md, loose tables: when ``arrange``'s layout of all the tiles is a legal
    turn, the turn is legal, whatever the move search proved."""
    before = _table("R4 R5 R6")
    after = parse_tiles(["R4", "R5", "R6", "K9", "B9", "O9"])
    monkeypatch.setattr(engine.loose.solver, "suggest", _stopped(before, False, True))
    verdict = verify_loose_turn(before, after, parse_tiles(["K9", "B9", "O9", "K1"]), True, SABRA)
    assert verdict.valid and not verdict.violations


def test_a_loose_table_plays_two_copies_of_a_tile() -> None:
    """SPEC §4 ``played`` is a multiset: a loose table adding both copies of R5 plays both,
    laid out or not (``NO_ARRANGEMENT`` still tells both as played)."""
    rack = ["R5", "R6", "R7", "R5", "B5", "K5", "O1"]
    laid = _verify({"before": [], "after": ["R5", "R6", "R7", "R5", "B5", "K5"], "rack": rack})
    assert laid["valid"] and sorted(laid["played"]) == ["B5", "K5", "R5", "R5", "R6", "R7"]
    assert laid["rack_after"] == ["O1"]
    unlaid = _verify({"before": [], "after": ["R5", "R5"], "rack": ["R5", "R5", "K1"]})
    assert _codes(unlaid) == ["NO_ARRANGEMENT"] and unlaid["played"] == ["R5", "R5"]


def test_a_loose_table_may_copy_each_declaration_as_often_as_before_holds_it() -> None:
    """docs/rules-engine.md, loose tables: each declaration of ``before``'s jokers may be
    copied as many times as ``before`` carries it (two jokers standing for R12: twice)."""
    before = [["R10", "R11", "J=R12"], ["R11", "J=R12", "R13"]]
    after = ["R10", "R11", "J=R12", "R11", "J=R12", "R13", "K9", "B9", "O9"]
    answer = _verify({"before": before, "after": after, "rack": ["K9", "B9", "O9", "K1"]})
    assert answer["valid"], answer["violations"]


# --- engine/replay.py -------------------------------------------------------------------------


def _record_short_of(count: int) -> dict[str, Any]:
    from engine.generate import generate_game

    record = generate_game(1, 2)
    record.pop("end", None)
    return {**record, "turns": [], "pool": record["pool"][:-count]}


def test_pool_mismatch_lists_twelve_missing_tiles_then_counts() -> None:
    """SPEC §6: ``pool`` must hold exactly the undealt tiles, else ``POOL_MISMATCH``; the
    message lists the first 12 missing tiles and counts the rest ("and 1 more"); one missing
    tile is "falta" in Spanish, not "faltan"."""
    many = _record_short_of(13)
    (violation,) = run_operation("games/replay", many, "en")["violations"]
    listed = violation["message"].split("(missing: ")[1]
    assert violation["code"] == "POOL_MISMATCH" and listed.endswith(" and 1 more).")
    assert len(listed.removesuffix(" and 1 more).").split()) == 12
    (one,) = run_operation("games/replay", _record_short_of(1), "es")["violations"]
    assert one["code"] == "POOL_MISMATCH" and "(falta: " in one["message"]


# --- engine/turns.py, engine/replay.py --------------------------------------------------------------------------


def test_a_set_id_labels_the_violations_about_that_set() -> None:
    """SPEC §1: a set's ``id`` is echoed in messages (and never changes a verdict): the
    invalid second after-set's message names it, not the first set's id."""
    body = {
        "before": [{"tiles": ["R1", "R2", "R3"], "id": "a"}],
        "after": [{"tiles": ["R1", "R2", "R3"], "id": "a"}, {"tiles": ["K5", "K6", "K8"], "id": "new"}],
        "rack": ["K5", "K6", "K8", "O1"],
    }
    (violation,) = _verify(body)["violations"]
    assert violation["at"] == "/after/1" and violation["message"].startswith('Set "new": ')
    # every violation pointing at one set is labelled with that set's id, on either table
    body = {
        "before": [{"tiles": ["R1", "R2", "R4"], "id": "x"}],
        "after": [{"tiles": ["R1", "R2", "R4"], "id": "x"}, {"tiles": ["K5", "K6", "K7"], "id": "y"}],
        "rack": ["K5", "O1"],
    }
    answer = _verify(body)
    labels = {"/before/0": 'Set "x": ', "/after/0": 'Set "x": ', "/after/1": 'Set "y": '}
    assert {v["code"] for v in answer["violations"]} >= {"TILE_NOT_IN_RACK", "BEFORE_TABLE_INVALID", "INVALID_SET"}
    for v in answer["violations"]:
        if v["at"] in labels:
            assert v["message"].startswith(labels[v["at"]]), v


def _short_record() -> dict[str, Any]:
    from engine.generate import generate_game

    record = generate_game(3, 2)
    record.pop("end", None)
    return {**record, "turns": record["turns"][:6]}


def test_a_replayed_play_tells_jokers_exact_only_when_false() -> None:
    """SPEC §7 games/replay turn verdicts carry the turns/verify fields; ``jokers_exact`` is
    the service's flag for a joker check that ran out of steps, present only when false
    (docs/rules-engine.md): an ordinary replayed play has no such key."""
    answer = run_operation("games/replay", _short_record(), "en")
    plays = [t for t in answer["turns"] if t["action"] == "play"]
    assert plays and answer["first_invalid_turn"] is None
    assert all("jokers_exact" not in t for t in plays)


@pytest.mark.parametrize("elapsed", [0, 0.5])
def test_a_record_s_elapsed_seconds_may_be_below_one(elapsed: float) -> None:
    """SPEC §6 (a table turn's optional ``elapsed_seconds``, a non-negative number): 0 and 0.5
    are read, by the service and by the library's ``parse_game_record``."""
    from engine.replay import parse_game_record

    record = _short_record()
    record["turns"][1] = {**record["turns"][1], "elapsed_seconds": elapsed}
    assert parse_game_record(record).turns[1].elapsed_seconds == elapsed
    assert run_operation("games/replay", record, "en")["first_invalid_turn"] is None


# --- engine/meld_value.py (SPEC §4, manipulate_on_opening_turn: the most valid sets of the
# played tiles could be worth; each value below agrees with an independent brute force) -------


def test_best_meld_value_small_and_wide() -> None:
    """SPEC §4 opening value under ``manipulate_on_opening_turn``: O13 K13 J make a group of
    13s (39) and B12 is left over, never counted; 18 high tiles without a joker are worth 202
    (a brute force over every disjoint collection of valid sets agrees)."""
    from engine.meld_value import best_meld_value

    assert best_meld_value({"O13": 1, "K13": 1, "B12": 1, "J": 1}) == 39
    assert best_meld_value({"R6": 1, "O13": 1, "B13": 1, "J": 1}) == 39
    wide = {
        "R12": 2,
        "K11": 2,
        "B11": 2,
        "O13": 1,
        "O11": 2,
        "R13": 1,
        "K12": 1,
        "O12": 2,
        "B13": 1,
        "K13": 2,
        "B12": 2,
    }
    assert best_meld_value(wide) == 202


# --- engine/joker_use.py, engine/locked_joker_sets.py (SPEC §4 jokers) -----------------------


def test_a_locked_joker_freed_by_its_exact_tile_may_go_to_another_run() -> None:
    """SPEC §4 ``joker_sets_locked`` ("only the exact tile frees it") with other_set: R4 R5 J's
    joker freed by R6 goes to R7 R8 J J, which holds no tile of its set; only the set R6 was
    taken from is broken (one JOKER_SET_BROKEN, at its successor)."""
    rules = {"preset": "strict-joker", "freed_joker_use": "other_set"}
    body = {
        "before": [["R4", "R5", "J"], ["R6", "R7", "R8", "J"]],
        "after": [["R4", "R5", "R6"], ["R7", "R8", "J", "J"], ["K1", "K2", "K3"]],
        "rack": ["K1", "K2", "K3"],
        "rules": rules,
    }
    answer = _verify(body)
    assert [(v["code"], v["at"]) for v in answer["violations"]] == [("JOKER_SET_BROKEN", "/after/1")]
    assert answer["jokers_freed"] == 1


def test_a_locked_group_joker_freed_by_its_tile_reads_as_freed_not_broken() -> None:
    """SPEC §4 (the reading most favourable to the player; under ``joker_sets_locked`` the
    exact tile frees the joker and the set is then no longer locked) with docs/rules-engine.md's
    tie-break (between equally many violations, the reading where the played copy freed the
    joker): ``B7 O7 R7 J`` -> ``B7 O7 J`` + ``O7 R7 K7`` with K7 played is one freed joker
    misused under other_set (it stays beside B7 O7), not a broken locked set."""
    rules = {"preset": "strict-joker", "freed_joker_use": "other_set"}
    body = {
        "before": [["B7", "O7", "R7", "J"]],
        "after": [["B7", "O7", "J"], ["O7", "R7", "K7"]],
        "rack": ["K7", "O7"],
        "rules": rules,
    }
    answer = _verify(body)
    assert [(v["code"], v["at"]) for v in answer["violations"]] == [("FREED_JOKER_MISUSED", "/after/0")]
    assert answer["jokers_freed"] == 1

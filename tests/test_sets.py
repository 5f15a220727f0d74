"""Set reading (SPEC §2): readings, values, joker positions and the primary code."""

from __future__ import annotations

import pytest

from engine.rules import SABRA, resolve_rules
from engine.sets import GROUP, RUN, TableSet, read_set, read_sets
from engine.tiles import format_tiles, parse_tiles

STRICT = resolve_rules({"strict_order": True})


def read(text: str, rules=SABRA, kind=None):  # type: ignore[no-untyped-def]
    return read_set(parse_tiles(text), rules, kind)


@pytest.mark.parametrize(
    ("text", "value", "kinds"),
    [
        ("R3 R4 R5", 12, (RUN,)),
        ("R5 R4 R3", 12, (RUN,)),
        ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13", 91, (RUN,)),
        ("K1 B1 O1", 3, (GROUP,)),
        ("K13 B13 O13 R13", 52, (GROUP,)),
        ("R4 J R6", 15, (RUN,)),
        ("J R2 R3", 6, (RUN,)),  # J is R1
        ("R1 J J", 6, (GROUP, RUN)),  # run 1-2-3 (6) or group of 1s (3)
        ("J J R13", 39, (GROUP, RUN)),  # run 11-12-13 (36) or group (39)
        ("R13 J J", 39, (GROUP, RUN)),  # ascending fails (14, 15); descending 13-12-11 = 36; group 39
        ("J K7 J", 21, (GROUP, RUN)),
        ("B9 J B11 J", 42, (RUN,)),  # 9 10 11 12
        ("K5 J B5", 15, (GROUP,)),
        ("K5 B5 J J", 20, (GROUP,)),
        ("R7 R5 J", 18, (RUN,)),  # bag: 5 6 7 (J fills the gap)
        ("J=O9 O10 O11", 30, (RUN,)),
        ("K2 J=B2 R2", 6, (GROUP,)),
    ],
)
def test_valid_sets(text: str, value: int, kinds: tuple[str, ...]) -> None:
    result = read(text)
    assert result.valid
    assert result.value == value
    assert set(result.kinds) == set(kinds)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "SET_TOO_SHORT"),
        ("R5", "SET_TOO_SHORT"),
        ("J J", "SET_TOO_SHORT"),
        ("J J J", "SET_ALL_JOKERS"),
        ("J J J J", "SET_ALL_JOKERS"),
        ("K5 K5 B5", "GROUP_DUPLICATE_COLOUR"),
        ("R5 R5 J", "GROUP_DUPLICATE_COLOUR"),  # both families: group codes come first
        ("K5 B5 O5 R5 J", "GROUP_TOO_LARGE"),
        ("K5 B5 J=K5", "JOKER_DECLARATION_MISMATCH"),
        ("K5 B5 J=R6", "JOKER_DECLARATION_MISMATCH"),
        ("R4 R4 R5", "RUN_DUPLICATE_NUMBER"),
        ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 J", "RUN_TOO_LONG"),
        ("R12 R13 R1", "RUN_WRAPAROUND"),
        ("R13 R1 R2", "RUN_WRAPAROUND"),
        ("R1 J R13", "RUN_WRAPAROUND"),
        ("R12 J R1 R2", "RUN_WRAPAROUND"),
        ("R2 R5 R9", "RUN_GAP"),
        ("R1 R2 R13 R9", "RUN_GAP"),
        ("B5 B7 B8", "RUN_GAP"),
        ("R4 R5 J=B6", "JOKER_DECLARATION_MISMATCH"),
        ("R4 R5 J=R9", "JOKER_DECLARATION_MISMATCH"),
        ("R4 R5 J=R5", "JOKER_DECLARATION_MISMATCH"),
        ("R3 B4 K5", "NOT_A_SET"),
        ("R3 B3 B4", "NOT_A_SET"),
        ("R3 B4 J", "NOT_A_SET"),
    ],
)
def test_invalid_sets(text: str, code: str) -> None:
    result = read(text)
    assert not result.valid
    assert result.code == code
    assert result.readings == ()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("R12 R13 J", "RUN_OUT_OF_BOUNDS"),
        ("J R1 R2", "RUN_OUT_OF_BOUNDS"),
        ("R2 R1 J", "RUN_OUT_OF_BOUNDS"),
        ("R5 J R4", "RUN_ORDER"),
        ("R5 R7 J", "RUN_ORDER"),
        ("R3 R5 R4", "RUN_ORDER"),
        ("R3 R6 J", "RUN_GAP"),  # the gap comes before the order in the code order
        # SPEC §2, RUN_ORDER: "a declared joker too must sit at its place in the sequence"
        ("J=R6 R4 R5", "RUN_ORDER"),
        ("R1 R2 J J=R3", "RUN_ORDER"),
        ("R1 R2 J=R4 J", "RUN_ORDER"),
        ("J=R3 R1 R2", "RUN_ORDER"),  # declared R3, the joker need not be 0
        ("J=R11 R12 R13 J", "RUN_OUT_OF_BOUNDS"),
        # a declaration with no place in the run is a mismatch, after the order codes
        ("R2 R1 J=B2", "RUN_OUT_OF_BOUNDS"),
        ("R1 J=B2 R2", "RUN_ORDER"),
        ("R4 R5 J=R9", "JOKER_DECLARATION_MISMATCH"),
        ("R1 R2 J=R2", "JOKER_DECLARATION_MISMATCH"),
        ("R4 R5 J=B6", "JOKER_DECLARATION_MISMATCH"),
    ],
)
def test_strict_order_codes(text: str, code: str) -> None:
    assert read(text, STRICT).code == code


def test_strict_order_keeps_laid_runs_and_groups() -> None:
    assert read("R3 R4 R5", STRICT).valid
    assert read("R5 R4 R3", STRICT).valid
    assert read("J R4 R5", STRICT).value == 12
    assert read("B5 K5 J", STRICT).valid  # groups have no order
    assert read("J R1 J", STRICT).kinds == (GROUP,)  # the run would need a 0


def test_in_order_jokers_take_their_positions() -> None:
    assert format_tiles(read("R4 R5 J").best.tiles) == ["R4", "R5", "J=R6"]  # type: ignore[union-attr]
    assert format_tiles(read("J R4 R5").best.tiles) == ["J=R3", "R4", "R5"]  # type: ignore[union-attr]
    assert format_tiles(read("R6 R5 J").best.tiles) == ["R6", "R5", "J=R4"]  # type: ignore[union-attr]


def test_bag_reading_lists_every_extension() -> None:
    result = read("R5 J R4")
    assert [format_tiles(r.tiles) for r in result.readings] == [["R4", "R5", "J=R6"], ["J=R3", "R4", "R5"]]
    assert [r.value for r in result.readings] == [15, 12]


def test_group_joker_options_are_the_missing_colours() -> None:
    result = read("K7 B7 J")
    (reading,) = result.readings
    assert reading.kind == GROUP
    assert format_tiles(reading.joker_options[0]) == ["O7", "R7"]
    assert format_tiles(reading.tiles) == ["K7", "B7", "J"]


def test_group_joker_with_one_colour_left_is_declared() -> None:
    (reading,) = read("K7 B7 R7 J").readings
    assert format_tiles(reading.tiles) == ["K7", "B7", "R7", "J=O7"]


def test_declared_kind_keeps_only_that_kind() -> None:
    assert read("R5 J J", kind=RUN).kinds == (RUN,)
    assert read("R5 J J", kind=RUN).value == 18
    assert read("R5 J J", kind=GROUP).value == 15
    assert read("K5 B5 R5", kind=RUN).code == "KIND_MISMATCH"
    assert read("R5 R6 R7", kind=GROUP).code == "KIND_MISMATCH"
    assert read("R5 R6 R8", kind=GROUP).code == "NOT_A_SET"
    assert read("R5 R6 R8", kind=RUN).code == "RUN_GAP"
    assert read("K5 K5 B5", kind=GROUP).code == "GROUP_DUPLICATE_COLOUR"


def test_best_reading_first() -> None:
    result = read("R5 J J")
    assert [r.kind for r in result.readings] == [RUN, GROUP]
    assert result.kind == RUN and result.value == 18


def test_read_sets_reads_each_set_and_keeps_its_reading() -> None:
    strict = resolve_rules({"strict_order": True})
    sets = [TableSet(parse_tiles(t)) for t in ("R3 R1 R2", "K5 B5 J", "R1 R1")]
    for rules in (SABRA, strict):
        readings = read_sets(sets, rules)
        assert readings == [s.read(rules) for s in sets]
        assert [r.code for r in readings] == [None if rules is SABRA else "RUN_ORDER", None, "SET_TOO_SHORT"]
        assert read_sets(sets, rules)[0] is readings[0]  # kept, not read again


def test_table_set_counts_its_jokers() -> None:
    assert [TableSet(parse_tiles(t)).jokers for t in ("R1 R2 R3", "J R2 J=R3", "J J J")] == [0, 2, 3]

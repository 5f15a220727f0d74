"""Tile notation (SPEC §1) and tile supplies."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.errors import InputError
from engine.tiles import (
    JOKER,
    SUPPLIES,
    TileError,
    format_tiles,
    parse_tile,
    parse_tiles,
    sort_key,
    tiles_of_keys,
    tiles_without,
    tiles_without_keys,
)


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("R5", "R5"),
        ("r5", "R5"),
        ("o7", "O7"),
        ("y7", "O7"),
        ("Y13", "O13"),
        ("k1", "K1"),
        ("B10", "B10"),
        (" R5 ", "R5"),
        ("J", "J"),
        ("j", "J"),
        ("J=R5", "J=R5"),
        ("j=y7", "J=O7"),
        ({"color": "red", "number": 5}, "R5"),
        ({"color": "red", "number": 5.0}, "R5"),
        ({"color": "yellow", "number": 7}, "O7"),
        ({"color": "Black", "number": 13}, "K13"),
        ({"color": "B", "number": 1}, "B1"),
        ({"joker": True}, "J"),
        ({"joker": True, "as": "R5"}, "J=R5"),
        ({"joker": True, "as": {"color": "blue", "number": 2}}, "J=B2"),
        ({"joker": True, "as": None}, "J"),
    ],
)
def test_parse_and_format(given: Any, canonical: str) -> None:
    assert str(parse_tile(given)) == canonical


@pytest.mark.parametrize(
    ("given", "pointer"),
    [
        ("R0", ""),
        ("R14", ""),
        ("X5", ""),
        ("R", ""),
        ("", ""),
        ("5R", ""),
        ("R-1", ""),
        ("R５", ""),
        ("J=J", ""),
        ("J=R14", ""),
        ("JJ", ""),
        (5, ""),
        (None, ""),
        (True, ""),
        ([], ""),
        ({"color": "red"}, "/number"),
        ({"number": 5}, "/color"),
        ({"color": "pink", "number": 5}, "/color"),
        ({"color": "red", "number": 0}, "/number"),
        ({"color": "red", "number": True}, "/number"),
        ({"color": "red", "number": 5.5}, "/number"),
        ({"color": "red", "number": 5, "x": 1}, "/x"),
        ({"joker": False}, "/joker"),
        ({"joker": True, "as": "J"}, "/as"),
        ({"joker": True, "as": "Q1"}, "/as"),
        ({"joker": True, "colour": "red"}, "/colour"),
        ({"color": 3, "number": 5}, "/color"),
        ({"as": "O9"}, "/joker"),
        ({"as": "O9", "color": "red", "number": 9}, "/joker"),
        ({"joker": True, "as": {"joker": True, "as": "R5"}}, "/as"),
    ],
)
def test_bad_tiles(given: Any, pointer: str) -> None:
    with pytest.raises(TileError) as info:
        parse_tile(given)
    assert info.value.pointer == pointer
    assert isinstance(info.value, InputError)


def test_parse_tiles_points_at_the_bad_tile() -> None:
    with pytest.raises(TileError) as info:
        parse_tiles(["R5", {"color": "red", "number": 14}])
    assert info.value.pointer == "/1/number"


def test_jokers_share_one_key() -> None:
    assert parse_tile("J=R5").key == parse_tile("J").key == "J"
    assert parse_tile("J=R5").undeclared() == JOKER


def test_supplies() -> None:
    classic, xp = SUPPLIES["classic"], SUPPLIES["xp"]
    assert classic.total == 106 == len(classic.all_tiles())
    assert xp.total == 160 == len(xp.all_tiles())
    assert classic.limit("R5") == 2 and classic.limit("J") == 2
    assert xp.limit("R5") == 3 and xp.limit("J") == 4


def test_format_tiles() -> None:
    assert format_tiles(parse_tiles("r1 y2 J=k3 j")) == ["R1", "O2", "J=K3", "J"]


def test_tiles_of_keys_expands_counts_in_display_order() -> None:
    tiles = parse_tiles("J R13 K1 O5 B2 K1 R1 J")
    counts = Counter(t.key for t in tiles)
    expected = sorted((t if t.color is not None else JOKER for t in tiles), key=sort_key)
    assert tiles_of_keys(counts) == tuple(expected)
    assert format_tiles(tiles_of_keys(counts)) == ["K1", "K1", "B2", "O5", "R1", "R13", "J", "J"]
    assert tiles_of_keys({}) == ()


def test_tiles_without_keys_matches_tiles_without() -> None:
    rack = parse_tiles("R5 J K1 R5 J=B3 O2")
    gone = parse_tiles("R5 J")
    assert tiles_without_keys(rack, {"R5": 1, "J": 1}) == tiles_without(rack, gone)
    assert format_tiles(tiles_without_keys(rack, {"R5": 1, "J": 1})) == ["K1", "R5", "J=B3", "O2"]
    assert tiles_without_keys(rack, {"K9": 2}) == list(rack)  # keys not held are ignored


@pytest.mark.parametrize(
    ("number", "shown"), [(5.5, "a number with a fraction"), (float("inf"), "a number too large"), ("5", "a string")]
)
def test_a_tile_number_that_is_no_whole_number_says_what_it_is(number: Any, shown: str) -> None:
    with pytest.raises(InputError) as info:
        parse_tile({"color": "red", "number": number})
    assert info.value.message == f"'number' must be a whole number, not {shown}"  # 1e400 is read as inf


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        (" R5\t", True),
        ("\nJ=\r r5 ", True),
        ("\u00a0R5", False),  # Unicode spaces differ between regular expression flavours
        ("R5\x85", False),
        ("R5\x1f", False),
        ("\ufeffR5", False),
    ],
)
def test_the_whitespace_around_a_tile_is_what_the_contract_allows(text: str, accepted: bool) -> None:
    """engine.tiles.SPACE, and openapi.yaml's pattern read by Python's regular expressions
    (ECMAScript's read these cases alike)."""
    contract = yaml.safe_load((Path(__file__).resolve().parents[1] / "openapi.yaml").read_text())
    pattern = contract["components"]["schemas"]["TileString"]["pattern"]
    assert bool(re.search(pattern, text)) is accepted
    if accepted:
        parse_tile(text)
    else:
        with pytest.raises(InputError):
            parse_tile(text)


@pytest.mark.parametrize("text", ["JR5", "J =R5", "J5", "jx"])
def test_a_misspelt_joker_is_told_how_to_write_one(text: str) -> None:
    """They said "unknown colour 'J'" (the API audit, session 38)."""
    with pytest.raises(TileError, match="a joker is J, or J=R5"):
        parse_tile(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("J=R0", "'J=R0' has number 0"),
        ("j=r14", "'j=r14' has number 14"),
        ("J=", "'J=' is not a tile"),
        ("j=x9", "'j=x9' has an unknown colour 'X'"),
        ("r 5", "'r 5' is not a tile"),
        ("y0", "'y0' has number 0"),
    ],
)
def test_a_bad_tile_is_quoted_as_written(text: str, message: str) -> None:
    # a declaration's error quoted the declared part alone ('R0', '' for 'J='), a plain tile's
    # upper-cased ('R 5' for 'r 5'); every other tile error quotes the request (session 51)
    with pytest.raises(TileError) as info:
        parse_tile(text)
    assert str(info.value.message).startswith(message), info.value.message

"""The engine as a Python library: value types that check what they are given, public
functions that read iterators once, accept a preset's name for rules, and refuse what is not a
tile with a TypeError naming it, never a wrong verdict or an error from deep inside (the
library audit of session 47)."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle

import pytest

from engine import (
    JOKER,
    PRESETS,
    InputError,
    MatchRound,
    PlayerRack,
    Rules,
    TableSet,
    Tile,
    Violation,
    check_meld,
    format_tiles,
    parse_tile,
    parse_tiles,
    read_set,
    resolve_rules,
    score_match,
    score_round,
    validate_sets,
    verify_turn,
)
from engine.solver import arrange, suggest

P = parse_tiles


def test_iterators_are_read_once_and_give_the_verdicts_sequences_give() -> None:
    rack = P("R10 R11 R12 K1")
    meld = [P("R10 R11 R12")]
    assert check_meld(meld, iter(rack)).valid and check_meld(meld, rack).valid
    before, after = [TableSet(P("R5 R6 R7"))], [TableSet(iter(P("R5 R6 R7 R8")))]
    assert verify_turn(before, after, P("R8 K1"), True).valid
    assert verify_turn(iter(before), iter(after), iter(P("R8 K1")), True).valid
    assert validate_sets([TableSet(t for t in P("R5 R6 R7"))]).valid
    players = (PlayerRack("a", iter(P("R5"))), PlayerRack("b", ()))
    assert score_round(iter(players)).winner == "b"
    assert score_match(iter([MatchRound(iter(players))])).winners == ("b",)
    assert suggest((s for s in [P("R5 R6 R7")]), iter(P("R8")), True).played == tuple(P("R8"))
    assert arrange(iter(P("R5 R6 R7"))).arrangeable


def test_a_table_set_keeps_its_own_tuple_of_tiles() -> None:
    tiles = list(P("R5 R6 R7"))
    laid = TableSet(tiles)  # type: ignore[arg-type]
    tiles.append(parse_tile("R8"))
    assert laid.tiles == tuple(P("R5 R6 R7")) and laid.keys == ("R5", "R6", "R7")
    assert laid.read().value == 18
    assert hash(laid) == hash(TableSet(P("R5 R6 R7")))


def test_bare_tile_sequences_are_sets_everywhere() -> None:
    assert verify_turn([P("K1 K2 K3")], [P("K1 K2 K3 K4")], P("K4 B9"), True).valid
    assert validate_sets([P("K1 K2 K3")]).valid and check_meld([P("K10 K11 K12")]).valid


def test_a_preset_name_is_read_as_its_rules() -> None:
    xp_run = P("R5 R5 R5")
    assert not read_set(xp_run, "xp").valid  # (a run with a number twice in any edition)
    assert validate_sets([P("R5 R6 R7")], "xp").valid
    supply = verify_turn(
        [P("R5 R6 R7"), P("R5 B5 K5")], [P("R5 R6 R7"), P("R5 B5 K5"), P("R5 O5 J")], P("R5 O5 J"), True
    )
    assert "TILE_SUPPLY_EXCEEDED" in [v.code for v in supply.violations]  # classic: two of each tile
    under_xp = [P("R5 R6 R7"), P("R5 B5 K5"), P("R5 O5 J")]
    assert verify_turn([P("R5 R6 R7"), P("R5 B5 K5")], under_xp, P("R5 O5 J"), True, "xp").valid
    assert score_round([PlayerRack("a", P("J")), PlayerRack("b", ())], "komoni").scores[0].rack_value == 25
    with pytest.raises(InputError, match="unknown rules preset"):
        validate_sets([P("R5 R6 R7")], "sabre")


@pytest.mark.parametrize(
    "call",
    [
        lambda: read_set(["R5", "R6", "R7"]),  # type: ignore[list-item]
        lambda: read_set("R5 R6 R7"),  # type: ignore[arg-type]
        lambda: validate_sets([["R5", "R6", "R7"]]),  # type: ignore[list-item]
        lambda: validate_sets(["R5 R6 R7"]),  # type: ignore[list-item]
        lambda: TableSet(("R5", "R6", "R7")),  # type: ignore[arg-type]
        lambda: verify_turn([], [P("R5 R6 R7")], "R5 R6 R7", True),  # type: ignore[arg-type]
        lambda: verify_turn([], [P("R5 R6 R7")], ["R5", "R6", "R7"], True),  # type: ignore[list-item]
        lambda: check_meld([P("R5 R6 R7")], ["R5"]),  # type: ignore[list-item]
        lambda: PlayerRack("a", ("R5",)),  # type: ignore[arg-type]
        lambda: arrange(["R5", "R6", "R7"]),  # type: ignore[list-item]
        lambda: suggest([], ["R5"], True),  # type: ignore[list-item]
    ],
)
def test_strings_where_tiles_belong_are_a_type_error_naming_them(call: object) -> None:
    with pytest.raises(TypeError, match="Tile objects"):
        call()  # type: ignore[operator]


@pytest.mark.parametrize(
    "call",
    [
        lambda: PlayerRack("a", "R5 R6"),  # type: ignore[arg-type]
        lambda: TableSet("R5 R6"),  # type: ignore[arg-type]
        lambda: format_tiles("R5 R6"),  # type: ignore[arg-type]
    ],
)
def test_one_string_where_tiles_belong_is_named_whole(call: object) -> None:
    # (not by its first letter: "not str 'R'"; the docs audit, session 56)
    with pytest.raises(TypeError, match=r"not the str 'R5 R6'$"):
        call()  # type: ignore[operator]


@pytest.mark.parametrize("kind", ["Group", "grp", "bogus", ""])
def test_a_kind_is_run_group_or_none(kind: str) -> None:
    with pytest.raises(ValueError, match="kind"):
        TableSet(P("K5 B5 R5"), kind=kind)
    with pytest.raises(ValueError, match="kind"):
        read_set(P("K5 B5 R5"), kind=kind)


def test_a_set_id_is_a_string() -> None:
    with pytest.raises(TypeError, match="id"):
        TableSet(P("K5 B5 R5"), id=3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "args",
    [("X", 99), ("R", 0), ("R", 14), ("R", True), ("R", 5.0), ("R", 5, Tile("B", 5)), (None, 3), (None, 0, JOKER)],
)
def test_a_tile_that_cannot_exist_is_a_value_error(args: tuple[object, ...]) -> None:
    with pytest.raises(ValueError):
        Tile(*args)  # type: ignore[arg-type]


def test_a_tile_changed_into_one_that_cannot_exist_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        dataclasses.replace(parse_tile("R5"), number=99)
    with pytest.raises(ValueError):
        dataclasses.replace(parse_tile("R5"), declared=parse_tile("B5"))
    assert dataclasses.replace(parse_tile("J=R5"), declared=None) == JOKER


def test_tiles_and_sets_survive_copies_and_pickles() -> None:
    for tile in P("R5 J J=K3"):
        assert pickle.loads(pickle.dumps(tile)) == tile and copy.deepcopy(tile) == tile
        assert parse_tile(str(tile)) == tile
    laid = TableSet(P("R5 J R7"), "run", "a")
    assert pickle.loads(pickle.dumps(laid)) == laid and copy.deepcopy(laid) == laid


def test_violations_are_hashable_values() -> None:
    first = Violation("TILE_NOT_IN_RACK", "/after/0", {"tile": "R5"})
    again = Violation("TILE_NOT_IN_RACK", "/after/0", {"tile": "R5"})
    assert first == again and hash(first) == hash(again) and len({first, again}) == 1
    verdict = verify_turn([P("K1 K2 K3")], [P("K1 K2 K3 K4")], P("B9"), True)
    assert {v.code for v in set(verdict.violations)} == {"TILE_NOT_IN_RACK"}


@pytest.mark.parametrize(
    ("elapsed", "error"),
    [(math.nan, ValueError), (-1, ValueError), ("200", TypeError), (True, TypeError)],
)
def test_elapsed_seconds_is_a_number_of_seconds(elapsed: object, error: type[Exception]) -> None:
    """NaN passed every time limit; the service refuses all of these with a 422."""
    with pytest.raises(error, match="elapsed_seconds"):
        verify_turn([P("K1 K2 K3")], [P("K1 K2 K3 K4")], P("K4 B9"), True, PRESETS["pressman-2009"], elapsed)  # type: ignore[arg-type]
    over = verify_turn([P("K1 K2 K3")], [P("K1 K2 K3 K4")], P("K4 B9"), True, PRESETS["pressman-2009"], math.inf)
    assert "TIME_LIMIT_EXCEEDED" in [v.code for v in over.violations]


def test_suggest_refuses_what_the_service_refuses() -> None:
    with pytest.raises(InputError, match="only 3 of tile R1") as beyond:
        suggest([P("R1 R2 R3")] * 4, P("R4"), True, "xp", budget_seconds=2)
    assert beyond.value.pointer == "/table/3"


def test_opened_is_a_bool() -> None:
    """The string "false" is true: it judged an opening as a play of an opened player."""
    with pytest.raises(TypeError, match="opened"):
        verify_turn([], [P("R1 R2 R3")], P("R1 R2 R3 K1"), "false")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="opened"):
        suggest([], P("R1 R2 R3"), 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", [math.nan, None, "2"])
def test_a_budget_is_a_number_of_seconds(budget: object) -> None:
    with pytest.raises(TypeError, match="budget_seconds"):
        suggest([P("R1 R2 R3")], P("R4"), True, budget_seconds=budget)  # type: ignore[arg-type]


def test_the_loose_verify_takes_what_verify_turn_takes() -> None:
    from engine.loose import verify_loose_turn

    before = [TableSet(P("R5 R6 R7"))]
    assert verify_loose_turn(before, P("R5 R6 R7 R8"), P("R8 K1"), True).valid
    assert verify_loose_turn(iter([P("R5 R6 R7")]), iter(P("R5 R6 R7 R8")), iter(P("R8 K1")), True, "xp").valid
    with pytest.raises(TypeError, match="Tile objects"):
        verify_loose_turn(before, ["R5", "R6", "R7", "R8"], P("R8 K1"), True)  # type: ignore[list-item]


def test_replay_takes_a_presets_name_and_refuses_a_time_that_is_no_number() -> None:
    from engine.generate import generate_game
    from engine.replay import parse_game_record, replay_game

    doc = generate_game(3, players=2, rules=PRESETS["pressman-2009"])
    record = parse_game_record(doc)
    assert replay_game(record, "pressman-2009").to_json() == replay_game(record, PRESETS["pressman-2009"]).to_json()
    turn = next(i for i, t in enumerate(doc["turns"]) if "table" in t)
    for bad in (math.nan, math.inf):
        doc["turns"][turn]["elapsed_seconds"] = bad
        with pytest.raises(InputError, match="elapsed_seconds") as error:
            parse_game_record(doc)
        assert error.value.pointer == f"/turns/{turn}/elapsed_seconds"


@pytest.mark.parametrize(
    "settings",
    [
        {"tiles": "bogus"},
        {"strict_order": "no"},
        {"joker_release": "bogus"},
        {"players": ()},
        {"deal": {2: 14}},
        {"initial_meld_min": -1},
        {"turn_time_limit": 0},
        {"preset": 3},
    ],
)
def test_rules_that_cannot_be_are_refused_when_made(settings: dict[str, object]) -> None:
    """A misspelt choice was read as the other one, a string as a true boolean."""
    with pytest.raises((TypeError, ValueError)):
        Rules(**settings)  # type: ignore[arg-type]


def test_a_sets_counts_cannot_be_changed_from_outside() -> None:
    """TableSets are shared (the service keeps them across requests): a caller clearing the
    counts the joker checks read changed every later verdict on that set."""
    before = (TableSet(P("R4 R5 J")),)
    with pytest.raises(AttributeError):
        before[0].numbered_counts.clear()  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        before[0].numbered_counts["R4"] = 0  # type: ignore[index]
    assert verify_turn(before, [P("R4 R5 R6"), P("K1 K2 J")], P("R6 K1 K2"), True).valid


def test_presets_and_tile_sets_cannot_be_changed_from_outside() -> None:
    """Presets are shared by every caller naming them: a caller replacing ``PRESETS["sabra"]``
    changed every later request's rules (a library audit, session 47)."""
    from engine.rules import PRESET_DESCRIPTIONS
    from engine.tiles import SUPPLIES

    with pytest.raises(TypeError):
        PRESETS["sabra"] = PRESETS["free-joker"]  # type: ignore[index]
    with pytest.raises(TypeError):
        SUPPLIES["classic"] = SUPPLIES["xp"]  # type: ignore[index]
    assert not hasattr(PRESETS, "clear") and not hasattr(SUPPLIES, "pop")
    assert resolve_rules("sabra") is PRESETS["sabra"] and PRESETS["sabra"].joker_release == "replace"
    assert list(PRESETS) == list(PRESET_DESCRIPTIONS)  # every preset, in the listing's order


def test_every_public_method_and_property_says_what_it_is() -> None:
    """The engine is a library (docs/rules-engine.md): what ``help()`` shows must say something."""
    import inspect

    import engine

    missing = []
    for name in engine.__all__:
        exported = getattr(engine, name)
        if not inspect.isclass(exported):
            continue
        for member, value in vars(exported).items():
            function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            if not member.startswith("_") and callable(function) and not inspect.getdoc(function):
                missing.append(f"{name}.{member}")
    assert missing == []


def test_every_public_budget_and_flag_is_checked() -> None:
    from engine.generate import generate_game
    from engine.loose import verify_loose_turn
    from engine.replay import parse_game_record, replay_game

    with pytest.raises(TypeError, match="budget_seconds"):
        arrange(P("R5 R6 R7"), budget_seconds=math.nan)  # (NaN was no budget at all)
    with pytest.raises(TypeError, match="budget_seconds"):
        verify_loose_turn([P("R5 R6 R7")], P("R5 R6 R7 R8"), P("R8"), True, budget_seconds=None)  # type: ignore[arg-type]
    record = parse_game_record(generate_game(3, players=2))
    with pytest.raises(TypeError, match="analyze"):
        replay_game(record, analyze="no")  # type: ignore[arg-type]  ('no' is true: it analysed)
    with pytest.raises(TypeError, match="analyze_budget_seconds"):
        replay_game(record, analyze=True, analyze_budget_seconds=None)  # type: ignore[arg-type]


def test_rules_deal_for_every_player_count_they_allow() -> None:
    """A three-player record under Rules(deal=((2, 14),)) raised KeyError from inside."""
    with pytest.raises(ValueError, match="no deal for"):
        Rules(deal=((2, 14),))
    assert resolve_rules({"preset": "sabra", "players": [2, 3, 4, 5, 6]}).deal_for(6) == 14


# The library audit of session 55: the same standard for the functions and types it found
# answering with an error from inside.


@pytest.mark.parametrize("tiles", [["R5"], "R5 R6", [parse_tile("R5"), 3]])
def test_format_tiles_refuses_what_is_no_tile_by_name(tiles):

    with pytest.raises(TypeError, match="Tile objects"):
        format_tiles(tiles)


def test_format_tiles_reads_an_iterator_once():

    assert format_tiles(iter(parse_tiles("R5 J=R6"))) == ["R5", "J=R6"]


@pytest.mark.parametrize("rules", ["sabra", None, {"strict_order": True}, "strict-joker"])
def test_a_table_set_reads_under_any_rules_read_set_takes(rules):
    table_set = TableSet(parse_tiles("R5 J R4"))
    assert table_set.read(rules) == read_set(table_set.tiles, rules)


@pytest.mark.parametrize(
    ("number", "told"),
    [
        (10**5000, "1000000000 or more"),
        (-(10**5000), "-1000000000 or less"),
        (10**9, "1000000000 or more"),
        (10**9 - 1, "999999999"),
    ],
    ids=["huge", "-huge", "1e9", "below-1e9"],
)
def test_a_huge_tile_number_is_a_tile_error_at_its_pointer(number, told):
    with pytest.raises(InputError) as caught:
        parse_tile({"color": "red", "number": number})
    assert caught.value.pointer == "/number"
    assert caught.value.message == f"number {told} is out of range: tile numbers run from 1 to 13"


def test_a_nan_tile_number_is_named_nan():
    with pytest.raises(InputError, match="not NaN"):
        parse_tile({"color": "red", "number": math.nan})


def test_seconds_beyond_any_float_are_a_value_error_naming_them():
    from engine import verify_turn
    from engine.solver import arrange, suggest

    table = [parse_tiles("K1 K2 K3")]
    with pytest.raises(ValueError, match="elapsed_seconds"):
        verify_turn(table, [parse_tiles("K1 K2 K3 K4")], parse_tiles("K4 B9"), True, "classic-timed", 10**5000)
    with pytest.raises(ValueError, match="budget_seconds"):
        suggest(table, parse_tiles("K4"), True, budget_seconds=10**400)
    with pytest.raises(ValueError, match="budget_seconds"):
        arrange(parse_tiles("R1 R2 R3"), budget_seconds=10**400)


def test_a_float_subclass_time_limit_is_read_as_a_float():
    class Seconds(float):
        pass

    rules = resolve_rules({"turn_time_limit": Seconds(90)})
    assert rules.turn_time_limit == 90 and type(rules.turn_time_limit) is float


@pytest.mark.parametrize("tile", ["R5", "J", "J=R5", "O13"])
def test_a_tile_repr_evaluates_to_the_tile(tile):
    assert eval(repr(parse_tile(tile)), {"parse_tile": parse_tile}) == parse_tile(tile)


@pytest.mark.parametrize("number", [0.0, False])
def test_a_joker_number_is_the_int_zero(number):
    with pytest.raises(ValueError, match="a joker is Tile"):
        Tile(None, number)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: PlayerRack(7, ()), "name is a str"),
        (lambda: PlayerRack("a", (), opened="no"), "opened is True, False or None"),
        (lambda: score_round(["ann", "bob"]), "PlayerRack objects"),
        (lambda: score_match(["round"]), "MatchRound objects"),
        (lambda: MatchRound(["ann"]), "PlayerRack objects"),
        (lambda: MatchRound((PlayerRack("a", ()),), winner=3), "winner is a str"),
    ],
)
def test_scoring_refuses_what_is_not_its_types_by_name(make, message):
    with pytest.raises(TypeError, match=message):
        make()


def test_an_overlong_tile_says_the_limit():
    with pytest.raises(InputError, match="at most 16 characters"):
        parse_tile("R5" + " " * 15)


def test_a_set_equal_to_one_carried_over_is_carried_over_too() -> None:
    # (an invalid before-set laid again as a new object counted as changed: other codes than
    # the service's, whose set cache shares equal sets)
    b0, b1 = TableSet(P("J=K2 K3 K4")), TableSet(P("J B5"))
    rules = {"freed_joker_use": "other_set"}
    fresh = verify_turn([b0, b1], [TableSet(()), TableSet(P("J B5"))], P("R7"), True, rules)
    shared = verify_turn([b0, b1], [TableSet(()), b1], P("R7"), True, rules)
    assert fresh.violations == shared.violations
    before, after = [P("B2 J R2"), P("J")], [P("J R2"), P("J")]
    library = verify_turn(before, after, P("J"), False, "pressman-2009")
    from service.operations import run_operation

    body = {
        "before": [["B2", "J", "R2"], ["J"]],
        "after": [["J", "R2"], ["J"]],
        "rack": ["J"],
        "opened": False,
        "rules": "pressman-2009",
    }
    answer = run_operation("turns/verify", body, "en")
    assert [(v.code, v.at) for v in library.violations] == [(v["code"], v["at"]) for v in answer["violations"]]


def test_sets_longer_than_any_valid_one_are_not_kept_in_the_reading_memo() -> None:
    import engine.sets

    long_set = P("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 J")
    before = len(engine.sets._MEMO)
    assert not read_set(long_set).valid and not read_set(long_set).valid
    assert len(engine.sets._MEMO) == before


@pytest.mark.parametrize("unnamed", [[1], [-1, 0], [0, 1.5]])
def test_a_rounds_unnamed_tiles_are_a_count_per_player(unnamed: list[object]) -> None:
    with pytest.raises(ValueError, match="unnamed"):
        score_round([PlayerRack("a", P("R5")), PlayerRack("b", ())], unnamed=unnamed)  # type: ignore[arg-type]


def test_a_str_subclass_is_a_name() -> None:
    # (the session's review: a StrEnum name was refused by an exact type check)
    from enum import StrEnum

    class Name(StrEnum):
        ANN = "ann"
        BOB = "bob"

    result = score_round([PlayerRack(Name.ANN, ()), PlayerRack(Name.BOB, P("R5"))])
    assert result.winners == ("ann",)
    assert MatchRound((PlayerRack(Name.ANN, ()),), winner=Name.ANN).winner == "ann"

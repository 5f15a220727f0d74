"""Session 63, mutation testing of the solver's claim logic and change lists (helper
``mutsolver``): each test pins a behaviour that a hand-made mutant of engine/changes.py,
engine/solver/{least_change,value_bound,joker_value,layout,reconstruction}.py, engine/replay.py
(its analysis) or engine/scoring.py changed while the tests that run the mutated function
still passed. Each docstring names the SPEC or documented clause it holds; the expected
answers are worked out from the rule (by hand or by brute force), not copied from main."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.changes import changes, rebuild
from engine.errors import InputError
from engine.replay import parse_game_record, replay_game
from engine.rules import SABRA
from engine.sets import read_set
from engine.solver import suggest
from engine.solver.layout import bag_listing
from engine.tiles import parse_tiles
from engine.turns import verify_turn
from tests.test_bag_value_s62 import CASES
from tests.test_replay import deal

# --- engine/replay.py --------------------------------------------------------------------------


def _b6_record() -> dict[str, Any]:
    """A opens K6 J J K9 K10 + O7 K7 B7 R7 and later draws holding B6, which it could have
    played (K6 B6 J, the group's K7 taking the run's other joker as K8: K7 J=K8 K9 K10); B
    draws first holding no opening at all (no two tiles of a number or a colour within two)."""
    a_rack = "K6 J J K9 K10 O7 K7 B7 R7 B6"
    b_rack = "K1 B3 O5 R9 K12 B11 O13 R2 K4 B9"
    doc = {**deal([a_rack, b_rack], 10, "B1 B1"), "rules": {"preset": "sabra", "deal": {"2": 10}}}
    opening = {"player": "A", "table": [["K6", "J", "J", "K9", "K10"], ["O7", "K7", "B7", "R7"]]}
    return {**doc, "turns": [opening, {"player": "B", "draw": "B1"}, {"player": "A", "draw": "B1"}]}


def test_an_analysis_that_ran_out_of_budget_claims_no_optimum() -> None:
    """docs/rules-engine.md, "Replay analysis": a search that runs out says
    ``budget_exhausted`` and its answer is the best found, not a proven optimum; a draw never
    searched (the record's budget spent) is undecided. Neither may claim ``optimal_proven``
    (session 62 left the mutant ``Analysis(None, ..., False -> True, True, searched=False)``
    alive: no test read the field on an unsearched draw), and neither says ``play_existed:
    false``. The summary counts the searched draws (``draws_analyzed``) and the others
    (``draws_not_searched``) apart."""
    record = parse_game_record(_b6_record())
    spent = replay_game(record, analyze=True, analyze_budget_seconds=0.0).to_json()
    ran_out = replay_game(record, analyze=True, search_budget_seconds=1e-9).to_json()
    exhausted = 0
    for out in (spent, ran_out):
        for turn in out["turns"]:
            analysis = turn.get("analysis")
            if analysis is not None and analysis["budget_exhausted"]:
                exhausted += 1
                assert analysis["optimal_proven"] is False and analysis["play_existed"] is None, turn
    assert exhausted >= 3  # both draws unsearched, and A's draw searched for a nanosecond
    assert spent["analysis"]["draws_not_searched"] == 2
    assert ran_out["analysis"]["draws_analyzed"] == 2 and ran_out["analysis"]["draws_not_searched"] == 0
    assert ran_out["analysis"]["undecided"] == [2] and ran_out["analysis"]["budget_exhausted"]
    # with time, A's missed B6 is found and proven best (one tile is all A's rack can lay:
    # B6 is the only tile fitting the table), B's draw is proven to have had no opening
    full = replay_game(record, analyze=True).to_json()
    b_draw, a_draw = full["turns"][1]["analysis"], full["turns"][2]["analysis"]
    assert b_draw["play_existed"] is False and b_draw["optimal_proven"] and not b_draw["budget_exhausted"]
    assert a_draw["play_existed"] is True and a_draw["best"]["played"] == ["B6"]
    assert a_draw["best"]["least_change_proven"] is False  # (tie_break any: never proven least)


def test_an_analysed_draw_holding_only_unnamed_tiles() -> None:
    """docs/rules-engine.md, "Replay analysis": the search sees the named tiles only; with
    ``rack_known`` false, ``play_existed: false`` says no play of the named tiles exists. A
    player (A) who has played every named tile and draws again (the record has no pool: its
    draws are unnamed) holds no named tile: no play of them exists, which needs no search
    (nothing to lay is the best move, proven, and the budget is not touched); A has opened.
    B, who has not, holds K1 K5 O9: no set at all. A's first pass held R1 R2 R3, an opening
    of 6 under ``initial_meld_min`` 6: a late opening. Kills the mutants of ``_analyze``'s
    empty-rack answer (searching an empty rack raises; its ``opening`` flag)."""
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1", "K5", "O9"]}]
    run = [["R1", "R2", "R3"]]
    turns = [
        {"player": "A", "table": []},  # A draws a tile the record does not name
        {"player": "B", "table": []},
        {"player": "A", "table": run},  # every named tile played: A holds the unnamed one
        {"player": "B", "table": run},
        {"player": "A", "table": run},  # A draws again, holding no named tile
    ]
    doc = {"rules": {"deal": 3, "initial_meld_min": 6}, "players": players, "turns": turns}
    out = replay_game(parse_game_record(doc), analyze=True).to_json()
    assert out["valid"], out
    first, again = out["turns"][0]["analysis"], out["turns"][4]["analysis"]
    assert first["play_existed"] is True and first["opening"] is True and first["rack_known"] is True
    assert again == {
        "play_existed": False,
        "opening": False,
        "rack_known": False,
        "best": None,
        "optimal_proven": True,
        "budget_exhausted": False,
    }
    for index in (1, 3):
        b_draw = out["turns"][index]["analysis"]
        assert b_draw["play_existed"] is False and b_draw["opening"] is True and b_draw["optimal_proven"]
    assert out["analysis"]["missed_plays"] == [0] and out["analysis"]["late_openings"] == [0]
    # the record's budget spent: nothing searched, each draw's opening flag still its own
    spent = replay_game(parse_game_record(doc), analyze=True, analyze_budget_seconds=0.0).to_json()
    flags = [(t["index"], t["analysis"]["opening"]) for t in spent["turns"] if "analysis" in t]
    assert flags == [(0, True), (1, True), (3, True), (4, False)]


def test_a_record_turn_without_a_player_name_is_an_input_error() -> None:
    """SPEC §6: each turn of a game record names its player (a string) and has either
    ``draw`` or ``table``. The library's parser (``parse_game_record``, behind the service's
    schema) answers InputError at ``/turns/i`` for a turn that is not an object or whose
    ``player`` is not a string, not another exception or a later, different error. Kills the
    mutant ``not isinstance(value, Mapping) and not isinstance(value.get("player"), str)``."""
    base = {"players": [{"name": "A", "rack": ["R1"]}, {"name": "B", "rack": ["R2"]}]}
    for turn in (["A"], "A", {"player": 7, "draw": "R7"}, {"draw": "R7"}):
        with pytest.raises(InputError, match="needs a 'player' name") as caught:
            parse_game_record({**base, "turns": [{"player": "A", "table": []}, turn]})
        assert caught.value.pointer == "/turns/1", turn


# --- engine/solver/layout.py --------------------------------------------------------------------


def test_a_bag_listing_only_where_a_bag_reads_higher() -> None:
    """``bag_listing`` lays a run holding a joker as an unordered bag (SPEC §2 step 3) only
    where the bag reads higher than the set as given; a set already read at its best stays
    as it is listed (None). ``R5 R6 J`` reads J as R7 (18); as a bag, R4 or R7: at most 18,
    not higher. ``J R5 R6`` reads J as R4 (15); as a bag it may be R7: 18. Kills the mutant
    ``reading.readings[0].value >= best`` (an equal bag answered)."""
    for given in ("R5 R6 J", "R11 R12 J", "R12 J R13", "K3 K5 J", "B2 B3 J J"):
        assert bag_listing(parse_tiles(given.split()), SABRA) is None, given
    bag = bag_listing(parse_tiles(["J", "R5", "R6"]), SABRA)
    assert bag is not None and read_set(bag, SABRA).readings[0].value == 18
    assert read_set(parse_tiles(["J", "R5", "R6"]), SABRA).readings[0].value == 15


def test_the_passes_alone_lay_runs_as_bags_read_at_their_best(without_enumeration: None) -> None:
    """SPEC §2 (step 3, bags; a set's value is its best reading): a run holding a joker laid as
    an unordered bag counts at its best reading. Small positions are settled by enumeration
    (``engine.solver.exhaustive``), which lays bags itself; without it, the solver's passes
    must reach the same best score (``layout.jokers_read_higher`` laying a changed set as a
    bag where that scores more). The best scores are the brute force's of
    tests/test_bag_value_s62.py (session 62). Kills the mutant never taking the bag
    (``trial.score <= outcome.score``): 33 for 34, 13 for 16, 10 for 11, ..."""
    cases: list[Any] = list(CASES)
    for table, rack, rules, objective, tie_break, best, _ in cases:
        answer = suggest([parse_tiles(s) for s in table], parse_tiles(rack), True, rules, objective, 30.0, tie_break)
        got = (len(answer.played), answer.value) if objective == "tiles" else (answer.value, len(answer.played))
        assert got == best, (table, rack)


def test_the_passes_alone_free_a_joker_by_a_copy_from_a_kept_set(without_enumeration: None) -> None:
    """SPEC §4: a table joker may be freed by a copy of the tile it stands for taken from
    another table set, the freed joker laid again in the same turn. Table ``K6 J J K9 K10`` +
    ``O7 K7 B7 R7``, rack B6 (sabra): K7 leaves the group (still ``O7 B7 R7``) for
    ``K7 J=K8 K9 K10``, the other joker makes ``K6 B6 J``: one tile played, all the rack,
    so the best. Small positions are settled by enumeration; without it the passes must find
    it (``layout._kept_copies_laid_out``, the session-37 replay-analysis case). Kills the
    mutant stopping those layouts before the deadline."""
    table = [parse_tiles(["K6", "J", "J", "K9", "K10"]), parse_tiles(["O7", "K7", "B7", "R7"])]
    answer = suggest(table, parse_tiles(["B6"]), True, "sabra", "tiles", 30.0, tie_break="any")
    assert [str(t) for t in answer.played] == ["B6"]
    verdict = verify_turn(table, [list(s) for s in answer.after], parse_tiles(["B6"]), True, "sabra")
    assert verdict.valid, verdict.violations


# --- engine/changes.py ---------------------------------------------------------------------------


def test_rebuild_refuses_a_change_list_with_the_wrong_dissolved_sets() -> None:
    """``rebuild`` (docs/rules-engine.md, "Change lists"; the tests' check of every change
    list) follows a change list and refuses any inconsistency with the definitions: a
    before-set is *dissolved* exactly when no after-set continues it. ``R1 R2 R3`` and ``K5
    B5 O5`` extended by R4 and R5: nothing dissolved, a list naming set 0 dissolved is refused.
    ``K1 K2 K3`` and ``K4 K5 K6`` joined into one run with the rack's K7: one after-set
    continues one of them, the other is dissolved; a list naming none is refused. A set's kind
    follows from its origins: the extended run told unchanged, rearranged or new is refused;
    so does the disturbance (tiles moved, sets touched, new sets). Kills the mutants skipping
    ``rebuild``'s dissolved, kind and disturbance checks."""

    def tiles(text: str) -> tuple[Any, ...]:
        return tuple(parse_tiles(text.split()))

    before = [tiles("R1 R2 R3"), tiles("K5 B5 O5")]
    rack = tiles("R4 R5")
    after = [tiles("R1 R2 R3 R4"), tiles("K5 B5 O5 R5")]
    listed = changes(before, rack, after)
    assert listed.dissolved == () and [s.kind for s in listed.sets] == ["extended", "extended"]
    assert rebuild(before, rack, listed) == tuple(after)
    with pytest.raises(ValueError, match="dissolved"):
        rebuild(before, rack, dataclasses.replace(listed, dissolved=(0,)))
    # each kind follows from the origins: a set holding all of its before-set plus rack tiles
    # is extended, neither unchanged nor rearranged
    for kind in ("unchanged", "rearranged", "new"):
        wrong = dataclasses.replace(listed.sets[0], kind=kind)
        with pytest.raises(ValueError, match="expected extended"):
            rebuild(before, rack, dataclasses.replace(listed, sets=(wrong, listed.sets[1])))
    # the disturbance follows from the list: no tile moved, both sets touched, no new set
    assert listed.disturbance.as_tuple() == (0, 2, 0)
    for wrong_disturbance in ((1, 2, 0), (0, 1, 0), (0, 2, 1)):
        moved, touched, new = wrong_disturbance
        claimed = dataclasses.replace(listed.disturbance, tiles_moved=moved, sets_touched=touched, sets_new=new)
        with pytest.raises(ValueError, match="disturbance"):
            rebuild(before, rack, dataclasses.replace(listed, disturbance=claimed))
    before = [tiles("K1 K2 K3"), tiles("K4 K5 K6")]
    rack = tiles("K7")
    after = [tiles("K1 K2 K3 K4 K5 K6 K7")]
    joined = changes(before, rack, after)
    assert len(joined.dissolved) == 1 and joined.sets[0].before not in joined.dissolved
    assert rebuild(before, rack, joined) == tuple(after)
    with pytest.raises(ValueError, match="dissolved"):
        rebuild(before, rack, dataclasses.replace(joined, dissolved=()))

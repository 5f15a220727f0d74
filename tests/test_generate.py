"""The legal-game generator (engine.generate): every generated game is a complete, legal
record (re-checked here independently, turn by turn), deterministic per seed; and each
corrupted game breaks exactly the turn and rule it claims."""

from __future__ import annotations

import functools
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from engine.generate import CORRUPTIONS, corrupt_game, generate_game, generate_with_stats
from engine.replay import parse_game_record, replay_game
from engine.rules import PRESETS, Rules, resolve_rules
from engine.sets import TableSet
from engine.tiles import Tile, parse_tiles
from engine.turns import TurnVerdict, verify_turn

GAMES = [("sabra", players, seed) for players in (2, 3, 4) for seed in range(5)] + [
    (preset, 4 if preset != "xp" else 5, seed) for preset in PRESETS if preset != "sabra" for seed in range(3)
]


@functools.cache
def game(preset: str, players: int, seed: int) -> str:
    """The generated record, as JSON text (so no test can mutate the cached copy)."""
    return json.dumps(generate_game(seed, players, PRESETS[preset]))


def record_of(preset: str, players: int, seed: int) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(game(preset, players, seed))
    return doc


@dataclass
class Step:
    """A recorded turn with the position it was played from."""

    index: int
    turn: dict[str, Any]
    seat: int
    before: list[TableSet]
    rack: list[Tile]
    opened: bool
    pool_left: int
    verdict: TurnVerdict | None  # None for a draw


def _table(sets: list[list[str]]) -> list[TableSet]:
    return [TableSet(parse_tiles(s)) for s in sets]


def replay(record: dict[str, Any]) -> Iterator[Step]:
    """Walk a record, checking seat rotation, draws and tile conservation on the way."""
    rules = resolve_rules(record.get("rules"))
    names = [p["name"] for p in record["players"]]
    racks = [list(parse_tiles(p["rack"])) for p in record["players"]]
    pool = list(parse_tiles(record["pool"]))
    opened = [False] * len(racks)
    table: list[TableSet] = []
    full = Counter(t.key for t in rules.supply.all_tiles())
    for index, turn in enumerate(record["turns"]):
        seat = index % len(names)
        assert turn["player"] == names[seat], f"turn {index}: seat rotation"
        step = Step(index, turn, seat, table, list(racks[seat]), opened[seat], len(pool), None)
        if "draw" in turn:
            assert pool, f"turn {index}: draw from an empty pool"
            drawn = pool.pop(0)
            assert str(drawn) == turn["draw"], f"turn {index}: not the next pool tile"
            racks[seat].append(drawn)
        else:
            after = _table(turn["table"])
            step.verdict = verify_turn(table, after, racks[seat], opened[seat], rules, turn.get("elapsed_seconds"))
            if step.verdict.valid:
                racks[seat], opened[seat], table = list(step.verdict.rack_after), step.verdict.opened_after, after
        yield step
        on_table = [t for s in table for t in s.tiles]
        everything = Counter(t.key for t in [*on_table, *pool, *(t for r in racks for t in r)])
        assert everything == full, f"turn {index}: tiles not conserved"


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES)
def test_generated_game_is_legal_and_complete(preset: str, players: int, seed: int) -> None:
    record = record_of(preset, players, seed)
    rules = PRESETS[preset]
    assert resolve_rules(record["rules"]) == rules
    assert [p["name"] for p in record["players"]] == [f"P{i + 1}" for i in range(players)]
    assert all(len(p["rack"]) == rules.deal_for(players) for p in record["players"])
    assert len(record["pool"]) == rules.supply.total - players * rules.deal_for(players)
    steps = list(replay(record))
    assert steps, "a game has turns"
    for step in steps:
        if step.verdict is None:
            continue
        assert step.verdict.valid, (step.index, [v.to_json() for v in step.verdict.violations])
        if step.verdict.action == "draw":  # a table turn that plays nothing is a pass...
            assert step.pool_left == 0  # ...and only once the pool is empty
    last = steps[-1]
    if "end" in record:
        assert record["end"] == "pool_exhausted"
        tail = steps[-players:]
        assert all(s.pool_left == 0 for s in tail)
        if rules.pool_exhausted_end == "play_on":
            assert all(s.verdict is not None and s.verdict.action == "draw" for s in tail)
        else:  # one_more_turn: the turn before the last ones drew the pool's last tile
            assert len(steps) == players or "draw" in steps[-players - 1].turn
    else:
        assert last.verdict is not None and last.verdict.rack_empty, "the game ends with an empty rack"


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES[::4])
def test_generator_is_deterministic(preset: str, players: int, seed: int) -> None:
    assert generate_game(seed, players, PRESETS[preset]) == record_of(preset, players, seed)
    assert generate_game(seed + 1000, players, PRESETS[preset]) != record_of(preset, players, seed)


def test_custom_rules_are_recorded_as_overrides() -> None:
    rules = resolve_rules({"preset": "sabra", "manipulate_on_opening_turn": True, "initial_meld_min": 40})
    record = generate_game(3, 3, rules)
    assert record["rules"] == {"preset": "sabra", "manipulate_on_opening_turn": True, "initial_meld_min": 40}
    assert resolve_rules(record["rules"]) == rules
    steps = list(replay(record))
    assert all(s.verdict is None or s.verdict.valid for s in steps)


def test_generator_plays_every_kind_of_move() -> None:
    totals: Counter[str] = Counter()
    for seed in range(6):
        totals += generate_with_stats(seed, 4)[1]
    for kind in ("open", "new_set", "extend", "split", "take", "joker_swap", "draw"):
        assert totals[kind] > 0, (kind, totals)


def test_generation_is_fast() -> None:
    start = time.perf_counter()
    generate_game(12345, 4)
    assert time.perf_counter() - start < 1.0


def test_one_more_turn_games_end_one_turn_each_after_the_last_draw() -> None:
    rules = PRESETS["online-sabra"]
    for seed in (10, 20):  # 4-player games that run the pool out
        record = generate_game(seed, 4, rules)
        assert record["end"] == "pool_exhausted"
        last_draw = max(i for i, t in enumerate(record["turns"]) if "draw" in t)
        assert len(record["turns"]) - 1 - last_draw == 4
        assert len(list(replay(record))) == len(record["turns"])


def test_games_without_an_opening_threshold_replay_legal() -> None:
    # (a rack without a set "opened" worth 0 >= 0 and played nothing: a draw to the referee,
    # and every later entry of that player one tile off; a stateful library audit, session 56)
    rules = resolve_rules({"preset": "sabra", "initial_meld_min": 0})
    for seed in range(12):
        record = generate_game(seed, 2, rules)
        assert replay_game(parse_game_record(record)).valid, seed


def test_max_turns_caps_the_record() -> None:
    record = generate_game(0, 4, max_turns=10)
    assert len(record["turns"]) == 10 and "end" not in record


# --- corruption -------------------------------------------------------------------------


def _check_corruption(record: dict[str, Any], corrupted: dict[str, Any], index: int, code: str) -> None:
    assert code in CORRUPTIONS
    assert corrupted["turns"][:index] == record["turns"][:index]
    assert corrupted["turns"][index + 1 :] == record["turns"][index + 1 :]
    assert corrupted["turns"][index] != record["turns"][index]
    assert "table" in corrupted["turns"][index]
    steps = {s.index: s for s in replay_until(corrupted, index)}
    verdict = steps[index].verdict
    assert verdict is not None and code in {v.code for v in verdict.violations}
    assert all(s.verdict is None or s.verdict.valid for i, s in steps.items() if i < index)


def replay_until(record: dict[str, Any], index: int) -> Iterator[Step]:
    for step in replay(record):
        yield step
        if step.index == index:
            return


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES[::2])
def test_corrupt_game(preset: str, players: int, seed: int) -> None:
    record = record_of(preset, players, seed)
    corrupted, index, code = corrupt_game(record, seed)
    assert record == record_of(preset, players, seed), "the original is left untouched"
    _check_corruption(record, corrupted, index, code)
    assert corrupt_game(record, seed) == (corrupted, index, code)


@pytest.mark.parametrize("code", CORRUPTIONS)
def test_each_corruption_kind(code: str) -> None:
    for seed in range(10):
        record = record_of("sabra", 4, seed) if seed < 5 else json.loads(json.dumps(generate_game(seed)))
        try:
            corrupted, index, got = corrupt_game(record, seed, code)
        except ValueError:
            continue  # e.g. no joker was replaced in this game
        assert got == code
        _check_corruption(record, corrupted, index, code)
        return
    pytest.fail(f"no game among 10 could be corrupted with {code}")


# --- replay (engine.replay) -----------------------------------------------------------


def _run_replay(record: dict[str, Any], rules: Rules) -> Any:
    return replay_game(parse_game_record(record), rules)


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES[::2])
def test_generated_games_replay_clean(preset: str, players: int, seed: int) -> None:
    record = record_of(preset, players, seed)
    result = _run_replay(record, PRESETS[preset])
    assert result.valid, (result.first_invalid_turn, result.violations)
    assert result.first_invalid_turn is None and len(result.turns) == len(record["turns"])
    assert result.result is not None, "a finished game is scored"
    assert result.result.ended_by == ("pool_exhausted" if "end" in record else "rack_empty")


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES[1::3])
def test_corrupted_game_rejected_at_the_corrupted_turn(preset: str, players: int, seed: int) -> None:
    record = record_of(preset, players, seed)
    corrupted, index, code = corrupt_game(record, seed)
    result = _run_replay(corrupted, PRESETS[preset])
    assert not result.valid and result.first_invalid_turn == index
    bad = result.turns[index]
    assert code in {v.code for v in bad.violations}

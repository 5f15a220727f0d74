"""Engine micro-benchmarks: set reading, round scoring and turn verification.

Run with ``make bench`` or ``.venv/bin/python bench/bench_engine.py``. Prints the median time
per call over repeated timing runs (no assertions: the numbers go into the closing notes).
"""

from __future__ import annotations

import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.generate import generate_game
from engine.replay import parse_game_record, replay_game
from engine.rules import SABRA
from engine.scoring import PlayerRack, score_round
from engine.sets import TableSet, _read, read_set
from engine.tiles import Tile, parse_tiles
from engine.turns import verify_turn


def median_us(fn: Callable[[], object], number: int = 2000, repeat: int = 15) -> float:
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


SETS = {
    "3 tiles": "R3 R4 R5",
    "3 tiles, 1 joker": "R3 J R5",
    "3 tiles group, 1 joker": "K7 B7 J",
    "6 tiles": "B4 B5 B6 B7 B8 B9",
    "6 tiles, 2 jokers": "B4 J B6 B7 J B9",
    "13 tiles": "O1 O2 O3 O4 O5 O6 O7 O8 O9 O10 O11 O12 O13",
    "13 tiles, 2 jokers": "O1 O2 J O4 O5 O6 O7 O8 J O10 O11 O12 O13",
    "13 tiles shuffled, 2 jokers": "O13 O2 J O4 O11 O6 O7 O8 J O10 O5 O12 O1",
}


def big_turn() -> tuple[list[TableSet], list[TableSet], tuple[Tile, ...]]:
    """A legal turn on a 95-tile table of 24 sets with a 10-tile rack: the player replaces a
    joker, reuses it, extends a run and lays a new one (9 tiles played)."""
    rows = []
    for colour, copies in (("K", 2), ("B", 2), ("O", 1), ("R", 1)):
        for _ in range(copies):
            rows += [" ".join(f"{colour}{n}" for n in span) for span in (range(1, 5), range(5, 9), range(9, 14))]
    rows += ["O1 O2 O3", "O4 O5 O6", "R1 R2 R3", "R4 R5 R6", "O10 O11 J", "R12 R13 J"]
    before = [TableSet(parse_tiles(r)) for r in rows]
    after_rows = [*rows[:-2], "O10 O11 O12 O13", "R12 R13 J", "J O7 O8 O9", "R7 R8 R9 R10"]
    after = [TableSet(parse_tiles(r)) for r in after_rows]
    rack = parse_tiles("O7 O8 O9 R7 R8 R9 O12 O13 R10 R11")
    return before, after, rack


def main() -> None:
    print(f"{'set reading (median µs)':36} {'uncached':>8} {'memo hit':>9}")
    for name, text in SETS.items():
        tiles = parse_tiles(text)
        assert read_set(tiles).valid, name
        cold = median_us(lambda tiles=tiles: _read(tiles, False, None))
        warm = median_us(lambda tiles=tiles: read_set(tiles, SABRA))
        print(f"  {name:34} {cold:8.2f} {warm:9.2f}")
    round_players = [
        PlayerRack("A", ()),
        PlayerRack("B", parse_tiles("R5 B5 J K1 K2 K3 O9")),
        PlayerRack("C", parse_tiles("K12 K13 B1 B2 B3 B4 B5 B6")),
        PlayerRack("D", parse_tiles("O1 R13 R12")),
    ]
    print(f"  {'score a 4-player round':34} {median_us(lambda: score_round(round_players)):8.2f}")
    before, after, rack = big_turn()
    verdict = verify_turn(before, after, rack, True)
    tiles = sum(len(s.tiles) for s in before)
    print(f"verify_turn: {tiles} tiles in {len(before)} sets, rack {len(rack)}: valid={verdict.valid}", end=" ")
    print([v.code for v in verdict.violations])
    print(f"  {'verify_turn (median)':34} {median_us(lambda: verify_turn(before, after, rack, True), 200, 9):8.2f}")
    bench_replay()


def bench_replay(games: int = 20) -> None:
    records = [parse_game_record(generate_game(seed, players=4)) for seed in range(games)]
    turns = sum(len(r.turns) for r in records)
    assert all(replay_game(r).valid for r in records)
    per_game = [median_us(lambda r=r: replay_game(r), number=3, repeat=5) for r in records]
    total_us = sum(per_game)
    print(f"replay: {games} generated 4-player games, {turns} turns")
    print(f"  {'replay, µs per turn (average)':34} {total_us / turns:8.2f}")


if __name__ == "__main__":
    main()

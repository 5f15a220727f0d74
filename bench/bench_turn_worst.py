"""Worst cases of turn verification (issue: verification cost is bounded for any input).

Run with ``.venv/bin/python bench/bench_turn_worst.py [--runs N]``. Each case is verified
``--runs`` times on fresh TableSet objects; "cold" also empties the set-reading memo before
every call (the first request a worker sees), "warm" keeps it (a replay or a busy service).
Prints min / median / p99 / max in milliseconds; no assertions.

Cases:
- opening of 16 disjoint 3-tile sets (48 tiles) with ``manipulate_on_opening_turn`` (the opening
  value is the best that sets of played tiles could be worth), with and without 2 jokers;
- 4 joker sets moved at once on a 156-tile XP table: every joker's tile put in its place from
  the rack, the runs split, the jokers kept on the upper halves; legal under ``xp``, with locked
  sets and with the two-rack-tiles rule too (each exact tile in its place unlocks its set, and
  the jokers, standing for the same tiles, stayed; the docstring said illegal there before
  session 44, which the verdicts had not been for some sessions);
- 4 group jokers (each could stand for two colours) freed and moved into two new runs: legal
  under ``xp``, illegal under both-colours and the two-rack-tiles rule.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import sets as sets_module
from engine.rules import PRESETS, resolve_rules
from engine.sets import TableSet
from engine.tiles import COLORS, parse_tiles
from engine.turns import TurnVerdict, verify_turn

Case = tuple[list[str], list[str], str, bool, object]


def opening_16_sets(jokers: bool) -> Case:
    runs = [f"{c}{n} {c}{n + 1} {c}{n + 2}" for c in COLORS for n in (1, 4, 7, 10)]
    if jokers:
        runs[0] = "K1 K2 J"
        runs[5] = "B4 J B6"
    before = ["K1 B1 O1"] if not jokers else ["O13 R13 K13"]
    return before, [*before, *runs], " ".join(runs) + " R13", False, resolve_rules({"manipulate_on_opening_turn": True})


def xp_table(rules: object) -> Case:
    """12 runs 1..13 (3 copies of each colour) with a joker in the middle of 4 of them. The
    player puts each joker's tile in its place from the rack and splits those runs after it;
    each joker ends at the foot of the upper half (where it stands for the same tile again)."""
    runs = [[f"{c}{n}" for n in range(1, 14)] for c in COLORS for _ in range(3)]
    holes = [(0, 4), (3, 8), (6, 5), (9, 9)]  # (run, place): one joker per colour
    before = [list(r) for r in runs]
    after = [list(r) for r in runs]
    rack = []
    for r, place in holes:
        rack.append(before[r][place])
        before[r][place] = "J"
        after[r] = runs[r][: place + 1]
        after.append(["J", *runs[r][place + 1 :]])
    return [" ".join(r) for r in before], [" ".join(r) for r in after], " ".join(rack), True, rules


def group_jokers(rules: object) -> Case:
    """Four groups of three with a joker each (two colours open): each joker is replaced by
    one missing colour and the four end in two new runs."""
    before = ["K3 B3 J", "K5 B5 J", "K7 B7 J", "K9 B9 J", "O11 O12 O13"]
    after = ["K3 B3 O3", "K5 B5 O5", "K7 B7 O7", "K9 B9 O9", "O11 O12 O13", "J J R12", "R1 J J"]
    return before, after, "O3 O5 O7 O9 R12 R1", True, rules


XP = PRESETS["xp"]
XP_LOCKED = resolve_rules({"preset": "xp", "joker_sets_locked": True})
XP_BOTH = resolve_rules({"preset": "xp", "group_joker_needs_both_colours": True})
XP_TWO_RACK = resolve_rules({"preset": "xp", "freed_joker_use": "new_set_with_two_rack_tiles"})

CASES: dict[str, Callable[[], Case]] = {
    "opening, 16 sets, manipulation allowed": lambda: opening_16_sets(False),
    "opening, 16 sets + 2 jokers, manipulation": lambda: opening_16_sets(True),
    "XP 156 tiles, 4 joker runs split (xp)": lambda: xp_table(XP),
    "XP 156 tiles, 4 joker runs split (locked)": lambda: xp_table(XP_LOCKED),
    "XP 156 tiles, 4 joker runs split (2 rack tiles)": lambda: xp_table(XP_TWO_RACK),
    "4 group jokers freed (xp)": lambda: group_jokers(XP),
    "4 group jokers freed (both colours)": lambda: group_jokers(XP_BOTH),
    "4 group jokers freed (2 rack tiles)": lambda: group_jokers(XP_TWO_RACK),
}


def run_case(case: Case, cold: bool) -> tuple[TurnVerdict, list[float]]:
    before_rows, after_rows, rack_text, opened, rules = case
    rack = parse_tiles(rack_text)
    times = []
    verdict = None
    for _ in range(ARGS.runs):
        before = [TableSet(parse_tiles(r)) for r in before_rows]
        after = [TableSet(parse_tiles(r)) for r in after_rows]
        if cold:
            sets_module._MEMO.clear()
        gc.collect()  # the harness's own garbage is not the verify's cost
        start = time.perf_counter()
        verdict = verify_turn(before, after, rack, opened, rules)  # type: ignore[arg-type]
        times.append((time.perf_counter() - start) * 1000)
    assert verdict is not None
    return verdict, times


def describe(v: TurnVerdict) -> str:
    return "valid" if v.valid else ",".join(sorted({x.code for x in v.violations}))


def main() -> None:
    print(f"{'case':46} {'tiles':>5} {'path':>5} {'min':>6} {'median':>7} {'p99':>6} {'max':>6}  verdict")
    for name, make in CASES.items():
        case = make()
        tiles = sum(len(r.split()) for r in case[1])
        for cold in (True, False):
            verdict, times = run_case(case, cold)
            times.sort()
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(
                f"{name:46} {tiles:5} {'cold' if cold else 'warm':>5} {times[0]:6.3f} "
                f"{statistics.median(times):7.3f} {p99:6.3f} {times[-1]:6.3f}  {describe(verdict)}"
                f"{' freed=' + str(verdict.jokers_freed) if verdict.jokers_freed else ''}"
            )
    print("milliseconds per verify_turn call; fresh TableSet objects every call")


parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--runs", type=int, default=200, help="calls per case and path (default 200)")
ARGS = parser.parse_args()

if __name__ == "__main__":
    main()

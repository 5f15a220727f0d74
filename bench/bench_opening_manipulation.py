"""Suggest on openings with ``manipulate_on_opening_turn`` beside table jokers (session 13).

Random positions: a table of random valid sets (15-60 tiles, sabra and xp, jokers in about
half the sets), a rack of 14 tiles, ``opened`` false. Prints per rule set the tiles played
in all, how many answers are proven, how many ran out of the budget, and the CPU time per
answer (median, max); then the tiles played per position (compare two trees by running this
script in each: ``python bench/bench_opening_manipulation.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.solver
from engine.rules import PRESETS
from engine.sets import TableSet
from engine.solver import suggest
from tests.test_solver import random_sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30, help="positions per rule set")
    parser.add_argument("--rack", type=int, default=14)
    parser.add_argument("--table", type=int, nargs=2, default=(15, 60), metavar=("MIN", "MAX"))
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    engine.solver.prepare()
    played_all = []
    for name in ("sabra", "xp"):
        rules = dataclasses.replace(PRESETS[name], manipulate_on_opening_turn=True)
        rng = random.Random(args.seed)
        supply = rules.supply.all_tiles()
        rows = []
        while len(rows) < args.positions:
            before, rest = random_sets(rng, supply, rng.randint(*args.table), joker_chance=0.5)
            if not all(TableSet(tuple(s)).read(rules).valid for s in before):
                continue
            if not any(t.color is None for s in before for t in s):
                continue
            rack = rng.sample(rest, min(args.rack, len(rest)))
            start = time.process_time()
            move = suggest(before, rack, False, rules, "tiles", args.budget, "any")
            rows.append((len(move.played), move.optimal_proven, move.budget_exhausted, time.process_time() - start))
        cpu = sorted(r[3] * 1e3 for r in rows)
        print(
            f"{name}: played {sum(r[0] for r in rows)}, proven {sum(r[1] for r in rows)}/{len(rows)}, "
            f"budget ran out {sum(r[2] for r in rows)}, CPU median {statistics.median(cpu):.0f} ms, max {cpu[-1]:.0f} ms"
        )
        played_all += [r[0] for r in rows]
    print("played per position:", played_all)


if __name__ == "__main__":
    main()

"""Solver against rummikub-solver on the hard families of issue 15 (seeded, reproducible).

``python bench/bench_solver_hard.py [--per-family 40] [--seed 1 [2207 3301 ...]] [--budget 1.0]``

Families (positions where the player on turn has opened, from ``engine.generate`` games):

* ``games``: positions of free-joker classic games, rack as dealt (like bench_solver_games.py);
* ``classic-big-rack``: the same tables with the rack topped up to 24–40 tiles from the tiles
  left in the box;
* ``xp-jokers``: XP games (160 tiles), tables holding 2–4 jokers, rack as dealt or topped up
  to 14–40 tiles;

each under the ``free-joker`` rules (XP: ``xp`` with ``joker_release: free``), where
rummikub-solver's rules (every table tile, jokers included, rearranged freely) are ours, and
under ``sabra`` / ``xp`` (joker sets move only as the rules say, so our optimum may be lower
than rummikub-solver's; it is never higher).

Ours is ``engine.solver.suggest(..., "tiles", budget, tie_break)`` with the service's
default budget (1 s) and ``--tie-break any`` (the solver itself, as bench_solver_games.py
compares it with rummikub-solver; ``least_change`` adds issue 18's tie break); theirs ``RuleSet(...).solve(state, TILE_COUNT)`` with ``initial=False``, timed in the
same run, alternating which goes first; theirs runs in a process of its own (HiGHS's thread
pool is global to a process, and ours makes it with one thread: ``--theirs-shared`` runs
theirs in ours, on that pool, where its small programmes are faster). Reports per family and in all: median and p99 of the
ratio theirs/ours, max time of each, positions where ours is slower (rerun ``--rerun`` times
when the ratio is under 1.5, keeping the best time of each), optimum tile counts identical
(free rules) or ours ≤ theirs (sabra), answers not proven optimal, moves failing verify_turn.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_solver_games import InProcess, OwnProcess, Position, game_positions, load_rummikub_solver

from engine.rules import PRESETS, Rules
from engine.sets import TableSet
from engine.solver import prepare, suggest
from engine.tiles import SUPPLIES
from engine.turns import verify_turn

XP_FREE = dataclasses.replace(PRESETS["xp"], joker_release="free")
Family = tuple[str, str, list[Position]]  # name, supply, positions


def top_up(pos: Position, supply: str, size: int, rng: random.Random) -> Position:
    """The position with its rack topped up to ``size`` tiles from the tiles left in the box."""
    box = Counter(t.key for t in SUPPLIES[supply].all_tiles())
    box -= Counter(t.undeclared().key for s in pos.table for t in s)
    box -= Counter(t.key for t in pos.rack)
    by_key = {t.key: t for t in SUPPLIES[supply].all_tiles()}
    left = sorted(box.elements())
    rng.shuffle(left)
    extra = [by_key[k] for k in left[: max(0, size - len(pos.rack))]]
    return dataclasses.replace(pos, rack=[*pos.rack, *extra])


def positions(rules: Rules, seeds: range, want: int, keep: Any) -> list[Position]:
    out: list[Position] = []
    for seed in seeds:
        found = [p for p in game_positions(seed, rules) if keep(p)]
        if found:
            step = max(1, len(found) // 6)
            out.extend(found[::step][:6])
        if len(out) >= want:
            break
    return out[:want]


def table_jokers(pos: Position) -> int:
    return sum(1 for s in pos.table for t in s if t.color is None)


def families(per_family: int, seed: int) -> list[Family]:
    rng = random.Random(seed)
    games = positions(PRESETS["free-joker"], range(seed, seed + 200), per_family, lambda p: True)
    big = [top_up(p, "classic", rng.randint(24, 40), rng) for p in games]
    xp = positions(PRESETS["xp"], range(seed, seed + 400), per_family, lambda p: 2 <= table_jokers(p) <= 4)
    xp = [p if i % 3 == 0 else top_up(p, "xp", rng.randint(14, 40), rng) for i, p in enumerate(xp)]
    return [("games", "classic", games), ("classic-big-rack", "classic", big), ("xp-jokers", "xp", xp)]


def pooled_families(per_family: int, seeds: list[int]) -> list[Family]:
    """The families of every seed, each family's positions pooled in the order of the seeds."""
    pooled: dict[str, tuple[str, list[Position]]] = {}
    for seed in seeds:
        for name, supply, found in families(per_family, seed):
            pooled.setdefault(name, (supply, []))[1].extend(found)
    return [(name, supply, found) for name, (supply, found) in pooled.items()]


def ruleset_for(rs: Any, supply: str, shared: bool) -> Any:
    kwargs = {"repeats": 3, "jokers": 4} if supply == "xp" else {}
    return InProcess(rs, rs.RuleSet(**kwargs)) if shared else OwnProcess(kwargs)


def theirs(solver: InProcess | OwnProcess, pos: Position) -> tuple[int, float]:
    played, _, seconds = solver.solve(pos)
    return len(played), seconds


def ours(pos: Position, rules: Rules, budget: float, tie_break: str = "any") -> tuple[Any, float]:
    start = time.perf_counter()
    move = suggest(pos.table, pos.rack, True, rules, "tiles", budget, tie_break)
    return move, time.perf_counter() - start


def legal(pos: Position, move: Any, rules: Rules) -> bool:
    before = [TableSet(tuple(s)) for s in pos.table]
    return verify_turn(before, [TableSet(s) for s in move.after], pos.rack, True, rules).valid


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--per-family", type=int, default=40)
    parser.add_argument(
        "--seed",
        type=int,
        nargs="+",
        default=[1],
        help="one or more seeds: each gives --per-family positions per family, pooled per family (e.g. 1 2207 3301)",
    )
    parser.add_argument("--budget", type=float, default=1.0, help="our budget in seconds (the service's default)")
    parser.add_argument("--rerun", type=int, default=3, help="reruns of the positions with a ratio under 1.5")
    parser.add_argument("--only", help="run only the families whose name contains this")
    parser.add_argument(
        "--theirs-shared",
        action="store_true",
        help="run rummikub-solver in this process (on the one-thread HiGHS pool ours makes) instead of its own",
    )
    parser.add_argument("--show", type=int, default=8, help="closest positions listed (all slower ones at least)")
    parser.add_argument("--jsonl", type=Path, help="write one JSON record per row here")
    parser.add_argument(
        "--tie-break",
        default="any",
        choices=("any", "least_change"),
        help="our tie break (default any: the solver itself, as bench_solver_games compares it)",
    )
    args = parser.parse_args()
    if args.jsonl is not None and not args.jsonl.parent.is_dir():
        parser.error(f"--jsonl {args.jsonl}: no such folder {args.jsonl.parent}")  # before the run, not after
    rs = load_rummikub_solver()
    if rs is None:
        raise SystemExit("rummikub-solver is not importable: pip install rummikub-solver (bench only)")
    fams = [f for f in pooled_families(args.per_family, args.seed) if not args.only or args.only in f[0]]
    rows: list[dict[str, Any]] = []
    prepare()  # our warm-up: the solver loaded and its matrices built, once per process
    gc.collect()
    gc.freeze()  # as the service's processes do once ready (service.server.freeze_start_up_objects)
    for name, supply, found in fams:
        ruleset = ruleset_for(rs, supply, args.theirs_shared)
        theirs(ruleset, found[0])  # warm-up (cvxpy compiles its problem once)
        for rules_name, rules in (
            (("free-joker", PRESETS["free-joker"]), ("sabra", PRESETS["sabra"]))
            if supply == "classic"
            else (("xp+free", XP_FREE), ("xp", PRESETS["xp"]))
        ):
            for i, pos in enumerate(found):
                if i % 2:
                    move, ours_s = ours(pos, rules, args.budget, args.tie_break)
                    their_n, their_s = theirs(ruleset, pos)
                else:
                    their_n, their_s = theirs(ruleset, pos)
                    move, ours_s = ours(pos, rules, args.budget, args.tie_break)
                if their_s / ours_s < 1.5:
                    for _ in range(args.rerun):
                        their_s = min(their_s, theirs(ruleset, pos)[1])
                        ours_s = min(ours_s, ours(pos, rules, args.budget, args.tie_break)[1])
                rows.append(
                    {
                        "family": f"{name} / {rules_name}",
                        "free": "free" in rules_name,
                        "index": i,
                        "label": f"{pos.label} table {sum(map(len, pos.table))} rack {len(pos.rack)}",
                        "ours": len(move.played),
                        "theirs": their_n,
                        "ours_s": ours_s,
                        "theirs_s": their_s,
                        "proven": move.optimal_proven,
                        "legal": not move.played or legal(pos, move, rules),
                    }
                )
    report(rows, args.show)
    if args.jsonl is not None:
        with args.jsonl.open("w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


def report(rows: list[dict[str, Any]], show: int = 8) -> None:
    print(
        f"{'family':34} {'n':>4} {'ratio med':>9} {'ratio p99':>9} {'ours p99':>9} {'ours max':>9} "
        f"{'their max':>9} {'slower':>6} {'optimum':>9} {'unproven':>8} {'illegal':>7}"
    )
    names = list(dict.fromkeys(r["family"] for r in rows))
    for name in [*names, "ALL"]:
        sel = [r for r in rows if name in ("ALL", r["family"])]
        ratios = [r["theirs_s"] / r["ours_s"] for r in sel]
        ours_ms = [r["ours_s"] * 1000 for r in sel]
        theirs_ms = [r["theirs_s"] * 1000 for r in sel]
        same = sum(1 for r in sel if ((r["ours"] == r["theirs"]) if r["free"] else (r["ours"] <= r["theirs"])))
        print(
            f"{name:34} {len(sel):4} {statistics.median(ratios):8.1f}x {pct(ratios, 0.01):8.2f}x "
            f"{pct(ours_ms, 0.99):7.1f}ms {max(ours_ms):7.1f}ms {max(theirs_ms):7.1f}ms "
            f"{sum(1 for x in ratios if x < 1):6} {same:4}/{len(sel):<4} {sum(1 for r in sel if not r['proven']):8} "
            f"{sum(1 for r in sel if not r['legal']):7}"
        )
    print("ratio p99: the ratio theirs/ours that 99% of the positions reach (the 1st percentile)")
    print("optimum: identical tile counts (free rules) or ours <= theirs (sabra/xp: joker sets move by the rules)")
    slower = sum(1 for r in rows if r["theirs_s"] < r["ours_s"])
    worst = sorted(rows, key=lambda r: r["theirs_s"] / r["ours_s"])[: max(show, slower)]
    print("\nclosest positions (ratio, ours, theirs):")
    for r in worst:
        print(
            f"  {r['theirs_s'] / r['ours_s']:6.2f}x  ours {r['ours_s'] * 1000:7.1f} ms ({r['ours']} tiles"
            f"{'' if r['proven'] else ', NOT PROVEN'})  theirs {r['theirs_s'] * 1000:7.1f} ms ({r['theirs']} tiles)"
            f"  {r['family']}: {r['label']}"
        )


if __name__ == "__main__":
    main()

"""``best_meld_value`` (the opening value with manipulation, SPEC §4): time per fresh call.

Run with ``.venv/bin/python bench/bench_meld_value.py`` (``--repeat N`` calls per case, ``--seed``
for the generated openings, ``--openings N`` of them, ``--dense`` to add the slowest absurd
case, 160 random tiles of every kind with 4 jokers, about seconds). Each call starts *cold*:
the module's move tables (input-independent memos) are cleared first; ``warm`` is the median
with them kept, as in a long-running service. Prints min / median / max in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine.meld_value as meld_value
from engine.meld_value import best_meld_value
from engine.tiles import COLORS

NUMBERED = [f"{c}{n}" for c in COLORS for n in range(1, 14)]
RUNS_48 = " ".join(f"{c}{n}" for c in COLORS for n in range(1, 13))  # 16 runs of 3
MIXED_48 = (
    "K1 K2 K3 B1 B2 B3 O4 O5 O6 R4 R5 R6 K7 B7 O7 K8 B8 R8 O9 R9 B9 K10 K11 K12 B10 B11 B12 "
    "O10 O11 O12 R10 R11 R12 K13 B13 O13 R1 R2 R3 K4 K5 K6 B4 B5 B6 O1 O2 O3"
)  # 16 sets of 3: runs and groups


def clear_tables() -> None:
    for table in (meld_value._MOVES, meld_value._PATTERNS, meld_value._GROUPS):
        table.clear()


def opening(rng: random.Random, jokers: int, sets: int = 16) -> Counter[str]:
    """``sets`` disjoint 3-tile sets (runs and groups) from the classic supply, ``jokers`` of
    their tiles then played as jokers: what a player lays as an opening."""
    supply = Counter({k: 2 for k in NUMBERED})
    tiles: list[str] = []
    while len(tiles) < 3 * sets:
        if rng.random() < 0.5:
            colour, low = rng.choice(COLORS), rng.randint(1, 11)
            new = [f"{colour}{n}" for n in range(low, low + 3)]
        else:
            number = rng.randint(1, 13)
            new = [f"{c}{number}" for c in rng.sample(COLORS, 3)]
        if all(supply[t] for t in new):
            supply.subtract(new)
            tiles += new
    for i in rng.sample(range(len(tiles)), jokers):
        tiles[i] = "J"
    return Counter(tiles)


def timed(call: Callable[[], int], repeat: int, cold: bool) -> list[float]:
    times = []
    for _ in range(repeat):
        if cold:
            clear_tables()
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def row(name: str, counts: Counter[str], repeat: int) -> None:
    value = best_meld_value(counts)
    cold = timed(lambda: best_meld_value(counts), repeat, True)
    warm = timed(lambda: best_meld_value(counts), repeat, False)
    tiles = sum(counts.values())
    print(
        f"  {name:44} {tiles:5} {value:6} {min(cold):9.3f} {statistics.median(cold):9.3f} "
        f"{max(cold):9.3f} {statistics.median(warm):9.3f}"
    )


def cold_calls(cases: list[Counter[str]], clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Milliseconds by ``clock`` of one call per case, the move tables cleared before each."""
    times = []
    for counts in cases:
        clear_tables()
        start = clock()
        best_meld_value(counts)
        times.append((clock() - start) * 1e3)
    return times


def spread(name: str, cases: list[Counter[str]]) -> None:
    """One cold call per case: min / median / max over the cases."""
    cold = cold_calls(cases)
    warm = []
    for counts in cases:
        start = time.perf_counter()
        best_meld_value(counts)
        warm.append((time.perf_counter() - start) * 1e3)
    tiles = round(statistics.mean(sum(c.values()) for c in cases))
    print(
        f"  {name:44} {tiles:5} {'':>6} {min(cold):9.3f} {statistics.median(cold):9.3f} "
        f"{max(cold):9.3f} {statistics.median(warm):9.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="calls per fixed case (default 30)")
    parser.add_argument("--openings", type=int, default=100, help="generated openings per row (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated cases (default 1)")
    parser.add_argument("--dense", action="store_true", help="add 160 random tiles with 4 jokers (seconds)")
    parser.add_argument("--xp", type=int, default=0, help="add N random 60-120-tile XP racks with jokers (seconds)")
    parser.add_argument("--only-xp", action="store_true", help="only the XP racks of --xp")
    args = parser.parse_args()
    repeat = args.repeat
    if args.only_xp:
        xp_racks(random.Random(args.seed), args.xp)
        return

    print(
        f"{'case (ms per call)':46} {'tiles':>5} {'value':>6} {'cold min':>9} {'median':>9} {'max':>9} {'warm med':>9}"
    )
    print("fixed 48-tile openings (16 sets of 3)")
    row("bench_turn_worst: 16 runs + R13", Counter(f"{RUNS_48} R13".split()), repeat)
    row(
        "bench_turn_worst: 16 runs + R13, K3 B5 as jokers",
        Counter(f"{RUNS_48} R13".replace("K3 ", "J ").replace("B5 ", "J ").split()),
        repeat,
    )
    row("4 colours x 4 runs", Counter(RUNS_48.split()), repeat)
    row("runs and groups", Counter(MIXED_48.split()), repeat)
    row("4 colours x 4 runs, 2 tiles as jokers", Counter(RUNS_48.replace("R5", "J").replace("B9", "J").split()), repeat)
    row("runs and groups, 2 tiles as jokers", Counter(MIXED_48.replace("R5", "J").replace("B8", "J").split()), repeat)

    rng = random.Random(args.seed)
    print(f"generated 48-tile openings ({args.openings} each; min/median/max over them)")
    for jokers in (0, 1, 2):
        spread(f"16 random sets, {jokers} of the tiles as jokers", [opening(rng, jokers) for _ in range(args.openings)])

    print("tile supplies and random racks")
    row("classic supply: 104 tiles + 2 jokers", Counter({k: 2 for k in NUMBERED} | {"J": 2}), repeat)
    row("xp supply: 156 tiles + 4 jokers", Counter({k: 3 for k in NUMBERED} | {"J": 4}), repeat)
    classic = [k for k in NUMBERED for _ in range(2)] + ["J", "J"]
    for size in (14, 20, 40):
        spread(
            f"random {size}-tile racks from the classic supply", [Counter(rng.sample(classic, size)) for _ in range(30)]
        )

    print("absurd multisets (more copies or jokers than any supply)")
    row("R5 x 40", Counter({"R5": 40}), repeat)
    row("J x 30", Counter({"J": 30}), repeat)
    row("R4 R5 R6 x 40 each", Counter({"R4": 40, "R5": 40, "R6": 40}), repeat)
    row("K1..K10 + 30 jokers", Counter({f"K{n}": 1 for n in range(1, 11)} | {"J": 30}), repeat)
    row("R5 x 2, B9 + 1000 jokers", Counter({"R5": 2, "B9": 1, "J": 1000}), repeat)
    every = Counter({k: 13 for k in NUMBERED[:13]} | {k: 13 for k in NUMBERED[13:26]})
    row("K1..K13, B1..B13 x 13 each (338 tiles)", every, max(1, repeat // 10))
    dense_rng = random.Random(args.seed)
    for i in range(3):
        counts = Counter(dense_rng.choice(NUMBERED[:8]) for _ in range(150)) + Counter({"J": 10})
        row(f"150 random of K1..K8 + 10 jokers #{i + 1}", counts, max(1, repeat // 10))
    if args.dense:
        counts = Counter(dense_rng.choice(NUMBERED) for _ in range(156)) + Counter({"J": 4})
        row("156 random of all 52 + 4 jokers", counts, 1)
    if args.xp:
        xp_racks(random.Random(args.seed), args.xp)


def xp_racks(rng: random.Random, count: int) -> None:
    """The hard ones: ``count`` random multisets within the XP supply, 60-120 tiles of which
    1-4 jokers (a failed opening under ``manipulate_on_opening_turn`` may play that many).
    One cold call each, measured in CPU time of this process (the machine's load does not
    stretch it); the first call that needs HiGHS loads it, timed apart."""
    xp = [k for k in NUMBERED for _ in range(3)]
    cases = []
    for _ in range(count):
        jokers = rng.randint(1, 4)
        cases.append(Counter(rng.sample(xp, rng.choice((60, 80, 100, 120)) - jokers)) + Counter({"J": jokers}))
    start = time.process_time()
    import engine.solver.melds  # noqa: F401  (HiGHS, numpy, SciPy: what the first hard call loads)

    loading = (time.process_time() - start) * 1e3
    cpu = sorted(cold_calls(cases, time.process_time))
    p99 = cpu[min(len(cpu) - 1, round(0.99 * (len(cpu) - 1)))]
    print(f"xp racks, 60-120 tiles with 1-4 jokers ({count}; CPU ms; loading HiGHS first: {loading:.0f} ms)")
    print(
        f"  min {cpu[0]:.1f}  median {statistics.median(cpu):.1f}  p90 {cpu[round(0.9 * (len(cpu) - 1))]:.1f}"
        f"  p99 {p99:.1f}  max {cpu[-1]:.1f}  over 1 s: {sum(t > 1000 for t in cpu)}"
    )


if __name__ == "__main__":
    main()

"""Two checkouts' ``suggest`` compared on the same generated-game positions, alternated.

``python bench/ab_suggest.py RULES ROOT_A ROOT_B [--games 40] [--every 3] [--reps 2]``

Each checkout runs in a persistent process of its own (``--worker``), started in its root
(``ROOT/bench/bench_solver_games.py`` and ``ROOT/engine`` imported from there, so the two
sides really run their own code: each worker prints the engine it imported). The positions
are those of ``bench_solver_games.game_positions`` (games of seeds 1..``--games`` generated
under ``RULES``, every ``--every``-th position where the player on turn has opened), each
solved by ``suggest(table, rack, opened=True, rules, "tiles", --budget, tie_break)`` in both
processes, the order alternating per position and per repetition, ``--reps`` times; a
position's time is its minimum.

Prints per side the median, p90, p99 and max time, the sum, how many answers are not proven
optimal and how many not proven least change, and the table tiles moved in all; then the
median per-position difference and ratio, and the positions whose answers (tiles played,
value) differ. Used for the A/B measurements of bench/README.md from session 30 on.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def worker(rules_name: str, games: int, every: int, tie_break: str, budget: float) -> None:
    """Serve positions by index on stdin: one line per position solved."""
    sys.path.insert(0, str(Path.cwd()))
    sys.path.insert(0, str(Path.cwd() / "bench"))
    from bench_solver_games import game_positions

    import engine
    from engine.rules import PRESETS
    from engine.solver import prepare, suggest

    print(engine.__file__, file=sys.stderr, flush=True)
    prepare()
    rules = PRESETS[rules_name]
    positions = [p for seed in range(1, games + 1) for p in game_positions(seed, rules)[::every]]
    print(len(positions), flush=True)
    for line in sys.stdin:
        p = positions[int(line)]
        start = time.perf_counter()
        move = suggest(p.table, p.rack, True, rules, "tiles", budget, tie_break)
        elapsed = time.perf_counter() - start
        moved = move.changes.disturbance.tiles_moved if move.changes is not None else 0
        fields = (elapsed, len(move.played), move.value, int(move.optimal_proven), int(move.least_change_proven), moved)
        print(*fields, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", help="a preset name")
    parser.add_argument("roots", nargs=2, type=Path, help="the two checkouts")
    parser.add_argument("--games", type=int, default=40, help="generated games, seeds 1..N (default 40)")
    parser.add_argument("--every", type=int, default=3, help="every N-th opened position of a game (default 3)")
    parser.add_argument("--reps", type=int, default=2, help="runs of every position on each side (default 2)")
    parser.add_argument("--tie-break", default="least_change", choices=("least_change", "any"))
    parser.add_argument("--budget", type=float, default=1.0, help="suggest's budget in seconds (default 1.0)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.rules, args.games, args.every, args.tie_break, args.budget)
        return
    command = [sys.executable, str(Path(__file__).resolve()), args.rules, *map(str, args.roots), "--worker"]
    command += ["--games", str(args.games), "--every", str(args.every), "--tie-break", args.tie_break]
    command += ["--budget", str(args.budget)]
    roots = [root.resolve() for root in args.roots]
    procs = [
        subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for root in roots
    ]
    try:
        counts = {int(p.stdout.readline()) for p in procs}  # type: ignore[union-attr]
        if len(counts) != 1:
            raise SystemExit(f"the two sides see different positions: {sorted(counts)}")
        n = counts.pop()
        times: list[list[list[float]]] = [[[] for _ in range(n)] for _ in procs]
        answers: list[list[list[str]]] = [[[] for _ in range(n)] for _ in procs]
        for rep in range(args.reps):
            for k in range(n):
                order = (0, 1) if (k + rep) % 2 == 0 else (1, 0)
                for side in order:
                    proc = procs[side]
                    proc.stdin.write(f"{k}\n")  # type: ignore[union-attr]
                    proc.stdin.flush()  # type: ignore[union-attr]
                    elapsed, *answer = proc.stdout.readline().split()  # type: ignore[union-attr]
                    times[side][k].append(float(elapsed) * 1000)
                    answers[side][k] = answer
    finally:
        for proc in procs:
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(timeout=30)
    best = [[min(t) for t in side] for side in times]
    for root, side, answer in zip(roots, best, answers, strict=True):
        s = sorted(side)
        print(
            f"{root}: median {s[n // 2]:.2f} ms, p90 {s[int(0.9 * n)]:.1f}, p99 {s[int(0.99 * n)]:.1f}, "
            f"max {s[-1]:.1f}, sum {sum(s):.0f}; not proven optimal {sum(a[2] == '0' for a in answer)}, "
            f"least change not proven {sum(a[3] == '0' for a in answer)}, tiles moved {sum(int(a[4]) for a in answer)} "
            f"({n} positions)"
        )
    delta = statistics.median(b - a for a, b in zip(best[0], best[1], strict=True))
    ratio = statistics.median(b / a for a, b in zip(best[0], best[1], strict=True))
    print(f"B - A per position: median {delta:+.2f} ms, ratio median {ratio:.3f}")
    differ = [k for k in range(n) if answers[0][k][:2] != answers[1][k][:2]]
    print(f"answers differing (tiles, value): {len(differ)} {differ[:20]}")


if __name__ == "__main__":
    main()

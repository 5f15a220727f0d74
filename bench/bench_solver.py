"""Benchmark of the solver (engine/solver.py): ``python bench/bench_solver.py [--quick]``.

Times ``arrange`` on the full classic (106) and xp (160) supplies and on random subsets, and
``suggest`` on random positions (a table of 30–80 tiles laid as valid sets, a rack of 14
random tiles from the rest), and prints medians. When the ``rummikub-solver`` package is
installed (a bench-only comparison, never a project dependency) it is timed on the same
positions.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.rules import PRESETS, Rules
from engine.solver import arrange, suggest
from engine.tiles import COLORS, JOKER, SUPPLIES, Tile, numbered

Position = tuple[list[list[Tile]], list[Tile]]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def ms(seconds: Sequence[float]) -> str:
    """Median, 90th percentile and max in milliseconds."""
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:8.2f} ms   p90 {p90 * 1000:8.2f} ms   max {ordered[-1] * 1000:8.2f} ms"


def random_table(
    rng: random.Random, supply: list[Tile], size: int, joker_chance: float
) -> tuple[list[list[Tile]], list[Tile]]:
    """Valid sets drawn from ``supply`` until about ``size`` tiles lie on the table; returns the
    table and the tiles left."""
    left = Counter(t.key for t in supply)
    table: list[list[Tile]] = []
    laid = 0
    tries = 0
    while laid < size and tries < 10_000:
        tries += 1
        if rng.random() < 0.5:
            colour = rng.choice(COLORS)
            start = rng.randint(1, 11)
            length = rng.randint(3, min(6, 14 - start))
            tiles = [numbered(colour, n) for n in range(start, start + length)]
        else:
            number = rng.randint(1, 13)
            tiles = [numbered(c, number) for c in rng.sample(COLORS, rng.choice((3, 4)))]
        if left["J"] and rng.random() < joker_chance:
            k = rng.randrange(len(tiles))
            if tiles[k].number and sum(1 for t in tiles if t.color) > 1:
                tiles[k] = Tile(None, 0, tiles[k]) if len({t.number for t in tiles if t.color}) > 1 else JOKER
        need = Counter(t.key for t in tiles)
        if need - left:
            continue
        left -= need
        table.append(tiles)
        laid += len(tiles)
    rest = [t for key, n in left.items() for t in [JOKER if key == "J" else numbered(key[0], int(key[1:]))] * n]
    return table, rest


def positions(rng: random.Random, count: int, supply_name: str) -> list[Position]:
    supply = SUPPLIES[supply_name].all_tiles()
    out = []
    for _ in range(count):
        table, rest = random_table(rng, supply, rng.randint(30, 80), joker_chance=0.15)
        out.append((table, rng.sample(rest, 14)))
    return out


def bench_arrange(rng: random.Random, repeat: int) -> None:
    print("arrange")
    for name in ("classic", "xp"):
        tiles = SUPPLIES[name].all_tiles()
        times = [timed(functools.partial(arrange, tiles)) for _ in range(repeat)]
        print(f"  full {name:7} ({len(tiles):3} tiles)          {ms(times)}")
    for name in ("classic", "xp"):
        supply = SUPPLIES[name].all_tiles()
        for size in (14, 30, 60, 90):
            subsets = [rng.sample(supply, size) for _ in range(repeat)]
            results = []
            times = []
            for tiles in subsets:
                start = time.perf_counter()
                results.append(arrange(tiles).arrangeable)
                times.append(time.perf_counter() - start)
            yes = sum(1 for r in results if r)
            unknown = sum(1 for r in results if r is None)
            print(f"  random {name:7} {size:3} tiles ({yes:3} yes, {unknown} unknown) {ms(times)}")


def bench_suggest(rng: random.Random, repeat: int, rules: Rules, label: str) -> list[Position]:
    print(f"suggest ({label}; table 30-80 tiles, rack 14)")
    cases = positions(rng, repeat, rules.tiles)
    for opened in (True, False):
        for objective in ("tiles", "value"):
            times = []
            exhausted = 0
            played = []
            for table, rack in cases:
                start = time.perf_counter()
                result = suggest(table, rack, opened, rules, objective)
                times.append(time.perf_counter() - start)
                exhausted += result.budget_exhausted
                played.append(len(result.played))
            print(
                f"  opened={opened!s:5} {objective:5}  mean played {statistics.mean(played):4.1f}"
                f"  budget hit {exhausted:2}   {ms(times)}"
            )
    return cases


def bench_rummikub_solver(cases: list[Position], repeat: int) -> None:
    """The same questions through the ``rummikub-solver`` package (a MILP model), when it is
    installed. Its model frees table jokers at will (like ``joker_release: free``)."""
    try:
        import rummikub_solver as rs  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        print("rummikub-solver: not installed (pip install rummikub-solver into a throwaway venv to compare)")
        return
    print(f"rummikub-solver {rs.__version__} (backend {rs.RuleSet().backend})")
    for name, ruleset in (("classic", rs.RuleSet()), ("xp", rs.RuleSet(repeats=3, jokers=4))):
        tiles = SUPPLIES[name].all_tiles()
        times = []
        for _ in range(repeat):
            state = ruleset.new_game()
            state.add_table(*_their_tiles(ruleset, tiles))
            times.append(timed(functools.partial(ruleset.arrange_table, state)))
        print(f"  arrange full {name:7}                {ms(times)}")
    ruleset = rs.RuleSet()
    times = []
    played = []
    for table, rack in cases:
        state = ruleset.new_game()
        state.add_table(*_their_tiles(ruleset, [t for s in table for t in s]))
        state.add_rack(*_their_tiles(ruleset, rack))
        state.initial = False
        start = time.perf_counter()
        solution = ruleset.solve(state)
        times.append(time.perf_counter() - start)
        played.append(len(solution.tiles) if solution is not None else 0)
    print(f"  suggest opened tiles   mean played {statistics.mean(played):4.1f}               {ms(times)}")


def _their_tiles(ruleset: Any, tiles: Sequence[Tile]) -> list[Any]:
    """Our tiles as the package's: number tiles by colour (K, B, O, R) then number, joker last."""
    theirs = ruleset.tiles
    return [theirs[-1] if t.color is None else theirs[COLORS.index(t.color) * 13 + t.number - 1] for t in tiles]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    repeat = 10 if args.quick else 40
    rng = random.Random(args.seed)
    bench_arrange(rng, repeat)
    cases = bench_suggest(rng, repeat, PRESETS["sabra"], "sabra")
    bench_suggest(rng, max(5, repeat // 4), PRESETS["xp"], "xp")
    bench_rummikub_solver(cases, repeat)


if __name__ == "__main__":
    main()

"""Render cost of engine.svg (issue #17): a full 106-tile table, a 14-tile rack and a turn.

    python bench/bench_svg.py [--repeat 200]

Prints the median and best time per picture; the goal is a 106-tile table in under 5 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from engine.rules import SABRA
from engine.sets import TableSet
from engine.svg import rack_svg, table_svg, turn_svg
from engine.tiles import SUPPLIES, parse_tiles


def _time(fn: Callable[[], str], repeat: int) -> tuple[float, float, int]:
    size = len(fn())  # warm the set readings, as a service would be
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, min(times) * 1000, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    tiles = SUPPLIES["classic"].all_tiles()
    table = [TableSet(tuple(tiles[i : i + 4])) for i in range(0, len(tiles), 4)]  # 106 tiles, groups and more
    rack = parse_tiles("R1 R2 R3 K4 K5 B6 B7 O8 O9 R10 K11 B12 O13 J")
    before = [TableSet(parse_tiles("R5 R6 J R8")), *table[:10]]
    after = [TableSet(parse_tiles("R5 R6 R7 R8")), TableSet(parse_tiles("K11 K12 J")), *table[:10]]
    cases = {
        "table, 106 tiles": lambda: table_svg(table, SABRA),
        "rack, 14 tiles": lambda: rack_svg(rack),
        "turn, 47 tiles + rack": lambda: turn_svg(before, after, parse_tiles("R7 K11 K12 B1"), True),
    }
    print(f"{'picture':<24} {'median ms':>10} {'best ms':>9} {'bytes':>8}")
    for name, fn in cases.items():
        median, best, size = _time(fn, args.repeat)
        print(f"{name:<24} {median:>10.3f} {best:>9.3f} {size:>8}")


if __name__ == "__main__":
    main()

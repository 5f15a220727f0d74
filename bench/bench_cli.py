"""Command-line batch throughput: round files scored and game records replayed per second.

Run with ``.venv/bin/python bench/bench_cli.py`` (``--rounds N``, ``--games N``,
``--jobs 1,2``, ``--corpus DIR`` to keep the generated files between runs). It writes
N round files (random finished 4-player rounds, one file each) and N game records
(``engine.generate.generate_game``, 4 players), then times the real command end to end in a
subprocess — process start, reading every file, the engine, writing JSON Lines to /dev/null:

    rummikub score ROUNDS_DIR --jobs J --format jsonl
    rummikub replay GAMES_DIR --jobs J --format jsonl

and prints documents per second (wall clock) for each ``--jobs`` value, and per CPU second
(the command and its workers: a figure that does not depend on what else the machine runs). No assertions: the numbers go
into the closing notes.

``--dask`` adds the Dask path (issue #16): ``--scheduler local --jobs 2`` (a LocalCluster of
2 worker processes, 1 thread each, started by the command: its start-up is in the time; its
workers read the files where they are). ``--repeat N`` runs every configuration N times, A/B
alternating (each round starts with the next configuration), and prints each run, then the
median per configuration, the ratio Dask/``--jobs 2`` per round, and the Dask path's overhead
per document against ``--jobs 2`` (wall and CPU). The machine may be shared: read the load
column.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.rules import SABRA  # noqa: E402
from engine.tiles import format_tiles  # noqa: E402


def random_round(seed: int) -> dict[str, Any]:
    """A finished 4-player round: racks drawn from a shuffled tile set; half the rounds
    have a player who went out, the rest ended with the pool exhausted."""
    rng = random.Random(seed)
    tiles = SABRA.supply.all_tiles()
    rng.shuffle(tiles)
    players = []
    out = rng.randrange(8)  # 0-3: that player went out; 4-7: pool exhausted
    for i in range(4):
        size = 0 if i == out else rng.randint(1, 14)
        rack, tiles = tiles[:size], tiles[size:]
        players.append({"name": f"P{i + 1}", "rack": format_tiles(rack)})
    return {"players": players}


def _game(seed: int) -> str:
    from engine.generate import generate_game

    return json.dumps(generate_game(seed, 4))


def write_corpus(root: Path, rounds: int, games: int) -> tuple[Path, Path]:
    """The round files and game records (reused when already there)."""
    rounds_dir, games_dir = root / f"rounds-{rounds}", root / f"games-{games}"
    if not (rounds_dir / "done").exists():
        rounds_dir.mkdir(parents=True, exist_ok=True)
        for i in range(rounds):
            sub = rounds_dir / f"{i // 1000:03d}"
            sub.mkdir(exist_ok=True)
            (sub / f"round-{i:05d}.json").write_text(json.dumps(random_round(i)), encoding="utf-8")
        (rounds_dir / "done").touch()
    if not (games_dir / "done").exists():
        games_dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with ProcessPoolExecutor() as pool:
            for i, text in enumerate(pool.map(_game, range(games), chunksize=16)):
                (games_dir / f"game-{i:05d}.json").write_text(text, encoding="utf-8")
        (games_dir / "done").touch()
        print(f"generated {games} games in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return rounds_dir, games_dir


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _adopt_orphans() -> None:
    """Make this process the reaper of its orphaned descendants (Linux prctl
    PR_SET_CHILD_SUBREAPER): a local Dask cluster's forkserver outlives the command by a moment
    and is nobody's child then; reaped here, its CPU and its workers' count in RUSAGE_CHILDREN."""
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


def _reap_orphans(seconds: float = 10.0) -> None:
    """Wait (bounded) for adopted orphans to exit, so their CPU time is counted."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.02)


def time_command(args: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (the command and its worker processes) for
    ``python -m cli ARGS``, stdout discarded."""
    cpu = _child_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cli", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    elapsed = time.perf_counter() - started
    _reap_orphans()
    if done.returncode not in (0, 1):
        sys.exit(f"rummikub {' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed, _child_cpu() - cpu


def _configs(jobs: list[int], dask: bool) -> list[tuple[str, list[str]]]:
    configs = [(f"--jobs {j}", ["--jobs", str(j)]) for j in jobs]
    if dask:
        configs.append(("--scheduler local", ["--scheduler", "local", "--jobs", "2"]))
    return configs


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def main() -> None:
    _adopt_orphans()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000, help="round files to score")
    parser.add_argument("--games", type=int, default=1_000, help="4-player game records to replay")
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values")
    parser.add_argument("--corpus", type=Path, help="keep the generated files here (default: a temporary folder)")
    parser.add_argument("--dask", action="store_true", help="also --scheduler local (2 workers), needs the dask extra")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration, A/B alternating")
    options = parser.parse_args()
    jobs = [int(j) for j in options.jobs.split(",")]
    if options.dask or options.repeat > 1:
        run_alternating(options, _configs(jobs, options.dask))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = options.corpus or Path(tmp)
        rounds_dir, games_dir = write_corpus(root, options.rounds, options.games)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"CPUs: {os.cpu_count()}  Python {sys.version.split()[0]}  load average before: {load}")
        print(f"{'command':<34}{'jobs':>5}{'docs':>8}{'seconds':>10}{'docs/s':>10}{'CPU s':>8}{'docs/CPU s':>12}")
        for label, command, folder, count in (
            ("score (round files)", "score", rounds_dir, options.rounds),
            ("replay (4-player game records)", "replay", games_dir, options.games),
        ):
            if count <= 0:
                continue
            for j in jobs:
                elapsed, cpu = time_command([command, str(folder), "--jobs", str(j), "--format", "jsonl"])
                load = os.getloadavg()[0]
                print(
                    f"{label:<34}{j:>5}{count:>8}{elapsed:>10.2f}{count / elapsed:>10.0f}"
                    f"{cpu:>8.1f}{count / cpu:>12.0f}   (load {load:.1f})"
                )


def run_alternating(options: argparse.Namespace, configs: list[tuple[str, list[str]]]) -> None:
    """Every configuration ``--repeat`` times, rotating which one goes first each round."""
    with tempfile.TemporaryDirectory() as tmp:
        root = options.corpus or Path(tmp)
        rounds_dir, games_dir = write_corpus(root, options.rounds, options.games)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"CPUs: {os.cpu_count()}  Python {sys.version.split()[0]}  load average before: {load}")
        print(
            f"{'command':<8}{'configuration':<22}{'round':>6}{'docs':>7}{'seconds':>9}{'docs/s':>8}{'CPU s':>7}{'docs/CPU s':>11}"
        )
        for label, command, folder, count in (
            ("score", "score", rounds_dir, options.rounds),
            ("replay", "replay", games_dir, options.games),
        ):
            if count <= 0:
                continue
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in configs}
            for r in range(options.repeat):
                order = configs[r % len(configs) :] + configs[: r % len(configs)]
                for name, extra in order:
                    elapsed, cpu = time_command([command, str(folder), "--format", "jsonl", *extra])
                    runs[name].append((elapsed, cpu))
                    print(
                        f"{label:<8}{name:<22}{r + 1:>6}{count:>7}{elapsed:>9.2f}{count / elapsed:>8.0f}"
                        f"{cpu:>7.1f}{count / cpu:>11.0f}   (load {os.getloadavg()[0]:.1f})",
                        flush=True,
                    )
            print(f"{label}: median of {options.repeat} run(s)")
            for name, _ in configs:
                wall = _median([w for w, _ in runs[name]])
                cpu = _median([c for _, c in runs[name]])
                print(f"  {name:<22}{count / wall:>8.0f} docs/s {count / cpu:>8.0f} docs/CPU s")
            base, dask = runs.get("--jobs 2"), runs.get("--scheduler local")
            if base and dask:
                ratios = [b[0] / d[0] for b, d in zip(base, dask, strict=True)]
                print(
                    f"  --scheduler local / --jobs 2 (docs/s), per round: {', '.join(f'{x:.2f}' for x in ratios)}"
                    f"; median {_median(ratios):.2f}"
                )
                wall = (_median([d[0] for d in dask]) - _median([b[0] for b in base])) / count * 1e6
                cpu = (_median([d[1] for d in dask]) - _median([b[1] for b in base])) / count * 1e6
                print(
                    f"  Dask overhead per document vs --jobs 2: {wall:.0f} µs wall, {cpu:.0f} µs CPU (start-up included)"
                )


if __name__ == "__main__":
    main()

"""HTTP throughput, granian (the service's server: ``python -m service.server``) against gunicorn
sync, in one run: ``GET /healthz``, a bare JSON POST (``bench/bare_app.py``: a minimal Flask
route, served by the same server setup) and ``POST /v1/turns/verify`` on a realistic 60-tile table.

Each of the four servers (service and bare app, on granian and on gunicorn sync) runs with
``--workers`` (2) worker processes on a free 127.0.0.1 port (loopback only). wrk (Debian's
``wrk``: 1 thread, ``--connections`` connections, ``--seconds`` per measurement) measures each
(server, endpoint) pair once per round, the pairs alternating A/B inside a round, for
``--rounds`` rounds. The report gives req/s min/median/max and the medians of wrk's p50/p99 per
pair, and the ratios: verify / bare POST for each server (target: at least 0.75 on granian) and
granian / gunicorn per endpoint (verify target: at least 1.1). No assertions: the numbers go into
the closing notes. The machine is shared and noisy: use several rounds.

``--scenario mixed`` (part of the default ``all``): the service alone under granian, one client
verifying turns (the 60-tile turn, one at a time, 5 ms apart) for ``--seconds``, then the same
while 8 threads (another process) flood ``/v1/moves/suggest`` with a position the solver cannot
finish within its budget, alternating for ``--rounds`` rounds: verify p50/p99 alone and under the
flood (min/median/max over rounds), the suggests served and refused (503), and the load average.
Target (issue #19): verify p99 under the flood below 50 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"


def sixty_tile_turn() -> dict[str, Any]:
    """A mid-game turn: 56 tiles in 15 sets on the table (runs, groups, two jokers); an opened
    player plays 4 tiles from an 11-tile rack, splitting a run, extending two runs and a joker
    run and completing a group: 60 tiles in 16 sets after the turn."""
    shared = [
        ["B3", "B4", "B5", "B6"],
        ["K9", "K10", "K11", "K12", "K13"],
        ["R10", "B10", "O10", "K10"],
        ["K1", "B1", "O1"],
        ["R12", "B12", "J"],
        ["O8", "O9", "O10", "O11"],
        ["B9", "B10", "B11"],
        ["R8", "B8", "K8"],
        ["K13", "B13", "O13"],
        ["R9", "K9", "O9"],
        ["R11", "K11", "B11", "O11"],
    ]
    before = [
        ["R1", "R2", "R3", "R4", "R5", "R6", "R7"],
        ["O2", "O3", "J", "O5"],
        ["K7", "B7", "O7"],
        ["K4", "K5", "K6"],
        *shared,
    ]
    after = [
        ["R1", "R2", "R3", "R4"],
        ["R5", "R6", "R7", "R8"],
        ["O2", "O3", "J", "O5", "O6"],
        ["K7", "B7", "O7", "R7"],
        ["K3", "K4", "K5", "K6"],
        *shared,
    ]
    rack = ["R8", "O6", "R7", "K3", "K2", "B2", "O4", "R13", "B12", "O12", "K12"]
    return {"before": before, "after": after, "rack": rack, "opened": True}


SERVERS = ("granian", "gunicorn")

# A suggest the solver cannot finish within its 1 s budget (80 of the 106 classic tiles; the same
# position as tests/test_server.py's flood test).
HARD_RACK = str.split(
    "O3 O5 K12 B6 B5 R6 R12 R11 K2 B1 R11 B1 O13 B6 O12 O13 B3 K2 K4 K11 O1 B13 O11 B11 O11 R5 K9 B12 K11 K7 B9 J K1 B11 B12 B8 R5 O8 R9 R9 "
    "O2 B4 B7 R8 R3 R2 R6 K10 K6 B3 O9 K5 B13 K7 B4 B5 K13 O12 K4 R3 O5 O8 R1 K12 J O6 B10 K5 B8 R8 O1 B9 R13 K10 R2 O6 B2 R4 K1 O4"
)

FLOODER = """
import http.client, json, sys, threading, time
port, seconds, threads, body = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
counts = {}
lock = threading.Lock()
stop = time.monotonic() + seconds
def flood():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < stop:
        try:
            conn.request("POST", "/v1/moves/suggest", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            key = str(response.status)
            if response.status == 503:
                time.sleep(0.05)
        except Exception as exc:
            key = type(exc).__name__
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        with lock:
            counts[key] = counts.get(key, 0) + 1
workers = [threading.Thread(target=flood) for _ in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
print(json.dumps(counts))
"""


def verify_latencies(port: int, body: bytes, seconds: float) -> list[float]:
    """One client posting ``body`` to /v1/turns/verify, one request at a time, 5 ms apart."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    latencies = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        started = time.perf_counter()
        conn.request("POST", "/v1/turns/verify", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"verify answered {response.status} under the mixed load")
        latencies.append(time.perf_counter() - started)
        time.sleep(0.005)
    conn.close()
    return sorted(latencies)


def percentile(values: list[float], q: float) -> float:
    return values[max(0, min(len(values) - 1, int(len(values) * q + 0.5) - 1))]


def mixed(args: argparse.Namespace, verify: bytes, tmp: Path) -> None:
    process, port = start("granian", False, args.workers, tmp)
    suggest = json.dumps({"table": [], "rack": HARD_RACK, "opened": True})
    rows: dict[str, list[tuple[float, float, int]]] = {"alone": [], "flood": []}
    floods: list[dict[str, int]] = []
    loads = []
    try:
        verify_latencies(port, verify, 1)  # warm-up
        for round_no in range(args.rounds):
            for phase in ("alone", "flood") if round_no % 2 == 0 else ("flood", "alone"):
                flooder = None
                if phase == "flood":
                    argv = [sys.executable, "-c", FLOODER, str(port), str(args.seconds + 1.5), "8", suggest]
                    flooder = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
                    time.sleep(0.5)  # the flood fills the share first
                lat = verify_latencies(port, verify, args.seconds)
                rows[phase].append((percentile(lat, 0.5), percentile(lat, 0.99), len(lat)))
                loads.append(os.getloadavg()[0])
                if flooder is not None:
                    out, _ = flooder.communicate(timeout=args.seconds + 60)
                    floods.append(json.loads(out))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    print(
        f"# mixed load: granian {args.workers} workers; verify (60-tile turn) by one client, {args.seconds} s per "
        f"phase x {args.rounds} rounds, alone and under a flood of 8 threads on /v1/moves/suggest (hard position); "
        f"load average {min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} CPUs"
    )
    print(
        f"{'verify':8} {'p50 ms min':>10} {'median':>7} {'max':>7} {'p99 ms min':>10} {'median':>7} {'max':>7} {'requests':>9}"
    )
    for phase, values in rows.items():
        p50s = [v[0] * 1000 for v in values]
        p99s = [v[1] * 1000 for v in values]
        print(
            f"{phase:8} {min(p50s):10.2f} {statistics.median(p50s):7.2f} {max(p50s):7.2f} {min(p99s):10.2f} "
            f"{statistics.median(p99s):7.2f} {max(p99s):7.2f} {sum(v[2] for v in values):9d}"
        )
    totals: dict[str, int] = {}
    for counts in floods:
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    worst = max(v[1] for v in rows["flood"]) * 1000
    print(f"suggest answers under the flood (all rounds): {totals}")
    print(
        f"verify p99 under the flood: median {statistics.median(v[1] for v in rows['flood']) * 1000:.1f} ms, "
        f"worst round {worst:.1f} ms (target < 50 ms: {'met' if worst < 50 else 'NOT met'} in every round)"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def start(kind: str, bare: bool, workers: int, tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    """A server on a free loopback port. granian: the service's launcher (``service.server.main``:
    its settings, event loop and RSGI adapter) for the service and for the bare app alike.
    gunicorn: sync workers, with a metrics directory of its own (``PROMETHEUS_MULTIPROC_DIR``, as
    the service's launcher makes one), so both servers run the service with the same metrics."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update({"RUMMIKUB_ACCESS_LOG": "off", "PYTHONPATH": f"{ROOT}:{ROOT / 'bench'}"})
    if kind == "granian":
        env.update(
            {"RUMMIKUB_BIND": f"{HOST}:{port}", "RUMMIKUB_WORKERS": str(workers), "RUMMIKUB_LOG_LEVEL": "warning"}
        )
        target = "bare_app:rsgi_app" if bare else "service.server:rsgi_app"
        argv = [sys.executable, "-c", f"import sys; from service.server import main; sys.exit(main(target={target!r}))"]
    else:
        metrics = tmp / f"gunicorn-metrics-{'bare' if bare else 'service'}"
        metrics.mkdir()
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
        target = "bare_app:create_app()" if bare else "service.app:create_app()"
        argv = [str(BIN / "gunicorn"), "-w", str(workers), "-b", f"{HOST}:{port}", "--log-level", "warning", target]
    log = (tmp / f"{kind}-{'bare' if bare else 'service'}.log").open("wb")
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    probe = "/echo" if bare else "/healthz"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{kind} exited: {(tmp / log.name).read_text(errors='replace')}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("POST" if bare else "GET", probe, body=b"{}" if bare else None)
            conn.getresponse().read()
            conn.close()
            return process, port
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{kind} did not start within 30 s")


@dataclass
class WrkRun:
    rate: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    requests: int = 0
    cpu_us: float = 0.0  # CPU time of the server's processes (all workers and threads) per request
    load: float = 0.0  # 1-minute load average after the run


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def session_cpu(sid: int) -> float:
    """User + system CPU seconds of every live process in session ``sid`` (a server started with
    ``start_new_session``: its launcher, workers and their threads; Linux ``/proc``)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:  # fields after the name: state, ppid, pgrp, session, ...
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICK


def wrk_measure(
    port: int, path: str, body: bytes | None, connections: int, seconds: int, tmp: Path, sid: int | None = None
) -> WrkRun:
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if body is not None:
        payload = tmp / f"body-{len(body)}.json"
        payload.write_bytes(body)
        script = tmp / f"post-{len(body)}.lua"
        script.write_text(
            f'wrk.method = "POST"\nlocal f = io.open("{payload}", "rb")\nwrk.body = f:read("*a")\nf:close()\n'
            'wrk.headers["Content-Type"] = "application/json"\n'
        )
        argv += ["-s", str(script)]
    cpu_before = session_cpu(sid) if sid is not None else 0.0
    out = subprocess.run(
        [*argv, f"http://{HOST}:{port}{path}"], capture_output=True, text=True, timeout=seconds + 30
    ).stdout
    cpu = session_cpu(sid) - cpu_before if sid is not None else 0.0

    def ms(pattern: str) -> float:
        match = re.search(pattern + r"\s+([\d.]+)(us|ms|s)\b", out)
        if match is None:
            raise SystemExit(f"cannot read wrk's output:\n{out}")
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    non_2xx = int(bad.group(1)) if bad else 0
    if errors:  # gunicorn sync closes each connection: wrk counts those reads as errors; ignore reads
        non_2xx += int(errors.group(1)) + int(errors.group(4))
    done = re.search(r"(\d+) requests in", out)
    requests = int(done.group(1)) if done else 0
    cpu_us = cpu / requests * 1e6 if requests else 0.0
    return WrkRun(
        float(rate.group(1)) if rate else 0.0, ms("50%"), ms("99%"), non_2xx, requests, cpu_us, os.getloadavg()[0]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=4, help="seconds per wrk measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scenario", choices=("servers", "mixed", "all"), default="all")
    args = parser.parse_args()
    verify = json.dumps(sixty_tile_turn()).encode()
    if args.scenario in ("mixed", "all"):
        with tempfile.TemporaryDirectory() as tmp_name:
            mixed(args, verify, Path(tmp_name))
        if args.scenario == "mixed":
            return
        print()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    bare = json.dumps({"name": "bench", "value": 1, "tags": ["a", "b"]}).encode()
    cases = [
        ("healthz", False, "/healthz", None),
        ("bare POST", True, "/echo", bare),
        ("bare 60", True, "/echo", verify),  # the bare route, sent verify's own body
        ("verify", False, "/v1/turns/verify", verify),
    ]
    runs: dict[tuple[str, str], list[WrkRun]] = {(s, c[0]): [] for s in SERVERS for c in cases}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        procs: dict[tuple[str, bool], tuple[subprocess.Popen[bytes], int]] = {}
        try:
            for kind in SERVERS:
                for is_bare in (False, True):
                    procs[(kind, is_bare)] = start(kind, is_bare, args.workers, tmp)
            for kind in SERVERS:  # warm-up
                for _name, is_bare, path, payload in cases:
                    wrk_measure(procs[(kind, is_bare)][1], path, payload, args.connections, 1, tmp)
            for round_no in range(args.rounds):
                order = SERVERS if round_no % 2 == 0 else SERVERS[::-1]
                for name, is_bare, path, payload in cases:
                    for kind in order:  # A/B back to back, alternating which goes first
                        process, port = procs[(kind, is_bare)]
                        runs[(kind, name)].append(
                            wrk_measure(port, path, payload, args.connections, args.seconds, tmp, process.pid)
                        )
        finally:
            for process, _ in procs.values():
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
                    try:
                        process.wait(timeout=15)
                    except subprocess.TimeoutExpired:
                        os.killpg(process.pid, signal.SIGKILL)
    report(args, cases, runs)


def report(args: argparse.Namespace, cases: list[Any], runs: dict[tuple[str, str], list[WrkRun]]) -> None:
    loads = [r.load for rs in runs.values() for r in rs]
    print(
        f"# {args.workers} workers per server, wrk 1 thread {args.connections} connections {args.seconds} s x "
        f"{args.rounds} rounds (A/B alternating), {os.cpu_count()} CPUs, {platform.python_implementation()} "
        f"{platform.python_version()} ({sys.executable}); load average {min(loads):.2f}-{max(loads):.2f}"
    )
    print(
        f"{'server':9} {'endpoint':10} {'req/s min':>10} {'median':>9} {'max':>9} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'cpu us/req':>10} {'errors':>6}"
    )
    med: dict[tuple[str, str], float] = {}
    for kind in SERVERS:
        for name, *_ in cases:
            rs = runs[(kind, name)]
            rates = [r.rate for r in rs]
            med[(kind, name)] = statistics.median(rates)
            print(
                f"{kind:9} {name:10} {min(rates):10.0f} {med[(kind, name)]:9.0f} {max(rates):9.0f} "
                f"{statistics.median(r.p50_ms for r in rs):7.2f} {statistics.median(r.p99_ms for r in rs):7.2f} "
                f"{statistics.median(r.cpu_us for r in rs):10.0f} {sum(r.non_2xx for r in rs):6d}"
            )
    print()

    def ratio(a: tuple[str, str], b: tuple[str, str], label: str) -> None:
        per_round = [x.rate / y.rate for x, y in zip(runs[a], runs[b], strict=True) if y.rate]
        cpu = statistics.median(r.cpu_us for r in runs[b]) / max(1e-9, statistics.median(r.cpu_us for r in runs[a]))
        print(
            f"{label}: {med[a] / med[b]:.2f} (medians; per round min {min(per_round):.2f} median "
            f"{statistics.median(per_round):.2f} max {max(per_round):.2f}; server CPU per request {cpu:.2f})"
        )

    for kind in SERVERS:
        ratio((kind, "verify"), (kind, "bare POST"), f"{kind}: verify / bare POST")
        ratio((kind, "verify"), (kind, "bare 60"), f"{kind}: verify / bare 60")
    for name, *_ in cases:
        ratio(("granian", name), ("gunicorn", name), f"granian / gunicorn on {name}")


if __name__ == "__main__":
    main()

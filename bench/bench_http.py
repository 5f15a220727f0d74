"""HTTP throughput: ``POST /v1/turns/verify`` on a realistic 60-tile table next to a trivial JSON
endpoint (``GET /healthz``), both measured in the same run against gunicorn with 2 workers.

Run with ``.venv/bin/python bench/bench_http.py`` (``--requests N`` per endpoint and round,
``--rounds R``, ``--threads T``, ``--time-cap S`` per measurement). It starts
``gunicorn -c service/gunicorn_conf.py 'service.app:create_app()'`` on a free 127.0.0.1 port
(loopback only), warms both endpoints up, then alternates the two measurements ``--rounds``
times so drift hits both alike. Each measurement sends a fixed number of requests from a pool of
client threads (one connection per request: gunicorn's sync workers close after each answer)
and stops early at the time cap. It prints requests/s and p50/p99 latency per endpoint, the CPU
time the gunicorn workers used per request (from /proc: each endpoint's cost on the server,
whatever the client), and the verify/trivial throughput ratio (target: at least 0.70). No
assertions: the numbers go into the closing notes.

``--client wrk`` drives the load with wrk (Debian's ``wrk`` package; 1 thread, ``--threads``
connections, ``--seconds`` per measurement) instead of the Python client: wrk costs far less CPU
per request, so on a 2-core machine the server gets more of it and both rates rise.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
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


@dataclass
class Measurement:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    elapsed: float = 0.0

    def add(self, other: Measurement) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.elapsed += other.elapsed

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def one_request(port: int, method: str, path: str, body: bytes | None) -> bool:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status == 200
    finally:
        conn.close()


def measure(
    name: str, port: int, method: str, path: str, body: bytes | None, count: int, threads: int, cap: float
) -> Measurement:
    """``count`` requests from ``threads`` client threads, stopping at ``cap`` seconds."""
    result = Measurement(name)
    lock = threading.Lock()
    issued = 0
    deadline = time.perf_counter() + cap

    def worker() -> None:
        nonlocal issued
        local: list[float] = []
        errors = 0
        while True:
            with lock:
                if issued >= count or time.perf_counter() > deadline:
                    break
                issued += 1
            start = time.perf_counter()
            try:
                ok = one_request(port, method, path, body)
            except OSError:
                ok = False
            if ok:
                local.append(time.perf_counter() - start)
            else:
                errors += 1
        with lock:
            result.latencies += local
            result.errors += errors

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    started = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    result.elapsed = time.perf_counter() - started
    return result


def worker_cpu_seconds(server: subprocess.Popen[bytes]) -> float:
    """User + system CPU time of gunicorn's worker processes (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for line in Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split():
        fields = Path(f"/proc/{line}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


_WRK_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


@dataclass
class WrkRun:
    requests: int
    seconds: float
    errors: int
    p50_ms: float
    p99_ms: float


def wrk_measure(port: int, path: str, body: bytes | None, connections: int, seconds: int) -> WrkRun:
    """One wrk run (1 thread) against ``path``, a POST of ``body`` when given."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
        if body is not None:
            (Path(tmp) / "body.json").write_bytes(body)
            script = Path(tmp) / "post.lua"
            script.write_text(
                'wrk.method = "POST"\n'
                f'local f = io.open("{tmp}/body.json", "rb")\n'
                'wrk.body = f:read("*a")\n'
                "f:close()\n"
                'wrk.headers["Content-Type"] = "application/json"\n'
            )
            argv += ["-s", str(script)]
        out = subprocess.run([*argv, f"http://{HOST}:{port}{path}"], capture_output=True, text=True, check=True).stdout

    def ms(pattern: str) -> float:
        found = re.search(pattern, out, re.MULTILINE)
        if found is None:
            raise SystemExit(f"cannot read wrk's output:\n{out}")
        return float(found.group(1)) * _WRK_UNITS[found.group(2)]

    done = re.search(r"(\d+) requests in", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return WrkRun(
        requests=int(done.group(1)) if done else 0,
        seconds=ms(r"requests in ([\d.]+)(us|ms|s)") / 1000,
        errors=int(bad.group(1)) if bad else 0,
        p50_ms=ms(r"^\s+50%\s+([\d.]+)(us|ms|s)"),
        p99_ms=ms(r"^\s+99%\s+([\d.]+)(us|ms|s)"),
    )


def run_wrk(args: argparse.Namespace, port: int, server: subprocess.Popen[bytes], cases: list[Any]) -> list[Row]:
    """``args.rounds`` alternating wrk runs per case; p50/p99 are the medians of wrk's per-run
    percentiles."""
    for _, _, path, payload in cases:  # warm-up
        wrk_measure(port, path, payload, args.threads, 2)
    runs: dict[str, list[WrkRun]] = {name: [] for name, *_ in cases}
    cpu = dict.fromkeys(runs, 0.0)
    for _ in range(args.rounds):
        for name, _, path, payload in cases:
            before = worker_cpu_seconds(server)
            runs[name].append(wrk_measure(port, path, payload, args.threads, args.seconds))
            cpu[name] += worker_cpu_seconds(server) - before
    rows = []
    for name, done in runs.items():
        requests = sum(r.requests for r in done)
        rows.append(
            Row(
                name,
                requests,
                sum(r.errors for r in done),
                requests / sum(r.seconds for r in done),
                statistics.median(r.p50_ms for r in done),
                statistics.median(r.p99_ms for r in done),
                cpu[name] / requests * 1e6,
                [r.requests / r.seconds for r in done],
            )
        )
    return rows


def run_python(args: argparse.Namespace, port: int, server: subprocess.Popen[bytes], cases: list[Any]) -> list[Row]:
    """``args.rounds`` alternating measurements per case with the Python client."""
    for _, method, path, payload in cases:  # warm-up
        measure("warm-up", port, method, path, payload, 200, args.threads, args.time_cap)
    totals = {name: Measurement(name) for name, *_ in cases}
    cpu = dict.fromkeys(totals, 0.0)
    round_rates: dict[str, list[float]] = {name: [] for name in totals}
    for _ in range(args.rounds):
        for name, method, path, payload in cases:
            before = worker_cpu_seconds(server)
            one = measure(name, port, method, path, payload, args.requests, args.threads, args.time_cap)
            cpu[name] += worker_cpu_seconds(server) - before
            totals[name].add(one)
            round_rates[name].append(one.rate)
    return [
        Row(
            m.name,
            len(m.latencies),
            m.errors,
            m.rate,
            m.percentile(0.50),
            m.percentile(0.99),
            cpu[m.name] / len(m.latencies) * 1e6 if m.latencies else float("nan"),
            round_rates[m.name],
        )
        for m in totals.values()
    ]


@dataclass
class Row:
    endpoint: str
    requests: int
    errors: int
    req_per_s: float
    p50_ms: float
    p99_ms: float
    worker_cpu_us: float  # gunicorn workers' CPU time per request
    round_rates: list[float]  # requests/s of each round


def report(args: argparse.Namespace, rows: list[Row]) -> None:
    trivial, verify = rows
    ratio = verify.req_per_s / trivial.req_per_s if trivial.req_per_s else float("nan")
    # The two runs of a round are back to back, so their ratio sees the least drift.
    round_ratios = [v / t for t, v in zip(trivial.round_rates, verify.round_rates, strict=True) if t]
    if args.json:
        shown = [
            {k: round(v, 2) if isinstance(v, float) else v for k, v in vars(r).items() if k != "round_rates"}
            for r in rows
        ]
        print(
            json.dumps(
                {
                    "client": args.client,
                    "workers": args.workers,
                    "python": platform.python_version(),
                    "python_prefix": sys.base_prefix,
                    "rows": shown,
                    "ratio": round(ratio, 3),
                    "round_ratios": [round(r, 3) for r in round_ratios],
                }
            )
        )
        return
    cache = "default" if args.set_cache is None else ("off" if args.set_cache == 0 else str(args.set_cache))
    client = (
        f"wrk, 1 thread, {args.threads} connections"
        if args.client == "wrk"
        else f"Python client, {args.threads} threads"
    )
    print(
        f"gunicorn {args.workers} sync workers, {client}, {os.cpu_count()} CPUs, loopback,"
        f" set cache {cache}, load average {os.getloadavg()[0]:.2f}"
    )
    print(f"Python {platform.python_version()} at {sys.base_prefix} (the workers run the same interpreter)")
    print(
        f"{'endpoint':<42} {'requests':>8} {'errors':>6} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'worker CPU/req':>15}"
    )
    for r in rows:
        print(
            f"{r.endpoint:<42} {r.requests:>8} {r.errors:>6} {r.req_per_s:>8.1f} {r.p50_ms:>7.2f} {r.p99_ms:>7.2f}"
            f" {r.worker_cpu_us:>12.0f} µs"
        )
    print(f"verify / trivial throughput: {ratio:.3f} (target >= 0.70)")
    if len(round_ratios) > 1:
        print(
            f"per round: median {statistics.median(round_ratios):.3f},"
            f" range {min(round_ratios):.3f}-{max(round_ratios):.3f} over {len(round_ratios)} rounds"
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(port: int, workers: int, set_cache: int | None = None) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        **({} if set_cache is None else {"RUMMIKUB_SET_CACHE_SIZE": str(set_cache)}),
        "RUMMIKUB_BIND": f"{HOST}:{port}",
        "RUMMIKUB_WORKERS": str(workers),
        "RUMMIKUB_ACCESS_LOG": "off",
        "RUMMIKUB_LOG_LEVEL": "warning",
    }
    argv = [str(BIN / "gunicorn"), "-c", "service/gunicorn_conf.py", "service.app:create_app()"]
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            if one_request(port, "GET", "/healthz", None):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("gunicorn did not start within 30 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="requests per endpoint and round")
    parser.add_argument("--rounds", type=int, default=10, help="alternating measurements per endpoint")
    parser.add_argument("--threads", type=int, default=4, help="client threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--time-cap", type=float, default=20.0, help="seconds per measurement, at most")
    parser.add_argument(
        "--set-cache",
        type=int,
        default=None,
        help="RUMMIKUB_SET_CACHE_SIZE for the server (0: off; default: the app's)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--client", choices=["python", "wrk"], default="python", help="load generator (wrk: Debian's wrk package)"
    )
    parser.add_argument("--seconds", type=int, default=8, help="seconds per wrk measurement")
    args = parser.parse_args()

    turn = sixty_tile_turn()
    body = json.dumps(turn).encode()
    tiles_after = sum(len(s) for s in turn["after"])
    port = free_port()
    server = start_server(port, args.workers, args.set_cache)
    try:
        check = http.client.HTTPConnection(HOST, port, timeout=10)
        check.request("POST", "/v1/turns/verify", body=body, headers={"Content-Type": "application/json"})
        verdict = json.loads(check.getresponse().read())
        check.close()
        assert verdict["valid"], verdict["violations"]
        cases = [
            ("GET /healthz (trivial JSON)", "GET", "/healthz", None),
            (f"POST /v1/turns/verify ({tiles_after}-tile table)", "POST", "/v1/turns/verify", body),
        ]
        if args.client == "wrk" and shutil.which("wrk") is None:
            raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
        rows = (run_wrk if args.client == "wrk" else run_python)(args, port, server, cases)
    finally:
        server.terminate()
        server.wait(timeout=30)
    report(args, rows)


if __name__ == "__main__":
    main()

"""The real server (``python -m service.server``: granian + the RSGI adapter) on a free loopback
port: slow clients against health probes, broken HTTP over raw sockets, SIGTERM with load
running, SIGKILL of a worker, /metrics counts, request ids and the JSON log. Each server runs in
its own process group, which the fixture kills; every loop is bounded in count and time."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.server import ServerSettings, available_cpus, cgroup_cpu_limit, parse_bind

pytestmark = pytest.mark.http
VERIFY = json.dumps({"before": [], "after": [["K10", "B10", "O10"]], "rack": ["K10", "B10", "O10"], "opened": False})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    def __init__(self, tmp: Path, **settings: str) -> None:
        self.port = free_port()
        self.log_path = tmp / f"server-{self.port}.log"
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        env.update({"RUMMIKUB_BIND": f"127.0.0.1:{self.port}", "RUMMIKUB_WORKERS": "2", **settings})
        self.log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.server"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the fixture kills exactly that
        )
        deadline = time.monotonic() + 30
        while True:
            assert self.process.poll() is None, self.text()
            try:
                if self.get("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, self.text()
            time.sleep(0.1)

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def request(
        self, method: str, path: str, body: str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            all_headers = {"Content-Type": "application/json", **(headers or {})}
            conn.request(method, path, body=body, headers=all_headers)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        return self.request("GET", path, headers=headers)

    def workers(self) -> set[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return {int(pid) for pid in children}

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(
        tmp_path_factory.mktemp("server"),
        RUMMIKUB_READ_TIMEOUT="2",
        RUMMIKUB_HEADER_TIMEOUT="4",
        RUMMIKUB_LOG_FORMAT="json",
    )
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path, RUMMIKUB_GRACEFUL_TIMEOUT="5", RUMMIKUB_ACCESS_LOG="off")
    try:
        yield running
    finally:
        running.stop()


def raw_exchange(port: int, data: bytes, half_close: bool = False, timeout: float = 6.0) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it or stops sending
    (bounded by ``timeout``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
                head, sep, body = received.partition(b"\r\n\r\n")
                match = re.search(rb"content-length: *(\d+)", head, re.I)
                if sep and match and len(body) >= int(match.group(1)):
                    break
        except (TimeoutError, ConnectionResetError):
            pass
        return received


def status_of(answer: bytes) -> int:
    match = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    assert match, answer[:200]
    return int(match.group(1))


# --- settings ---------------------------------------------------------------------------------------


def test_workers_follow_affinity_and_cgroup_quota(tmp_path: Path) -> None:
    affinity = len(os.sched_getaffinity(0))
    assert cgroup_cpu_limit(tmp_path) is None
    assert available_cpus(tmp_path) == affinity
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cgroup_cpu_limit(tmp_path) == 1.5
    assert available_cpus(tmp_path) == min(affinity, 2)
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert available_cpus(tmp_path) == affinity
    (tmp_path / "cpu.max").unlink()
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("50000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert available_cpus(tmp_path) == 1
    assert ServerSettings.from_env({"RUMMIKUB_WORKERS": "3"}).workers == 3
    with pytest.raises(ValueError, match="RUMMIKUB_WORKERS"):
        ServerSettings.from_env({"RUMMIKUB_WORKERS": "0"})
    assert parse_bind("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_bind("[::1]:9000") == ("::1", 9000)


# --- slow clients -----------------------------------------------------------------------------------


def test_slow_clients_do_not_hold_up_probes(server: Server) -> None:
    slow: list[socket.socket] = []
    try:
        for i in range(50):  # headers that never end
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: %d\r\n" % i)
            slow.append(sock)
        for _ in range(50):  # a body that never arrives
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(
                b"POST /v1/turns/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{"
            )
            slow.append(sock)
        times = []
        started = time.monotonic()
        for i in range(60):
            t = time.perf_counter()
            if i % 3:
                status, _, _ = server.get("/healthz")
            else:
                status, _, body = server.request("POST", "/v1/turns/verify", VERIFY)
                assert json.loads(body)["valid"] is True
            times.append(time.perf_counter() - t)
            assert status == 200
        assert time.monotonic() - started < 1.5, "the probes ran inside the slow clients' read timeout"
        times.sort()
        assert times[int(len(times) * 0.99) - 1] < 0.05, times[-5:]
        # The slow bodies end with a 408 problem after RUMMIKUB_READ_TIMEOUT (2 s).
        sock = slow[-1]
        sock.settimeout(6)
        answer = sock.recv(65536)
        assert status_of(answer) == 408
        assert b"application/problem+json" in answer and b"RUMMIKUB_READ_TIMEOUT" in answer
    finally:
        for sock in slow:
            sock.close()


# --- broken HTTP -------------------------------------------------------------------------------------

BODY = b'{"sets": [["R1","R2","R3"]]}'
POST = b"POST /v1/sets/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
BROKEN: dict[str, tuple[bytes, bool, set[int], bool]] = {
    # name: (bytes sent, half-close after sending, acceptable statuses, problem+json expected)
    "chunk-size-zz": (POST + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + BODY + b"\r\n0\r\n\r\n", False, {400}, True),
    "chunk-size-negative": (
        POST + b"Transfer-Encoding: chunked\r\n\r\n-1\r\n" + BODY + b"\r\n0\r\n\r\n",
        False,
        {400},
        True,
    ),
    "chunk-longer-than-its-size": (
        POST + b"Transfer-Encoding: chunked\r\n\r\n5\r\nabcdefghij\r\n0\r\n\r\n",
        False,
        {400},
        True,
    ),
    "content-length-longer-than-body": (POST + b"Content-Length: 100\r\n\r\n" + BODY, True, {400}, True),
    "content-length-slow-body": (POST + b"Content-Length: 100\r\n\r\n" + BODY, False, {408}, True),
    "content-length-shorter-than-body": (POST + b"Content-Length: 5\r\n\r\n" + BODY, False, {400}, True),
    "content-length-twice": (POST + b"Content-Length: 4\r\nContent-Length: 28\r\n\r\n" + BODY, False, {400}, False),
    "content-length-negative": (POST + b"Content-Length: -1\r\n\r\n" + BODY, False, {400}, False),
    "content-length-not-a-number": (POST + b"Content-Length: 1e3\r\n\r\n" + BODY, False, {400}, False),
    "transfer-encoding-unknown": (POST + b"Transfer-Encoding: gzip\r\n\r\n" + BODY, False, {400, 501}, False),
    "header-too-large": (
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 600_000 + b"\r\n\r\n",
        False,
        {431},
        False,
    ),
    "too-many-headers": (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-H: a\r\n" * 200 + b"\r\n", False, {431}, False),
    "url-too-long": (b"GET /healthz?" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", False, {414, 431}, False),
    "not-http": (b"HELLO\r\n\r\n", False, {400}, False),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_http_is_a_4xx(server: Server, name: str) -> None:
    data, half_close, statuses, problem = BROKEN[name]
    answer = raw_exchange(server.port, data, half_close)
    assert status_of(answer) in statuses, answer[:300]
    head, _, body = answer.partition(b"\r\n\r\n")
    if problem:
        assert b"content-type: application/problem+json" in head.lower()
        length = re.search(rb"content-length: *(\d+)", head, re.I)
        assert length, head
        doc = json.loads(body[: int(length.group(1))])  # leftover bytes may get a second answer
        assert doc["status"] == status_of(answer) and doc["errors"]
    assert server.process.poll() is None
    assert server.get("/healthz")[0] == 200


def test_content_length_with_transfer_encoding_is_not_smuggled(server: Server) -> None:
    """RFC 9112 §6.3: with both, Transfer-Encoding wins and the connection closes after the
    answer, so bytes after the chunked body are never read as a second request."""
    smuggled = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    chunked = hex(len(BODY))[2:].encode() + b"\r\n" + BODY + b"\r\n0\r\n\r\n"
    data = POST + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + smuggled
    answer = raw_exchange(server.port, data)
    assert status_of(answer) < 500
    assert answer.count(b"HTTP/1.1 ") == 1
    assert b"connection: close" in answer.lower()


def test_broken_requests_are_logged_in_one_line_without_tracebacks(server: Server) -> None:
    raw_exchange(server.port, BROKEN["chunk-size-zz"][0])
    deadline = time.monotonic() + 5
    while "malformed" not in server.text() and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = [line for line in server.text().splitlines() if "malformed" in line]
    assert lines
    record = json.loads(lines[-1])
    assert record["status"] == 400 and record["request_id"] and "reason" in record
    assert "Traceback" not in server.text()


# --- request ids, logs, metrics ---------------------------------------------------------------------


def metric(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_request_ids_are_echoed_or_made_and_logged(server: Server) -> None:
    status, headers, _ = server.get("/healthz", {"X-Request-ID": "probe-42.a"})
    assert status == 200 and headers["x-request-id"] == "probe-42.a"
    _, headers, _ = server.get("/healthz", {"X-Request-ID": "bad id with spaces"})
    assert re.fullmatch(r"[0-9a-f]{32}", headers["x-request-id"])
    _, headers, _ = server.get("/healthz")
    made = headers["x-request-id"]
    deadline = time.monotonic() + 5
    while made not in server.text() and time.monotonic() < deadline:
        time.sleep(0.1)
    records = [json.loads(line) for line in server.text().splitlines() if line.startswith("{")]
    mine = [r for r in records if r.get("request_id") in ("probe-42.a", made)]
    assert {r["request_id"] for r in mine} == {"probe-42.a", made}
    assert all(r["type"] == "access" and r["path"] == "/healthz" and r["status"] == 200 for r in mine)


def test_metrics_count_across_workers(server: Server) -> None:
    before = server.get("/metrics")[2].decode()
    n = 25
    for _ in range(n):  # a new connection each: both workers answer some
        assert server.get("/v1/rules")[0] == 200
    bad = json.dumps({"before": [], "after": [["K10", "B10", "O10"]], "rack": ["K10", "B10", "R1"], "opened": False})
    for _ in range(3):
        server.request("POST", "/v1/turns/verify", VERIFY)
        server.request("POST", "/v1/turns/verify", bad)
    status, headers, body = server.get("/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain")
    after = body.decode()
    route = {"route": "/v1/rules", "method": "GET", "status": "200"}
    assert (
        metric(after, "rummikub_http_requests_total", **route) - metric(before, "rummikub_http_requests_total", **route)
        == n
    )
    hist = {"route": "/v1/rules", "le": "+Inf"}
    assert (
        metric(after, "rummikub_http_request_duration_seconds_bucket", **hist)
        - metric(before, "rummikub_http_request_duration_seconds_bucket", **hist)
        == n
    )
    for code in ("VALID", "TILE_NOT_IN_RACK"):
        labels = {"operation": "turns/verify", "code": code}
        assert (
            metric(after, "rummikub_verdicts_total", **labels) - metric(before, "rummikub_verdicts_total", **labels)
            == 3
        )


# --- shutdown and faults ----------------------------------------------------------------------------


@pytest.mark.xfail(
    strict=False,
    reason="issue #13 open: a connection the kernel accepted just before SIGTERM is sometimes reset "
    "instead of served (seen about once in several runs under load)",
)
def test_sigterm_drains_requests_under_load(own_server: Server) -> None:
    served = [0]
    failures: list[str] = []
    refused = threading.Event()
    lock = threading.Lock()

    def client() -> None:
        deadline = time.monotonic() + 15
        for _ in range(2000):
            if time.monotonic() > deadline or refused.is_set():
                return
            try:
                sock = socket.create_connection(("127.0.0.1", own_server.port), timeout=10)
            except ConnectionRefusedError:  # the listener is closed: never accepted, not failed
                refused.set()
                return
            conn = http.client.HTTPConnection("127.0.0.1", own_server.port, timeout=10)
            conn.sock = sock
            try:
                conn.request("POST", "/v1/turns/verify", body=VERIFY, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                with lock:
                    if response.status == 200:
                        served[0] += 1
                    else:
                        failures.append(str(response.status))
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    failures.append(repr(exc))
            finally:
                conn.close()

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    own_server.process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    assert own_server.process.wait(timeout=10) == 0
    assert time.monotonic() - started < 10, "inside docker stop's 10 s"
    refused.set()
    for thread in threads:
        thread.join(timeout=15)
    assert served[0] > 20
    assert failures == [], failures[:5]


def _kill_a_worker(server: Server) -> tuple[int, int]:
    """SIGKILL one worker, then send 20 health probes at once: (the victim, probes failed)."""
    workers = server.workers()
    assert len(workers) == 2
    victim = min(workers)
    os.kill(victim, signal.SIGKILL)
    failed = 0
    for _ in range(20):
        try:
            failed += server.get("/healthz")[0] != 200
        except OSError:
            failed += 1
    return victim, failed


@pytest.mark.xfail(
    strict=False,
    reason="issue #13 open: under load, probes sent before the replacement worker is up sometimes all fail",
)
def test_a_killed_worker_costs_at_most_its_own_requests(own_server: Server) -> None:
    assert _kill_a_worker(own_server)[1] <= 1


def test_a_killed_worker_is_replaced(own_server: Server) -> None:
    victim, _ = _kill_a_worker(own_server)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = own_server.workers()
        if len(now) == 2 and victim not in now:
            break
        time.sleep(0.1)
    now = own_server.workers()
    assert len(now) == 2 and victim not in now, own_server.text()
    for _ in range(10):
        assert own_server.get("/healthz")[0] == 200

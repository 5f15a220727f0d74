"""Run the HTTP service under granian: ``python -m service.server`` (``make serve``,
``rummikub serve`` and the container's CMD all run this).

granian (a Rust HTTP server) reads requests and writes answers on its own threads, so a slow or
broken client costs a socket, not a Python worker; it refuses malformed HTTP (bad chunking,
duplicate Content-Length, oversized headers or URLs) with a 4xx before Python sees it. The Flask
app runs behind :class:`RSGIAdapter`, which reads each body (within ``RUMMIKUB_READ_TIMEOUT``:
else 408; at most ``RUMMIKUB_MAX_BODY_BYTES``: else 413; refused with 400 when it cannot be read)
and then calls the WSGI app with the whole body in memory. (A request with both Content-Length
and Transfer-Encoding never reaches it as such: hyper drops the Content-Length, reads the chunked
body and closes the connection after the answer, as RFC 9112 §6.1 allows.)

Settings (environment variables; docs/service.md):

- ``RUMMIKUB_BIND``: ``host:port`` to listen on (default ``127.0.0.1:8000``; ``[::1]:8000`` for IPv6)
- ``RUMMIKUB_WORKERS``: worker processes (default: the CPUs this process may use: its CPU
  affinity, capped by a cgroup v2/v1 CPU quota)
- ``RUMMIKUB_THREADS``: threads per worker running the app (default 1: on the event loop)
- ``RUMMIKUB_HEADER_TIMEOUT``: seconds a client may take to send the request headers (default 10)
- ``RUMMIKUB_READ_TIMEOUT``: seconds a client may take to send the body (default 10; then 408)
- ``RUMMIKUB_GRACEFUL_TIMEOUT``: seconds a stopping worker may finish its requests (default 8,
  inside ``docker stop``'s 10)
- ``RUMMIKUB_LOG_LEVEL``: ``debug``, ``info`` (default), ``warning``, ``error``
- ``RUMMIKUB_ACCESS_LOG``: ``-`` (stdout, the default here), a file path, or ``off``
- ``RUMMIKUB_LOG_FORMAT``: ``text`` (default) or ``json`` (one JSON object per line, with the
  request id)
- ``RUMMIKUB_BUDGET_SLOTS``, ``RUMMIKUB_BUDGET_QUEUE``, ``RUMMIKUB_BUDGET_WAIT``: the fair share of
  budgeted (solver) requests per worker: how many run at once (default 1), how many more may
  wait (default 2) and for how long (default 2 s) before a 503 with Retry-After (:class:`BudgetGate`)
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import gc
import ipaddress
import logging
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SLASHES = re.compile("/{2,}")
MAX_BODY_CHUNKS = 4096
"""The most pieces a chunked request body may come in (a 256 KiB body: 64 bytes each on average)."""

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
BUDGET_NICE = 10
"""The nice value of the processes that run budgeted requests: a verdict gets a CPU before them.
Under a suggest flood on 2 loaded cores, verify p99 went from ~35-45 ms (threads sharing the
worker's interpreter) to ~8-18 ms (processes at nice 10)."""
METRICS_DIR_PREFIX = "rummikub-metrics-"
DEFAULT_PORT = 8000
_WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


# --- settings -------------------------------------------------------------------------------------


def cgroup_cpu_limit(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPU quota of this process's cgroup in CPUs (``cpu.max``, v2; ``cpu.cfs_quota_us`` /
    ``cpu.cfs_period_us``, v1), or None when there is none."""
    try:
        quota, _, period = (root / "cpu.max").read_text().strip().partition(" ")
        if quota != "max" and float(period or 100_000) > 0:
            return float(quota) / float(period or 100_000)
        return None
    except (OSError, ValueError):
        pass
    for v1 in (root / "cpu", root / "cpu,cpuacct"):
        try:
            quota_us = float((v1 / "cpu.cfs_quota_us").read_text())
            period_us = float((v1 / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        if quota_us > 0 and period_us > 0:
            return quota_us / period_us
    return None


def available_cpus(root: Path = Path("/sys/fs/cgroup")) -> int:
    """The CPUs this process may use: its affinity set, capped by the cgroup CPU quota (rounded
    up), at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    limit = cgroup_cpu_limit(root)
    if limit is not None:
        count = min(count, math.ceil(limit))
    return max(1, count)


def _number(
    environ: Mapping[str, str], name: str, default: float, minimum: float, integer: bool = True, maximum: float = 86_400
) -> Any:
    """A setting between ``minimum`` and ``maximum``: NaN, infinities and numbers too large for
    the server to use (``1e400``, a 20-digit worker count) are refused here, in one line, rather
    than in a traceback at start-up or at the stop (the service audit, session 51)."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a {'whole ' if integer else ''}number, got {raw!r}") from None
    if not math.isfinite(value) or value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {raw!r}")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum:g}, got {raw!r}")
    return value


def parse_bind(text: str) -> tuple[str, int]:
    """``host:port``, ``[v6]:port``, ``host`` or ``:port`` → (host, port)."""
    text = text.strip() or f"127.0.0.1:{DEFAULT_PORT}"
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    try:
        number = int(port) if port else DEFAULT_PORT
    except ValueError:
        raise ValueError(f"RUMMIKUB_BIND must be host:port, got {text!r}") from None
    if not 0 < number < 65536:
        raise ValueError(f"RUMMIKUB_BIND port must be 1-65535, got {text!r}")
    return host or "127.0.0.1", number


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    workers: int = 1
    threads: int = 1
    header_timeout: float = 10.0
    read_timeout: float = 10.0
    graceful_timeout: int = 8
    log_level: str = "info"
    budget_slots: int = 1
    budget_queue: int = 2
    budget_wait: float = 2.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServerSettings:
        environ = os.environ if environ is None else environ
        host, port = parse_bind(environ.get("RUMMIKUB_BIND", ""))
        level = environ.get("RUMMIKUB_LOG_LEVEL", "").strip().lower() or "info"
        if level not in ("critical", "error", "warning", "info", "debug"):
            raise ValueError(f"RUMMIKUB_LOG_LEVEL must be debug, info, warning, error or critical, got {level!r}")
        return cls(
            host=host,
            port=port,
            workers=_number(environ, "RUMMIKUB_WORKERS", available_cpus(), 1, maximum=1024),
            threads=_number(environ, "RUMMIKUB_THREADS", 1, 1, maximum=1024),
            header_timeout=_number(environ, "RUMMIKUB_HEADER_TIMEOUT", 10.0, 0.001, integer=False),
            read_timeout=_number(environ, "RUMMIKUB_READ_TIMEOUT", 10.0, 0.001, integer=False),
            graceful_timeout=_number(environ, "RUMMIKUB_GRACEFUL_TIMEOUT", 8, 1),
            log_level=level,
            budget_slots=_number(environ, "RUMMIKUB_BUDGET_SLOTS", 1, 1, maximum=1024),
            budget_queue=_number(environ, "RUMMIKUB_BUDGET_QUEUE", 2, 0, maximum=1_000_000),
            budget_wait=_number(environ, "RUMMIKUB_BUDGET_WAIT", 2.0, 0.0, integer=False),
        )


# --- the RSGI adapter ------------------------------------------------------------------------------


class _BodyError(Exception):
    def __init__(
        self, status: int, detail: str, limit: str | None = None, wording: Any = None, detail_es: str | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.limit = limit
        self.wording = wording  # the ``operations.RequestError``, when another layer words it
        # (the Spanish words after "No se puede leer la petición: ")
        self.detail_es = detail_es or _BODY_ERRORS_ES.get(status, "consulta 'errors'")


_BODY_ERRORS_ES = {
    400: "el cuerpo está mal formado o incompleto (consulta 'errors')",
    408: "el cuerpo no llegó a tiempo (RUMMIKUB_READ_TIMEOUT)",
}
"""The Spanish ``detail`` of a body refused by the adapter (``errors`` keep the English words, as
the app's do; they were English under a Spanish title: a hostile-client audit, session 44)."""


def _problem(error: _BodyError, lang: str) -> bytes:
    """The problem document of a body that cannot be read, in ``lang`` as the app's are."""
    import json

    from service.operations import RequestError

    item: dict[str, Any] = {"pointer": "", "detail": error.detail}
    if error.limit is not None:
        item["limit"] = error.limit
    wording = error.wording or RequestError(
        error.status,
        f"The request cannot be read: {error.detail}.",
        [item],
        detail_es=f"No se puede leer la petición: {error.detail_es}.",
    )
    return json.dumps(wording.to_problem(lang), ensure_ascii=False, separators=(",", ":")).encode()


# --- budgeted requests in processes of their own ----------------------------------------------------

_BUDGET_APP: RSGIAdapter | None = None
_LOCAL_KEYS = ("wsgi.input", "wsgi.errors", "rummikub.json_body")


def _budget_process_init() -> None:
    """A budget process: the app of its own (as a worker builds it), at a lower CPU priority once
    ready; Ctrl-C is the worker's to handle, SIGTERM ends it. It starts at its worker's priority:
    at nice 10 from the start, its imports and the solver's preparation (about 1 s of CPU) took
    24-39 s beside two busy processes, and a worker listens only once they are done (the
    flaky-test audit, session 38)."""
    global _BUDGET_APP
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="rummikub-parent", daemon=True).start()
    from engine import solver
    from service.app import LIMITS_KEY, create_app

    app = create_app()
    solver.prepare()  # the solver's modules and matrices (~1 s cold) now, not in a client's first request
    _BUDGET_APP = RSGIAdapter(app, app.extensions[LIMITS_KEY].max_body_bytes, 10.0)
    freeze_start_up_objects()
    with contextlib.suppress(OSError):
        os.nice(BUDGET_NICE)


def freeze_start_up_objects() -> None:
    """Take the objects a process has made by the time it is ready (modules, the app, the
    solver's tables: about 75,000 in a budget process) out of the garbage collector's view
    (``gc.freeze``): they live as long as the process, and every full collection would scan
    them again, a pause of about 50 ms in whatever request is running then (bench/README.md,
    session 24). The set-up's own garbage is collected first, not frozen with them."""
    gc.collect()
    gc.freeze()


def _exit_with_parent(parent: int) -> None:
    """A budget process ends when its worker does (however it ends: SIGKILL included); its pool's
    queues would otherwise keep it waiting forever."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


def _budget_process_call(environ: dict[str, Any], body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """Run one request in a budget process (its environ without the worker's streams)."""
    import io

    assert _BUDGET_APP is not None
    environ["wsgi.input"] = io.BytesIO(body)
    environ["wsgi.errors"] = sys.stderr
    return _BUDGET_APP._call(environ)


def budget_processes(slots: int, ready: bool = True) -> Executor:
    """``slots`` processes (spawned: a worker's threads make forking it unsafe), started and
    with ``ready``, ready before this returns: a worker listens only once it can serve budgeted
    requests too."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(slots, multiprocessing.get_context("spawn"), initializer=_budget_process_init)
    started = [pool.submit(int) for _ in range(slots)]
    for future in started if ready else ():
        future.result(timeout=120)
    return pool


class BudgetGate:
    """A worker's bounded share for budgeted requests (those that may run the solver for up to its
    budget: suggest, arrange, a loose verify or render, a replay with ``analyze``).

    At most ``slots`` run at once, each in a process of its own (:func:`budget_processes`, at nice
    ``BUDGET_NICE``), so the worker's event loop keeps answering everything else: verdicts never
    queue behind the solver, nor share an interpreter with it. ``queue`` more wait, first come
    first served, at most ``wait`` seconds; any other is refused at once (503, Retry-After). The
    gate runs on the worker's event loop: no locks. ``executor``: a thread pool instead (tests).
    Each request holds its slot for up to its ``cost`` (seconds, the solver's budget unless
    ``acquire`` says otherwise: a replay's ``analyze`` has a budget of its own), which
    ``retry_after`` adds up."""

    def __init__(
        self,
        slots: int,
        queue: int,
        wait: float,
        budget_seconds: float,
        executor: Executor | None = None,
        analyze_budget_seconds: float | None = None,
    ) -> None:
        self.slots = slots
        self.queue = queue
        self.wait = wait
        self.budget_seconds = budget_seconds
        self.analyze_budget_seconds = budget_seconds if analyze_budget_seconds is None else analyze_budget_seconds
        self.running = 0
        self.running_cost = 0.0
        self.waiters: dict[asyncio.Future[None], float] = {}  # each waiter's cost, first come first
        self.in_processes = executor is None
        self.executor = budget_processes(slots) if executor is None else executor

    def submit(
        self, call: Callable[[dict[str, Any]], Any], environ: dict[str, Any]
    ) -> tuple[asyncio.Future[Any], Executor]:
        """Run ``call(environ)`` on a slot: in a budget process, the app there answers it.
        Returns the answer to come and the executor running it (``replace_executor``). When a
        budget process died while idle, the request has cost nothing yet: it runs on new
        processes (before, it raised there, a 500, and the slot it held was never freed)."""
        executor = self.executor
        try:
            return self._submit(executor, call, environ), executor
        except BrokenExecutor:
            logging.getLogger("service.server").error("a budget process died while idle; starting new ones")
            self.replace_executor(executor)
            return self._submit(self.executor, call, environ), self.executor

    def _submit(
        self, executor: Executor, call: Callable[[dict[str, Any]], Any], environ: dict[str, Any]
    ) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        if not self.in_processes:
            return loop.run_in_executor(executor, call, environ)
        body = environ["wsgi.input"].getvalue()
        local = {k: v for k, v in environ.items() if k not in _LOCAL_KEYS}
        return loop.run_in_executor(executor, _budget_process_call, local, body)

    def replace_executor(self, broken: Executor) -> None:
        """A budget process of ``broken`` died (killed, out of memory): start new ones, unless
        another request whose process died already did."""
        if self.executor is not broken:
            return
        self.executor = budget_processes(self.slots, ready=False)  # not blocking the event loop
        broken.shutdown(wait=False, cancel_futures=True)

    def queues(self) -> bool:
        """Whether a request arriving now would wait for a slot (none free, a place in the queue):
        ``acquire`` refusing it afterwards means its wait ran out, not that the share was full."""
        return not (self.running < self.slots and not self.waiters) and len(self.waiters) < self.queue

    def retry_after(self) -> int:
        """Seconds until a slot is likely free for a new request: every running and waiting
        request may take its whole cost, shared among the slots."""
        queued = self.running_cost + sum(self.waiters.values())
        return max(1, math.ceil(queued / self.slots - 1e-9))

    async def acquire(self, cost: float | None = None) -> float | None:
        """Take a slot for a request costing up to ``cost`` seconds (the solver's budget when
        None): the seconds waited for it, or None when refused (the share is full, or no slot
        came free within ``wait``). ``release`` it with the same cost."""
        cost = self.budget_seconds if cost is None else cost
        if self.running < self.slots and not self.waiters:
            self.running += 1
            self.running_cost += cost
            return 0.0
        if len(self.waiters) >= self.queue:
            return None
        started = time.perf_counter()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters[future] = cost
        try:
            async with asyncio.timeout(self.wait):
                await future
        except TimeoutError:
            if future.done() and not future.cancelled():  # handed a slot as the wait ran out
                return time.perf_counter() - started
            self.waiters.pop(future, None)
            return None
        except asyncio.CancelledError:  # the request's task is cancelled while waiting
            if future.done() and not future.cancelled():
                self.release(cost)  # handed a slot: pass it on
            else:
                self.waiters.pop(future, None)
            raise
        return time.perf_counter() - started

    def release(self, cost: float | None = None) -> None:
        """Give the slot of a request costing ``cost`` (as acquired) to the first waiter still
        waiting, else free it."""
        self.running_cost = max(0.0, self.running_cost - (self.budget_seconds if cost is None else cost))
        while self.waiters:
            future = next(iter(self.waiters))
            waiting_cost = self.waiters.pop(future)
            if not future.done():
                self.running_cost += waiting_cost
                future.set_result(None)
                return
        self.running -= 1


_COST_KEY = "rummikub.budget_cost"
"""The environ key of a budgeted request's cost in seconds, when not the solver's budget."""

_HEADER_KEYS: dict[str, str] = {"content-type": "CONTENT_TYPE", "content-length": "", "transfer-encoding": ""}
"""Header name (granian gives them lower-case) → WSGI environ key (``""``: not passed on); the
names a worker has seen, at most ``_HEADER_KEYS_MAX`` (a client chooses them)."""
_HEADER_KEYS_MAX = 512


def _header_key(name: str) -> str:
    key = "HTTP_" + name.upper().replace("-", "_")
    if len(_HEADER_KEYS) < _HEADER_KEYS_MAX:
        _HEADER_KEYS[name] = key
    return key


class ReadDeadlines:
    """The read timeout of every body a worker is reading, checked by one timer.

    ``asyncio.timeout`` around each body read costs a timer handle scheduled and cancelled per
    request (5.1 us against 0.4 us for a dict entry, on the bench machine); here a request costs a
    dict entry, and one timer per worker, running only while reads are in flight, cancels the task
    of every read past its deadline every ``tick`` seconds (a twentieth of the timeout, at most
    0.25 s): a body that does not arrive within ``timeout`` ends with a 408 at most one tick later."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.tick = min(0.25, max(0.001, timeout / 20))
        self.pending: dict[asyncio.Task[Any], float] = {}
        self.expired: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, task: asyncio.Task[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.pending[task] = loop.time() + self.timeout
        if self._timer is None or self._loop is not loop:  # (tests run one adapter on several loops)
            self._loop = loop
            self._timer = loop.call_later(self.tick, self._sweep)

    def finish(self, task: asyncio.Task[Any]) -> bool:
        """The read of ``task`` ended (or failed): whether its deadline had passed (the sweep
        cancelled the task; the cancellation is taken back here)."""
        if self.pending.pop(task, None) is not None:
            return False
        if task in self.expired:
            self.expired.discard(task)
            task.uncancel()
            return True
        return False

    def _sweep(self) -> None:
        loop = self._loop
        assert loop is not None
        now = loop.time()
        late = [task for task, deadline in self.pending.items() if deadline <= now]
        for task in late:
            del self.pending[task]
            self.expired.add(task)
            task.cancel()
        self._timer = loop.call_later(self.tick, self._sweep) if self.pending else None


class RSGIAdapter:
    """Serves a WSGI app on granian's RSGI interface: the body is read asynchronously (bounded
    in time and size) before the app runs, so a slow client never holds the app's thread."""

    def __init__(
        self,
        app: _WSGIApp,
        max_body_bytes: int,
        read_timeout: float,
        threads: int = 1,
        gate: BudgetGate | None = None,
    ) -> None:
        from service.app import CORS_KEY
        from service.observe import AccessLog, log_format_is_json

        self.app = app
        self.cors = getattr(app, "extensions", {}).get(CORS_KEY)  # (the app's CORS, for answers made here)
        self.max_body = max_body_bytes
        self.read_timeout = read_timeout
        self.executor = ThreadPoolExecutor(threads, "rummikub-app") if threads > 1 else None
        self.gate = gate
        self.access_log = AccessLog.from_settings({})
        self.json_log = log_format_is_json({})
        self.deadlines = ReadDeadlines(read_timeout)
        self._servers: dict[str, tuple[str, str]] = {}
        self.base: dict[str, Any] = {
            "SCRIPT_NAME": "",
            "wsgi.version": (1, 0),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": threads > 1,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.input_terminated": True,
        }

    def __rsgi_del__(self, loop: Any) -> None:
        """granian's hook as the worker stops, its requests answered: its budget processes
        stop too. A worker leaves through ``os._exit`` once multiprocessing has joined its
        children, and concurrent.futures' exit hook, which would tell them to stop, never runs
        there: an idle worker waited for them until granian killed it, after
        ``RUMMIKUB_GRACEFUL_TIMEOUT`` (the first-time user audit, session 36)."""
        if self.gate is not None:
            self.gate.executor.shutdown(wait=True, cancel_futures=True)

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.proto != "http":  # websockets: not served
            return
        started = time.perf_counter()
        headers = scope.headers
        try:
            body = await self._read_body(headers, proto)
        except _BodyError as error:
            self._refuse(scope, proto, error, started)
            return
        environ = self._environ(scope, headers, body)
        # (the app reads the method in any case, as werkzeug does: "post" is a POST too)
        if self.gate is not None and scope.method.upper() == "POST" and self._budgeted(environ, body):
            await self._budgeted_call(scope, proto, environ, started)
            return
        if self.executor is None:
            status, out_headers, data = self._call(environ)
        else:
            loop = asyncio.get_running_loop()
            status, out_headers, data = await loop.run_in_executor(self.executor, self._call, environ)
        proto.response_bytes(status, out_headers, data)

    def _budgeted(self, environ: dict[str, Any], body: bytes) -> bool:
        """Whether this POST may run the solver (:func:`service.operations.is_budgeted`). Where
        that depends on the body, it is decoded here, once: the app reads the decoded value."""
        from service import app, operations  # (imported once the app runs: no cost per request)

        name = environ["PATH_INFO"].removeprefix("/v1/")
        if name not in operations.BUDGETED_ALWAYS and name not in operations.BUDGETED_SOMETIMES:
            return False
        if app.unsupported_media(environ) is not None:
            return False  # (the app's 415, at once: the body is never read)
        if name in operations.BUDGETED_ALWAYS:
            return True
        try:
            doc = app.decode_json(body)
        except (ValueError, RecursionError):
            return False  # the app answers 400
        environ[app.JSON_BODY_KEY] = doc
        if name == "games/replay" and isinstance(doc, dict) and doc.get("analyze", False) is not False:
            assert self.gate is not None
            environ[_COST_KEY] = self.gate.analyze_budget_seconds  # (an analysis holds its slot that long)
        return operations.is_budgeted(name, doc)

    async def _budgeted_call(self, scope: Any, proto: Any, environ: dict[str, Any], started: float) -> None:
        from service.app import route_of
        from service.observe import BUDGET_QUEUE

        gate = self.gate
        assert gate is not None
        route = route_of(environ["PATH_INFO"])
        cost = environ.get(_COST_KEY)
        queued = gate.queues()  # (no await before acquire decides: the same state)
        waited = await gate.acquire(cost)
        if waited is None:
            if self._refused_unrun(environ):
                proto.response_bytes(*self._call(environ))  # (its 4xx, as cheap as the 503)
                return
            self._busy(scope, proto, environ, route, started, waited_out=queued)
            return
        BUDGET_QUEUE.labels(route).observe(waited)
        try:
            work, executor = gate.submit(self._call, environ)
        except BaseException:
            gate.release(cost)
            raise
        # The slot is free when the work is done, even if this task is cancelled before.
        work.add_done_callback(lambda _: gate.release(cost))
        try:
            status, out_headers, data = await work
        except BrokenExecutor:
            logging.getLogger("service.server").error("a budget process died; starting new ones")
            gate.replace_executor(executor)
            self._busy(scope, proto, environ, route, started)
            return
        proto.response_bytes(status, out_headers, data)

    def _refused_unrun(self, environ: dict[str, Any]) -> bool:
        """Whether the app refuses this budgeted request before running anything (not JSON,
        or its schema or limits refuse it): beyond the share, it gets that 4xx, not the 503
        (a bad suggest body was a 503 whenever the share was full: the soak of session 60)."""
        from service import app, operations

        if app.JSON_BODY_KEY in environ:
            doc = environ[app.JSON_BODY_KEY]
        else:
            try:
                doc = app.decode_json(environ["wsgi.input"].getvalue())
            except (ValueError, RecursionError):
                return True  # the app's 400
        limits = getattr(self.app, "extensions", {}).get(app.LIMITS_KEY)
        return operations.refuses(environ["PATH_INFO"].removeprefix("/v1/"), doc, limits)

    def _too_large(self) -> _BodyError:
        # worded by ``operations.body_too_large``, as the CLI's in-process mode words it
        from service.operations import body_too_large

        wording = body_too_large(self.max_body)
        return _BodyError(413, wording.errors[0]["detail"], "RUMMIKUB_MAX_BODY_BYTES", wording)

    async def _read_body(self, headers: Any, proto: Any) -> bytes:
        length = headers.get("content-length")
        chunked = headers.get("transfer-encoding")
        if length is None and chunked is None:
            return b""
        if length is not None and chunked is not None:  # hyper drops the Content-Length: defence in depth
            raise _BodyError(400, "the request has both Content-Length and Transfer-Encoding")
        expected: int | None = None
        if length is not None:
            if not length.isdigit():  # granian refuses these itself; kept for safety
                raise _BodyError(400, f"Content-Length {length!r} is not a number")
            expected = int(length)
            if expected > self.max_body:
                raise self._too_large()
        # With a Content-Length (checked above) the body is read whole: granian's chunk iterator
        # ends quietly on a body cut short, where this raises. A chunked body, of no announced
        # size, is read chunk by chunk and refused as soon as it passes the limit (read whole, a
        # client sending a gigabyte made the worker hold it all before the 413: the hostile-client
        # audit of session 47); a chunked body that breaks off ends there, and what came is
        # answered as the body (nearly always a JSON document cut short: the app's 400).
        read = proto if expected is not None else functools.partial(self._read_chunks, proto)
        task = asyncio.current_task()
        try:
            if task is None:  # not run as a task: no deadline sweep can cancel it
                async with asyncio.timeout(self.read_timeout):
                    body: bytes = await read()
            else:
                self.deadlines.start(task, asyncio.get_running_loop())
                try:
                    body = await read()
                except asyncio.CancelledError:
                    if self.deadlines.finish(task):
                        raise TimeoutError from None
                    raise
                if self.deadlines.finish(task):  # (a sweep's cancel raises at the await: defence)
                    raise TimeoutError
        except TimeoutError:
            raise _BodyError(
                408,
                f"the body did not arrive within {self.read_timeout:g} s (RUMMIKUB_READ_TIMEOUT)",
            ) from None
        except _BodyError:
            if task is not None:
                self.deadlines.finish(task)
            raise
        except Exception:  # granian's protocol error: malformed chunking, client gone
            if task is not None:
                self.deadlines.finish(task)
            # (granian's words, "RSGI transport is closed", say nothing to a client)
            raise _BodyError(400, "the request body is malformed (bad chunked encoding) or was cut off") from None
        if expected is not None and len(body) != expected:
            raise _BodyError(400, f"the body ended after {len(body)} of its {expected} bytes (Content-Length)")
        return body

    async def _read_chunks(self, proto: Any) -> bytes:
        """A chunked body, refused once it holds more than the limit (413) or comes in more
        than ``MAX_BODY_CHUNKS`` pieces (400: each costs the worker about 30 µs, and a body of
        one-byte chunks held it seconds; the hostile-client audit of session 47). A piece is
        what granian hands over: a chunk, or less of one when it arrives in small reads."""
        parts = []
        size = 0
        async for chunk in proto:
            if not chunk:  # (granian ends every body with an empty piece)
                continue
            size += len(chunk)
            if size > self.max_body:
                raise self._too_large()
            parts.append(chunk)
            if len(parts) > MAX_BODY_CHUNKS:
                # (RAE: no separator in a number of four digits, "4096"; a space from five on)
                count_es = (
                    f"{MAX_BODY_CHUNKS:,}".replace(",", " ") if MAX_BODY_CHUNKS >= 10_000 else str(MAX_BODY_CHUNKS)
                )
                raise _BodyError(
                    400,
                    f"the body came in more than {MAX_BODY_CHUNKS:,} chunks: "
                    "send it with a Content-Length, or in larger chunks",
                    detail_es=f"el cuerpo llegó en más de {count_es} trozos: envíalo con Content-Length, "
                    "o en trozos más grandes",
                )
        return b"".join(parts)

    def _environ(self, scope: Any, headers: Any, body: bytes) -> dict[str, Any]:
        import io

        environ = self.base.copy()
        server = self._servers.get(scope.server)
        if server is None:  # one listening address per worker: split once
            host, _, port = scope.server.rpartition(":")
            server = self._servers[scope.server] = (host.strip("[]"), port)
        client_host, _, client_port = scope.client.rpartition(":")
        path = scope.path  # (granian's, percent-decoded already: decoding it again read %2573 as s)
        if not path.isascii():  # WSGI's PATH_INFO: the path's bytes, each as one character
            path = path.encode("utf-8").decode("latin-1")
        if "//" in path:
            # Runs of slashes are one (as nginx merges them): werkzeug routed //v1/moves/suggest
            # to the suggest view while the fair share, reading the path, let it run on the
            # event loop (a hostile-client audit, session 47), and answered /v1//rules with a
            # redirect to a Location built from the client's Host header.
            path = _SLASHES.sub("/", path)
        environ["REQUEST_METHOD"] = scope.method
        environ["PATH_INFO"] = path
        environ["QUERY_STRING"] = scope.query_string
        environ["SERVER_NAME"], environ["SERVER_PORT"] = server
        environ["SERVER_PROTOCOL"] = f"HTTP/{scope.http_version}"
        environ["REMOTE_ADDR"] = client_host.strip("[]")
        environ["REMOTE_PORT"] = client_port
        environ["wsgi.url_scheme"] = scope.scheme
        environ["wsgi.input"] = io.BytesIO(body)
        keys = _HEADER_KEYS
        for name, value in headers.items():
            key = keys.get(name)
            if key is None:
                key = _header_key(name)
            elif not key:  # Content-Length and Transfer-Encoding: the body is read already
                continue
            if key in environ and key != "CONTENT_TYPE":
                environ[key] = f"{environ[key]}, {value}"
            else:
                environ[key] = value
        if body or scope.method in ("POST", "PUT", "PATCH"):
            environ["CONTENT_LENGTH"] = str(len(body))
        return environ

    def _call(self, environ: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
        answer: list[Any] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], None]:
            answer[:] = [int(status[:3]), headers]
            return _no_write

        result = self.app(environ, start_response)
        try:
            data = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return answer[0], answer[1], data

    def _refuse(self, scope: Any, proto: Any, error: _BodyError, started: float) -> None:
        """A request whose body cannot be read: a problem answer, the connection closed, one
        log line saying why."""
        import logging

        from engine.violations import pick_language
        from service.observe import LATENCY, REQUESTS, access_record, method_label, request_id

        rid = request_id({"HTTP_X_REQUEST_ID": scope.headers.get("x-request-id")})
        lang = pick_language(", ".join(scope.headers.get_all("accept-language")))  # (every line, as the app)
        headers = [("connection", "close"), *self._problem_headers(lang, rid, scope.headers.get("origin"))]
        elapsed = time.perf_counter() - started
        # Counted and logged before the answer leaves (as the app's own answers are): a client
        # that reads /metrics or the log after its answer finds it there.
        REQUESTS.labels("refused", method_label(scope.method), str(error.status)).inc()
        LATENCY.labels("refused").observe(elapsed)
        remote = scope.client.rpartition(":")[0]
        if self.access_log is not None:
            record = access_record(rid, scope.method, scope.path, error.status, elapsed, remote, error.detail)
            self.access_log.write(record)
        else:
            logging.getLogger("service.server").warning(
                "%s %s from %s refused with %d: %s",
                scope.method,
                scope.path,
                remote,
                error.status,
                error.detail,
                extra={"request_id": rid},
            )
        proto.response_bytes(error.status, headers, _problem(error, lang))

    def _problem_headers(self, lang: str, rid: str, origin: str | None) -> list[tuple[str, str]]:
        """The headers of a problem answered here, without the app: as the app's, CORS included."""
        cors = self.cors(origin) if self.cors is not None else {}
        vary = "Accept-Language, Origin" if cors.pop("Vary", None) else "Accept-Language"
        return [
            ("content-type", "application/problem+json"),
            ("content-language", lang),
            ("vary", vary),
            ("x-request-id", rid),
            *((name.lower(), value) for name, value in cors.items()),
        ]

    def _busy(
        self, scope: Any, proto: Any, environ: dict[str, Any], route: str, started: float, waited_out: bool = False
    ) -> None:
        """The worker's share for budgeted requests is full: a 503 problem with Retry-After, at
        once (the app never runs), counted and logged with its reason. ``waited_out``: the
        request was queued and no slot came free within ``RUMMIKUB_BUDGET_WAIT`` (the limit it
        met; the share may not be full by then: "1 running and 0 waiting" named the queue's)."""
        import json

        from engine.violations import pick_language
        from service.observe import BUDGET_REJECTIONS, LATENCY, REQUESTS, access_record, method_label, request_id
        from service.operations import RequestError

        gate = self.gate
        assert gate is not None
        wait = gate.retry_after()
        settings = f"RUMMIKUB_BUDGET_SLOTS {gate.slots}, RUMMIKUB_BUDGET_QUEUE {gate.queue}"
        running, waiting = gate.running, len(gate.waiters)
        detail = (
            f"{running} budgeted {'request' if running == 1 else 'requests'} running and {waiting} waiting"
            f" in this worker ({settings})"
        )
        # (the Spanish with the same counts; it said only "reintenta dentro de": session 60)
        detail_es = f"{running} en curso y {waiting} en espera en este proceso ({settings})"
        limit, reason = "RUMMIKUB_BUDGET_SLOTS", "budget share full"
        if waited_out:
            detail = f"no slot came free within {gate.wait:g} s (RUMMIKUB_BUDGET_WAIT); {detail}"
            wait_es = f"{gate.wait:g}".replace(".", ",")
            detail_es = f"no quedó ninguna plaza libre en {wait_es} s (RUMMIKUB_BUDGET_WAIT); {detail_es}"
            limit, reason = "RUMMIKUB_BUDGET_WAIT", "budget wait ran out"
        error = RequestError(
            503,
            f"The share for costly requests (the solver, long searches) is full: {detail}; retry after {wait} s.",
            [{"pointer": "", "detail": detail, "limit": limit}],
            detail_es="El servicio está ocupado con peticiones costosas (el buscador de jugadas, búsquedas largas):"
            f" {detail_es}; reintenta dentro de {wait} s.",
        )
        lang = pick_language(environ.get("HTTP_ACCEPT_LANGUAGE"))
        rid = request_id(environ)
        headers = [("retry-after", str(wait)), *self._problem_headers(lang, rid, environ.get("HTTP_ORIGIN"))]
        doc = error.to_problem(lang)
        elapsed = time.perf_counter() - started
        # Counted and logged before the answer leaves, as in _refuse.
        REQUESTS.labels(route, method_label(scope.method), "503").inc()
        LATENCY.labels(route).observe(elapsed)
        BUDGET_REJECTIONS.labels(route).inc()
        if self.access_log is not None:
            remote = scope.client.rpartition(":")[0]
            self.access_log.write(access_record(rid, scope.method, scope.path, 503, elapsed, remote, reason))
        proto.response_bytes(503, headers, json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode())


def _no_write(data: bytes) -> None:
    raise RuntimeError("the WSGI write() callable is not supported")


def rsgi_app() -> RSGIAdapter:
    """granian's factory target: the Flask app (``create_app()``) behind the RSGI adapter."""
    from engine import new_sets_programme
    from service.app import LIMITS_KEY, create_app

    settings = ServerSettings.from_env()
    # A worker ends with its launcher however the launcher ends: killed alone (SIGKILL), its
    # workers would otherwise keep serving the port, unsupervised, with no one to stop them.
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="rummikub-launcher", daemon=True).start()
    app = create_app()
    limits = app.extensions[LIMITS_KEY]
    gate = BudgetGate(
        settings.budget_slots,
        settings.budget_queue,
        settings.budget_wait,
        limits.solver_budget_ms / 1000,
        analyze_budget_seconds=limits.analyze_budget_ms / 1000,
    )
    adapter = RSGIAdapter(app, limits.max_body_bytes, settings.read_timeout, settings.threads, gate)
    new_sets_programme.prepare()  # the libraries a verdict may need, now and not in a request
    freeze_start_up_objects()
    return adapter


# --- the metrics directory ------------------------------------------------------------------------

_METRICS_DIR = re.compile(re.escape(METRICS_DIR_PREFIX) + r"(?:(\d+)-)?[A-Za-z0-9_]+")
_DB_PID = re.compile(r"_(\d+)\.db")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def stale_metrics_dirs(parent: Path | None = None, min_age: float = 60.0) -> list[Path]:
    """Metrics directories launchers left in ``parent`` (the temporary directory) when they were
    killed (SIGKILL: no ``finally`` runs): ``rummikub-metrics-<launcher pid>-*`` of this user
    whose launcher and worker processes (the pids in prometheus-client's ``*_<pid>.db`` file
    names) are all gone. A directory named without a pid (older launchers) counts only once it
    holds a worker's file and is ``min_age`` seconds old; a pid since reused by another process
    keeps a directory (never one removed in use)."""
    parent = Path(tempfile.gettempdir()) if parent is None else parent
    stale = []
    with contextlib.suppress(OSError):
        for path in parent.iterdir():
            match = _METRICS_DIR.fullmatch(path.name)
            if match is None or path.is_symlink() or not path.is_dir():
                continue
            try:
                if path.stat().st_uid != os.getuid():
                    continue
                files = [f.name for f in path.iterdir()]
                age = time.time() - path.stat().st_mtime
            except OSError:
                continue
            pids = {int(m.group(1)) for name in files if (m := _DB_PID.search(name))}
            if match.group(1):
                pids.add(int(match.group(1)))
            elif not files or age < min_age:
                continue
            if not any(_alive(pid) for pid in pids):
                stale.append(path)
    return stale


def remove_stale_metrics_dirs(parent: Path | None = None) -> int:
    """Remove :func:`stale_metrics_dirs`; the number removed."""
    removed = 0
    for path in stale_metrics_dirs(parent):
        shutil.rmtree(path, ignore_errors=True)
        removed += not path.exists()
    return removed


# --- main -----------------------------------------------------------------------------------------


def listen_problem(host: str, port: int) -> str | None:
    """Why the server cannot listen on ``host:port``, in one line, or None. granian's workers
    bind with ``SO_REUSEPORT``: a second server on a port the first holds would silently share
    its requests, and a port another program holds, a host name or an address this machine does
    not have ended in a traceback (the CLI audits of sessions 36 and 45); a plain bind (no
    ``SO_REUSEPORT``) fails on each. (Checked just before granian binds; a port taken in between
    still ends as granian says.)"""
    shown = f"[{host}]" if ":" in host else host
    try:
        address = listen_address(host)
        with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers do: TIME_WAIT is free
            probe.bind((address, port))
    except OSError as exc:  # (a name that does not resolve too: socket.gaierror)
        if exc.errno == errno.EADDRINUSE:
            return f"{shown}:{port} is already in use (another server?); choose another with RUMMIKUB_BIND=host:port (or rummikub serve --port)"
        return f"cannot listen on {shown}:{port}: {exc.strerror or exc}"
    return None


def listen_address(host: str) -> str:
    """The address granian listens on: ``host`` itself when it is an IP address, else the
    first address it resolves to (``localhost`` -> 127.0.0.1: granian takes addresses only)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return str(socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][4][0])
    return host


_CHECK_APP = """
import sys
from service.app import create_app
try:
    create_app()
except (ValueError, OSError) as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""


def app_settings_problem() -> str | None:
    """The app's own settings (its limits, log format, access log file, set cache) checked
    before any worker starts, or each worker would fail in turn until granian gave up on a
    crash loop (``RUMMIKUB_MAX_TILES=abc``; the CLI audit, session 45). In a child process:
    the app imported here would start prometheus-client before the metrics directory is set."""
    done = subprocess.run([sys.executable, "-c", _CHECK_APP], capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"the app cannot start (exit {done.returncode})"


def event_loop() -> str:
    """The workers' event loop: uvloop where it is installed (the ``serve`` extra has it on every
    platform but Windows), else asyncio's own. uvloop's C loop takes the wake-ups, timers and
    tasks of each request: 7-17% less worker CPU per request than asyncio's loop (verify and the
    bare POST, bench/README.md)."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def main(environ: Mapping[str, str] | None = None, target: str = "service.server:rsgi_app") -> int:
    """Serve until SIGTERM/SIGINT; a temporary metrics directory lives as long as the server.
    ``target``: the RSGI app factory (bench/bench_http.py serves its bare app with the same
    settings)."""
    from granian import Granian
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    try:
        settings = ServerSettings.from_env(environ)
    except ValueError as exc:
        print(f"rummikub serve: {exc}", file=sys.stderr)
        return 2
    problem = listen_problem(settings.host, settings.port) or app_settings_problem()
    if problem:
        print(f"rummikub serve: {problem}", file=sys.stderr)
        return 2
    os.environ.setdefault("RUMMIKUB_ACCESS_LOG", "-")
    own_dir = None
    if not os.environ.get(MULTIPROC_ENV):
        # A launcher killed with SIGKILL cannot remove its directory: the next one does.
        remove_stale_metrics_dirs()
        own_dir = tempfile.mkdtemp(prefix=f"{METRICS_DIR_PREFIX}{os.getpid()}-")
        os.environ[MULTIPROC_ENV] = own_dir
    try:
        server = Granian(
            target,
            address=listen_address(settings.host),
            port=settings.port,
            interface=Interfaces.RSGI,
            factory=True,
            workers=settings.workers,
            http=HTTPModes.http1,
            loop=Loops(event_loop()),
            websockets=False,
            http1_settings=HTTP1Settings(
                header_read_timeout=max(1, min(60_000, round(settings.header_timeout * 1000)))
            ),
            respawn_failed_workers=True,
            respawn_interval=0.5,
            workers_kill_timeout=settings.graceful_timeout,
            log_level=LogLevels(settings.log_level),
            log_access=False,
        )
        server.serve()
    finally:
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
    return 0


def _command_line(args: list[str]) -> int | None:
    """``python -m service.server`` takes no arguments, only the settings above: ``--help``
    prints them (0), anything else is refused (2) rather than serving on an address nobody
    asked for (a hostile-client audit, session 44). None: serve."""
    if not args:
        return None
    if args in (["--help"], ["-h"]):
        print(__doc__)
        return 0
    print(
        f"python -m service.server takes no arguments (got {' '.join(args)!r}): its settings are the"
        " RUMMIKUB_* variables (--help lists them), or use `rummikub serve --host --port --workers`",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    code = _command_line(sys.argv[1:])
    sys.exit(main() if code is None else code)

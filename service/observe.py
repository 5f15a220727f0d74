"""Request ids, the per-request access log and the Prometheus metrics of the HTTP service.

:func:`instrument` wraps a Flask app's WSGI callable (whatever server runs it): every answer
carries an ``X-Request-ID`` (the client's, when it is a short token, else a new one), is counted
in ``/metrics`` and, when the access log is on, written as one line (text, or JSON with
``RUMMIKUB_LOG_FORMAT=json``). Metrics use prometheus-client; when ``PROMETHEUS_MULTIPROC_DIR``
is set (the server launcher :mod:`service.server` creates one per run) every worker process
writes its values there and ``/metrics`` adds them up across workers.

Settings (environment or ``create_app`` config): ``RUMMIKUB_ACCESS_LOG`` ``-`` (stdout), a file
path or ``off`` (the app's default; the server launcher's default is ``-``); ``RUMMIKUB_LOG_FORMAT`` ``text`` (default) or ``json``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_KEY = "rummikub.request_id"
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
ACCESS_LOG_KEY = "RUMMIKUB_ACCESS_LOG"
LOG_FORMAT_KEY = "RUMMIKUB_LOG_FORMAT"
_OFF = ("off", "none", "0", "false", "no")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")

disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series: they double the output and nobody graphs them
REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter(
    "rummikub_http_requests",
    "HTTP requests answered, by route, method and status.",
    ["route", "method", "status"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "rummikub_http_request_duration_seconds",
    "Time from the request reaching the application to its answer, by route.",
    ["route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
VERDICTS = Counter(
    "rummikub_verdicts",
    "Verdicts given, by operation and code (VALID, or each violation code of an invalid verdict).",
    ["operation", "code"],
    registry=REGISTRY,
)

BUDGET_REJECTIONS = Counter(
    "rummikub_budget_rejections",
    "Budgeted requests (the solver's) refused with 503 because the worker's share was full, by route.",
    ["route"],
    registry=REGISTRY,
)
BUDGET_QUEUE = Histogram(
    "rummikub_budget_queue_seconds",
    "Time budgeted requests waited for a slot of the worker's share (0 when one was free), by route.",
    ["route"],
    buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0),
    registry=REGISTRY,
)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def metrics_text() -> bytes:
    """All metrics in the Prometheus text format: summed over every worker process when
    ``PROMETHEUS_MULTIPROC_DIR`` is set, else this process's."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory and os.path.isdir(directory):
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)


_CHILDREN_MAX = 1024
"""Labelled series kept per metric for reuse (``labels()`` costs a lookup under a lock each call;
the label values are bounded: routes, statuses, operations, codes, methods)."""

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"})


METHOD_SHOWN_CHARS = 32
"""The most characters of a request's method a problem or a log line repeats: granian accepts a
made-up method as long as the request head (~512 KiB), which a 404/405 problem echoed twice and
the access log once (a 1 MB answer for a 500 KB method: the service audit, session 51)."""


def shown_method(method: str) -> str:
    """``method`` as a problem or a log line shows it: cut after ``METHOD_SHOWN_CHARS``."""
    return method if len(method) <= METHOD_SHOWN_CHARS else method[:METHOD_SHOWN_CHARS] + "\u2026"


def method_label(method: str) -> str:
    """A request's method as a metric label: the HTTP methods by name (in capitals, as the app
    reads them), any other ``other`` (a label per made-up method grew ``/metrics`` without
    bound: a hostile-client audit, session 44)."""
    upper = method.upper()
    return upper if upper in _METHODS else "other"


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    """``text`` with its control characters escaped (``\\x0a``): a path decoded from ``%0A``
    forged a whole line of the text access log (a hostile-client audit, session 44)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _child(metric: Any, cache: dict[tuple[str, ...], Any], labels: tuple[str, ...]) -> Any:
    child = cache.get(labels)
    if child is None:
        child = metric.labels(*labels)
        if len(cache) < _CHILDREN_MAX:
            cache[labels] = child
    return child


_VERDICT_CHILDREN: dict[tuple[str, ...], Any] = {}
_REQUEST_CHILDREN: dict[tuple[str, ...], Any] = {}
_LATENCY_CHILDREN: dict[tuple[str, ...], Any] = {}


def count_verdict(operation: str, answer: Mapping[str, Any]) -> None:
    """Count a verdict answer: ``VALID``, or once per distinct violation code (a set's in
    sets/validate, a turn's in games/replay too)."""
    valid = answer.get("valid")
    if valid is None:
        return
    if valid:
        _child(VERDICTS, _VERDICT_CHILDREN, (operation, "VALID")).inc()
        return
    codes = {v.get("code") for v in answer.get("violations") or () if isinstance(v, Mapping)}
    # sets/validate: each set's own violations; games/replay: each turn's
    for item in (*(answer.get("sets") or ()), *(answer.get("turns") or ())):
        if isinstance(item, Mapping):
            codes.update(v.get("code") for v in item.get("violations") or () if isinstance(v, Mapping))
    for code in sorted(c for c in codes if isinstance(c, str)) or ["INVALID"]:
        _child(VERDICTS, _VERDICT_CHILDREN, (operation, code)).inc()


def request_id(environ: Mapping[str, Any]) -> str:
    """The client's ``X-Request-ID`` when it is a short token (letters, digits, ``._:@/+=-``,
    at most 128), else a new random one: 32 hex digits (128 random bits; ``uuid4().hex`` took
    four times as long for the same digits but 6 fixed bits)."""
    given = environ.get("HTTP_X_REQUEST_ID")
    if isinstance(given, str) and _REQUEST_ID.fullmatch(given):
        return given
    return os.urandom(16).hex()


_LOG_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))
"""``json.dumps(record, ensure_ascii=True, separators=(",", ":"))`` without a new encoder per line."""


class AccessLog:
    """One line per request, text or JSON, written whole with one ``write`` (lines from
    several worker processes do not interleave)."""

    def __init__(self, target: str, json_format: bool) -> None:
        self.json = json_format
        self._stream: TextIO | None = None
        self._fd = 1
        if target != "-":
            try:
                self._stream = open(target, "a", encoding="utf-8")  # noqa: SIM115 - kept for the process's life
            except OSError as exc:  # (named by its setting, as other bad settings are)
                raise ValueError(f"{ACCESS_LOG_KEY}: cannot open {target!r} ({exc.strerror or exc})") from None
            self._fd = self._stream.fileno()

    @classmethod
    def from_settings(cls, config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> AccessLog | None:
        environ = os.environ if environ is None else environ
        target = str(config.get(ACCESS_LOG_KEY, environ.get(ACCESS_LOG_KEY, "")) or "").strip()
        if not target or target.lower() in _OFF:
            return None
        return cls(target, log_format_is_json(config, environ))

    def write(self, record: dict[str, Any]) -> None:
        if self.json:
            line = _LOG_ENCODER.encode(record)
        else:
            extra = f' reason="{_printable(record["reason"])}"' if "reason" in record else ""
            line = (
                f'{record["time"]} {record["remote"]} "{_printable(record["method"])} {_printable(record["path"])}" '
                f"{record['status']} {record['duration_ms']}ms id={record['request_id']}{extra}"
            )
        with contextlib.suppress(OSError):
            os.write(self._fd, (line + "\n").encode("utf-8", "backslashreplace"))


def log_format_is_json(config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    raw = str(config.get(LOG_FORMAT_KEY, environ.get(LOG_FORMAT_KEY, "")) or "").strip().lower() or "text"
    if raw not in ("text", "json"):
        raise ValueError(f"{LOG_FORMAT_KEY} must be 'text' or 'json', got {raw!r}")
    return raw == "json"


_PID = os.getpid()
_SECOND: tuple[int, str] = (-1, "")


def _forked() -> None:
    global _PID
    _PID = os.getpid()


os.register_at_fork(after_in_child=_forked)


def utc_now_ms(now: float | None = None) -> str:
    """``datetime.now(UTC).isoformat(timespec="milliseconds")``, formatting the date and time
    once a second (an access log line per request made it a measurable share of the line)."""
    global _SECOND
    fraction, whole = math.modf(time.time() if now is None else now)
    second, micros = int(whole), round(fraction * 1e6)  # as datetime rounds a timestamp
    if micros >= 1_000_000:
        second, micros = second + 1, micros - 1_000_000
    elif micros < 0:
        second, micros = second - 1, micros + 1_000_000
    cached = _SECOND
    if cached[0] != second:
        cached = _SECOND = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return f"{cached[1]}.{micros // 1000:03d}+00:00"


def access_record(
    rid: str, method: str, path: str, status: int, seconds: float, remote: str, reason: str | None = None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "time": utc_now_ms(),
        "level": "info" if status < 500 else "error",
        "type": "access",
        "request_id": rid,
        "method": shown_method(method),
        "path": path,
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "remote": remote,
        "pid": _PID,
    }
    if reason is not None:
        record["reason"] = reason
    return record


class JSONFormatter(logging.Formatter):
    """Error log records as one JSON line (the traceback as a field), with the request id."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "type": "log",
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        rid = getattr(record, "request_id", None)
        if rid is not None:
            doc["request_id"] = rid
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=True, separators=(",", ":"))


def configure_error_log(json_format: bool) -> None:
    """The ``service`` loggers write to stderr, one JSON line per record in JSON mode."""
    logger = logging.getLogger("service")
    if any(getattr(h, "_rummikub", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler._rummikub = True  # type: ignore[attr-defined]  # marks our handler (one per process)
    handler.setFormatter(JSONFormatter() if json_format else logging.Formatter("[%(levelname)s] %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False


def instrument(app: WSGIApp, route_of: Callable[[str], str], log: AccessLog | None) -> WSGIApp:
    """``app`` with request ids, metrics and the access log."""

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.perf_counter()
        rid = request_id(environ)
        environ[REQUEST_ID_KEY] = rid
        seen: list[int] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            seen.append(int(status[:3]))
            headers.append((REQUEST_ID_HEADER, rid))
            return (
                start_response(status, headers, exc_info) if exc_info is not None else start_response(status, headers)
            )

        result = app(environ, start)
        status = seen[-1] if seen else 500
        elapsed = time.perf_counter() - started
        method = environ.get("REQUEST_METHOD", "")
        path = environ.get("PATH_INFO", "")
        route = route_of(path)
        _child(REQUESTS, _REQUEST_CHILDREN, (route, method_label(method), str(status))).inc()
        _child(LATENCY, _LATENCY_CHILDREN, (route,)).observe(elapsed)
        if log is not None:
            log.write(access_record(rid, method, path, status, elapsed, str(environ.get("REMOTE_ADDR", ""))))
        return result

    return wrapped

"""Gunicorn settings for the rummikub-rules service, read from ``RUMMIKUB_*`` environment variables.

Used by ``make serve`` and ``rummikub serve``:
``gunicorn -c service/gunicorn_conf.py 'service.app:create_app()'``; the container image loads
the installed module instead: ``gunicorn --config python:service.gunicorn_conf ...``.

- ``RUMMIKUB_BIND``: address to listen on (default ``127.0.0.1:8000``)
- ``RUMMIKUB_WORKERS``: worker processes (default: the number of CPUs)
- ``RUMMIKUB_TIMEOUT``: seconds before a silent worker is restarted (default 30)
- ``RUMMIKUB_LOG_LEVEL``: gunicorn log level (default ``info``)
- ``RUMMIKUB_ACCESS_LOG``: ``-`` (stdout, the default), a file path, or ``off``
- ``RUMMIKUB_CONTROL_SOCKET``: set to any value to keep gunicorn's control socket (off by default)

The app itself reads its request limits and CORS origins from ``RUMMIKUB_*`` variables too
(see :mod:`service.limits` and docs/service.md).
"""

from __future__ import annotations

import os


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise SystemExit(f"{name} must be an integer, got {raw!r}") from exc
    if value < 1:
        raise SystemExit(f"{name} must be at least 1, got {value}")
    return value


bind = [os.environ.get("RUMMIKUB_BIND", "").strip() or "127.0.0.1:8000"]
workers = _int_env("RUMMIKUB_WORKERS", os.cpu_count() or 1)
timeout = _int_env("RUMMIKUB_TIMEOUT", 30)
graceful_timeout = timeout
loglevel = os.environ.get("RUMMIKUB_LOG_LEVEL", "").strip() or "info"
# Access log to stdout; RUMMIKUB_ACCESS_LOG=off turns it off (a file path writes there instead).
_access_log = os.environ.get("RUMMIKUB_ACCESS_LOG", "").strip() or "-"
accesslog = None if _access_log.lower() in ("off", "none", "0", "false") else _access_log
errorlog = "-"  # server log to stderr
# gunicorn >= 25.1 opens a control socket under ~/.gunicorn by default; several instances (tests, CI,
# a developer's `make serve`) would share that path, so keep it off unless asked for.
control_socket_disable = os.environ.get("RUMMIKUB_CONTROL_SOCKET", "").strip() == ""
# Worker heartbeat files in memory: in a container /tmp may be an overlay filesystem, which can
# stall workers long enough for the arbiter to kill them.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None

"""Gunicorn settings for the rummikub-rules service, read from ``RUMMIKUB_*`` environment variables.

Used by ``make serve`` and ``rummikub serve``:
``gunicorn -c service/gunicorn_conf.py 'service.app:create_app()'``.

- ``RUMMIKUB_BIND``: address to listen on (default ``127.0.0.1:8000``)
- ``RUMMIKUB_WORKERS``: worker processes (default: the number of CPUs)
- ``RUMMIKUB_TIMEOUT``: seconds before a silent worker is restarted (default 30)
- ``RUMMIKUB_LOG_LEVEL``: gunicorn log level (default ``info``)
- ``RUMMIKUB_CONTROL_SOCKET``: set to any value to keep gunicorn's control socket (off by default)
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
accesslog = "-"  # access log to stdout
errorlog = "-"  # server log to stderr
# gunicorn >= 25.1 opens a control socket under ~/.gunicorn by default; several instances (tests, CI,
# a developer's `make serve`) would share that path, so keep it off unless asked for.
control_socket_disable = os.environ.get("RUMMIKUB_CONTROL_SOCKET", "").strip() == ""

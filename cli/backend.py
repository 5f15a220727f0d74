"""The two back ends of the command line, one answer.

``LocalBackend`` calls ``service.operations`` in-process; ``RemoteBackend`` (:mod:`cli.remote`,
imported only with a server) POSTs the identical JSON body to ``<server>/v1/<operation>`` and
returns the identical JSON. Both raise ``CliError``: exit 2 for a request the operation cannot read (a 4xx problem), exit 3 when the
service is unreachable or failing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from cli.errors import EXIT_INPUT, CliError, problem_line

DEFAULT_TIMEOUT = 30.0
CONNECT_TIMEOUT = 5.0
RETRY_STATUSES = (502, 504)
BUSY_STATUSES = (429, 503)
"""Answers that say "not now": retried after the service's Retry-After (or a short backoff)."""
BUSY_RETRIES = 2
"""Retries of a busy answer for a single request."""
BATCH_BUSY_RETRIES = 6
"""... and for each document of a batch (score, replay), which keeps the service busy itself."""
MAX_RETRY_AFTER = 30.0
"""A Retry-After longer than this is not waited for: the busy answer is reported."""


class Backend(Protocol):
    """What a command needs from a back end."""

    lang: str
    """The language of the messages it answers with."""

    def call(self, operation: str, body: Any) -> dict[str, Any]:
        """The response of ``POST /v1/<operation>`` for ``body``."""
        ...

    def rules(self, preset: str | None = None) -> Any:
        """``GET /v1/rules`` (every preset) or ``GET /v1/rules/<preset>``."""
        ...


_INFINITY_MARK = "\x00rummikub:infinity\x00"


def _mark_infinities(value: Any) -> Any:
    """``value`` with each infinite float (``1e400`` in a file reads as one) replaced by a mark."""
    if isinstance(value, float) and math.isinf(value):
        return _INFINITY_MARK if value > 0 else "-" + _INFINITY_MARK
    if isinstance(value, dict):
        return {k: _mark_infinities(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mark_infinities(v) for v in value]
    return value


def encode_body(body: Any) -> bytes:
    """A request body as the bytes sent to the service (and measured against its body limit in
    the in-process mode too). A number too large for a float (``1e400``) is sent as ``1e999``,
    which the service reads as the same infinite value the local mode sees, so both give the
    same answer (a 422 with a pointer) instead of failing to encode."""
    try:
        text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        marked = json.dumps(_mark_infinities(body), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        mark = json.dumps(_INFINITY_MARK)
        text = marked.replace(json.dumps("-" + _INFINITY_MARK), "-1e999").replace(mark, "1e999")
    return text.encode("utf-8", "surrogatepass")


def _service_limits(environ: Mapping[str, str] | None = None) -> Any:
    """The service's limits, as ``RUMMIKUB_*`` variables set them (the defaults otherwise):
    this process's environment, or ``environ`` (a batch's worker on a Dask cluster applies the
    client's variables, :func:`limit_settings`, not those of its own environment)."""
    from service.limits import Limits

    try:
        return Limits.from_settings(environ=environ)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_INPUT) from None


def check_limit_settings() -> None:
    """Refuse a bad ``RUMMIKUB_*`` limit value (CliError, exit 2) once, before a batch reads
    any document: each document was a rejected row saying the same (an audit, session 52)."""
    _service_limits()


def limit_settings() -> dict[str, str]:
    """This process's ``RUMMIKUB_*`` limit variables, as set (read, not checked: a worker given
    them answers a bad value as this process would, an error row for each document)."""
    import dataclasses
    import os

    from service.limits import Limits

    names = (Limits.env_name(field.name) for field in dataclasses.fields(Limits))
    return {name: os.environ[name] for name in names if name in os.environ}


class LocalBackend:
    """The engine, in this process, through the service's own request layer and limits (the
    body size included: ``RUMMIKUB_MAX_BODY_BYTES`` and the other ``RUMMIKUB_*`` limits lift
    them here as they do on the service)."""

    def __init__(self, lang: str = "en", environ: Mapping[str, str] | None = None) -> None:
        self.lang = lang
        self._limits: Any = None
        self._environ = environ  # the RUMMIKUB_* limits to apply (None: this process's environment)

    def call(self, operation: str, body: Any) -> dict[str, Any]:
        from service.operations import RequestError, body_too_large, run_operation

        if self._limits is None:
            self._limits = _service_limits(self._environ)
        limit = self._limits.max_body_bytes
        try:
            if len(encode_body(body)) > limit:
                raise body_too_large(limit)
            return run_operation(operation, body, self.lang, self._limits)
        except RequestError as exc:
            problem = exc.to_problem(self.lang)
            raise CliError(problem_line(problem), EXIT_INPUT, problem) from None

    def rules(self, preset: str | None = None) -> Any:
        from service.operations import RequestError, get_rules, list_rules

        try:
            return list_rules() if preset is None else get_rules(preset)
        except RequestError as exc:
            problem = exc.to_problem(self.lang)
            raise CliError(problem_line(problem, detail_first=True), EXIT_INPUT, problem) from None


def make_backend(
    server: str | None,
    lang: str = "en",
    timeout: float = DEFAULT_TIMEOUT,
    batch: bool = False,
    on_busy: Callable[[str], None] | None = None,
) -> Backend:
    """In-process unless a server URL is given. A ``batch`` (score, replay) retries busy answers
    more often (``BATCH_BUSY_RETRIES``), telling ``on_busy``."""
    if server is not None:
        from cli.remote import RemoteBackend

        return RemoteBackend(
            server, lang, timeout, busy_retries=BATCH_BUSY_RETRIES if batch else BUSY_RETRIES, on_busy=on_busy
        )
    return LocalBackend(lang)

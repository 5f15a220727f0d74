"""The two back ends of the command line, one answer.

``LocalBackend`` calls ``service.operations`` in-process; ``RemoteBackend`` POSTs the
identical JSON body to ``<server>/v1/<operation>`` and returns the identical JSON. Both raise
``CliError``: exit 2 for a request the operation cannot read (a 4xx problem), exit 3 when the
service is unreachable or failing.
"""

from __future__ import annotations

import json
import math
import threading
from typing import Any, Protocol
from urllib.parse import quote

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.exceptions import MaxRetryError, NewConnectionError, ProtocolError
from urllib3.util.retry import Retry

from cli.errors import EXIT_INPUT, EXIT_SERVICE, CliError, problem_line

DEFAULT_TIMEOUT = 30.0
CONNECT_TIMEOUT = 5.0
RETRY_STATUSES = (502, 503, 504)


class Backend(Protocol):
    """What a command needs from a back end."""

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


def _service_limits() -> Any:
    """The service's limits, as ``RUMMIKUB_*`` variables set them (the defaults otherwise)."""
    from service.limits import Limits

    try:
        return Limits.from_settings()
    except ValueError as exc:
        raise CliError(str(exc), EXIT_INPUT) from None


class LocalBackend:
    """The engine, in this process, through the service's own request layer and limits (the
    body size included: ``RUMMIKUB_MAX_BODY_BYTES`` and the other ``RUMMIKUB_*`` limits lift
    them here as they do on the service)."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self._limits: Any = None

    def call(self, operation: str, body: Any) -> dict[str, Any]:
        from service.operations import RequestError, body_too_large, run_operation

        if self._limits is None:
            self._limits = _service_limits()
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
            raise CliError(problem_line(problem), EXIT_INPUT, problem) from None


def make_session(retries: int = 2) -> requests.Session:
    """A Session that retries connection failures and 502/503/504 answers, POST included
    (every operation is a pure function of its body, so repeating one is safe)."""
    retry = Retry(
        total=retries,
        connect=retries,
        read=0,
        status=retries,
        backoff_factor=0.2,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=None,  # every method: the API's POSTs are idempotent
        raise_on_status=False,
        respect_retry_after_header=True,
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry, pool_connections=4, pool_maxsize=32)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class RemoteBackend:
    """The rules service over HTTP. Thread-safe: each thread gets its own Session."""

    def __init__(self, server: str, lang: str = "en", timeout: float = DEFAULT_TIMEOUT, retries: int = 2) -> None:
        server = server.strip()
        if "://" not in server:
            server = f"http://{server}"
        self.server = server.rstrip("/")
        self.lang = lang
        self.timeout = (min(CONNECT_TIMEOUT, timeout), timeout)
        self.retries = retries
        self._local = threading.local()

    @property
    def session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = make_session(self.retries)
            self._local.session = session
        return session

    def _headers(self) -> dict[str, str]:
        return {"Accept": "application/json, application/problem+json", "Accept-Language": self.lang}

    def call(self, operation: str, body: Any) -> dict[str, Any]:
        url = f"{self.server}/v1/{operation}"
        try:
            data = encode_body(body)
        except (ValueError, TypeError) as exc:  # not JSON at all (cannot come from a JSON file)
            raise CliError(f"cannot send this document as JSON: {exc}", EXIT_INPUT) from None
        headers = {**self._headers(), "Content-Type": "application/json"}
        for attempt in (1, 2):
            try:
                response = self.session.post(url, data=data, headers=headers, timeout=self.timeout)
                break
            except requests.RequestException as exc:
                # A connection dropped before any answer (the service restarting): every
                # verdict request is a pure function of its body, so it is sent once more.
                if attempt == 1 and _reset_before_answer(exc):
                    continue
                raise CliError(self._unreachable(exc), EXIT_SERVICE) from None
        answer = self._answer(response, f"POST /v1/{operation}")
        if not isinstance(answer, dict):
            raise CliError(f"the rules service sent an unexpected answer for POST /v1/{operation}", EXIT_SERVICE)
        return answer

    def rules(self, preset: str | None = None) -> Any:
        path = "/v1/rules" if preset is None else f"/v1/rules/{quote(preset, safe='')}"
        try:
            response = self.session.get(f"{self.server}{path}", headers=self._headers(), timeout=self.timeout)
        except requests.RequestException as exc:
            raise CliError(self._unreachable(exc), EXIT_SERVICE) from None
        return self._answer(response, f"GET {path}")

    def _unreachable(self, exc: requests.RequestException) -> str:
        reason = type(exc).__name__
        inner = exc.args[0] if exc.args else None
        if isinstance(inner, MaxRetryError):  # retries used up: the last failure is the reason
            inner = inner.reason
        if isinstance(inner, NewConnectionError) or (
            isinstance(exc, requests.exceptions.ConnectTimeout) and "refused" in str(exc).lower()
        ):
            # urllib3 2.x: NewConnectionError subclasses its ConnectTimeoutError, refused or not
            refused = "refused" in str(inner).lower() or _caused_by(inner, ConnectionRefusedError)
            reason = "connection refused" if refused else "connection failed"
        elif isinstance(exc, requests.Timeout) or isinstance(inner, TimeoutError | urllib3.exceptions.TimeoutError):
            reason = f"timed out after {self.timeout[1]:g} s"
        elif isinstance(exc, requests.ConnectionError):
            reason = "connection failed"
        return f"cannot reach the rules service at {self.server} ({reason})"

    def _answer(self, response: requests.Response, what: str) -> Any:
        status = response.status_code
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if status >= 500:
            detail = problem_line(payload) if isinstance(payload, dict) else response.reason
            raise CliError(f"the rules service failed: {what} answered {status} ({detail})", EXIT_SERVICE)
        if status == 404 and not (isinstance(payload, dict) and payload.get("errors")):
            raise CliError(f"{what} answered 404 Not Found: is {self.server} the rules service?", EXIT_INPUT)
        if status >= 400:
            if isinstance(payload, dict):
                raise CliError(problem_line(payload), EXIT_INPUT, payload)
            raise CliError(f"{what} answered {status} {response.reason}", EXIT_INPUT)
        if payload is None:
            raise CliError(f"the rules service sent something that is not JSON for {what}", EXIT_SERVICE)
        return payload


def _caused_by(exc: BaseException | None, kind: type[BaseException]) -> bool:
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, kind):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _reset_before_answer(exc: requests.RequestException) -> bool:
    """A connection the server closed or reset before sending any byte of an answer (not a
    timeout, not a refused connection)."""
    if not isinstance(exc, requests.ConnectionError) or isinstance(exc, requests.Timeout):
        return False
    inner = exc.args[0] if exc.args else None
    if isinstance(inner, MaxRetryError):
        inner = inner.reason
    return isinstance(inner, ProtocolError) and not isinstance(inner, NewConnectionError)


def make_backend(server: str | None, lang: str = "en", timeout: float = DEFAULT_TIMEOUT) -> Backend:
    """In-process unless a server URL is given."""
    if server:
        return RemoteBackend(server, lang, timeout)
    return LocalBackend(lang)

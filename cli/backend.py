"""The two back ends of the command line, one answer.

``LocalBackend`` calls ``service.operations`` in-process; ``RemoteBackend`` POSTs the
identical JSON body to ``<server>/v1/<operation>`` and returns the identical JSON. Both raise
``CliError``: exit 2 for a request the operation cannot read (a 4xx problem), exit 3 when the
service is unreachable or failing.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol
from urllib.parse import quote

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.exceptions import MaxRetryError
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


class LocalBackend:
    """The engine, in this process, through the service's own request layer."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang

    def call(self, operation: str, body: Any) -> dict[str, Any]:
        from service.operations import RequestError, run_operation

        try:
            return run_operation(operation, body, self.lang)
        except RequestError as exc:
            raise CliError(problem_line(exc.to_problem(self.lang)), EXIT_INPUT) from None

    def rules(self, preset: str | None = None) -> Any:
        from service.operations import RequestError, get_rules, list_rules

        try:
            return list_rules() if preset is None else get_rules(preset)
        except RequestError as exc:
            raise CliError(problem_line(exc.to_problem(self.lang)), EXIT_INPUT) from None


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
            response = self.session.post(url, json=body, headers=self._headers(), timeout=self.timeout)
        except ValueError as exc:  # a body requests cannot encode as JSON
            raise CliError(f"cannot send this document as JSON: {exc}", EXIT_INPUT) from None
        except requests.RequestException as exc:
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
        if isinstance(exc, requests.Timeout) or isinstance(inner, TimeoutError | urllib3.exceptions.TimeoutError):
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
                raise CliError(problem_line(payload), EXIT_INPUT)
            raise CliError(f"{what} answered {status} {response.reason}", EXIT_INPUT)
        if payload is None:
            raise CliError(f"the rules service sent something that is not JSON for {what}", EXIT_SERVICE)
        return payload


def make_backend(server: str | None, lang: str = "en", timeout: float = DEFAULT_TIMEOUT) -> Backend:
    """In-process unless a server URL is given."""
    if server:
        return RemoteBackend(server, lang, timeout)
    return LocalBackend(lang)

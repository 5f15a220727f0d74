"""The remote back end of the command line: ``--server URL`` (or ``RUMMIKUB_SERVER``).

``RemoteBackend`` POSTs the identical JSON body ``LocalBackend`` (:mod:`cli.backend`) would run
in-process to ``<server>/v1/<operation>`` and returns the identical JSON. Imported only when a
server is given: requests and urllib3 are a third of the CLI's start-up.
"""

from __future__ import annotations

import contextlib
import heapq
import http.client
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple, NoReturn
from urllib.parse import quote, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.exceptions import MaxRetryError, NewConnectionError, ProtocolError
from urllib3.util.retry import Retry

from cli.backend import (
    BUSY_RETRIES,
    BUSY_STATUSES,
    CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    MAX_RETRY_AFTER,
    RETRY_STATUSES,
    LocalBackend,
    encode_body,
)
from cli.errors import EXIT_INPUT, EXIT_SERVICE, CliError, problem_line
from cli.render import printable, words

MAX_ANSWER_BYTES = 64 * 2**20
"""The most of an answer read: the service's answers are a few MB at most (its limits); a
server streaming without end grew the client until MemoryError (a CLI audit, session 55)."""

CHUNK_BYTES = 64 * 1024


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password in it masked (``http://user:***@host``), as
    error lines end up in logs. Read by hand, not by ``urlsplit``: a URL it refuses
    (``http://ann:pw@[::1``) is shown too."""
    scheme, sep, rest = url.partition("://")
    end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    user_info, at, host = rest[:end].rpartition("@")
    user, colon, _ = user_info.partition(":")
    if not (sep and at and colon):
        return url
    return f"{scheme}://{user}:***@{host}{rest[end:]}"


def make_session(retries: int = 2) -> requests.Session:
    """A Session that retries connection failures and 502/504 answers, POST included (every
    operation is a pure function of its body, so repeating one is safe). 503 and 429 are
    :class:`RemoteBackend`'s to retry, after the service's Retry-After."""
    retry = Retry(
        total=retries,
        connect=retries,
        read=0,
        status=retries,
        backoff_factor=0.2,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=None,  # every method: the API's POSTs are idempotent
        raise_on_status=False,
        respect_retry_after_header=False,  # 503/429 with Retry-After: RemoteBackend.call waits them out
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry, pool_connections=4, pool_maxsize=32)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A Retry-After header's delay in seconds (delay-seconds or an HTTP-date), or None when
    absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


VERDICT_KEYS: dict[str, tuple[str, ...]] = {
    "sets/validate": ("valid", "sets"),
    "melds/check": ("valid", "value", "threshold"),
    "turns/verify": ("valid", "action", "violations"),
    "rounds/score": ("winner", "scores"),
    "matches/score": ("totals", "standings"),
    "games/replay": ("valid", "turns", "first_invalid_turn"),
    "tables/arrange": ("arrangeable", "sets"),
    "moves/suggest": ("after", "played", "optimal_proven"),
}
"""Members every answer of ``POST /v1/<operation>`` has (openapi.yaml's required ones)."""
BATCHED_OPERATIONS = frozenset({"rounds/score", "matches/score", "games/replay"})
"""The operations of the commands that take ``--jobs`` (``score``, ``replay``)."""


def _missing_verdict(operation: str, answer: Any) -> str | None:
    """What a 200 answer lacks to be the operation's verdict, in words; None when nothing."""
    if not isinstance(answer, dict):
        return "not a JSON object"
    missing = [key for key in VERDICT_KEYS.get(operation, ()) if key not in answer]
    if missing:
        return "no " + ", ".join(f"'{key}'" for key in missing)
    for key in ("valid", "arrangeable", "optimal_proven"):  # (a verdict read by truth: "false" passed)
        if key in answer and not isinstance(answer[key], bool):
            return f"'{key}' is {json.dumps(answer[key])[:40]}, not true or false"
    turn = answer.get("first_invalid_turn")  # (written into rows and the --html page as a turn number)
    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int)):
        return f"'first_invalid_turn' is {json.dumps(turn)[:40]}, not a turn number or null"
    return None


@dataclass(eq=False, slots=True)
class _Watched:
    """A response watched by ``_Deadlines``: ``late`` when its deadline struck (and it was
    closed), ``cancelled`` once read (set without a lock: one assignment)."""

    response: requests.Response
    late: bool = False
    cancelled: bool = False


class _Deadlines:
    """One daemon thread that closes each watched response at its deadline (a Timer thread per
    answer cost a remote batch a fifth of its time; the session's review)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, _Watched]] = []
        self._changed = threading.Condition()
        self._numbers = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, seconds: float, response: requests.Response) -> _Watched:
        watched = _Watched(response)
        with self._changed:
            heapq.heappush(self._due, (time.monotonic() + seconds, next(self._numbers), watched))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rummikub-deadlines", daemon=True)
                self._thread.start()
            if self._due[0][2] is watched:  # (else the thread's wait ends before this deadline)
                self._changed.notify()
        return watched

    def cancel(self, watched: _Watched) -> None:
        watched.cancelled = True

    def _run(self) -> None:
        with self._changed:
            while True:
                while self._due and self._due[0][2].cancelled:
                    heapq.heappop(self._due)
                if not self._due:
                    self._changed.wait()
                    continue
                when, _, watched = self._due[0]
                wait = when - time.monotonic()
                if wait > 0:
                    self._changed.wait(wait)
                    continue
                heapq.heappop(self._due)
                if watched.cancelled:
                    continue
                watched.late = True
                _cut_off(watched.response)


def _cut_off(response: requests.Response) -> None:
    """End the reading of ``response`` now: its socket is shut down, which wakes a read waiting
    on it. (Closing the response instead waits for the reader's own lock, held by a read that
    waits for a whole chunk of a Content-Length body: the watchdog stuck behind a server sending
    a byte a second; a docs audit, session 56.)"""
    connection = getattr(response.raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


_DEADLINES = _Deadlines()


class Reply(NamedTuple):
    """An answer read whole: the response (status, headers) and its body."""

    response: requests.Response
    body: bytes

    def payload(self) -> Any:
        """The body as JSON, None when it is not (as ``Response.json`` reads it)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


def unusable_server(shown: str, why: str = "") -> CliError:
    """``--server`` that is no http(s) URL (``shown`` as typed, ``why`` what is wrong, if said):
    the same for every document, so a batch stops here."""
    return CliError(f"--server {shown}: not a usable http:// or https:// URL{why}", EXIT_INPUT, stops=True)


class RemoteBackend:
    """The rules service over HTTP. Thread-safe: each thread gets its own Session.

    A busy answer (503 or 429) is retried up to ``busy_retries`` times after the service's
    Retry-After (at most ``MAX_RETRY_AFTER`` s; without one, up to twice after a short backoff),
    calling ``on_busy`` with a line saying so before each wait; then it is reported in one line
    (exit 3)."""

    def __init__(
        self,
        server: str,
        lang: str = "en",
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = 2,
        busy_retries: int = BUSY_RETRIES,
        on_busy: Callable[[str], None] | None = None,
    ) -> None:
        if not server.strip():  # (an empty --server ran in-process, quietly)
            raise unusable_server(repr(server))
        server = server.strip()
        if "://" not in server:
            server = f"http://{server}"
        self.server = server.rstrip("/")
        self.server_given = shown_url(server)  # (as typed, for messages: "http://" is not "http:")
        self.shown = shown_url(self.server)  # (the URL in messages, its password masked)
        try:
            scheme = urlsplit(self.server).scheme.lower()
        except ValueError as exc:  # "http://[::1"
            raise unusable_server(self.server_given, f" ({self._masked(exc)})") from None
        if scheme not in ("http", "https"):
            raise unusable_server(self.server_given)
        self.lang = lang
        self.timeout = (min(CONNECT_TIMEOUT, timeout), timeout)
        self.retries = retries
        self.busy_retries = busy_retries
        self.on_busy = on_busy
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
        what = f"POST /v1/{operation}"
        for tries in range(1, self.busy_retries + 2):
            reply = self._post(url, data, headers, what)
            response = reply.response
            if response.status_code not in BUSY_STATUSES:
                break
            wait = self._busy_wait(response, tries)
            if wait is None:
                self._busy(reply, what, tries, batched=operation in BATCHED_OPERATIONS)
            if self.on_busy is not None:
                asked = response.headers.get("Retry-After") is not None
                most = self.busy_retries + 1 if asked else min(2, self.busy_retries) + 1  # (as _busy_wait)
                told = words(self.lang)  # (a notice on the way, in --lang: not an error line)
                self.on_busy(
                    told["busy_retrying"].format(
                        what=what,
                        status=response.status_code,
                        wait=f"{wait:g}",
                        asked=told["busy_as_asked"] if asked else "",
                        next=tries + 1,
                        most=most,
                    )
                )
            time.sleep(wait)
        answer = self._answer(reply, what)
        missing = _missing_verdict(operation, answer)
        if missing is not None:
            # (a 200 without the verdict: another program at that URL, whose answer would
            # otherwise pass every document as ok)
            raise CliError(
                f"{what} answered 200 without a verdict ({missing}): is {self.shown} the rules service?",
                EXIT_SERVICE,
            )
        verdict: dict[str, Any] = answer
        return verdict

    def _post(self, url: str, data: bytes, headers: dict[str, str], what: str) -> Reply:
        for attempt in (1, 2):
            try:
                response = self.session.post(url, data=data, headers=headers, timeout=self.timeout, stream=True)
            except requests.RequestException as exc:
                # A connection dropped before any answer (the service restarting): every
                # verdict request is a pure function of its body, so it is sent once more.
                if attempt == 1 and _reset_before_answer(exc):
                    continue
                raise self._no_answer(exc) from None
            return Reply(response, self._read(response, what))
        raise AssertionError("unreachable")

    def _read(self, response: requests.Response, what: str) -> bytes:
        """The whole body of ``response`` (streamed): at most ``MAX_ANSWER_BYTES``, and read
        within the timeout, counted for the whole body (requests' read timeout starts again
        with every byte: a server sending one a second kept the CLI waiting without end; a
        CLI audit, session 55). Past the time, its socket is shut down under the reading."""
        seconds = self.timeout[1]
        watched = _DEADLINES.watch(seconds, response)
        chunks, size = [], 0
        try:
            for chunk in response.iter_content(CHUNK_BYTES):
                size += len(chunk)
                if size > MAX_ANSWER_BYTES:
                    raise CliError(
                        f"{what} answered more than {MAX_ANSWER_BYTES // 2**20} MiB: is {self.shown} the rules service?",
                        EXIT_SERVICE,
                    )
                chunks.append(chunk)
            if watched.late:  # (a body cut short by the deadline reads as ended under urllib3 1.x)
                raise TimeoutError
        except Exception as exc:
            # (reading a response closed by the timer fails in one of several ways, by version)
            if watched.late:
                raise CliError(
                    f"the rules service at {self.shown} timed out: its answer to {what} not read within {seconds:g} s",
                    EXIT_SERVICE,
                ) from None
            if isinstance(exc, requests.RequestException | urllib3.exceptions.HTTPError | OSError):
                raise CliError(
                    f"the rules service at {self.shown} broke off its answer to {what}", EXIT_SERVICE
                ) from None
            raise
        finally:
            _DEADLINES.cancel(watched)
            response.close()
        return b"".join(chunks)

    def _busy_wait(self, response: requests.Response, tries: int) -> float | None:
        """Seconds to wait before trying a busy request again, or None to give up after
        ``tries`` tries: the service's Retry-After, else a short backoff (at most 2 retries)."""
        asked = retry_after_seconds(response.headers.get("Retry-After"))
        if asked is None:
            return 0.2 * 2 ** (tries - 1) if tries <= min(2, self.busy_retries) else None
        if tries > self.busy_retries or asked > MAX_RETRY_AFTER:
            return None
        return asked

    def _busy(self, reply: Reply, what: str, tries: int, batched: bool) -> NoReturn:
        """A busy answer not retried any more: one clear line, exit 3 (with the hint of
        ``--jobs`` for the commands that have it: ``batched``)."""
        response, payload = reply.response, reply.payload()
        reason = response.reason or str(response.status_code)
        detail = problem_line(payload, reason) if isinstance(payload, dict) else reason
        after = response.headers.get("Retry-After")
        # (delay-seconds, or an HTTP-date: told as given, "s" only after a number of seconds)
        unit = " s" if after and after.strip().isdigit() else ""
        hint = f"; it asks to retry after {printable(after.strip())}{unit}" if after else ""
        times = "once" if tries == 1 else f"{tries} times"
        raise CliError(
            f"the rules service is busy: {what} answered {response.status_code} {response.reason} {times} "
            f"({detail}){hint}; try again later{' or with fewer --jobs' if batched else ''}",
            EXIT_SERVICE,
        )

    def rules(self, preset: str | None = None) -> Any:
        if preset is not None and (preset in ("", ".", "..") or "/" in preset):
            # A name no URL path segment carries (the client drops dot segments, the server
            # decodes %2F before routing: "No endpoint GET /v1/rules/"): never a preset, so
            # answered as in-process does (docs/cli.md "Two back ends, one answer").
            return LocalBackend(self.lang).rules(preset)
        path = "/v1/rules" if preset is None else f"/v1/rules/{quote(preset, safe='')}"
        reply = self._get(path)
        # A 404 for a preset is the service's answer (an unknown preset) when it lists its presets.
        known = (
            preset is not None
            and reply.response.status_code == 404
            and self._get("/v1/rules").response.status_code == 200
        )
        answer = self._answer(reply, f"GET {path}", route_known=known)
        needed = ("default", "presets") if preset is None else ("name", "description", "settings")
        if not isinstance(answer, dict) or any(key not in answer for key in needed):
            # (as _missing_verdict: another program at that URL)
            raise CliError(
                f"GET {path} answered 200 without the rules ({', '.join(needed)}): is {self.shown} the rules service?",
                EXIT_SERVICE,
            )
        return answer

    def _get(self, path: str) -> Reply:
        try:
            response = self.session.get(
                f"{self.server}{path}", headers=self._headers(), timeout=self.timeout, stream=True
            )
        except requests.RequestException as exc:
            raise self._no_answer(exc) from None
        return Reply(response, self._read(response, f"GET {path}"))

    def _no_answer(self, exc: requests.RequestException) -> CliError:
        """The error for a request that got no answer: exit 3, except for a ``--server`` value
        that is not an http(s) URL at all, which is bad usage (exit 2). A malformed proxy
        setting comes from the environment, not from ``--server``."""
        malformed = (
            requests.exceptions.InvalidURL | requests.exceptions.InvalidSchema | requests.exceptions.MissingSchema
        )
        if isinstance(exc, requests.exceptions.InvalidSchema) and "SOCKS" in str(exc):
            # (ALL_PROXY=socks5://... without PySocks: the environment's proxy, not --server)
            return CliError(
                "a SOCKS proxy is set in the environment (ALL_PROXY, HTTP_PROXY or HTTPS_PROXY), and requests "
                "needs PySocks for it: pip install 'requests[socks]', or unset it",
                EXIT_INPUT,
                stops=True,
            )
        if isinstance(exc, malformed) and not isinstance(exc, requests.exceptions.InvalidProxyURL):
            # (requests' words for another scheme name its adapters: only an invalid URL's help)
            why = f" ({self._masked(exc)})" if type(exc) is requests.exceptions.InvalidURL else ""
            # (the same for every document: a batch stops here, as for a scheme that is not http(s))
            return unusable_server(self.server_given, why)
        return CliError(self._unreachable(exc), EXIT_SERVICE)

    def _masked(self, exc: Exception) -> str:
        """``exc``'s words with the URL's password masked (they may quote the URL)."""
        return str(exc).replace(self.server, self.shown)

    def _unreachable(self, exc: requests.RequestException) -> str:
        inner = exc.args[0] if exc.args else None
        if isinstance(inner, MaxRetryError):  # retries used up: the last failure is the reason
            inner = inner.reason
        # (the environment's proxy, TLS and redirects named: each was "connection failed" or a
        # class name; a CLI audit, session 55)
        if isinstance(exc, requests.exceptions.ProxyError):
            return (
                f"cannot reach the rules service at {self.shown} through the proxy set in the environment "
                "(HTTP_PROXY, HTTPS_PROXY or ALL_PROXY; NO_PROXY lists the hosts reached directly)"
            )
        if isinstance(exc, requests.exceptions.SSLError):
            why = str(getattr(inner, "reason", None) or inner or exc)
            return f"cannot reach the rules service at {self.shown}: TLS failed ({printable(why)[:200]})"
        if isinstance(exc, requests.exceptions.TooManyRedirects):
            return f"{self.shown} redirected the request too many times: is it the rules service?"
        if isinstance(inner, NewConnectionError) or (
            isinstance(exc, requests.exceptions.ConnectTimeout) and "refused" in str(exc).lower()
        ):
            # urllib3 2.x: NewConnectionError subclasses its ConnectTimeoutError, refused or not
            refused = "refused" in str(inner).lower() or _caused_by(inner, ConnectionRefusedError)
            reason = "connection refused" if refused else "connection failed"
        elif isinstance(exc, requests.exceptions.ConnectTimeout):
            reason = f"timed out after {self.timeout[0]:g} s"
        elif isinstance(exc, requests.Timeout) or isinstance(inner, TimeoutError | urllib3.exceptions.TimeoutError):
            # (connected: the service did not answer in time)
            return f"the rules service at {self.shown} timed out: no answer within {self.timeout[1]:g} s"
        elif isinstance(_aborted_by(inner), http.client.RemoteDisconnected):
            return f"the rules service at {self.shown} closed the connection without answering"
        elif isinstance(_aborted_by(inner), http.client.HTTPException):
            return f"{self.shown} did not answer in HTTP: is it the rules service?"
        elif isinstance(exc, requests.ConnectionError):
            reason = "connection failed"
        else:
            reason = type(exc).__name__
        return f"cannot reach the rules service at {self.shown} ({reason})"

    def _answer(self, reply: Reply, what: str, route_known: bool = False) -> Any:
        response, payload = reply.response, reply.payload()
        status = response.status_code
        if status >= 500:
            reason = response.reason or str(status)
            detail = problem_line(payload, reason) if isinstance(payload, dict) else reason
            raise CliError(f"the rules service failed: {what} answered {status} ({detail})", EXIT_SERVICE)
        if status in (404, 405) and not route_known:
            # The service has every route this client asks for, with its method: the URL is
            # not the service's (a path after it, another program). Every document would get
            # the same answer, so a batch stops here.
            moved = next((r for r in response.history if r.status_code in (301, 302, 303)), None)
            if moved is not None:  # (requests sends a POST redirected so as a GET: the 405 is the GET's)
                raise CliError(
                    f"{what} was redirected ({moved.status_code}) to {shown_url(response.url)}, which answered {status} "
                    f"{response.reason}: give --server the URL it redirects to",
                    EXIT_INPUT,
                    stops=True,
                )
            raise CliError(
                f"{what} answered {status} {response.reason}: is {self.shown} the rules service?",
                EXIT_INPUT,
                stops=True,
            )
        if status >= 400:
            if isinstance(payload, dict):  # (an unknown preset's 404, route_known, told as rules PRESET tells it)
                raise CliError(problem_line(payload, detail_first=route_known), EXIT_INPUT, payload)
            raise CliError(f"{what} answered {status} {response.reason}", EXIT_INPUT)
        if payload is None:
            raise CliError(f"the rules service sent something that is not JSON for {what}", EXIT_SERVICE)
        return payload


def _aborted_by(inner: object) -> object:
    """What urllib3's ``ProtocolError('Connection aborted.', cause)`` names as its cause."""
    if isinstance(inner, ProtocolError) and len(inner.args) > 1:
        return inner.args[1]
    return None


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

"""The bounded share for budgeted requests (issue #19), piece by piece: which requests are
budgeted, the gate's slots, queue and wait, and the adapter's fast 503. The whole of it against
the real server under a suggest flood: tests/test_server.py."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from service.operations import is_budgeted
from service.server import BudgetGate, RSGIAdapter

pytestmark = pytest.mark.http
THREADS = ThreadPoolExecutor(1, "rummikub-budget")  # the server runs slots in processes; here a thread will do


@pytest.mark.parametrize(
    ("name", "body", "budgeted"),
    [
        ("moves/suggest", {}, True),
        ("tables/arrange", None, True),
        ("turns/verify", {"before": [], "after": [["R1", "R2", "R3"]]}, False),
        ("turns/verify", {"before": [], "after": ["R1", "R2", "R3"]}, True),
        ("turns/verify", {"before": [], "after": [{"color": "red", "number": 1}]}, True),
        ("turns/verify", {"before": [], "after": [{"tiles": ["R1", "R2", "R3"]}]}, False),
        ("turns/verify", {"before": [], "after": {"loose": ["R1"]}}, True),
        ("turns/verify", {"before": [], "after": []}, False),
        ("turns/verify", {"before": []}, False),
        ("render", {"table": [["R1", "R2", "R3"]]}, False),
        ("render", {"before": [], "after": ["R1", "R2", "R3"]}, True),
        ("games/replay", {"players": []}, False),
        ("games/replay", {"players": [], "analyze": False}, False),
        ("games/replay", {"players": [], "analyze": True}, True),
        # a record continuing after errors may repeat a costly turn (the worst-cost audit, session 40)
        ("games/replay", {"players": [], "continue_on_error": True}, True),
        ("games/replay", {"players": [], "continue_on_error": False}, False),
        ("games/replay", {"players": [], "continue_on_error": "yes"}, True),
        ("sets/validate", {"sets": []}, False),
        ("rounds/score", {"players": []}, False),
        # an opening's value under manipulate_on_opening_turn is a search (the API audit, session 38)
        ("games/replay", {"players": [], "rules": {"manipulate_on_opening_turn": True}}, True),
        ("games/replay", {"players": [], "rules": {"preset": "xp", "manipulate_on_opening_turn": False}}, False),
        ("games/replay", {"players": [], "rules": "xp"}, False),
        ("turns/verify", {"before": [], "after": [], "rules": {"manipulate_on_opening_turn": True}}, True),
        ("render", {"before": [], "after": [], "rules": {"manipulate_on_opening_turn": True}}, True),
        ("turns/verify", {"before": [], "after": [], "rules": {"manipulate_on_opening_turn": "yes"}}, False),
        ("rounds/score", {"players": [], "rules": {"manipulate_on_opening_turn": True}}, False),
        # locked joker sets whose groups need both colours: one verify up to 3.3 s (session 57)
        (
            "turns/verify",
            {"before": [], "after": [], "rules": {"preset": "strict-joker", "group_joker_needs_both_colours": True}},
            True,
        ),
        (
            "games/replay",
            {"players": [], "rules": {"preset": "strict-joker", "group_joker_needs_both_colours": True}},
            True,
        ),
        ("turns/verify", {"before": [], "after": [], "rules": "strict-joker"}, False),
        ("turns/verify", {"before": [], "after": [], "rules": {"group_joker_needs_both_colours": True}}, False),
    ],
)
def test_which_requests_are_budgeted(name: str, body: Any, budgeted: bool) -> None:
    assert is_budgeted(name, body) is budgeted


def test_gate_slots_queue_wait_and_handover() -> None:
    async def scenario() -> None:
        gate = BudgetGate(slots=1, queue=1, wait=0.3, budget_seconds=1.0, executor=THREADS)
        assert gate.retry_after() == 1
        assert await gate.acquire() == 0.0  # a free slot
        waiter = asyncio.ensure_future(gate.acquire())  # queued
        await asyncio.sleep(0.01)
        assert gate.retry_after() == 2
        assert await gate.acquire() is None  # the queue is full: refused at once
        gate.release()  # the slot passes to the waiter, not back to the pool
        waited = await waiter
        assert waited is not None and 0 < waited < 0.3 and gate.running == 1
        late = asyncio.ensure_future(gate.acquire())
        started = time.perf_counter()
        assert await late is None  # no slot within `wait`
        assert 0.25 < time.perf_counter() - started < 1.0 and not gate.waiters
        gate.release()
        assert gate.running == 0 and await gate.acquire() == 0.0

    asyncio.run(scenario())


def test_retry_after_adds_up_each_request_s_own_budget() -> None:
    """A replay's ``analyze`` holds its slot for up to the analysis budget (5 s by default), not
    the solver's 1 s: Retry-After counts each running and waiting request's own cost (it said
    1-3 s while analyses held the slots for 5; a hostile-client audit, session 47)."""

    async def scenario() -> None:
        gate = BudgetGate(slots=2, queue=2, wait=5.0, budget_seconds=1.0, executor=THREADS, analyze_budget_seconds=5.0)
        assert await gate.acquire(5.0) == 0.0 and await gate.acquire() == 0.0
        assert gate.retry_after() == 3  # (5 + 1) / 2 slots
        waiting = asyncio.ensure_future(gate.acquire(5.0))
        await asyncio.sleep(0.01)
        assert gate.retry_after() == 6  # (5 + 1 + 5) / 2, rounded up
        gate.release()  # the 1 s request ends: its slot passes to the waiting analysis
        assert await waiting is not None and gate.running == 2 and gate.retry_after() == 5
        gate.release(5.0)
        gate.release(5.0)
        assert gate.running == 0 and gate.running_cost == 0 and gate.retry_after() == 1

    asyncio.run(scenario())


def test_the_adapter_charges_an_analysis_its_own_budget() -> None:
    adapter, release, _ = _one_slot_adapter(holding="/v1/games/replay")
    assert adapter.gate is not None
    adapter.gate.analyze_budget_seconds = 5.0
    replay = json.dumps({"players": [], "turns": [], "analyze": True}).encode()
    body = b'{"table": [], "rack": ["R1"], "opened": true}'

    async def scenario() -> Proto:
        running = asyncio.ensure_future(adapter.__rsgi__(Scope("/v1/games/replay", replay), Proto(replay)))
        await asyncio.sleep(0.05)
        refused = Proto(body)
        await adapter.__rsgi__(Scope("/v1/moves/suggest", body), refused)
        release.set()
        await running
        return refused

    refused = asyncio.run(scenario())
    assert refused.sent[0][0] == 503 and refused.sent[0][1]["retry-after"] == "5"
    assert adapter.gate.running == 0 and adapter.gate.running_cost == 0


class Scope:
    proto = "http"
    method = "POST"
    query_string = ""
    client = "127.0.0.1:5000"
    server = "127.0.0.1:8000"
    scheme = "http"
    http_version = "1.1"

    def __init__(
        self, path: str, body: bytes, lang: str = "en", method: str = "POST", content_type: str = "application/json"
    ) -> None:
        self.path = path
        self.method = method
        self.headers = {
            "content-type": content_type,
            "content-length": str(len(body)),
            "accept-language": lang,
        }


class Proto:
    def __init__(self, body: bytes) -> None:
        self.body = body
        self.sent: list[tuple[int, dict[str, str], bytes]] = []

    async def __call__(self) -> bytes:
        return self.body

    def response_bytes(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.sent.append((status, dict(headers), data))


def _one_slot_adapter(holding: str) -> tuple[RSGIAdapter, threading.Event, list[tuple[str, str]]]:
    """An adapter with one budget slot and no queue before an app that stands in for the solver:
    a request to ``holding`` runs until the event is set. ``seen``: (path, thread) per call."""
    release = threading.Event()
    seen: list[tuple[str, str]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append((environ["PATH_INFO"], threading.current_thread().name))
        if environ["PATH_INFO"] == holding:
            release.wait(5)
        start_response("200 OK", [("content-type", "application/json")])
        return [b'{"ok":true}']

    gate = BudgetGate(slots=1, queue=0, wait=1.0, budget_seconds=1.0, executor=THREADS)
    return RSGIAdapter(app, 1000, 1.0, gate=gate), release, seen


def test_adapter_runs_budgeted_requests_on_slots_and_refuses_beyond_the_share() -> None:
    """A slow app stands in for the solver: with one slot and no queue, a second suggest at once
    is a 503 problem with Retry-After (the app never sees it), while a verify runs at once on the
    event loop; the first suggest ran on a budget thread."""
    adapter, release, seen = _one_slot_adapter(holding="/v1/moves/suggest")
    body = b'{"table": [], "rack": ["R1"], "opened": true}'
    verify = json.dumps({"before": [], "after": [["R1", "R2", "R3"]], "rack": ["R1", "R2", "R3"]}).encode()

    async def scenario() -> tuple[Proto, Proto, Proto]:
        first, second, third = Proto(body), Proto(body), Proto(verify)
        running = asyncio.ensure_future(adapter.__rsgi__(Scope("/v1/moves/suggest", body), first))
        await asyncio.sleep(0.05)
        await adapter.__rsgi__(Scope("/v1/moves/suggest", body, "es"), second)
        await adapter.__rsgi__(Scope("/v1/turns/verify", verify), third)
        assert not running.done()  # verify answered while the suggest still runs
        release.set()
        await running
        return first, second, third

    first, second, third = asyncio.run(scenario())
    assert first.sent[0][0] == 200 and third.sent[0][0] == 200
    status, headers, data = second.sent[0]
    assert status == 503 and headers["retry-after"] == "1" and headers["content-language"] == "es"
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(data)
    assert problem["status"] == 503 and problem["title"] == "Servicio no disponible"
    assert [path for path, _ in seen] == ["/v1/moves/suggest", "/v1/turns/verify"]
    threads = dict(seen)
    assert threads["/v1/moves/suggest"].startswith("rummikub-budget")
    assert threads["/v1/turns/verify"] == threading.main_thread().name


def test_the_share_holds_whatever_the_case_of_the_method_and_the_content_type() -> None:
    """The app reads ``post`` as POST and ``Application/JSON`` as JSON (werkzeug), so the gate
    does too: such a suggest or replay beyond the share is a 503, not a run on the event loop
    that every verdict waits behind (a hostile-client audit, session 44: four replays with
    ``analyze`` ran one after another, a verify waiting 19.8 s)."""
    adapter, release, seen = _one_slot_adapter(holding="/v1/moves/suggest")
    body = b'{"table": [], "rack": ["R1"], "opened": true}'
    players = [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1"]}]
    replay = json.dumps({"players": players, "turns": [], "analyze": True}).encode()
    others = [
        (Scope("/v1/moves/suggest", body, method="post"), Proto(body)),
        (Scope("/v1/moves/suggest", body, method="pOsT"), Proto(body)),
        (Scope("/v1/games/replay", replay, content_type="Application/JSON"), Proto(replay)),
        # werkzeug routes a doubled slash to the view: the share read the path as it came
        # (a hostile-client audit, session 47: //v1/moves/suggest ran on the event loop)
        (Scope("//v1/moves/suggest", body), Proto(body)),
        (Scope("///v1/moves/suggest", body), Proto(body)),  # (granian decodes /%2Fv1 to //v1)
        (Scope("/v1//moves/suggest", body), Proto(body)),
    ]

    async def scenario() -> Proto:
        first = Proto(body)
        running = asyncio.ensure_future(adapter.__rsgi__(Scope("/v1/moves/suggest", body), first))
        await asyncio.sleep(0.05)
        for scope, proto in others:
            await adapter.__rsgi__(scope, proto)
        release.set()
        await running
        return first

    first = asyncio.run(scenario())
    assert first.sent[0][0] == 200 and [path for path, _ in seen] == ["/v1/moves/suggest"]
    assert [proto.sent[0][0] for _, proto in others] == [503] * len(others)


def test_the_busy_answer_is_the_documented_one() -> None:
    """The adapter's 503 has the contract's shape (Problem, Retry-After) and its example's words."""
    import jsonschema
    import yaml

    spec = yaml.safe_load((Path(__file__).resolve().parents[1] / "openapi.yaml").read_text(encoding="utf-8"))
    gate = BudgetGate(slots=1, queue=2, wait=1.0, budget_seconds=1.0, executor=THREADS)
    gate.running, gate.running_cost = 1, 1.0
    gate.waiters.update(dict.fromkeys([asyncio.Future(loop=asyncio.new_event_loop()) for _ in range(2)], 1.0))
    adapter = RSGIAdapter(lambda e, s: [], 1000, 1.0, gate=gate)
    proto = Proto(b"")
    adapter._busy(Scope("/v1/moves/suggest", b""), proto, {"PATH_INFO": "/v1/moves/suggest"}, "/v1/moves/suggest", 0.0)
    status, headers, data = proto.sent[0]
    assert status == 503
    documented = spec["components"]["responses"]["Busy"]
    assert set(documented["headers"]) == {"Retry-After", "Content-Language"}
    assert {"retry-after", "content-language"} <= set(headers)
    problem_schema = {"$ref": "#/components/schemas/Problem", "components": spec["components"]}
    jsonschema.validate(json.loads(data), problem_schema, cls=jsonschema.Draft202012Validator)
    assert json.loads(data) == documented["content"]["application/problem+json"]["example"]


def test_the_busy_answer_carries_the_apps_cors_headers() -> None:
    """With RUMMIKUB_CORS_ORIGINS, the 503 the server answers without the app carries the app's
    CORS headers and exposes Retry-After: a page saw a network error (the service audit, session 49)."""
    from service.app import create_app

    gate = BudgetGate(slots=1, queue=0, wait=1.0, budget_seconds=1.0, executor=THREADS)
    gate.running, gate.running_cost = 1, 1.0
    app = create_app({"TESTING": True, "RUMMIKUB_CORS_ORIGINS": "https://a.example"})
    adapter = RSGIAdapter(app, 1000, 1.0, gate=gate)
    answers = []
    for origin in ("https://a.example", "https://evil.example"):
        proto = Proto(b"")
        environ = {"PATH_INFO": "/v1/moves/suggest", "HTTP_ORIGIN": origin}
        adapter._busy(Scope("/v1/moves/suggest", b""), proto, environ, "/v1/moves/suggest", 0.0)
        answers.append(proto.sent[0])
    (status, headers, _), (_, other, _) = answers
    assert status == 503 and headers["access-control-allow-origin"] == "https://a.example"
    assert headers["access-control-expose-headers"] == "X-Request-ID, Retry-After"
    assert headers["vary"] == "Accept-Language, Origin"
    # (an unlisted origin's answer varies by Origin too: a shared cache keeps the two apart;
    # the service audit, session 51)
    assert "access-control-allow-origin" not in other and other["vary"] == "Accept-Language, Origin"


VALID_BUDGETED = {
    "/v1/moves/suggest": b'{"table": [], "rack": ["R1"], "opened": true}',
    "/v1/tables/arrange": b'{"tiles": ["R1", "R2", "R3"]}',
    "/v1/games/replay": json.dumps(
        {
            "players": [{"name": "A", "rack": ["R1", "R2", "R3"]}, {"name": "B", "rack": ["K1"]}],
            "turns": [],
            "analyze": True,
        }
    ).encode(),
    "/v1/turns/verify": b'{"before": [], "after": {"loose": ["R1", "R2", "R3"]}, "rack": ["R1"], "opened": true}',
}
"""A body each budgeted route runs (beyond a full share: the 503)."""


@pytest.mark.parametrize(
    ("path", "content_type", "coding"),
    [
        ("/v1/moves/suggest", "application/json", "gzip"),
        ("/v1/tables/arrange", "application/json", "br, identity"),
        ("/v1/moves/suggest", "text/plain", None),
        ("/v1/games/replay", "application/json", "deflate"),
        ("/v1/turns/verify", "application/x-www-form-urlencoded", None),
    ],
)
def test_a_body_refused_unread_takes_no_budget_slot(path: str, content_type: str, coding: str | None) -> None:
    """A budgeted request the app refuses without reading its body (a content coding, another
    content type) is its 415 at once, not a 503 behind the share nor a slot held until the app
    refuses it (session 59's surfaces audit: a gzip suggest on granian took a slot first)."""
    from service.app import create_app

    gate = BudgetGate(slots=1, queue=0, wait=1.0, budget_seconds=1.0, executor=THREADS)
    gate.running, gate.running_cost = 1, 1.0  # the share is full: any budgeted request is a 503
    adapter = RSGIAdapter(create_app({"TESTING": True}), 1000, 1.0, gate=gate)
    body = VALID_BUDGETED[path]
    scope = Scope(path, body, content_type=content_type)
    if coding is not None:
        scope.headers["content-encoding"] = coding
    proto = Proto(body)
    asyncio.run(adapter.__rsgi__(scope, proto))
    status, headers, data = proto.sent[0]
    assert "problem+json" in {k.lower(): v for k, v in headers.items()}["content-type"]
    assert status == 415 and json.loads(data)["status"] == 415
    assert gate.running == 1 and not gate.waiters
    # the same request uncoded, as JSON, is budgeted: here the full share's 503
    plain = Proto(body)
    asyncio.run(adapter.__rsgi__(Scope(path, body), plain))
    assert plain.sent[0][0] == 503


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/moves/suggest", b'{"table": [], "rack": [], "opened": true}', 422),
        ("/v1/moves/suggest", b"{", 400),
        ("/v1/moves/suggest", b'{"table": [["R1", "R2"]], "rack": ["R3"], "opened": true}', 503),
        ("/v1/tables/arrange", json.dumps({"tiles": ["R1"] * 20001}).encode(), 413),
        ("/v1/tables/arrange", b'{"tiles": ["R1", "R2", "R3"]}', 503),
        ("/v1/turns/verify", b'{"before": [], "after": {"loose": ["R1", "R2", "R3"]}, "rack": []}', 422),
        (
            "/v1/turns/verify",
            b'{"before": [], "after": {"loose": ["R1", "R2", "R3"]}, "rack": ["R1"], "opened": true}',
            503,
        ),
        ("/v1/render", b'{"before": [], "after": ["R1", "R2", "R3"], "rack": []}', 422),
        ("/v1/games/replay", b'{"players": [], "analyze": true, "turns": 5}', 422),
    ],
)
def test_beyond_the_share_a_bad_body_gets_its_4xx_not_the_503(path: str, body: bytes, status: int) -> None:
    """The 503 says the share is full for a request the service would run; a body it refuses
    anyway gets its 400/413/422 at once, as when the share is free (the soak of session 60: a
    suggest with an empty rack was a 503 whenever the share was full; SPEC §7)."""
    from service.app import create_app

    gate = BudgetGate(slots=1, queue=0, wait=1.0, budget_seconds=1.0, executor=THREADS)
    gate.running, gate.running_cost = 1, 1.0  # the share is full
    adapter = RSGIAdapter(create_app({"TESTING": True, "RUMMIKUB_MAX_TILES": 20000}), 1 << 20, 1.0, gate=gate)
    proto = Proto(body)
    asyncio.run(adapter.__rsgi__(Scope(path, body), proto))
    assert proto.sent[0][0] == status
    assert json.loads(proto.sent[0][2])["status"] == status
    assert gate.running == 1 and not gate.waiters


def test_a_cancelled_waiter_leaves_the_queue_and_passes_on_a_slot() -> None:
    async def scenario() -> None:
        gate = BudgetGate(slots=1, queue=2, wait=5.0, budget_seconds=1.0, executor=THREADS)
        assert await gate.acquire() == 0.0
        waiting = asyncio.ensure_future(gate.acquire())
        behind = asyncio.ensure_future(gate.acquire())
        await asyncio.sleep(0.01)
        waiting.cancel()  # e.g. the request's task is cancelled
        await asyncio.sleep(0.01)
        assert len(gate.waiters) == 1
        gate.release()
        assert await behind is not None and gate.running == 1 and not gate.waiters
        gate.release()
        assert gate.running == 0

    asyncio.run(scenario())


def test_a_busy_answer_is_counted_before_it_leaves() -> None:
    """The 503's count is in /metrics by the time its client has it: a client that reads
    /metrics right after its answer (test_server's suggest flood) finds it counted. It was
    counted after ``response_bytes``, which hands the answer to granian's threads."""
    from service.observe import BUDGET_REJECTIONS

    route = "/v1/moves/suggest"
    gate = BudgetGate(slots=1, queue=0, wait=1.0, budget_seconds=1.0, executor=THREADS)
    gate.running = 1
    adapter = RSGIAdapter(lambda e, s: [], 1000, 1.0, gate=gate)
    counted_when_sent: list[float] = []

    class Watching(Proto):
        def response_bytes(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
            counted_when_sent.append(BUDGET_REJECTIONS.labels(route)._value.get())
            super().response_bytes(status, headers, data)

    before = BUDGET_REJECTIONS.labels(route)._value.get()
    proto = Watching(b"")
    adapter._busy(Scope(route, b""), proto, {"PATH_INFO": route}, route, 0.0)
    assert proto.sent[0][0] == 503 and counted_when_sent == [before + 1]


def test_a_waiter_whose_wait_runs_out_is_told_the_wait_not_a_full_share() -> None:
    """A budgeted request that was queued and found no slot within RUMMIKUB_BUDGET_WAIT gets a
    503 naming that limit; one refused at once (the queue full) names the slots. Before (the
    contract audit, session 52), both said "1 budgeted request(s) running and 0 waiting ...
    RUMMIKUB_BUDGET_QUEUE 2" with the limit RUMMIKUB_BUDGET_SLOTS: a share that read as not full."""
    adapter, release, _ = _one_slot_adapter(holding="/v1/moves/suggest")
    assert adapter.gate is not None
    adapter.gate.queue, adapter.gate.wait = 1, 0.1
    body = b'{"table": [], "rack": ["R1"], "opened": true}'

    async def scenario() -> tuple[Proto, Proto]:
        running = asyncio.ensure_future(adapter.__rsgi__(Scope("/v1/moves/suggest", body), Proto(body)))
        await asyncio.sleep(0.05)
        waiter, refused = Proto(body), Proto(body)
        waiting = asyncio.ensure_future(adapter.__rsgi__(Scope("/v1/moves/suggest", body), waiter))
        await asyncio.sleep(0.01)
        await adapter.__rsgi__(Scope("/v1/moves/suggest", body), refused)  # the queue's one place is taken
        await waiting
        release.set()
        await running
        return waiter, refused

    waiter, refused = asyncio.run(scenario())
    status, headers, data = waiter.sent[0]
    problem = json.loads(data)
    assert status == 503 and headers["retry-after"] == "1"
    assert problem["errors"][0]["limit"] == "RUMMIKUB_BUDGET_WAIT"
    assert problem["errors"][0]["detail"].startswith("no slot came free within 0.1 s (RUMMIKUB_BUDGET_WAIT); ")
    status, _, data = refused.sent[0]
    assert status == 503 and json.loads(data)["errors"][0]["limit"] == "RUMMIKUB_BUDGET_SLOTS"
    assert adapter.gate.running == 0 and not adapter.gate.waiters

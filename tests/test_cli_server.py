"""Two back ends, one answer: every command gives the same output in-process and with
``--server`` against the real service on a loopback port; a server that is down, failing or
slow is exit 3; 502/503/504 answers are retried (POST included).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import BaseWSGIServer, make_server

from engine.generate import corrupt_game, generate_game
from engine.rules import PRESETS
from service.app import create_app
from tests.test_cli import POSITION, ROUND, ROUND_2, TURN_BAD, TURN_OK, invoke, one_line_error, write

pytestmark = [pytest.mark.cli, pytest.mark.http]

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def serve_wsgi(wsgi: WSGIApp) -> Iterator[str]:
    server: BaseWSGIServer = make_server("127.0.0.1", 0, wsgi, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


ANALYZE_BUDGET_MS = "120000"
SOLVER_BUDGET_MS = "60000"
"""replay --analyze's budgets on both sides of the comparison, the whole analysis and each search
in it: with the defaults (5 s, 1 s per search) a loaded machine ran one side out of time and not
the other (the best found differed, or one side's was not proven)."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The real service (create_app) on a free loopback port."""
    yield from serve_wsgi(
        create_app({"RUMMIKUB_ANALYZE_BUDGET_MS": ANALYZE_BUDGET_MS, "RUMMIKUB_SOLVER_BUDGET_MS": SOLVER_BUDGET_MS})
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("docs")
    good = generate_game(7, 4)
    bad, _index, _code = corrupt_game(generate_game(8, 3), seed=1)
    games = root / "games"
    games.mkdir()
    write(games / "good.json", good)
    write(games / "bad.json", bad)
    (games / "broken.json").write_text("{", encoding="utf-8")
    (root / "rounds.jsonl").write_text(
        "\n".join(json.dumps(d) for d in (ROUND, ROUND_2, {"rounds": [ROUND, ROUND_2]})) + "\n{\n", encoding="utf-8"
    )
    return {
        "turn_ok": write(root / "turn_ok.json", TURN_OK),
        "turn_bad": write(root / "turn_bad.json", TURN_BAD),
        "position": write(root / "position.json", POSITION),
        "round": write(root / "round.json", ROUND),
        "match": write(root / "match.json", {"rounds": [ROUND, ROUND_2]}),
        "sets": write(root / "sets.json", {"sets": [["R5", "J", "J"], ["K1", "K1", "B1"]], "rules": "free-joker"}),
        "meld": write(root / "meld.json", {"sets": [["K10", "B10", "O10"]], "rack": ["K10", "B10", "O10", "R1"]}),
        "rules": write(root / "rules.json", {"preset": "sabra", "initial_meld_min": 40}),
        "bad_tile": write(root / "bad_tile.json", {"sets": [["R5", "X6", "R7"]]}),
        "game": write(root / "game.json", good),
        "bad_game": write(root / "bad_game.json", bad),
        "games": str(games),
        "jsonl": str(root / "rounds.jsonl"),
        "tiles": write(root / "tiles.json", ["R1", "R2", "R3", "J", "K9", "B9", "O9"]),
        "suggest": write(root / "suggest.json", {"table": [["R3", "R4", "R5"]], "rack": ["R6", "K1"], "opened": True}),
    }


CASES: dict[str, list[str]] = {
    "validate-words": ["validate", "R5 R6 R7", "K9 B9 J", "K1 K1 B1"],
    "validate-file": ["validate", "{sets}"],
    "validate-es": ["validate", "K1 K1 B1", "--lang", "es"],
    "validate-rules-file": ["validate", "R5 R6 R7", "--rules", "{rules}"],
    "validate-bad-tile": ["validate", "{bad_tile}"],
    "validate-bad-words": ["validate", "R5 R14"],
    "meld": ["meld", "{meld}"],
    "meld-words": ["meld", "R11 R12 R13", "--rack", "R11 R12 R13 K1", "--rules", "opening-50"],
    "meld-rules-file": ["meld", "{meld}", "--rules", "{rules}"],
    "verify-ok": ["verify", "{turn_ok}"],
    "verify-bad": ["verify", "{turn_bad}", "--lang", "es"],
    "score-round": ["score", "{round}"],
    "score-match": ["score", "{match}", "--rules", "komoni"],
    "score-batch-jsonl": ["score", "{jsonl}", "-f", "jsonl"],
    "score-batch-csv": ["score", "{jsonl}", "{round}", "-f", "csv", "-j", "2"],
    "score-batch-table": ["score", "{jsonl}", "{match}"],
    "replay": ["replay", "{game}"],
    "replay-bad": ["replay", "{bad_game}"],
    "replay-continue": ["replay", "{bad_game}", "--continue", "--lang", "es"],
    "replay-analyze": ["replay", "{game}", "--analyze"],
    "replay-batch": ["replay", "{games}", "-f", "jsonl", "-j", "2"],
    "replay-batch-table": ["replay", "{games}"],
    "show-position": ["show", "{position}"],
    "show-turn": ["show", "{turn_bad}"],
    "rules": ["rules"],
    "rules-one": ["rules", "pressman-2009"],
    "rules-unknown": ["rules", "nope"],
    "arrange": ["arrange", "{tiles}"],
    "arrange-words": ["arrange", "R5 R6 R7 K9 B9"],
    "suggest": ["suggest", "{suggest}"],
    "suggest-words": ["suggest", "--table", "K9 B9 O9", "--rack", "R9 R1", "--opened", "--objective", "value"],
    # Spanish reports (--lang es): the same words from both back ends
    "meld-es": ["meld", "{meld}", "--lang", "es"],
    "verify-ok-es": ["verify", "{turn_ok}", "--lang", "es"],
    "score-round-es": ["score", "{round}", "--lang", "es"],
    "score-match-es": ["score", "{match}", "--rules", "komoni", "--lang", "es"],
    "score-batch-table-es": ["score", "{jsonl}", "{match}", "--lang", "es"],
    "score-batch-csv-es": ["score", "{jsonl}", "{round}", "-f", "csv", "--lang", "es"],
    "replay-bad-es": ["replay", "{bad_game}", "--lang", "es"],
    "replay-batch-table-es": ["replay", "{games}", "--lang", "es"],
    "show-position-es": ["show", "{position}", "--lang", "es"],
    "show-turn-es": ["show", "{turn_bad}", "--lang", "es"],
    "rules-es": ["rules", "--lang", "es"],
    "rules-one-es": ["rules", "pressman-2009", "--lang", "es"],
    "arrange-es": ["arrange", "{tiles}", "--lang", "es"],
    "suggest-es": ["suggest", "{suggest}", "--lang", "es"],
}
SPANISH = {
    "validate-es": "combinación no válida",
    "meld-es": "Valor de la primera jugada",
    "verify-ok-es": "✓ jugada legal",
    "verify-bad": "✗ turno ilegal",
    "score-round-es": "valor del atril",
    "score-match-es": "gana la partida",
    "score-batch-table-es": "documentos",
    "replay-bad-es": "es ilegal",
    "replay-continue": "es ilegal",
    "replay-batch-table-es": "registros",
    "show-position-es": "la mesa es válida",
    "show-turn-es": "Después",
    "rules-es": "descripción",
    "rules-one-es": "Folleto de Pressman 2009",
    "arrange-es": "Colocación",
    "suggest-es": "Mesa después de la jugada",
}
"""A Spanish word each ``--lang es`` report holds (so the comparison is not of two English reports)."""


def _args(template: list[str], files: dict[str, str]) -> list[str]:
    return [a.format(**files) if a.startswith("{") else a for a in template]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("json_out", [True, False], ids=["json", "report"])
def test_same_answer_with_and_without_server(
    server: str, files: dict[str, str], name: str, json_out: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUMMIKUB_ANALYZE_BUDGET_MS", ANALYZE_BUDGET_MS)
    monkeypatch.setenv("RUMMIKUB_SOLVER_BUDGET_MS", SOLVER_BUDGET_MS)
    args = _args(CASES[name], files)
    if json_out:
        args.append("--json")
    local = invoke(*args)
    remote = invoke(*args, "--server", server)
    assert remote.exit_code == local.exit_code, remote.stderr
    assert remote.stdout == local.stdout
    assert remote.stderr == local.stderr
    assert local.exit_code in (0, 1, 2)
    if not json_out and name in SPANISH:
        assert SPANISH[name] in local.stdout


def test_env_var_selects_server(server: str, files: dict[str, str]) -> None:
    local = invoke("verify", files["turn_bad"], "--json")
    remote = invoke("verify", files["turn_bad"], "--json", env={"RUMMIKUB_SERVER": server})
    assert remote.stdout == local.stdout
    down = invoke("verify", files["turn_bad"], env={"RUMMIKUB_SERVER": f"http://127.0.0.1:{_closed_port()}"})
    assert down.exit_code == 3


def test_server_without_scheme_and_trailing_slash(server: str) -> None:
    bare = server.removeprefix("http://") + "/"
    assert invoke("validate", "R1 R2 R3", "--server", bare).exit_code == 0


def test_wrong_server_path_is_one_line(server: str) -> None:
    result = invoke("validate", "R1 R2 R3", "--server", server + "/v1")
    assert result.exit_code == 2
    assert "404" in one_line_error(result) and "the rules service?" in one_line_error(result)
    # a path the service serves with another method (its docs): the same hint, not Flask's words
    result = invoke("validate", "R1 R2 R3", "--server", server + "/docs")
    assert result.exit_code == 2
    assert one_line_error(result).endswith(f"answered 405 METHOD NOT ALLOWED: is {server}/docs the rules service?")


def test_unknown_preset_is_the_service_answer_not_a_wrong_path(server: str) -> None:
    # both the preset's 404 and routing's carry errors[]: only a preset lookup takes a 404 as an answer
    local = invoke("rules", "house")
    remote = invoke("rules", "house", "--server", server)
    assert remote.exit_code == local.exit_code == 2
    assert remote.stderr == local.stderr
    assert "Unknown rules preset 'house'" in one_line_error(remote)
    assert "the rules service?" in one_line_error(invoke("rules", "--server", server + "/v1"))


@pytest.mark.parametrize("name", ["", ".", "..", "sabra/", "xp/../sabra", "/tmp/x.json"])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_preset_name_no_url_path_carries_is_answered_as_in_process(server: str, name: str, lang: str) -> None:
    """The client drops a URL's dot segments and the server decodes %2F before routing: such a
    name reached another path ("No endpoint GET /v1/rules/..."; the surfaces audit, session 59)."""
    for extra in ([], ["--json"]):
        local = invoke("rules", name, "--lang", lang, *extra)
        remote = invoke("rules", name, "--lang", lang, *extra, "--server", server)
        assert remote.exit_code == local.exit_code == 2
        assert (remote.stdout, remote.stderr) == (local.stdout, local.stderr)
    said = (
        f"Unknown rules preset {name!r}; presets"
        if lang == "en"
        else f"Conjunto de reglas {name!r} desconocido; disponibles"
    )
    assert one_line_error(remote) == f"rummikub: {said}: " + ", ".join(PRESETS) + "."


# --- a server that is down, failing or slow ------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize(
    "template",
    [
        ["validate", "R5 R6 R7"],
        ["meld", "{meld}"],
        ["verify", "{turn_ok}"],
        ["score", "{round}"],
        ["score", "{jsonl}", "-f", "jsonl", "-j", "2"],
        # a batch stopped before its first row writes nothing on stdout, in every format
        ["score", "{jsonl}", "{round}"],
        ["score", "{jsonl}", "{round}", "-f", "csv"],
        ["score", "{jsonl}", "{round}", "-f", "csv", "-j", "2"],
        ["replay", "{games}"],
        ["replay", "{games}", "-f", "jsonl"],
        ["replay", "{games}", "-f", "csv"],
        ["show", "{position}"],
        ["rules"],
        ["rules", "sabra"],
        ["arrange", "R1 R2 R3"],
        ["suggest", "{suggest}"],
    ],
    ids=lambda t: " ".join(t),
)
def test_server_down_is_exit_3(files: dict[str, str], template: list[str]) -> None:
    result = invoke(*_args(template, files), "--server", f"http://127.0.0.1:{_closed_port()}")
    assert result.exit_code == 3
    assert "cannot reach the rules service" in one_line_error(result)
    assert result.stdout == ""


class Scripted:
    """A WSGI app answering with a script of statuses, then passing on to the real service."""

    def __init__(self, statuses: list[int], delay: float = 0.0, body: bytes | None = None) -> None:
        self.statuses = statuses
        self.delay = delay
        self.body = body
        self.calls: list[tuple[str, str, str | None]] = []
        self.real = create_app()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        self.calls.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], environ.get("HTTP_ACCEPT_LANGUAGE")))
        if self.delay:
            time.sleep(self.delay)
        if self.statuses:
            status = self.statuses.pop(0)
            start_response(f"{status} Scripted", [("Content-Type", "text/plain")])
            return [b"scripted failure"]
        if self.body is not None:
            start_response("200 OK", [("Content-Type", "text/html")])
            return [self.body]
        result: Iterable[bytes] = self.real(environ, start_response)
        return result


def test_retries_post_on_503_then_same_answer() -> None:
    app = Scripted([503, 502])
    for url in serve_wsgi(app):
        result = invoke("verify", "-", "--json", "--server", url, "--lang", "es", input=json.dumps(TURN_BAD))
        assert result.exit_code == 1
        assert json.loads(result.stdout) == json.loads(
            invoke("verify", "-", "--json", "--lang", "es", input=json.dumps(TURN_BAD)).stdout
        )
    assert [c[:2] for c in app.calls] == [("POST", "/v1/turns/verify")] * 3
    assert {c[2] for c in app.calls} == {"es"}  # --lang travels as Accept-Language


def test_persistent_5xx_is_exit_3() -> None:
    app = Scripted([504] * 10)
    for url in serve_wsgi(app):
        result = invoke("score", "-", "--server", url, input=json.dumps(ROUND))
        assert result.exit_code == 3
        assert "504" in one_line_error(result)
    assert len(app.calls) == 3  # one try and two retries
    failing = Scripted([500])
    for url in serve_wsgi(failing):
        result = invoke("validate", "R1 R2 R3", "--server", url)
        assert result.exit_code == 3
        assert "500" in one_line_error(result)
    assert len(failing.calls) == 1  # 500 is not retried


def test_batch_stops_with_exit_3_when_the_server_fails(files: dict[str, str]) -> None:
    app = Scripted([503] * 100)
    for url in serve_wsgi(app):
        result = invoke("replay", files["games"], "-f", "jsonl", "-j", "2", "--server", url)
        assert result.exit_code == 3


def test_slow_server_times_out() -> None:
    app = Scripted([], delay=1.5)
    for url in serve_wsgi(app):
        started = time.monotonic()
        result = invoke("validate", "R1 R2 R3", "--server", url, "--timeout", "0.3")
        assert result.exit_code == 3
        assert "timed out" in one_line_error(result)
        assert time.monotonic() - started < 1.5  # read timeouts are not retried


def test_non_json_answer_is_exit_3() -> None:
    for url in serve_wsgi(Scripted([], body=b"<html>proxy</html>")):
        result = invoke("validate", "R1 R2 R3", "--server", url)
        assert result.exit_code == 3
        assert "not JSON" in one_line_error(result)


def test_bad_tile_problem_from_server_is_exit_2(server: str, files: dict[str, str]) -> None:
    result = invoke("validate", files["bad_tile"], "--server", server)
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "/sets/0/1" in line
    assert "X6" in line


# --- issue #14: the same answer in both modes --------------------------------------------------


def _both(args: list[str], server: str) -> tuple[Any, Any]:
    from typer.testing import CliRunner

    from cli.main import app

    runner = CliRunner()
    return runner.invoke(app, args), runner.invoke(app, [*args, "--server", server])


@pytest.fixture(scope="module")
def live_server() -> Iterator[str]:
    import threading

    from werkzeug.serving import make_server

    from service.app import create_app

    httpd = make_server("127.0.0.1", 0, create_app(), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


def test_parity_infinite_seconds(tmp_path: Path, live_server: str) -> None:
    turn = tmp_path / "turn.json"
    turn.write_text('{"before": [], "after": [], "rack": ["R1"], "opened": true, "elapsed_seconds": 1e400}')
    local, remote = _both(["verify", str(turn)], live_server)
    assert local.exit_code == remote.exit_code == 2, (local.output, remote.output)
    assert "/elapsed_seconds" in local.output and "/elapsed_seconds" in remote.output


def test_parity_body_limit(tmp_path: Path, live_server: str) -> None:
    players = [{"name": "A", "rack": []}, {"name": "B" * 280_000, "rack": ["R1"]}]
    big = tmp_path / "round.json"
    big.write_text(json.dumps({"players": players}))
    local, remote = _both(["score", str(big)], live_server)
    assert local.exit_code == remote.exit_code == 2, (local.output, remote.output)
    assert "RUMMIKUB_MAX_BODY_BYTES" in local.output and "RUMMIKUB_MAX_BODY_BYTES" in remote.output


def test_parity_huge_number_names_no_python_internals(tmp_path: Path, live_server: str) -> None:
    doc = tmp_path / "round.json"
    doc.write_text('{"players": [{"name": "A", "rack": [], "opened": ' + "9" * 5001 + "}]}")
    local, remote = _both(["score", str(doc)], live_server)
    assert local.exit_code == remote.exit_code == 2
    assert "too many digits" in local.output and "set_int_max_str_digits" not in local.output


def test_parity_a_position_rack_given_as_a_string(tmp_path: Path, live_server: str) -> None:
    # show read "R5 R6" as tile words and drew its characters, exit 0 (the input audit, session 50: WBI-5)
    doc = tmp_path / "position.json"
    doc.write_text(json.dumps({"table": [], "players": [{"name": "A", "rack": "R5 R6"}]}))
    for command in ("show", "suggest"):
        for result in _both([command, str(doc)], live_server):
            assert result.exit_code == 2, result.output
            assert (
                one_line_error(result) == f"rummikub: {doc}: /players/0/rack: expected an array of tiles, not a string"
            )


def test_refused_connection_says_so() -> None:
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, ["validate", "R1 R2 R3", "--server", "http://127.0.0.1:9"])
    assert result.exit_code == 3 and "connection refused" in result.output, result.output


def test_a_reset_before_any_byte_is_retried_once() -> None:
    import socket
    import threading

    from cli.remote import RemoteBackend

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    seen: list[int] = []

    def serve() -> None:
        first, _ = listener.accept()
        first.recv(65536)
        first.close()  # dropped before any byte of an answer
        seen.append(1)
        second, _ = listener.accept()
        second.recv(65536)
        body = b'{"valid": true, "sets": []}'
        second.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
            % (len(body), body)
        )
        second.close()
        seen.append(2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    answer = RemoteBackend(f"http://127.0.0.1:{port}", retries=0).call("sets/validate", {"sets": []})
    thread.join(5)
    listener.close()
    assert answer == {"valid": True, "sets": []} and seen == [1, 2]


# --- a busy service: 503/429 with Retry-After (issue #19) ------------------------------------------


class Busy:
    """A WSGI app answering ``busy`` requests with ``status`` (a problem with Retry-After), then
    passing on to the real service."""

    def __init__(self, busy: int, status: int = 503, retry_after: str | None = "0") -> None:
        self.busy = busy
        self.status = status
        self.retry_after = retry_after
        self.calls = 0
        self.lock = threading.Lock()
        self.real = create_app()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        with self.lock:
            self.calls += 1
            busy = self.busy > 0
            self.busy -= busy
        if busy:
            headers = [("Content-Type", "application/problem+json")]
            if self.retry_after is not None:
                headers.append(("Retry-After", self.retry_after))
            start_response(f"{self.status} Busy", headers)
            problem = {"type": "about:blank", "title": "Busy", "status": self.status, "detail": "the solver is busy"}
            return [json.dumps(problem).encode()]
        result: Iterable[bytes] = self.real(environ, start_response)
        return result


@pytest.mark.parametrize("status", [503, 429])
def test_a_busy_answer_is_retried_after_retry_after(status: int) -> None:
    app = Busy(2, status)
    for url in serve_wsgi(app):
        result = invoke("verify", "-", "--json", "--server", url, input=json.dumps(TURN_BAD))
        assert result.exit_code == 1 and json.loads(result.stdout)["valid"] is False
    assert app.calls == 3


@pytest.mark.parametrize("status", [503, 429])
def test_a_service_that_stays_busy_is_one_clear_line_and_exit_3(status: int) -> None:
    app = Busy(100, status, retry_after="0")
    for url in serve_wsgi(app):
        result = invoke("verify", "-", "--server", url, input=json.dumps(TURN_BAD))
    assert result.exit_code == 3
    line = one_line_error(result)
    assert "busy" in line and str(status) in line and "3 times" in line and "the solver is busy" in line
    assert "--jobs" not in line  # (verify has no --jobs: score and replay do, below)
    assert app.calls == 3  # one try, two retries


def test_a_long_retry_after_is_not_waited_for() -> None:
    app = Busy(100, 503, retry_after="3600")
    for url in serve_wsgi(app):
        started = time.monotonic()
        result = invoke("validate", "R1 R2 R3", "--server", url)
        assert time.monotonic() - started < 5
    assert result.exit_code == 3 and "retry after 3600 s" in one_line_error(result)
    assert app.calls == 1


def test_batch_commands_wait_out_a_busy_service(files: dict[str, str]) -> None:
    """A batch retries each document more often than a single command (here 4 busy answers in a
    row: a single command gives up after 3 tries) and says once that it is waiting."""
    app = Busy(4)
    for url in serve_wsgi(app):
        result = invoke("score", files["round"], "--server", url)
        assert result.exit_code == 0, result.output
    assert app.calls == 5
    assert result.stderr.count("busy") == 1 and "retrying" in result.stderr
    stays = Busy(1000)
    for url in serve_wsgi(stays):
        result = invoke("score", files["round"], "--server", url)
    notice, error = result.stderr.strip().splitlines()  # the notice once, then the reason to stop
    assert result.exit_code == 3 and "retrying" in notice and "7 times" in error and "--jobs" in error
    assert stays.calls == 7


def test_the_busy_notice_counts_the_tries_it_will_make(files: dict[str, str]) -> None:
    """Without Retry-After a batch tries 3 times, not the 7 its notice said, and waits by its
    own backoff, not "as the service asks" (the CLI audit, session 51)."""
    stays = Busy(1000, retry_after=None)
    for url in serve_wsgi(stays):
        result = invoke("score", files["round"], "--server", url)
    notice, error = result.stderr.strip().splitlines()
    assert "(try 2 of at most 3)" in notice and "asks" not in notice, notice
    assert result.exit_code == 3 and "3 times" in error and stays.calls == 3
    asked = Busy(1000, retry_after="0")
    for url in serve_wsgi(asked):
        notice = invoke("score", files["round"], "--server", url).stderr.splitlines()[0]
    assert "as it asks (try 2 of at most 7)" in notice, notice
    for url in serve_wsgi(Busy(1000, retry_after="0")):  # (in --lang, as the summary around it)
        notice = invoke("score", files["round"], "--server", url, "--lang", "es").stderr.splitlines()[0]
    assert notice == (
        "rummikub: el servicio de reglas está ocupado (POST /v1/rounds/score respondió 503): se reintenta "
        "dentro de 0 s, como pide el servicio (intento 2 de 7 como máximo)"
    ), notice


def test_a_bad_server_url_is_told_before_any_input_is_read(tmp_path: Path) -> None:
    """The input was read first (all of stdin, every .jsonl file: an endless stdin never got to
    the URL's error; the CLI audit, session 51): here an empty folder's error came first."""
    result = invoke("score", str(tmp_path), "--server", "ftp://example.com")
    assert result.exit_code == 2 and "--server ftp://example.com" in one_line_error(result), result.output


def test_a_post_redirected_as_a_get_is_told_so(files: dict[str, str]) -> None:
    """requests follows a 301/302 with a GET, which the service answers 405: the line asked
    whether the URL given is the rules service (the CLI audit, session 51)."""
    real = create_app()

    def front(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ["PATH_INFO"].startswith("/old"):
            start_response("301 Moved Permanently", [("Location", environ["PATH_INFO"][4:])])
            return [b""]
        result: Iterable[bytes] = real(environ, start_response)
        return result

    for url in serve_wsgi(front):
        result = invoke("score", files["round"], "--server", f"{url}/old")
        line = one_line_error(result)
    assert result.exit_code == 2 and "was redirected (301) to " in line and "405" in line, result.output
    assert line.endswith("give --server the URL it redirects to"), line


def test_retry_after_as_an_http_date() -> None:
    from cli.remote import retry_after_seconds

    assert retry_after_seconds("120") == 120
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_what_the_engine_refuses_in_an_option_is_the_options(tmp_path: Path, live_server: str) -> None:
    """A rack beyond the tile set, an invalid table set, an empty rack given as words beside a
    file: the message named the file, with a pointer the file does not have (the CLI audit,
    session 47); in both modes alike."""
    position = {"table": [["R1", "R2", "R3"]], "players": [{"name": "A", "rack": ["R4"], "opened": True}]}
    path = tmp_path / "position.json"
    path.write_text(json.dumps(position), encoding="utf-8")
    cases = [
        (["suggest", str(path), "--rack", "J J J"], "rummikub: --rack: /2: the classic tile set has only 2 jokers"),
        (["suggest", str(path), "--table", "R1 R2"], "rummikub: --table: /0: the table holds an invalid set"),
        (["suggest", str(path), "--rack", ""], "rummikub: --rack: the rack is empty"),
        (
            ["suggest", "--table", "R5 R6 R7", "--rack", "R5 R5"],
            "rummikub: --rack: /1: the classic tile set has only 2",
        ),
    ]
    for args, start in cases:
        for result in _both(args, live_server):
            assert result.exit_code == 2, result.output
            assert one_line_error(result).startswith(start), one_line_error(result)

"""The CLI at the edges of the operating system (a CLI audit, session 55): a closed standard
output, a standard error that cannot be written, a terminal width of a few columns, a batch's
main process ended by SIGTERM."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine.generate import generate_game
from engine.rules import PRESETS

pytestmark = pytest.mark.cli

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}


def _cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], text=True, env=ENV, cwd=ROOT, timeout=60, **kwargs)  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "args",
    [("score", "examples/round.json"), ("score", "examples/round.json", "examples/round.json", "-f", "csv")],
)
def test_a_closed_standard_output_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    # (it was exit 0 with the answer dropped, or a traceback in a batch)
    done = _cli(*args, stdout=None, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "rummikub: cannot write the output: standard output is closed"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(("args", "code"), [(("validate", "X1"), 2), (("validate", "R1 R2 R3"), 0)])
def test_a_standard_error_that_cannot_be_written_keeps_the_exit_code(args: tuple[str, ...], code: int) -> None:
    with open("/dev/full", "w") as full:
        done = _cli(*args, stdout=subprocess.PIPE, stderr=full)
    assert done.returncode == code


@pytest.mark.parametrize("columns", ["0", "1", "5", "19"])
def test_a_few_columns_still_print_the_report(columns: str) -> None:
    # (COLUMNS=0 printed nothing, 1-9 blank cells)
    result = CliRunner().invoke(app, ["validate", "R5 R6 R7", "K1 K2"], env={"COLUMNS": columns, "NO_COLOR": "1"})
    assert result.exit_code == 1
    for words in ("R5 R6", "K1 K2", "SET_TOO", "1 of 2 sets"):
        assert words in result.stdout, result.stdout


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found.update(int(p) for p in (task / "children").read_text().split())
    return found


# --- a --server that misbehaves below HTTP's verdicts (a CLI audit, session 55) ---------------


def _raw_server(behave: str) -> tuple[str, threading.Event]:
    """A loopback server that answers every connection as ``behave`` says, for at most 30 s."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def answer(connection: socket.socket) -> None:
        deadline = time.monotonic() + 30
        with connection:
            connection.recv(65536)
            if behave == "drip":  # one byte a second: each read within requests' timeout
                connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                while not stop.is_set() and time.monotonic() < deadline:
                    connection.sendall(b"1\r\n \r\n")
                    time.sleep(0.5)
            elif behave == "drip with a length":  # each read waits for 64 KiB that never come
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
                while not stop.is_set() and time.monotonic() < deadline:
                    connection.sendall(b" ")
                    time.sleep(0.5)
            elif behave == "flood":  # an answer without end (here 8 MiB, then cut)
                connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"0," * 32768
                for _ in range(128):
                    connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            elif behave == "half":  # an answer cut short
                connection.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"valid": tr')
            elif behave == "not http":
                connection.sendall(b"HELLO THERE\r\n\r\n")
            elif behave == "silent":
                stop.wait(deadline - time.monotonic())
            elif behave == "redirect loop":
                port = listener.getsockname()[1]
                connection.sendall(
                    b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:%d/v1/loop\r\n"
                    b"Content-Length: 0\r\nConnection: close\r\n\r\n" % port
                )
                connection.shutdown(socket.SHUT_WR)  # (then read to the client's end: no reset)
                connection.settimeout(5)
                while connection.recv(65536):
                    pass
            elif behave == "throttled by a gateway":  # (its own JSON: no problem's detail or title)
                body = b'{"message": "Too Many Requests"}'
                connection.sendall(
                    b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3600\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
                )
            elif behave == "busy until a date":
                connection.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: Wed, 21 Oct 2099 07:28:00 GMT\r\n"
                    b"Content-Length: 0\r\n\r\n"
                )

    def accept() -> None:
        with listener:
            while not stop.is_set():
                try:
                    connection, _ = listener.accept()
                except TimeoutError:
                    continue
                threading.Thread(target=_quietly, args=(answer, connection), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}", stop


def _quietly(work: Callable[[socket.socket], None], connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        work(connection)


@pytest.mark.parametrize(
    ("behave", "words"),
    [
        ("drip", "timed out: its answer to POST /v1/sets/validate not read within 1 s"),
        ("drip with a length", "timed out: its answer to POST /v1/sets/validate not read within 1 s"),
        ("flood", "answered more than 1 MiB"),
        ("half", "broke off its answer to POST /v1/sets/validate"),
        ("not http", "did not answer in HTTP"),
    ],
)
def test_a_server_misbehaving_is_one_line_and_exit_3_in_bounded_time(
    behave: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cli.remote

    monkeypatch.setattr(cli.remote, "MAX_ANSWER_BYTES", 2**20)
    url, stop = _raw_server(behave)
    try:
        started = time.monotonic()
        result = CliRunner().invoke(app, ["validate", "R1 R2 R3", "--server", url, "--timeout", "1"])
        assert time.monotonic() - started < 15  # (the drip went on without end)
    finally:
        stop.set()
    assert result.exit_code == 3, result.output
    assert words in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_password_in_the_server_url_is_masked_in_errors() -> None:
    with socket.socket() as probe:  # (a port nothing listens on)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = CliRunner().invoke(app, ["validate", "R1", "--server", f"http://ann:s3cret@127.0.0.1:{port}"])
    assert result.exit_code == 3
    assert "s3cret" not in result.stderr and f"http://ann:***@127.0.0.1:{port}" in result.stderr


@pytest.mark.parametrize("server", ["http://ann:s3cret@127.0.0.1:99999", "http://ann:s3cret@[::1"])
def test_a_password_in_a_malformed_server_url_is_masked_too(server: str) -> None:
    # (the first one's words quote the URL; urlsplit refuses the second)
    result = CliRunner().invoke(app, ["validate", "R1", "--server", server])
    assert result.exit_code == 2
    assert "s3cret" not in result.stderr and "http://ann:***@" in result.stderr, result.stderr


def test_a_gateways_busy_answer_is_told_in_its_words() -> None:
    url, stop = _raw_server("throttled by a gateway")
    try:
        result = CliRunner().invoke(app, ["validate", "R1 R2 R3", "--server", url, "--timeout", "5"])
    finally:
        stop.set()
    assert result.exit_code == 3
    assert "(Too Many Requests)" in result.stderr and "bad request" not in result.stderr, result.stderr


def test_a_retry_after_date_is_told_as_a_date() -> None:
    url, stop = _raw_server("busy until a date")
    try:
        result = CliRunner().invoke(app, ["validate", "R1 R2 R3", "--server", url, "--timeout", "5"])
    finally:
        stop.set()
    assert result.exit_code == 3
    assert "it asks to retry after Wed, 21 Oct 2099 07:28:00 GMT; try again later" in result.stderr, result.stderr


def test_a_closed_standard_input_is_one_line_and_exit_2() -> None:
    done = _cli("validate", "-", stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(0))
    assert done.returncode == 2
    assert done.stderr.strip() == "rummikub: stdin: standard input is closed"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_walked_file_replaced_by_a_fifo_is_an_error_row_not_a_hang(tmp_path: Path) -> None:
    from cli.inputs import DocumentError, collect_sources, load_source

    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text((ROOT / "examples" / "round.json").read_text())
    sources = collect_sources([str(tmp_path)])
    (tmp_path / "b.json").unlink()
    os.mkfifo(tmp_path / "b.json")  # (after the walk: its opening would wait for a writer)
    assert load_source(sources[0])
    with pytest.raises(DocumentError, match="not a regular file"):
        load_source(sources[1])


def test_a_non_blocking_standard_output_loses_nothing(tmp_path: Path) -> None:
    # (a pipe left O_NONBLOCK by the parent dropped what a slow reader had no room for)
    import fcntl

    for seed in range(30):
        (tmp_path / f"g{seed}.json").write_text(json.dumps(generate_game(seed, 4, PRESETS["sabra"])))

    def non_blocking_stdout() -> None:
        fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)

    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "replay", str(tmp_path), "-f", "jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=ENV,
        cwd=ROOT,
        preexec_fn=non_blocking_stdout,
    )
    try:
        time.sleep(3)  # (a slow reader: the pipe fills)
        assert process.stdout is not None
        rows = process.stdout.read().splitlines()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert len(rows) == 30 and all(json.loads(row)["file"] for row in rows)


def _batch_over(url: str) -> list[str]:
    return ["-f", "csv", "-j", "2", "--server", url, "--timeout", "600"]


def test_ctrl_c_ends_a_batch_over_a_server_without_waiting_for_its_answers() -> None:
    # (the threads waited out their requests, up to --timeout: a day at most)
    url, stop = _raw_server("silent")
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "score", "examples/round.json", "examples/round.json", *_batch_over(url)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        # (as a program in the foreground gets it: the suite run as a background job, `make test &`,
        # passes SIGINT on ignored, and the batch rightly went on; a make test in session 56)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        cwd=ROOT,
    )
    try:
        time.sleep(2)  # (both requests in flight)
        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        _, err = process.communicate(timeout=30)
        assert time.monotonic() - started < 10
        assert process.returncode == 130 and err.strip().endswith("rummikub: aborted"), err
    finally:
        stop.set()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def test_ctrl_c_of_one_command_says_aborted(tmp_path: Path) -> None:
    # (Typer answers a Ctrl-C with exit 130 and said nothing, where a batch over --server said
    # "rummikub: aborted": the batch audit, session 60)
    game = (ROOT / "examples" / "games" / "game-1.json").read_text()
    for n in range(40):
        (tmp_path / f"g{n:03}.json").write_text(game)
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "replay", str(tmp_path), "--analyze", "-f", "jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # (a first row: the batch is under way)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 130 and err.strip().endswith("rummikub: aborted"), err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def test_a_non_blocking_standard_input_is_read_to_its_end() -> None:
    # (a pipe left O_NONBLOCK by the parent was read only as far as it was filled)
    import fcntl

    lines = (ROOT / "examples" / "rounds" / "night.jsonl").read_text().splitlines()

    def non_blocking_stdin() -> None:
        fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)

    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "score", "-", "-f", "jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
        cwd=ROOT,
        preexec_fn=non_blocking_stdin,
    )
    try:
        assert process.stdin is not None
        process.stdin.write(lines[0] + "\n")
        process.stdin.flush()
        time.sleep(1.5)  # (the pipe empty for a while)
        out, _ = process.communicate("\n".join(lines[1:]) + "\n", timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert len(out.splitlines()) == len(lines)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_signal_ends_a_batch_with_its_workers(stop: signal.Signals, tmp_path: Path) -> None:
    # (SIGTERM to the main process alone left its worker processes waiting forever, holding
    # the output pipe open; SIGKILL, the OOM killer's signal, too)
    for seed in range(60):
        (tmp_path / f"g{seed}.json").write_text(json.dumps(generate_game(seed, 4, PRESETS["sabra"])))
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "replay", str(tmp_path), "-f", "jsonl", "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=ENV,
        cwd=ROOT,
    )
    workers: set[int] = set()
    try:
        assert process.stdout is not None
        process.stdout.readline()  # (a first answer: the workers are running)
        deadline = time.monotonic() + 30
        while not workers and time.monotonic() < deadline:
            workers = _children(process.pid)
            time.sleep(0.05)
        assert workers
        process.send_signal(stop)
        process.stdout.read()  # (the end of the output: nothing holds the pipe open)
        assert process.wait(timeout=30) == (128 + stop if stop == signal.SIGTERM else -stop)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    finally:
        for pid in workers:  # (only the processes this test started)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_ends_a_batch_without_waiting_for_the_workers_chunks(stop: signal.Signals, tmp_path: Path) -> None:
    # (it waited for each worker to finish the chunk it held: 14-19 s of --analyze; each chunk
    # here is 10 games, several seconds; the docs audit, session 56; Ctrl-C waited as long, and
    # said nothing: the batch audit, session 60)
    game = (ROOT / "examples" / "games" / "game-1.json").read_text()
    for n in range(160):
        (tmp_path / f"g{n:03}.json").write_text(game)
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "replay", str(tmp_path), "--analyze", "-f", "jsonl", "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=ROOT,
        # (SIGINT as a program in the foreground gets it: see the --server test above)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()  # (the first chunk done: the workers are on their next ones)
        workers = _children(process.pid)
        process.send_signal(stop)
        signalled = time.monotonic()
        process.stdout.read()
        assert process.wait(timeout=60) == (130 if stop == signal.SIGINT else 128 + stop)
        assert time.monotonic() - signalled < 5
        if stop == signal.SIGINT:
            assert process.stderr.read().strip().endswith(b"rummikub: aborted")
        deadline = time.monotonic() + 10  # (they end within PARENT_CHECK_SECONDS of the batch)
        while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_standard_error_that_cannot_be_written_loses_no_row(tmp_path: Path) -> None:
    # (the batch stopped at its first error line, the rows after it lost)
    bad = tmp_path / "a.json"
    bad.write_text("{")
    for name in ("b.json", "c.json"):
        (tmp_path / name).write_text((ROOT / "examples" / "round.json").read_text())
    with open("/dev/full", "w") as full:
        done = _cli("score", str(tmp_path), "-f", "csv", stdout=subprocess.PIPE, stderr=full)
    assert len(done.stdout.splitlines()) == 1 + 3, done.stdout


def test_a_redirect_loop_a_proxy_and_tls_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    url, stop = _raw_server("redirect loop")
    plain, stop_plain = _raw_server("not http")
    try:
        looped = CliRunner().invoke(app, ["validate", "R1", "--server", url, "--timeout", "5"])
        tls = CliRunner().invoke(
            app, ["validate", "R1", "--server", plain.replace("http://", "https://"), "--timeout", "5"]
        )
    finally:
        stop.set()
        stop_plain.set()
    assert looped.exit_code == 3 and "redirected the request too many times" in looped.stderr, looped.stderr
    assert tls.exit_code == 3 and ": TLS failed (" in tls.stderr, tls.stderr
    with socket.socket() as probe:  # (a port nothing listens on: the proxy)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    proxied = CliRunner().invoke(app, ["validate", "R1", "--server", "http://192.0.2.1:8000", "--timeout", "5"])
    assert proxied.exit_code == 3 and "through the proxy set in the environment" in proxied.stderr, proxied.stderr


def test_out_of_memory_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import cli.inputs

    def no_memory(*args: object, **kwargs: object) -> object:
        raise MemoryError

    monkeypatch.setattr(cli.inputs, "parse_json", no_memory)
    document = tmp_path / "sets.json"
    document.write_text('[["R1", "R2", "R3"]]')
    result = CliRunner().invoke(app, ["validate", str(document)])
    assert result.exit_code == 3
    assert result.stderr.strip() == "rummikub: out of memory: this machine's memory (or its limit) cannot hold the work"

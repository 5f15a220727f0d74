"""``rummikub score|replay --scheduler``: the batch on a Dask cluster (issue #16).

One LocalCluster (2 worker processes, 1 thread each, no dashboard, loopback) serves the whole
module; the commands run in-process (CliRunner) with ``--scheduler tcp://<its address>`` and
must print exactly what ``--jobs 1`` prints. One test kills a worker mid-run; one starts a
scheduler and two workers with Dask's own ``dask scheduler`` / ``dask worker`` commands.
Everything listens on 127.0.0.1 and every wait is bounded.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

import dask
from distributed import Client, LocalCluster

from cli import cluster
from cli.batch import SCORE, Job
from cli.inputs import Source
from engine.generate import corrupt_game, generate_game
from tests.test_cli import ROUND, ROUND_2, invoke, one_line_error, write

pytestmark = [pytest.mark.cli, pytest.mark.dask]

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[tuple[LocalCluster, Client]]:
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            host="127.0.0.1",
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        ) as local,
        Client(local) as client,
    ):
        client.wait_for_workers(2, timeout=60)
        yield local, client


@pytest.fixture
def address(dask_cluster: tuple[LocalCluster, Client]) -> str:
    local, client = dask_cluster
    client.wait_for_workers(2, timeout=60)  # a worker killed by an earlier test is back
    return str(local.scheduler_address)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Rounds, matches and games, with bad documents of every kind: folders and JSON Lines."""
    root = tmp_path_factory.mktemp("mixed")
    rounds = root / "rounds"
    (rounds / "sub").mkdir(parents=True)
    for i in range(6):
        write(rounds / ("sub" if i % 2 else "") / f"r{i}.json", ROUND if i % 3 else ROUND_2)
    write(rounds / "match.json", {"rounds": [ROUND, ROUND_2, ROUND]})
    write(rounds / "two-winners.json", {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": []}]})
    write(rounds / "bad-tile.json", {"players": [{"name": "A", "rack": ["X1"]}, {"name": "B", "rack": []}]})
    (rounds / "truncated.json").write_text('{"players": [', encoding="utf-8")
    (rounds / "latin1.json").write_bytes(b'{"players": "\xe9"}')
    lines = [
        json.dumps(ROUND),
        "",
        "{not json",
        json.dumps({"rounds": [ROUND, ROUND_2]}),
        "[1, 2]",
        json.dumps(ROUND_2),
    ]
    (root / "night.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    games = root / "games"
    (games / "night-2").mkdir(parents=True)
    good = [generate_game(seed, 4) for seed in range(200, 210)]
    for i, record in enumerate(good):
        write(games / ("night-2" if i % 2 else "") / f"good-{i}.json", record)
    for i in (0, 3, 5):
        write(games / f"corrupt-{i}.json", corrupt_game(copy.deepcopy(good[i]), seed=i)[0])
    (games / "truncated.json").write_text('{"players": [', encoding="utf-8")
    write(games / "not-an-object.json", [1, 2, 3])
    (root / "games.jsonl").write_text("\n".join(json.dumps(g) for g in good[:4]) + "\n{\n", encoding="utf-8")
    return {
        "rounds": str(rounds),
        "jsonl": str(root / "night.jsonl"),
        "games": str(games),
        "games_jsonl": str(root / "games.jsonl"),
        "missing": str(root / "missing.json"),
    }


def _same_as_one_job(args: list[str], scheduler: str, *extra: str, stdin: str | None = None) -> str:
    one = invoke(*args, "--jobs", "1", input=stdin)
    on_dask = invoke(*args, "--scheduler", scheduler, *extra, input=stdin)
    assert on_dask.exit_code == one.exit_code
    assert on_dask.stdout == one.stdout  # byte-identical rows, same order
    assert on_dask.stderr == one.stderr  # error lines and the summary
    return one.stdout


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "table"])
def test_score_mixed_batch_is_byte_identical(address: str, mixed: dict[str, str], fmt: str) -> None:
    args = ["score", mixed["rounds"], mixed["jsonl"], mixed["missing"], "-f", fmt]
    out = _same_as_one_job(args, address, "--chunk-size", "3")
    assert out.strip()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_replay_mixed_batch_is_byte_identical(address: str, mixed: dict[str, str], fmt: str) -> None:
    args = ["replay", mixed["games"], mixed["games_jsonl"], mixed["missing"], "-f", fmt, "--continue"]
    out = _same_as_one_job(args, address)
    if fmt == "jsonl":
        statuses = [json.loads(line)["status"] for line in out.splitlines()]
        assert statuses.count("ok") == 14 and statuses.count("invalid") == 3 and statuses.count("error") == 4


def test_shared_files_and_stdin(address: str, mixed: dict[str, str]) -> None:
    """Workers reading the files themselves (a shared file system) give the same rows; stdin
    (JSON Lines) is always shipped."""
    _same_as_one_job(["replay", mixed["games"], "-f", "jsonl"], address, "--shared-files", "--chunk-size", "4")
    stdin = Path(mixed["jsonl"]).read_text(encoding="utf-8")
    _same_as_one_job(["score", "-", "-f", "csv"], address, "--shared-files", stdin=stdin)


def _killing_a_busy_worker_first(killed: list[int]) -> Any:
    """``cluster._result`` that first SIGKILLs a worker busy with a task of the run (its nanny
    starts another), found through the client the future belongs to."""
    real_result = cluster._result

    def result(future: Any, scheduler: str) -> Any:
        if not killed:
            client = future.client
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                busy = [w for w, keys in client.processing().items() if keys]
                if busy:
                    pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
                time.sleep(0.01)
        return real_result(future, scheduler)

    return result


@pytest.mark.parametrize("where", ["scheduler", "local"])
def test_a_killed_worker_loses_and_duplicates_no_row(
    address: str, mixed: dict[str, str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """On a running cluster, and on the command's own local cluster (whose client takes results
    straight from the workers)."""
    args = ["replay", mixed["games"], mixed["games"], mixed["games_jsonl"], "-f", "jsonl"]
    killed: list[int] = []
    monkeypatch.setattr(cluster, "_result", _killing_a_busy_worker_first(killed))
    extra = ("--jobs", "2") if where == "local" else ()
    out = _same_as_one_job(args, address if where == "scheduler" else "local", "--chunk-size", "2", *extra)
    assert killed, "no worker was busy: nothing was killed"
    assert len(out.splitlines()) == 2 * 15 + 5


def test_scheduler_local_starts_a_cluster(mixed: dict[str, str]) -> None:
    _same_as_one_job(["score", mixed["rounds"], mixed["jsonl"], "-f", "jsonl"], "local", "--jobs", "2")


def test_scheduler_local_in_a_fresh_process(mixed: dict[str, str]) -> None:
    """The command as users run it: a new process, where the local cluster's workers start
    from a forkserver (distributed not yet imported), gives the rows of ``--jobs 1``."""
    args = ["replay", mixed["games"], "-f", "jsonl"]
    one = invoke(*args, "--jobs", "1")
    done = subprocess.run(
        [sys.executable, "-m", "cli", *args, "--scheduler", "local", "--jobs", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == one.exit_code, done.stderr
    assert done.stdout == one.stdout


def test_a_local_cluster_reads_files_where_they_are(
    dask_cluster: tuple[LocalCluster, Client], mixed: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--scheduler local``: the workers run on this machine, so tasks carry paths, not bytes
    (the module's cluster stands in for the one ``local`` would start)."""
    local, _ = dask_cluster
    sent: list[object] = []
    real_item = cluster._item

    def item(source: Any, shared: bool) -> Any:
        made = real_item(source, shared)
        sent.append(made[1])
        return made

    monkeypatch.setattr(cluster, "_item", item)
    monkeypatch.setattr(cluster, "_connect", lambda stack, scheduler, workers: stack.enter_context(Client(local)))
    _same_as_one_job(["replay", mixed["games"], "-f", "jsonl"], "local")
    files = [data for data in sent if data is not None]
    assert files and all(isinstance(data, str) and os.path.isabs(data) for data in files)


def test_a_local_cluster_runs_with_its_own_settings() -> None:
    """``--scheduler local``: the workers get the quieter periodic checks, the client gathers
    results from the workers directly."""
    with ExitStack() as stack:
        client = cluster._connect(stack, cluster.LOCAL, 2)
        settings = client.run(lambda: {key: dask.config.get(key) for key in cluster.LOCAL_CLUSTER_CONFIG})
        assert client.direct_to_workers is True
    assert len(settings) == 2
    assert all(seen == cluster.LOCAL_CLUSTER_CONFIG for seen in settings.values())


# Run in a fresh interpreter: the forkserver a local cluster's workers fork from has the engine
# imported (the client has not), so a forked worker starts with it.
FORKSERVER_CHECK = """
import multiprocessing, sys
from cli import cluster
cluster.require_distributed("replay", local=True)
assert "service.operations" not in sys.modules, "the client imported the engine"
check = "import sys; sys.exit(0 if 'service.operations' in sys.modules else 3)"
child = multiprocessing.get_context("forkserver").Process(target=exec, args=(check,))
child.start()
child.join(60)
sys.exit(child.exitcode)
"""


def test_a_local_clusters_workers_fork_with_the_engine_imported() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FORKSERVER_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_dask_command_line_cluster(mixed: dict[str, str], tmp_path: Path) -> None:
    """`dask scheduler` and two `dask worker` processes on free loopback ports."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started: list[subprocess.Popen[bytes]] = []
    logs = [open(tmp_path / f"dask-{i}.log", "wb") for i in range(3)]  # noqa: SIM115
    try:
        started.append(
            subprocess.Popen(
                [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
                 "--dashboard-address", "127.0.0.1:0"],
                stdout=logs[0],
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        )  # fmt: skip
        for i in (1, 2):
            started.append(
                subprocess.Popen(
                    [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                     "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--name", f"w{i}",
                     "--death-timeout", "60"],
                    stdout=logs[i],
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,
                )
            )  # fmt: skip
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            assert len(client.scheduler_info()["workers"]) == 2
        _same_as_one_job(["replay", mixed["games"], mixed["games_jsonl"], "-f", "jsonl"], address)
        _same_as_one_job(["score", mixed["rounds"], mixed["jsonl"], "-f", "csv"], address, "--shared-files")
    finally:
        for process in reversed(started):  # only what this test started, each by its own group
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(started):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        for log in logs:
            log.close()


def test_a_task_returns_its_rows_as_one_pickled_value(tmp_path: Path) -> None:
    """One value per chunk: Dask would serialise a list of rows row by row."""
    path = write(tmp_path / "r.json", ROUND)
    items: list[cluster.Item] = [
        (Source(path, None), os.path.abspath(path)),
        (Source("night.jsonl", 3, text="{"), None),
    ]
    blob = cluster.run_chunk(Job(SCORE), "en", items)
    assert isinstance(blob, bytes)
    assert [(row.file, row.status) for row in pickle.loads(blob)] == [(path, "ok"), ("night.jsonl", "error")]


# --- chunks ---------------------------------------------------------------------------------------


def test_chunks_shrink_towards_the_end_so_workers_finish_together() -> None:
    sizes = list(cluster.chunk_sizes(4000, threads=2))
    assert sum(sizes) == 4000
    assert sizes[0] == cluster.MAX_CHUNK
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[-2] == cluster.MIN_CHUNK  # the last tasks are short (the very last holds the rest)
    assert list(cluster.chunk_sizes(10, threads=2)) == [1] * 10  # a small batch: a document per task
    assert list(cluster.chunk_sizes(10, threads=2, fixed=4)) == [4, 4, 2]  # --chunk-size


# --- usage errors --------------------------------------------------------------------------------


def test_without_the_extra_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed → ImportError
    result = invoke("score", write(tmp_path / "r.json", ROUND), "--scheduler", "local")
    assert result.exit_code == 2
    assert "pip install '.[dask]' in a checkout" in one_line_error(result)  # (not on PyPI: docs/cli.md)


def test_scheduler_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "r.json", ROUND)
    both = invoke("score", path, "--scheduler", "local", "--server", "http://127.0.0.1:9")
    assert both.exit_code == 2 and "--server" in one_line_error(both)
    bad = invoke("score", path, "--scheduler", "nowhere")
    assert bad.exit_code == 2 and "tcp://HOST:PORT" in one_line_error(bad)
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    down = invoke("score", path, path, "--scheduler", f"tcp://127.0.0.1:{_free_port()}")
    assert down.exit_code == 3 and "cannot reach the Dask scheduler" in one_line_error(down)


def test_a_scheduler_address_that_is_another_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An HTTP server at the address (the rules service's own port, say): its bytes read as
    Dask's frame lengths asked for exabytes, and the line said "Unable to allocate 3.07 EiB"
    (the docs audit, session 54). One line naming what is wrong, exit 3."""
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer_http() -> None:
        with listener:
            listener.settimeout(30)
            for _ in range(20):  # (bounded: the client's tries)
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    conn.settimeout(5)
                    try:
                        conn.recv(65536)
                        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\nConnection: close\r\n\r\nBad")
                    except OSError:
                        pass

    threading.Thread(target=answer_http, daemon=True).start()
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 5.0)
    monkeypatch.setattr(cluster, "HANDSHAKE_SECONDS", 1.0)
    path = write(tmp_path / "r.json", ROUND)
    result = invoke("score", path, path, "--scheduler", f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 3, result.output
    assert "did not answer as a Dask scheduler" in one_line_error(result)
    listener.close()


def test_a_scheduler_address_whose_server_waits_for_a_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that says nothing until asked (``python -m http.server``): Dask's client
    waited with it past its own timeout, over 200 s (the review of session 54). Now one line,
    exit 3, once ``HANDSHAKE_SECONDS`` pass with nothing sent."""
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    held: list[socket.socket] = []

    def accept_and_wait() -> None:
        listener.settimeout(30)
        for _ in range(5):  # (bounded)
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)  # (kept open, silent, until the test closes it)

    threading.Thread(target=accept_and_wait, daemon=True).start()
    monkeypatch.setattr(cluster, "HANDSHAKE_SECONDS", 1.0)
    path = write(tmp_path / "r.json", ROUND)
    started = time.monotonic()
    result = invoke("score", path, path, "--scheduler", f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 3, result.output
    assert "did not answer as a Dask scheduler" in one_line_error(result)
    assert time.monotonic() - started < 20
    for conn in held:
        conn.close()
    listener.close()


# --- session 52 (h5): inputs, limits and failures of the cluster path ------------------------------


def test_the_clients_limits_apply_on_the_workers(address: str, mixed: dict[str, str]) -> None:
    """``RUMMIKUB_*`` limits of the command (as ``--jobs 1`` applies them) hold on workers whose
    environment does not set them (the module's cluster started before); a bad value is one
    line before any document is read (it made each document a rejected row), in every mode."""
    args = ["replay", mixed["games"], mixed["games_jsonl"], "-f", "csv"]
    for env in ({"RUMMIKUB_MAX_TURNS": "5"}, {"RUMMIKUB_MAX_TILES": "abc"}):
        one = invoke(*args, "--jobs", "1", env=env)
        on_dask = invoke(*args, "--scheduler", address, env=env)
        assert "RUMMIKUB_MAX_T" in one.stdout + one.stderr
        assert (on_dask.exit_code, on_dask.stdout, on_dask.stderr) == (one.exit_code, one.stdout, one.stderr)
    for extra in (["--jobs", "1"], ["--jobs", "2"], ["--scheduler", address]):
        bad = invoke(*args, *extra, env={"RUMMIKUB_MAX_TILES": "abc"})
        assert (bad.exit_code, bad.stdout) == (2, "")
        assert one_line_error(bad) == "rummikub: RUMMIKUB_MAX_TILES must be a positive integer, got 'abc'"


def _pipe_holding(doc: Any) -> str:
    """``/dev/fd/N`` of a pipe holding ``doc``, as ``<(command)`` names one (open in this
    process only)."""
    read, write_end = os.pipe()
    os.write(write_end, json.dumps(doc).encode())
    os.close(write_end)
    return f"/dev/fd/{read}"


def test_a_pipe_named_on_the_command_line_is_read_by_the_client(address: str, tmp_path: Path) -> None:
    """``<(command)`` with workers that read files themselves (``--shared-files``, a local
    cluster): the client reads the pipe (a worker opening /dev/fd/N finds its own descriptors)."""
    other = write(tmp_path / "r2.json", ROUND_2)
    pipes = [_pipe_holding(ROUND) for _ in range(2)]
    try:
        one = invoke("score", pipes[0], other, "-f", "csv", "--jobs", "1")
        on_dask = invoke("score", pipes[1], other, "-f", "csv", "--scheduler", address, "--shared-files")
    finally:
        for pipe in pipes:
            os.close(int(pipe.rsplit("/", 1)[1]))
    assert one.exit_code == 0 and ",round,ok," in one.stdout.splitlines()[1]
    assert on_dask.exit_code == 0, on_dask.stdout + on_dask.stderr
    assert on_dask.stdout == one.stdout.replace(pipes[0], pipes[1])


def test_a_deeply_nested_stdin_document_is_a_row(address: str, tmp_path: Path) -> None:
    """stdin's one document, nested deep, sent to workers (``--jobs 2``, a cluster): its row,
    not a crash pickling its parsed value."""
    other = write(tmp_path / "r.json", ROUND)
    deep = '{"players": ' + "[" * 700 + "]" * 700 + "}"
    one = invoke("score", "-", other, "-f", "csv", "--jobs", "1", input=deep)
    assert one.exit_code == 2 and one.stdout.splitlines()[1].startswith("stdin,,round,error,")
    for extra in (["--jobs", "2"], ["--scheduler", address]):
        sent = invoke("score", "-", other, "-f", "csv", *extra, input=deep)
        assert (sent.exit_code, sent.stdout, sent.stderr) == (one.exit_code, one.stdout, one.stderr)


def test_a_scheduler_address_dask_cannot_use_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tls://`` without Dask's TLS settings: exit 3 and one line, not a traceback and exit 1."""
    path = write(tmp_path / "r.json", ROUND)
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    down = invoke("score", path, path, "--scheduler", f"tls://127.0.0.1:{_free_port()}")
    assert down.exit_code == 3 and "cannot reach the Dask scheduler" in one_line_error(down)


def test_large_shipped_chunks_print_no_dask_warning(address: str, tmp_path: Path) -> None:
    """Chunks carry their documents' bytes by design: no "Sending large graph" warning."""
    import warnings

    padded = json.dumps(ROUND) + " " * (4 * 1024 * 1024)  # 4 MB each, a small body
    paths = []
    for i in range(3):
        (tmp_path / f"p{i}.json").write_text(padded, encoding="utf-8")
        paths.append(str(tmp_path / f"p{i}.json"))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _same_as_one_job(["score", *paths, "-f", "csv"], address, "--chunk-size", "3")
    assert not [w for w in seen if "large graph" in str(w.message)]


def test_a_cluster_left_without_workers_stops_the_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker gone mid-run (none comes back): exit 3 after WORKER_WAIT_SECONDS, as a
    scheduler without workers at the start, not a batch waiting forever."""
    import threading

    paths = [write(tmp_path / f"r{i}.json", ROUND) for i in range(12)]
    local = LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        dashboard_address=None,
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},  # (in-process: inproc://)
    )
    client = Client(local)
    monkeypatch.setattr(cluster, "_connect", lambda stack, scheduler, workers: client)
    monkeypatch.setattr(cluster, "POLL_SECONDS", 0.2, raising=False)
    monkeypatch.setattr(cluster, "WORKER_WAIT_SECONDS", 1.0)
    real_result = cluster._result
    gone: list[bool] = []

    def result(future: Any, scheduler: str) -> Any:
        if not gone:
            local.scale(0)
            deadline = time.monotonic() + 20
            while client.nthreads() and time.monotonic() < deadline:
                time.sleep(0.05)
            gone.append(True)
        return real_result(future, scheduler)

    monkeypatch.setattr(cluster, "_result", result)
    done: list[Any] = []
    runner = threading.Thread(
        target=lambda: done.append(invoke("score", *paths, "-f", "csv", "--scheduler", "local", "--chunk-size", "1")),
        daemon=True,
    )
    try:
        runner.start()
        runner.join(30)
        assert not runner.is_alive(), "the batch still waits for a worker that never comes"
    finally:
        client.close()
        local.close()
        runner.join(30)
    assert done and done[0].exit_code == 3
    assert "has no workers left" in done[0].stderr

"""Batch scoring and replay on a Dask cluster (``--scheduler tcp://HOST:8786`` or ``local``).

The client (this process) collects the sources as for ``--jobs``, cuts them into chunks of
many documents, and submits one task per chunk; each task runs :func:`run_chunk` on a worker,
which processes its documents exactly as ``--jobs 1`` does (:func:`cli.batch.process` with
the in-process engine) and returns their rows (pickled together). The client waits for the
chunks **in input order** and writes every row itself, so the output is byte-identical to
``--jobs 1``.

- Only a bounded window of chunks is in flight (a few per worker thread): memory stays flat
  for millions of documents, and the files are read as their chunks are submitted.
- Whole-file documents sent to a remote scheduler are **shipped** by default: the client reads
  each file's bytes and sends them with the chunk, so workers need no access to the client's
  files. With ``shared`` the chunk carries the file's absolute path instead and the worker reads
  it there (a shared file system: less traffic through the client). A ``local`` cluster's
  workers run on this machine, so they always read the files where they are. JSON Lines lines
  and stdin are always shipped.
- A document that cannot be read or that the operation rejects is an error row, as locally; a
  crash of the engine on one document is a ``failed`` row. A task never raises for a document.
- A worker lost mid-run: the scheduler re-runs its tasks elsewhere (tasks are pure); the client
  takes each chunk's result once, so no row is lost or written twice.

``distributed`` is imported only here and only when ``--scheduler`` is used: it is the
optional ``dask`` extra (``pip install 'rummikub-rules[dask]'``).
"""

from __future__ import annotations

import os
import pickle
import socket
import stat
import sys
import time
import urllib.parse
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING

from cli.backend import limit_settings
from cli.batch import Job, Row, process_local, sendable
from cli.errors import EXIT_INPUT, EXIT_SERVICE, CliError
from cli.inputs import DocumentError, Source, decode, read_bytes

if TYPE_CHECKING:
    from distributed import Client, Future

LOCAL = "local"
INSTALL_HINT = "pip install '.[dask]' in a checkout (or 'rummikub-rules[dask]' from a wheel)"
MAX_CHUNK = 256  # documents per task at most
MIN_CHUNK = 8  # documents per task at least (but the last), as the chunks shrink towards the end
CHUNKS_PER_THREAD = 4  # chunks in flight per worker thread (keeps every worker busy between results)
WORKER_WAIT_SECONDS = 60.0  # how long to wait for a first worker to join a remote scheduler (and for one
# to come back when every worker has left mid-run)
POLL_SECONDS = 5.0  # while waiting for a chunk: how often the scheduler is asked whether it has workers
HANDSHAKE_SECONDS = 10.0  # how long a tcp:// scheduler may take to send its handshake (``_check_it_speaks_first``)
CONNECT_SECONDS = 10.0
MP_METHOD = "distributed.worker.multiprocessing-method"
PRE_SPAWN_ENVIRON = "distributed.nanny.pre-spawn-environ"
# What a local cluster's forkserver imports before forking workers: Dask, the CLI (a worker
# started from the ``rummikub`` script imports it again as its main module) and the engine.
FORKSERVER_PRELOAD = ["distributed", "cli.main", "service.operations"]
# A local cluster is this batch's alone and no dashboard shows it. Dask's defaults wake every
# server's event loop 50 times a second (the tick), sample the system every 0.5 s and the
# memory every 0.1 s: measured idle, 93 ms of CPU a second across the client and 2 workers,
# 20 ms with these. The workers' statistical profiler (10 ms samples) is off too.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "10s",
    "distributed.worker.memory.monitor-interval": "1s",
}

# A chunk's item: the source, and what the worker needs to read it — the file's bytes
# (shipped), its absolute path (read where it is: a shared file system) or None (the source
# already holds its text, or its error).
Item = tuple[Source, bytes | str | None]


def require_distributed(command: str, *, local: bool = False) -> None:
    """Exit 2 with the install command when the ``dask`` extra is missing. ``local``: a local
    cluster will start, so its workers' forkserver starts now (:func:`_start_forkserver`)."""
    try:
        import dask

        if "distributed" not in sys.modules and dask.config.get(MP_METHOD, None) is None:
            # A local cluster's worker processes forked from a server that has imported Dask
            # once start in about half the time of freshly spawned interpreters (Dask's
            # default), which every batch pays. Read when distributed is first imported.
            dask.config.set({MP_METHOD: "forkserver"})
        import distributed  # noqa: F401
    except ImportError:
        raise CliError(f"{command} --scheduler needs Dask distributed: {INSTALL_HINT}", EXIT_INPUT) from None
    if local and dask.config.get(MP_METHOD) == "forkserver":
        _start_forkserver()


def _start_forkserver() -> None:
    """Start the server the local workers fork from, with the engine imported in it.

    Dask would start it with Dask alone imported; every worker then imported the engine on its
    first document (about 1 CPU s each, where ``--jobs`` imports it once before forking). Started
    here, it imports them while this process reads its inputs and starts the scheduler. It gets
    the environment Dask gives its workers before they start (Dask's config, read once
    distributed is imported)."""
    import multiprocessing
    import multiprocessing.forkserver

    import dask

    environ: dict[str, object] = dask.config.get(PRE_SPAWN_ENVIRON)
    os.environ.update({name: str(value) for name, value in environ.items() if value is not None})
    multiprocessing.set_forkserver_preload(FORKSERVER_PRELOAD)
    multiprocessing.forkserver.ensure_running()


# --- on the worker ---------------------------------------------------------------------------


def _materialise(source: Source, data: bytes | str | None) -> Source:
    """The source as the worker processes it: text decoded here, or the error of reading it."""
    if data is None:
        return source
    try:
        raw = read_bytes(data) if isinstance(data, str) else data
        return Source(source.file, source.line, text=decode(raw))
    except DocumentError as exc:
        return Source(source.file, source.line, error=exc.message)


def run_chunk(job: Job, lang: str, items: list[Item], environ: dict[str, str] | None = None) -> bytes:
    """A task: every document of a chunk, one row each, in order (runs on a worker), pickled
    as one value. Dask serialises a returned list element by element (a header and a frame per
    row): measured on 256 round files, 89 µs a row to send and 39 to receive, against 17 and 13
    for one pickle. ``environ``: the client's ``RUMMIKUB_*`` limit variables, applied whatever
    the worker's own environment holds (None: the worker's)."""
    rows = [process_local(job, lang, _materialise(source, data), environ) for source, data in items]
    return pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)


# --- on the client ---------------------------------------------------------------------------


def _item(source: Source, shared: bool) -> Item:
    """What is sent for a source: whole files are read here (shipped) or named by path."""
    if source.text is not None or source.error is not None:
        return sendable(source), None
    if shared and _regular_file(source.file):
        return source, os.path.abspath(source.file)
    try:
        return source, read_bytes(source.file, regular_only=source.walked)
    except DocumentError as exc:
        return Source(source.file, source.line, error=exc.message), None


def _regular_file(path: str) -> bool:
    """Whether a worker may open ``path`` itself: a regular file. Anything else is read here:
    a pipe such as ``<(command)``'s ``/dev/fd/63`` is this process's alone (a worker opening that
    name finds its own descriptor, or none)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False  # (read here, its error row says why)


def chunk_sizes(documents: int, threads: int, fixed: int = 0) -> Iterator[int]:
    """Documents per task, in order, summing to ``documents``: ``fixed`` each, or (automatic)
    MAX_CHUNK while much is left (per-task overhead is ~1 ms), then a share of what is left per
    worker thread, down to MIN_CHUNK, so that the last tasks are short and the workers finish
    together (equal chunks of 250 games left one worker idle up to a second at the end)."""
    shares = max(1, threads * CHUNKS_PER_THREAD)
    smallest = max(1, min(MIN_CHUNK, documents // shares))  # a small batch: a document per task
    left = documents
    while left > 0:
        size = fixed or min(MAX_CHUNK, max(smallest, left // shares))
        size = min(size, left)
        yield size
        left -= size


def _chunks(sources: Sequence[Source], sizes: Iterator[int]) -> Iterator[Sequence[Source]]:
    start = 0
    for size in sizes:
        yield sources[start : start + size]
        start += size


def _connect(stack: ExitStack, scheduler: str, workers: int) -> Client:
    """A client of the cluster at ``scheduler``, or of a LocalCluster started here."""
    import logging

    from distributed import Client, LocalCluster

    # Dask's own log lines (worker restarts, closing comms) would mix with the CLI's stderr.
    # distributed.client logs a lost scheduler's reconnection at ERROR, with its traceback: the
    # batch says so itself in one line (exit 3).
    for name in ("distributed", "distributed.nanny", "distributed.worker", "distributed.scheduler"):
        logging.getLogger(name).setLevel(logging.ERROR)
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    if scheduler == LOCAL:
        import dask

        stack.enter_context(dask.config.set(LOCAL_CLUSTER_CONFIG))
        cluster = stack.enter_context(
            LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                host="127.0.0.1",
                silence_logs=logging.ERROR,  # (the workers' warnings, e.g. tasks cancelled by Ctrl-C)
                # No dashboard; the scheduler's small HTTP server on a free loopback port
                # (by default it tries 8787 and warns on stderr when that is taken).
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            )
        )
        # Results straight from the workers, not through the scheduler (in this process too).
        local_client: Client = stack.enter_context(Client(cluster, direct_to_workers=True))  # type: ignore[no-untyped-call]
        return local_client
    _check_it_speaks_first(scheduler)
    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS)  # type: ignore[no-untyped-call]
    except MemoryError:  # (another server's bytes read as Dask's frame lengths: "allocate 3.07 EiB")
        raise _not_a_scheduler(scheduler) from None
    except Exception as exc:  # (OSError, TimeoutError, ValueError; TypeError for tls:// without TLS settings...)
        raise CliError(f"cannot reach the Dask scheduler at {scheduler} ({_one_line(exc)})", EXIT_SERVICE) from None
    stack.enter_context(client)
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except TimeoutError:
        raise CliError(
            f"the Dask scheduler at {scheduler} has no workers (waited {WORKER_WAIT_SECONDS:.0f} s)", EXIT_SERVICE
        ) from None
    return client


def _check_it_speaks_first(scheduler: str) -> None:
    """A Dask scheduler sends its handshake at once on a new connection; a server of another
    kind (an HTTP one, say) waits for a request, and Dask's client waited with it without end,
    past its own timeout (the review of session 54: over 200 s at ``python -m http.server``).
    Checked on a connection of its own, for ``tcp://`` addresses; one that cannot be reached
    is left to Dask's client to report."""
    parts = urllib.parse.urlsplit(scheduler)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    if parts.scheme != "tcp" or host is None or port is None:
        return
    try:
        probe = socket.create_connection((host, port), timeout=CONNECT_SECONDS)
    except OSError:
        return
    with probe:
        probe.settimeout(HANDSHAKE_SECONDS)
        try:
            probe.recv(1)
        except TimeoutError:
            raise _not_a_scheduler(scheduler, f"nothing came in {HANDSHAKE_SECONDS:.0f} s") from None
        except OSError:
            return


def _not_a_scheduler(scheduler: str, why: str = "") -> CliError:
    """The one line for an address whose server is no Dask scheduler (exit 3)."""
    return CliError(
        f"{scheduler} did not answer as a Dask scheduler does (is it one?{' ' + why if why else ''})", EXIT_SERVICE
    )


def run_rows_dask(
    job: Job,
    lang: str,
    sources: Sequence[Source],
    scheduler: str,
    on_row: Callable[[Row], None],
    *,
    workers: int = 2,
    shared_files: bool = False,
    chunk: int = 0,
) -> None:
    """Process every source on a Dask cluster, calling ``on_row`` in input order.
    ``workers``: LocalCluster size for ``scheduler == "local"``; ``chunk``: documents per task
    (0: automatic, :func:`chunk_sizes`); ``shared_files``: workers read whole files by path
    (always for a local cluster, whose workers see this machine's files)."""
    shared_files = shared_files or scheduler == LOCAL
    environ = limit_settings()  # (this process's limits, as --jobs applies them)
    with ExitStack() as stack:
        import dask

        # Chunks carry their documents' bytes by design: Dask's warning about a large graph
        # (above 10 MB: 256 records of 40 KB) is not the user's to act on.
        stack.enter_context(dask.config.set({"distributed.admin.large-graph-warning-threshold": "1TiB"}))
        client = _connect(stack, scheduler, workers)
        nthreads: dict[str, int] = client.nthreads()  # type: ignore[no-untyped-call]
        threads = max(1, sum(nthreads.values()))
        window = max(2, threads * CHUNKS_PER_THREAD)
        run = uuid.uuid4().hex[:12]
        pending: deque[Future[bytes]] = deque()
        chunks = enumerate(_chunks(sources, chunk_sizes(len(sources), threads, chunk)))

        def submit_next() -> bool:
            for index, part in chunks:
                items = [_item(source, shared_files) for source in part]
                key = f"rummikub-{job.command}-{run}-{index}"
                pending.append(client.submit(run_chunk, job, lang, items, environ, key=key, pure=False, retries=2))
                return True
            return False

        try:
            while len(pending) < window and submit_next():
                pass
            while pending:
                rows = _result(pending.popleft(), scheduler)
                submit_next()
                for row in rows:
                    on_row(row)
        finally:
            for future in pending:
                future.cancel()  # type: ignore[no-untyped-call]


def _result(future: Future[bytes], scheduler: str) -> list[Row]:
    from distributed import KilledWorker

    try:
        rows: list[Row] = pickle.loads(_wait(future, scheduler))
        return rows
    except KilledWorker as exc:
        raise CliError(f"Dask workers at {scheduler} kept dying on one chunk ({exc})", EXIT_SERVICE) from None
    except CliError:
        raise
    except Exception as exc:  # the cluster failed (a document never raises in a task)
        raise CliError(
            f"the Dask cluster at {scheduler} failed: {type(exc).__name__}: {_one_line(exc)}", EXIT_SERVICE
        ) from None


def _wait(future: Future[bytes], scheduler: str) -> bytes:
    """A chunk's result. A scheduler left without any worker (the last one died or was stopped
    mid-run) would keep the chunk waiting forever: after WORKER_WAIT_SECONDS without one, as at
    the start, the batch stops (exit 3)."""
    alone_since: float | None = None
    while True:
        try:
            return future.result(timeout=POLL_SECONDS)
        except TimeoutError:
            if future.client.nthreads():
                alone_since = None
                continue
            now = time.monotonic()
            alone_since = now if alone_since is None else alone_since
            if now - alone_since >= WORKER_WAIT_SECONDS:
                raise CliError(
                    f"the Dask scheduler at {scheduler} has no workers left (waited {WORKER_WAIT_SECONDS:.0f} s)",
                    EXIT_SERVICE,
                ) from None


def _one_line(exc: BaseException) -> str:
    """An exception's words on one line (Dask's span several)."""
    return " ".join(str(exc).split())

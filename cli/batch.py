"""Batch scoring and replay: many documents, in parallel, one output row per document.

A document is read, sent to its operation (in-process or over HTTP) and turned into a row;
a document that cannot be read or that the operation rejects becomes an error row with its
``file`` and ``line``, and the batch goes on. Local batches run in processes
(``ProcessPoolExecutor``, chunked); remote batches in threads (the work is the server's).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NoReturn, TextIO

from rich import box
from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from cli.backend import Backend, LocalBackend
from cli.errors import EXIT_INPUT, EXIT_INVALID, EXIT_OK, EXIT_SERVICE, CliError
from cli.inputs import DocumentError, Source, load_source, with_rules
from cli.render import printable
from cli.render import words as words_in
from engine.errors import InputError
from engine.rules import resolve_rules

SCORE = "score"
REPLAY = "replay"
FORMATS = ("table", "jsonl", "csv")
CSV_COLUMNS = ("file", "line", "kind", "status", "winner", "scores", "first_invalid_turn", "error")

OK = "ok"
INVALID = "invalid"
ERROR = "error"  # an unreadable document, or one the operation rejected (exit 2)
FAILED = "failed"  # the in-process engine raised (a bug; exit 3)


@dataclass(frozen=True, slots=True)
class Job:
    """What to do with each document (picklable, sent to worker processes)."""

    command: str  # SCORE | REPLAY
    rules: Any = None
    continue_on_error: bool = False
    analyze: bool = False
    jsonl: bool = True  # serialise each row's JSON Lines text where it is processed
    keep_result: bool = False  # keep each row's answer (the HTML report draws from it)


@dataclass(slots=True)
class Row:
    """One document's outcome. ``scores`` are (name, points) pairs: a round's scores, a
    match's totals or a replayed game's round scores."""

    file: str
    line: int | None
    kind: str
    status: str
    result: dict[str, Any] | None = None
    error: str | None = None
    winner: str | None = None
    scores: list[tuple[str, int | float]] = field(default_factory=list)
    first_invalid_turn: int | None = None
    note: str | None = None
    csv_note: str | None = None  # the note as a CSV cell: "CODE at /pointer: message" in any --lang
    code: str | None = None
    jsonl: str | None = None
    rejected: bool = False  # an ERROR row whose document was read but refused by the operation
    errors: list[Any] | None = None  # a rejected document's every error (the problem's ``errors``)
    scoring: str = "zero_sum"  # the rules' ``scoring``: how its scores add up in the summary

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "line": self.line, "kind": self.kind, "status": self.status}
        if self.error is not None:
            out["error"] = self.error
            if self.errors is not None:
                out["errors"] = self.errors
        else:
            out["result"] = self.result
        return out

    def to_csv(self) -> list[str]:
        return [
            self.file,
            "" if self.line is None else str(self.line),
            self.kind,
            self.status,
            self.winner or "",
            ";".join(f"{name}={_num(points)}" for name, points in self.scores),
            "" if self.first_invalid_turn is None else str(self.first_invalid_turn),
            self.error or self.csv_note or self.note or "",
        ]


def _num(value: int | float) -> str:
    return f"{value:.10g}" if isinstance(value, float) else str(value)


# --- one document ----------------------------------------------------------------------------


def operation_for(command: str, doc: Any) -> tuple[str, str]:
    """(operation, kind) for a document: a ``{"rounds": [...]}`` document is a match."""
    if command == REPLAY:
        return "games/replay", "game"
    if isinstance(doc, dict) and "rounds" in doc:
        return "matches/score", "match"
    return "rounds/score", "round"


def request_body(job: Job, doc: Any) -> Any:
    """The request for a document: ``--rules`` overrides, replay options added."""
    body = with_rules(doc, job.rules)
    if job.command == REPLAY and isinstance(body, dict):
        if job.continue_on_error:
            body = {**body, "continue_on_error": True}
        if job.analyze:
            body = {**body, "analyze": True}
    return body


def _summarise(row: Row, result: dict[str, Any], lang: str) -> None:
    if row.kind == "match":
        row.scores = [(str(t.get("name")), t.get("total", 0)) for t in result.get("totals") or []]
        row.winner = result.get("winner") or ", ".join(result.get("winners") or [])
        return
    round_result = result.get("result") if row.kind == "game" else result
    if isinstance(round_result, dict):
        row.scores = [(str(s.get("name")), s.get("score", 0)) for s in round_result.get("scores") or []]
        row.winner = round_result.get("winner") or ", ".join(round_result.get("winners") or [])
    if row.kind == "game":
        row.first_invalid_turn = result.get("first_invalid_turn")
        if not result.get("valid"):
            row.note, row.code = first_violation(result, words_in(lang)["at"])
            row.csv_note = first_violation(result)[0]  # (the report words "at" in --lang: "CODE en /turns/6")


def first_violation(result: dict[str, Any], at: str = " at {at}") -> tuple[str | None, str | None]:
    """The first violation of a replay (game-level ones first): a full line and its code;
    ``at`` words the pointer (``cli.render.words``'s ``at`` for a report in another language)."""
    found = list(result.get("violations") or [])
    for turn in result.get("turns") or []:
        found.extend(turn.get("violations") or [])
    if not found:
        return None, None
    v = found[0]
    return f"{v.get('code')}{at.format(at=v.get('at'))}: {v.get('message')}", str(v.get("code"))


def _scoring(body: Any) -> str:
    """The ``scoring`` of a body's rules (read, so valid): a match's first round's own rules
    when it has them (they override the match's, and matches/score refuses rounds that mix
    scorings)."""
    if not isinstance(body, dict):
        return "zero_sum"
    rules = body.get("rules")
    rounds = body.get("rounds")
    if isinstance(rounds, list) and rounds and isinstance(rounds[0], dict) and rounds[0].get("rules") is not None:
        rules = rounds[0]["rules"]
    try:
        return resolve_rules(rules).scoring
    except InputError:
        return "zero_sum"


def process(job: Job, backend: Backend, source: Source) -> Row:
    """Read, send and summarise one document. Raises CliError only when the service is
    unreachable or failing (the batch cannot go on)."""
    kind = "game" if job.command == REPLAY else "document"
    try:
        doc = load_source(source)
    except DocumentError as exc:
        return Row(source.file, source.line, kind, ERROR, error=exc.message)
    operation, kind = operation_for(job.command, doc)
    try:
        body = request_body(job, doc)
        result = backend.call(operation, body)
    except CliError as exc:
        if exc.stops:
            raise
        errors = exc.problem.get("errors") if exc.problem is not None else None
        row = Row(source.file, source.line, kind, ERROR, error=exc.message, rejected=True)
        row.errors = list(errors) if isinstance(errors, list) else None
        return row
    except Exception as exc:  # the in-process engine crashed: report it, keep going
        return Row(source.file, source.line, kind, FAILED, error=f"internal error: {type(exc).__name__}: {exc}")
    status = INVALID if result.get("valid") is False else OK
    row = Row(source.file, source.line, kind, status, result=result, scoring=_scoring(body))
    _summarise(row, result, backend.lang)
    if job.jsonl:
        # Serialised here, in the worker: a string crosses the process boundary cheaply.
        row.jsonl = json.dumps(row.to_json(), ensure_ascii=False)
    if not job.keep_result:
        row.result = None
    return row


_WORKER_BACKEND: dict[tuple[str, tuple[tuple[str, str], ...] | None], LocalBackend] = {}


def process_local(job: Job, lang: str, source: Source, environ: dict[str, str] | None = None) -> Row:
    """Worker-process entry point: one in-process back end per process, language and limits
    (``environ``: the ``RUMMIKUB_*`` limit variables to apply, None for this process's own)."""
    key = (lang, None if environ is None else tuple(sorted(environ.items())))
    backend = _WORKER_BACKEND.get(key)
    if backend is None:
        backend = _WORKER_BACKEND[key] = LocalBackend(lang, environ)
    return process(job, backend, source)


def sendable(source: Source) -> Source:
    """A source as sent to another process: stdin's document as its text, not as the value
    already parsed (pickling a deeply nested one raised RecursionError: the batch crashed)."""
    return source if source.parsed is None else dataclasses.replace(source, parsed=None)


def run_rows(job: Job, backend: Backend, sources: Sequence[Source], jobs: int, on_row: Callable[[Row], None]) -> None:
    """Process every source, calling ``on_row`` in input order. ``jobs`` (``--jobs``) > 1 runs
    processes for the in-process back end and threads for a remote one (``workers_for``)."""
    jobs = workers_for(jobs, len(sources), isinstance(backend, LocalBackend))
    if jobs <= 1:
        for source in sources:
            on_row(process(job, backend, source))
        return
    executor: Executor
    rows: Iterator[Row]
    local = isinstance(backend, LocalBackend)
    if local:
        import service.operations  # noqa: F401  (imported once here, inherited by forked workers)

        executor = ProcessPoolExecutor(max_workers=jobs, initializer=_watch_parent, initargs=(os.getpid(),))
    else:
        executor = ThreadPoolExecutor(max_workers=jobs)
    try:  # (from the first work handed out: a Ctrl-C just after it waited for the threads' answers)
        if local:
            chunksize = max(1, min(64, len(sources) // (jobs * 8)))
            sent = (sendable(source) for source in sources)
            rows = executor.map(partial(process_local, job, backend.lang), sent, chunksize=chunksize)
        else:
            rows = executor.map(partial(process, job, backend), sources)
        with _stopped_by_signals():
            for row in rows:
                on_row(row)
    except BrokenExecutor as exc:  # a worker process killed (the OOM killer...): the rows after it are lost
        executor.shutdown(wait=False, cancel_futures=True)
        raise CliError(f"a worker process died: {exc}", EXIT_SERVICE) from None
    except BaseException as exc:
        executor.shutdown(wait=False, cancel_futures=True)
        # (a worker process left alone ends within PARENT_CHECK_SECONDS: without os._exit, the
        # exit waited for each to finish its chunk, 14-19 s of --analyze; a docs audit, session 56)
        threads = isinstance(executor, ThreadPoolExecutor)
        # (a Ctrl-C of a local batch waited too, 5-80 s of --analyze: the batch audit, session 60)
        if isinstance(exc, _Stopped | KeyboardInterrupt) or (threads and isinstance(exc, SystemExit)):
            exit_now(exc)
        if not threads:
            WORKERS_LEFT_RUNNING.set(True)  # (their chunks unwanted: ``cli.main`` exits at once)
        raise
    executor.shutdown(wait=True)


WORKERS_LEFT_RUNNING: ContextVar[bool] = ContextVar("workers_left_running", default=False)
"""Whether a batch stopped by an error left worker processes on chunks whose rows nobody wants:
the interpreter's exit would wait for each (an output that cannot be written waited 80 s of
``--analyze`` chunks; the batch audit, session 60), so ``cli.main`` leaves through
:func:`exit_now` once its one line is told (and sets it False as each command starts)."""


EXIT_NOW_HOOKS: list[Callable[[], None]] = []
"""What ``exit_now`` runs first: the ``atexit`` functions it skips (``cli.main`` adds its own)."""


def exit_now(stop: KeyboardInterrupt | SystemExit) -> NoReturn:
    """End a batch stopped by Ctrl-C or a signal without waiting for the work in flight: over
    ``--server`` its threads would each wait out their answer, up to ``--timeout`` (a day at
    most; a CLI audit, session 55); in-process, each worker process its chunks (they end within
    ``PARENT_CHECK_SECONDS`` of this process). The rows written so far are flushed."""
    code = 130 if isinstance(stop, KeyboardInterrupt) else stop.code if isinstance(stop.code, int) else 1
    for hook in EXIT_NOW_HOOKS:  # (os._exit runs no atexit function)
        with contextlib.suppress(Exception):
            hook()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        if isinstance(stop, KeyboardInterrupt):
            sys.stderr.write("rummikub: aborted\n")
        sys.stderr.flush()
    os._exit(code)


PARENT_CHECK_SECONDS = 1.0


def _watch_parent(parent: int) -> None:
    """In a worker process: end it once its parent is gone (killed by SIGKILL, the OOM
    killer's signal, the workers waited for work forever, holding the output open)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="rummikub-parent-watch", daemon=True).start()


STOP_SIGNALS = ("SIGTERM", "SIGHUP")
"""Signals that end a batch as Ctrl-C does: its workers stopped with it. By default they end
the main process alone, and its worker processes waited for work forever, holding its
standard output open (a pipe's reader never saw its end; a CLI audit, session 55)."""


class _Stopped(SystemExit):
    """The exit of a batch ended by one of ``STOP_SIGNALS``."""


@contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """While the block runs (in the main thread), ``STOP_SIGNALS`` raise ``SystemExit(128 + n)``,
    the exit status a shell reports for a process the signal ended."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _Stopped(128 + signum)

    previous = {}
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, stop)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


MAX_THREADS = 64
"""``--jobs`` with ``--server``: at most this many requests in flight (threads). A service
refuses what its budget gates cannot queue (503) well before that."""


def cpus() -> int:
    """The CPUs this process may run on (its affinity, e.g. a container's share)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def workers_for(jobs: int, documents: int, local: bool) -> int:
    """The workers a batch of ``documents`` runs on for ``--jobs jobs`` (0: one per CPU): never
    more than the documents; in-process never more processes than CPUs (the work is CPU-bound,
    and each process holds its own engine: ``-j 64`` on 2 CPUs started 64 of them); with
    ``--server`` at most ``MAX_THREADS`` threads."""
    wanted = min(cpus() if jobs == 0 else jobs, documents)
    return max(1, min(wanted, cpus() if local else MAX_THREADS))


# --- output ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Summary:
    documents: int = 0
    ok: int = 0
    invalid: int = 0
    unreadable: int = 0
    rejected: int = 0
    failed: int = 0
    totals: dict[str, int | float] = field(default_factory=dict)
    scorings: set[str] = field(default_factory=set)  # of the documents with scores

    def add(self, row: Row) -> None:
        self.documents += 1
        if row.status == OK:
            self.ok += 1
        elif row.status == INVALID:
            self.invalid += 1
        elif row.status == ERROR and row.rejected:
            self.rejected += 1
        elif row.status == ERROR:
            self.unreadable += 1
        else:
            self.failed += 1
        if row.scores:
            self.scorings.add(row.scoring)
        for name, points in row.scores:
            self.totals[name] = self.totals.get(name, 0) + points

    @property
    def mixed(self) -> bool:
        """Whether zero-sum scores and penalty points were both read: their sum means nothing
        (matches/score refuses such rounds), so no totals are shown."""
        return len(self.scorings) > 1

    @property
    def penalties(self) -> bool:
        """Whether every score read is penalty points (``penalty_only``): the lowest total is best."""
        return self.scorings == {"penalty_only"}

    @property
    def exit_code(self) -> int:
        """3 if the engine failed, else 2 if any document was unreadable or rejected, else 1
        if any was invalid, else 0."""
        if self.failed:
            return EXIT_SERVICE
        if self.unreadable or self.rejected:
            return EXIT_INPUT
        if self.invalid:
            return EXIT_INVALID
        return EXIT_OK

    def ranked(self) -> list[tuple[str, int | float]]:
        """The totals, best first (the highest, or the lowest of penalty points); none when
        the batch mixes both."""
        if self.mixed:
            return []
        sign = 1 if self.penalties else -1
        return sorted(self.totals.items(), key=lambda item: (sign * item[1], item[0]))


_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "documents": "documents",
        "games": "games",
        "scored": "  scored",
        "valid": "  valid",
        "invalid": "  invalid",
        "unreadable": "  unreadable",
        "rejected": "  rejected",
        "failed": "  failed",
        "totals": "totals",
        "mixed": "not added: zero-sum scores and penalty points mixed",
        "col_document": "document",
        "col_status": "status",
        "col_winner": "winner",
        "col_scores": "scores",
        "col_note": "note",
        "status_ok": "✓ ok",
        "status_invalid": "✗ invalid",
        "status_rejected": "✗ rejected",
        "status_unreadable": "✗ unreadable",
        "status_failed": "✗ failed",
        "turn": "turn {n}: {note}",
    },
    "es": {
        "documents": "documentos",
        "games": "registros",
        "scored": "  puntuados",
        "valid": "  válidos",
        "invalid": "  no válidos",
        "invalid_game": "  no válidos",
        "unreadable": "  ilegibles",
        "rejected": "  rechazados",
        "rejected_game": "  rechazados",
        "failed": "  fallidos",
        "failed_game": "  fallidos",
        "totals": "totales",
        "mixed": "sin sumar: puntos de suma cero y de penalización mezclados",
        "col_document": "documento",
        "col_status": "estado",
        "col_winner": "ganador",
        "col_scores": "puntos",
        "col_note": "nota",
        "status_ok": "✓ correcto",
        "status_invalid": "✗ no válido",
        "status_rejected": "✗ rechazado",
        "status_unreadable": "✗ ilegible",
        "status_failed": "✗ fallido",
        "turn": "turno {n}: {note}",
    },
}
"""The batch report's words (the summary's agree with its noun: documents, or games)."""


def _summary_word(words: dict[str, str], key: str, noun: str) -> str:
    return words.get(f"{key}_game", words[key]) if noun == "game" else words[key]


def plural(noun: str, lang: str = "en") -> str:
    """``documents`` or ``games`` in ``lang``."""
    return words_in(lang, _WORDS)["games" if noun == "game" else "documents"]


def summary_renderable(summary: Summary, noun: str, lang: str = "en") -> Table | Group:
    words = words_in(lang, _WORDS)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column(justify="right")
    grid.add_row(plural(noun, lang), str(summary.documents))
    grid.add_row(words["valid"] if noun == "game" else words["scored"], str(summary.ok))
    if noun == "game" or summary.invalid:
        invalid = _summary_word(words, "invalid", noun)
        grid.add_row(invalid, Text(str(summary.invalid), style="red" if summary.invalid else ""))
    grid.add_row(words["unreadable"], Text(str(summary.unreadable), style="red" if summary.unreadable else ""))
    if summary.rejected:
        grid.add_row(_summary_word(words, "rejected", noun), Text(str(summary.rejected), style="red"))
    if summary.failed:
        grid.add_row(_summary_word(words, "failed", noun), Text(str(summary.failed), style="bold red"))
    if summary.mixed:
        return Group(grid, Text.assemble((words["totals"], "bold"), f"  {words['mixed']}"))
    if summary.totals:
        grid.add_row(words["totals"], "")
        for name, total in summary.ranked():
            if summary.penalties:  # (penalty points: any is bad)
                style = "red" if total > 0 else ""
            else:
                style = "green" if total > 0 else "red" if total < 0 else ""
            shown = (f"+{_num(total)}" if total > 0 else _num(total)) if isinstance(total, int | float) else str(total)
            grid.add_row(f"  {printable(name)}", Text(shown, style=style))
    return grid


class TableWriter:
    """The readable batch report: a table of documents. A batch of up to ``STREAM_AFTER``
    documents is one table written at the end, its columns as wide as their cells need; a
    longer one is printed ``ROWS_PER_PRINT`` rows at a time (the header with the first), so
    its rows show as they come and at most that many are held (one table held every row:
    85 MB for 10,100 documents). Its columns' widths then depend on the console's width only
    (ratios, the status column as wide as its longest word), so the parts line up."""

    STREAM_AFTER = 1000
    ROWS_PER_PRINT = 100

    def __init__(self, console: Console, command: str, lang: str = "en", documents: int = 0) -> None:
        self.console = console
        self.words = words_in(lang, _WORDS)
        self.command = command
        self.streamed = documents > self.STREAM_AFTER
        self.pending: list[list[Any]] = []
        self.printed = False

    def _table(self) -> Table:
        words = self.words
        table = Table(
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            header_style="bold",
            show_header=not self.printed,
            expand=self.streamed,  # (the ratios then set the widths, whatever the rows)
        )
        table.add_column(words["col_document"], overflow="fold", ratio=3)
        if self.streamed:
            status_width = max(len(words[k]) for k in words if k.startswith("status_"))
            table.add_column(words["col_status"], no_wrap=True, width=status_width)
            table.add_column(words["col_winner"], overflow="fold", ratio=1, width=len(words["col_winner"]))
        else:
            table.add_column(words["col_status"], no_wrap=True)
            table.add_column(words["col_winner"])
        # (long words folded, not cut: an error's pointer read "/turns/0/elapsed_secon…"; the
        # batch audit, session 60)
        table.add_column(words["col_scores"], overflow="fold", ratio=3)
        if self.command == REPLAY:
            table.add_column(words["col_note"], overflow="fold", ratio=2)
        return table

    def add(self, row: Row) -> None:
        words = self.words
        status = {
            OK: Text(words["status_ok"], style="green"),
            INVALID: Text(words["status_invalid"], style="bold red"),
            ERROR: Text(words["status_rejected"] if row.rejected else words["status_unreadable"], style="bold red"),
            FAILED: Text(words["status_failed"], style="bold red"),
        }[row.status]
        scores = Text("  ").join(
            Text(f"{printable(name)} {'+' if isinstance(p, int | float) and p > 0 else ''}{_num(p)}")
            for name, p in row.scores
        )
        cells: list[Any] = [printable(row.where), status, printable(row.winner or ""), scores]
        note = printable(row.error or row.code or "")
        if self.command == REPLAY:
            if row.first_invalid_turn is not None:
                note = words["turn"].format(n=row.first_invalid_turn, note=note)
            cells.append(Text(note, style="red" if note else ""))
        elif row.error:
            cells[3] = Text(note, style="red")
        self.pending.append(cells)
        if self.streamed and len(self.pending) >= self.ROWS_PER_PRINT:
            self._print()

    def _print(self) -> None:
        table = self._table()
        for cells in self.pending:
            table.add_row(*cells)
        self.console.print(table)
        self.pending.clear()
        self.printed = True

    def close(self) -> None:
        if self.pending or not self.printed:
            self._print()


class JsonlWriter:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def add(self, row: Row) -> None:
        text = row.jsonl if row.jsonl is not None else json.dumps(row.to_json(), ensure_ascii=False)
        self.out.write(text + "\n")

    def close(self) -> None:
        self.out.flush()


class CsvWriter:
    """CSV rows, streamed. The header goes out with the first row (or at the end of a batch
    without rows), so a batch that stops before its first row (the service unreachable, exit 3)
    leaves stdout empty, as JSON Lines and the table do."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\n")
        # a lone carriage return is not quoted by QUOTE_MINIMAL with "\n" line ends, and a
        # reader would end the record there: such rows are written with every field quoted
        self.quoting_writer = csv.writer(self.buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
        self.header_due = True

    def _flush(self) -> None:
        self.out.write(self.buffer.getvalue())
        self.buffer.seek(0)
        self.buffer.truncate()

    def _header(self) -> None:
        if self.header_due:
            self.writer.writerow(CSV_COLUMNS)
            self.header_due = False

    def add(self, row: Row) -> None:
        self._header()
        fields = row.to_csv()
        (self.quoting_writer if any("\r" in f for f in fields) else self.writer).writerow(fields)
        self._flush()

    def close(self) -> None:
        self._header()
        self._flush()
        self.out.flush()


def progress_bar(
    err: Console, total: int, noun: str, rows_to: TextIO | None = None, lang: str = "en"
) -> Progress | None:
    """A progress bar on stderr, only when stderr is a terminal. ``rows_to``: where rows are
    streamed while the bar runs (JSON Lines, CSV, a table of more than
    ``TableWriter.STREAM_AFTER`` documents); when that is a terminal too, there is no bar, so a
    redrawn bar never mixes into the rows (the rows show the progress). A table written at
    once is printed after the bar has been cleared (``transient``)."""
    if not err.is_terminal or not sys.stderr.isatty():
        return None
    if rows_to is not None and rows_to.isatty():
        return None
    progress = Progress(
        TextColumn(plural(noun, lang)),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    progress.add_task(noun, total=total)
    return progress


def report_error(err: Console, row: Row) -> None:
    """A row's error, one line on stderr, if stderr can be written: the row itself is in the
    output (a standard error that cannot be written stopped the batch at its first error
    line, the rows after it lost; a CLI audit, session 55)."""
    if row.error is not None:
        with contextlib.suppress(OSError, ValueError):
            err.print(
                Text(printable(f"rummikub: {row.where}: {row.error}"), style="red"), highlight=False, soft_wrap=True
            )

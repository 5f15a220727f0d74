"""The ``rummikub`` command-line tool (SPEC §8).

Every command builds the JSON body of one API operation, sends it to a back end (the engine
in-process, or ``--server URL`` over HTTP: same body, same answer) and prints either the
answer's JSON (``--json``) or a readable report. Exit codes: 0 valid, 1 a verdict found
something invalid, 2 bad input or usage, 3 service unreachable or failing.
"""

from __future__ import annotations

import atexit
import contextvars
import errno
import functools
import importlib.util
import io
import json
import math
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from enum import StrEnum
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from cli import batch, render
from cli.backend import DEFAULT_TIMEOUT, Backend, LocalBackend, check_limit_settings, make_backend
from cli.errors import EXIT_INPUT, EXIT_INVALID, EXIT_OK, EXIT_SERVICE, CliError, problem_line
from cli.inputs import (
    EMPTY_FOLDER,
    EMPTY_JSONL,
    STDIN,
    DocumentError,
    Source,
    collect_sources,
    load_document,
    load_source,
    looks_like_file,
    parse_set_words,
    parse_tile_words,
    rules_option,
    with_rules,
)
from engine.rules import PRESETS, RulesError, resolve_rules

DIST_NAME = "rummikub-rules"


def _base_class(name: str) -> type[Exception]:
    """Click's ``UsageError`` or ``ClickException``, found through public API: the classes
    ``typer.BadParameter`` derives from (Typer vendors Click in recent versions, so ``click``'s
    own classes would not catch Typer's errors)."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name and issubclass(cls, Exception):
            return cls
    raise ImportError(f"typer.BadParameter does not derive from {name}")


UsageError = _base_class("UsageError")
ClickException = _base_class("ClickException")


_WRITE_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EBADF, errno.EROFS, getattr(errno, "EDQUOT", errno.ENOSPC)}
"""The errors of an output that cannot be written."""


def _non_blocking_again(fd: int) -> None:
    with suppress(OSError, ValueError):
        if fd in (1, 2):
            (sys.stdout if fd == 1 else sys.stderr).flush()
        os.set_blocking(fd, False)


def _tell(line: str) -> None:
    """One line on stderr, if it can be written: a standard error that cannot (``2>/dev/full``,
    closed) must not turn the exit code into another (a CLI audit, session 55)."""
    with suppress(OSError, ValueError):
        typer.echo(line, err=True)


class OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr (exit 2) instead of a boxed panel; help epilogs keep
    their indented example lines as written."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        epilog = getattr(command, "epilog", None)
        if command is not None and isinstance(epilog, str) and "\b" not in epilog:
            # "\b" marks a paragraph Click neither re-wraps nor dedents (examples stay indented).
            command.epilog = re.sub(r"\n\n(?=  )", "\n\n\b\n", epilog)
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("standalone_mode", True):
            return super().main(*args, **kwargs)
        batch.WORKERS_LEFT_RUNNING.set(False)
        try:
            return self._main_one_line(*args, **kwargs)
        except SystemExit as exc:
            if batch.WORKERS_LEFT_RUNNING.get():
                batch.exit_now(exc)  # (its one line told; not waiting for the workers' chunks)
            raise

    def _main_one_line(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        _answering_server.set(None)
        if sys.stdout is None:  # (fd 1 closed: ``>&-``; Click would drop every answer silently)
            _tell("rummikub: cannot write the output: standard output is closed")
            sys.exit(EXIT_INPUT)
        for fd in (0, 1, 2):
            # A stream left non-blocking by the parent (Node, some CI runners) lost data: an
            # output dropped what a slow reader had no room for, an input ended where the pipe
            # was empty, silently (a CLI audit, session 55). Made blocking while this runs, and
            # given back as it was (the setting is shared with the parent).
            with suppress(OSError):
                if not os.get_blocking(fd):
                    os.set_blocking(fd, True)
                    atexit.register(_non_blocking_again, fd)
                    batch.EXIT_NOW_HOOKS.append(functools.partial(_non_blocking_again, fd))
        for stream in (sys.stdout, sys.stderr):
            # A lone surrogate (JSON's "\ud800", in a name) has no UTF-8 bytes: written as the
            # escape \ud800, the same string in JSON output, not a UnicodeEncodeError mid-batch.
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(errors="backslashreplace")
        try:
            code = super().main(*args, **kwargs)
        except UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare ``rummikub``: its help, as --help prints it
                typer.echo(exc.ctx.get_help())  # type: ignore[attr-defined]
                sys.exit(EXIT_INPUT)
            ctx = getattr(exc, "ctx", None)
            command = ctx.command_path if ctx is not None else "rummikub"
            message = exc.format_message()  # type: ignore[attr-defined]
            if type(exc).__name__ == "NoSuchOption":  # the same words whichever Click formats it
                message = f"no such option: {getattr(exc, 'option_name', '')}"
                possible = getattr(exc, "possibilities", None)
                if possible:
                    message += f" (did you mean {' or '.join(sorted(possible))}?)"
            message = (message[0].lower() + message[1:] if message else message).rstrip(".")
            hint = f" (see '{command} --help')"
            _tell(f"{command}: {message}{hint}")
            sys.exit(EXIT_INPUT)
        except ClickException as exc:
            _tell(f"rummikub: {exc.format_message()}")  # type: ignore[attr-defined]
            sys.exit(getattr(exc, "exit_code", 1))
        except typer.Abort:
            _tell("rummikub: aborted")
            sys.exit(130)
        except OSError as exc:
            # an output that cannot be written (a full disk, /dev/full; a broken pipe is Click's,
            # above): one line, not a traceback and the exit code of an invalid verdict
            if exc.errno == errno.EPIPE:
                raise
            where = (
                str(exc.filename)
                if exc.filename is not None
                else "cannot write the output"
                if exc.errno in _WRITE_ERRORS
                else "cannot run"  # (the system refused something else: ``ulimit -n``, no TLS bundle)
            )
            _tell(render.printable(f"rummikub: {where}: {exc.strerror or exc}"))
            sys.exit(EXIT_INPUT)
        except MemoryError:
            # (a document within the limits beyond what a memory cap leaves: 16 MiB of ``{}``
            # under ``ulimit -v``; a CLI audit, session 55)
            _tell("rummikub: out of memory: this machine's memory (or its limit) cannot hold the work")
            sys.exit(EXIT_SERVICE)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            # An answer of a --server with the verdict's members but not their types (another
            # program, another version) fails where it is read: one line and exit 3, not a
            # traceback (the CLI audit, session 47). Without a server, a bug: its traceback.
            server = _answering_server.get()
            if server is None:
                raise
            from cli.remote import shown_url  # (loaded already: a server answered)

            server = shown_url(server)
            reason = f"{type(exc).__name__}: {exc}"
            _tell(
                render.printable(
                    f"rummikub: {server} answered what this CLI cannot read ({reason}): is it the rules service?"
                )
            )
            sys.exit(EXIT_SERVICE)
        if code == 130:  # (Typer's answer to a Ctrl-C: "aborted", as a batch over --server says)
            _tell("rummikub: aborted")
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="rummikub",
    cls=OneLineErrors,
    help="Check Rummikub sets, melds, turns and scores; replay recorded games; run the rules service.",
    epilog="Exit codes: 0 valid, 1 something invalid, 2 bad input or usage, 3 service unreachable or failing. "
    "Docs: docs/cli.md.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    rich_markup_mode=None,  # plain help: "[round, ...]" in the texts is not read as Rich markup
    pretty_exceptions_show_locals=False,
)


class Lang(StrEnum):
    en = "en"
    es = "es"


class Format(StrEnum):
    table = "table"
    jsonl = "jsonl"
    csv = "csv"


class ShowFormat(StrEnum):
    text = "text"
    svg = "svg"


class Objective(StrEnum):
    tiles = "tiles"
    value = "value"


class TieBreak(StrEnum):
    least_change = "least_change"
    any = "any"


# --- shared options ------------------------------------------------------------------------------

RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        metavar="PRESET|FILE",
        help=f"Rules: a preset name ({', '.join(PRESETS)}) "
        'or a JSON file holding a preset name or {"preset": ..., overrides}. Overrides the document\'s own rules.',
    ),
]
LangOpt = Annotated[
    Lang,
    typer.Option(
        "--lang",
        envvar="RUMMIKUB_LANG",
        metavar="en|es",
        help="Language of reports and violation messages.",
        case_sensitive=False,
        show_default=True,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the API's JSON answer on stdout instead of a report.")]


def _server_given(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> str | None:
    """A ``RUMMIKUB_SERVER`` that is only spaces is unset, as an empty one is (it was told as
    "--server http://: not a usable ... URL"); a blank ``--server`` given is kept, for
    ``RemoteBackend`` to refuse (it ran in-process, quietly; the surfaces audit, session 59)."""
    if value is not None and not value.strip() and param.name is not None:
        source = ctx.get_parameter_source(param.name)  # (typer's own click: its enum, told by name)
        if source is not None and source.name == "ENVIRONMENT":
            return None
    return value


ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="RUMMIKUB_SERVER",
        callback=_server_given,
        metavar="URL",
        help="Ask the rules service at URL (e.g. http://127.0.0.1:8000) instead of the in-process engine.",
    ),
]


def _finite_seconds(value: float) -> float:
    """Reject ``nan`` (which every range check lets through) and ``inf``."""
    if not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a number of seconds.")
    return value


TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        max=86_400.0,
        callback=_finite_seconds,
        metavar="SECONDS",
        show_default=True,
        help="HTTP timeout with --server: each wait for an answer, and the reading of its body (at most a day).",
    ),
]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        min=0,
        metavar="N",
        show_default=True,
        help="Documents processed in parallel (0 = one per CPU): processes in-process, at most one per CPU; "
        "threads with --server, at most 64.",
    ),
]
FormatOpt = Annotated[
    Format | None,
    typer.Option(
        "--format",
        "-f",
        metavar="table|jsonl|csv",
        show_default=False,
        help="Batch output: a table, JSON Lines or CSV. [default: table]",
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        envvar="RUMMIKUB_SCHEDULER",
        metavar="tcp://HOST:PORT|local",
        help="Run the batch on a Dask cluster: its scheduler's address, or 'local' for a LocalCluster here "
        "(--jobs workers; 0 or 1 = one per CPU). Needs the dask extra: pip install '.[dask]' in a checkout.",
        rich_help_panel="Dask cluster",
    ),
]
SharedFilesOpt = Annotated[
    bool,
    typer.Option(
        "--shared-files",
        help="With --scheduler tcp://...: workers read the files themselves (a shared file system) instead of "
        "being sent their bytes. Always so with --scheduler local.",
        rich_help_panel="Dask cluster",
    ),
]
ChunkOpt = Annotated[
    int,
    typer.Option(
        "--chunk-size",
        min=0,
        metavar="N",
        help="With --scheduler: documents per task (0 = automatic, at most 256).",
        rich_help_panel="Dask cluster",
    ),
]


def _version() -> str:
    try:
        return dist_version(DIST_NAME)
    except PackageNotFoundError:
        return "unknown"


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"rummikub {_version()}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_version_callback, is_eager=True),
    ] = False,
) -> None:
    """Check Rummikub sets, melds, turns and scores; replay recorded games; run the rules service.

    Tiles: K black, B blue, O orange (Y accepted), R red, numbers 1-13 (R5, K13); J is a joker,
    J=R5 a joker declared as R5. By default the engine runs in-process; --server URL (or
    RUMMIKUB_SERVER) asks the HTTP service instead and gives the same answer.
    """


# --- plumbing --------------------------------------------------------------------------------------


def _out() -> Console:
    return render.ReportConsole(highlight=False, soft_wrap=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _err_report() -> Console:
    """The standard error for a report's text (a batch's summary): as ``_out``'s, no line
    ending in a space. (Not for the progress bar, which rich redraws in place.)"""
    return render.ReportConsole(stderr=True, highlight=False, soft_wrap=False)


@contextmanager
def _guard(json_out: bool = False) -> Iterator[None]:
    """CliError → one line on stderr and its exit code; with ``--json``, a rejected request's
    problem (every error, as the API answers it) is printed on stdout too."""
    try:
        yield
    except CliError as exc:
        if json_out and exc.problem is not None:
            print_json(exc.problem)
        with suppress(OSError, ValueError):  # (a standard error that cannot be written keeps the exit code)
            _err().print(Text(render.printable(f"rummikub: {exc.message}")), soft_wrap=True)
        raise typer.Exit(exc.code) from None


_answering_server: contextvars.ContextVar[str | None] = contextvars.ContextVar("answering_server", default=None)
"""The ``--server`` the command asked (set by ``_backend``): ``OneLineErrors`` names it for an
answer it cannot read."""


def _backend(server: str | None, lang: Lang, timeout: float, batch: bool = False) -> Backend:
    if server is not None:
        _answering_server.set(server)
    if not batch:
        return make_backend(server, lang.value, timeout)
    told = threading.Event()

    def on_busy(line: str) -> None:  # once a run, not once per document
        if not told.is_set():
            told.set()
            _err().print(Text(f"rummikub: {line}"), soft_wrap=True)

    return make_backend(server, lang.value, timeout, batch=True, on_busy=on_busy)


def print_json(value: Any) -> None:
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _verdict_exit(result: Mapping[str, Any]) -> None:
    raise typer.Exit(EXIT_OK if result.get("valid") else EXIT_INVALID)


def _call(
    backend: Backend,
    operation: str,
    body: Any,
    source: str | None = None,
    moved: Mapping[str, str] | None = None,
    options: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Send a body; a rejected request's message names the file it came from and, with ``moved``
    (a request pointer → where the file holds that value), the file's pointers. ``options``: the
    request pointers an option gave (``/rack`` → ``--rack``): a rejection of what one of them
    gave names it, its pointers relative to it (``--rack: /2: ...``), not the file. The
    in-process engine crashing (a bug) is one line and exit 3, as a failing service is."""
    try:
        return backend.call(operation, body)
    except CliError as exc:
        owned = _option_owning(exc.problem, options) if options and exc.problem is not None else None
        message = exc.message
        if owned is not None and exc.code == EXIT_INPUT:
            option, problem = owned
            message, source = f"{option}: {problem_line(problem)}", None  # (the option's, not the file's)
        elif moved and exc.problem is not None:
            message = problem_line(_pointers_moved(exc.problem, moved))
        message = message.replace("validate it with /v1/sets/validate", "check it with 'rummikub validate'")
        if source is not None and exc.code == EXIT_INPUT:
            raise CliError(f"{source}: {message}", exc.code, exc.problem) from None
        raise CliError(message, exc.code, exc.problem) from None
    except Exception as exc:
        if not isinstance(backend, LocalBackend):
            raise
        # (the words of a batch's failed row)
        raise CliError(f"internal error: {type(exc).__name__}: {exc}", EXIT_SERVICE) from None


def _option_owning(problem: Mapping[str, Any], options: Mapping[str, str]) -> tuple[str, dict[str, Any]] | None:
    """The option that gave every value ``problem``'s errors point at, and the problem with
    those pointers relative to it; None when they point elsewhere too."""
    errors = problem.get("errors")
    if not isinstance(errors, list) or not errors:
        return None
    pointers = [e.get("pointer") if isinstance(e, Mapping) else None for e in errors]
    for prefix, option in options.items():
        if all(isinstance(p, str) and (p == prefix or p.startswith(prefix + "/")) for p in pointers):
            return option, {**_pointers_moved(problem, {prefix: ""}), "detail": None}  # (the detail is the request's)
    return None


def _pointers_moved(problem: Mapping[str, Any], moved: Mapping[str, str]) -> dict[str, Any]:
    """The problem with each error pointer under a key of ``moved`` rewritten to its value. An
    error moved to the file's root (a bare array of sets is the request's ``/sets``) is told by
    its own detail, not the problem's, which is about the request."""

    def move(pointer: str) -> str:
        for old, new in moved.items():
            if pointer == old or pointer.startswith(old + "/"):
                return new + pointer[len(old) :]
        return pointer

    errors = problem.get("errors")
    if not isinstance(errors, list):
        return dict(problem)
    moved_errors = [
        {**e, "pointer": move(e["pointer"])} if isinstance(e, Mapping) and isinstance(e.get("pointer"), str) else e
        for e in errors
    ]
    to_root = any(
        isinstance(e, Mapping) and e.get("pointer") and m.get("pointer") == ""
        for e, m in zip(errors, moved_errors, strict=True)
    )
    return {**problem, "errors": moved_errors, **({"detail": None} if to_root else {})}


def _rules_given(value: str | None, documents: Sequence[str | None] = ()) -> Any:
    """The ``--rules`` value as a request's ``rules``, checked first: a mistake in it is the
    option's, not a pointer into the document it overrides. ``documents``: the command's
    document arguments (stdin may be read once, by the option or by a document)."""
    if value == STDIN and STDIN in documents:
        raise CliError("'-' (stdin) can be given only once: to --rules or as a document")
    try:
        rules = rules_option(value)
    except CliError as exc:  # a rules file that cannot be read: "--rules rules.json: no such file"
        raise CliError(f"--rules {exc.message}", exc.code) from None
    if rules is None:
        return None
    try:
        resolve_rules(rules)
    except RulesError as exc:
        option = f"--rules {value}" if value is not None and looks_like_file(value) else "--rules"
        where = f"{option}: {exc.pointer}" if exc.pointer else option
        raise CliError(f"{where}: {exc.message}") from None
    return rules


def _source_name(arg: str) -> str:
    return "stdin" if arg == STDIN else arg


def _sets_body(items: list[str], what: str) -> tuple[dict[str, Any], str | None, dict[str, str]]:
    """A sets body from one file (a body object, or a bare array of sets) or set words, its
    source, and where the file holds the body's ``/sets`` (a bare array is the whole file)."""
    files = [a for a in items if looks_like_file(a)]
    if files:
        if len(items) != 1:
            raise CliError(f"give either one file (or '-') or sets as words, not both: {files[0]!r}")
        doc = load_document(items[0])
        if isinstance(doc, list):
            return {"sets": doc}, _source_name(items[0]), {"/sets": ""}
        if isinstance(doc, dict):
            return doc, _source_name(items[0]), {}
        raise CliError(f"{_source_name(items[0])}: expected {what} (an object) or an array of sets")
    return {"sets": [parse_set_words(a) for a in items]}, None, {}


# --- validate ------------------------------------------------------------------------------------


@app.command(
    epilog="Examples:\n\n"
    '  rummikub validate "R5 R6 R7" "K9 B9 J"\n\n'
    '  rummikub validate "run: R5 J J" --lang es\n\n'
    "  rummikub validate table.json --json\n\n"
    '  echo \'[["R12","R13","J"]]\' | rummikub validate - --rules strict-joker',
)
def validate(
    sets: Annotated[
        list[str],
        typer.Argument(
            metavar="SET...",
            help="Each argument one set, tiles separated by spaces or commas (a leading 'run:' or 'group:' "
            "declares its kind); or one JSON file (or - for stdin) holding a sets/validate body or an array of sets.",
            show_default=False,
        ),
    ],
    rules: RulesOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Validate sets: is each a valid run or group, what is it worth, why not."""
    with _guard(json_out):
        rules_value = _rules_given(rules, sets)  # (before any document is read: docs/cli.md)
        body, source, moved = _sets_body(sets, "a sets/validate body")
        body = with_rules(body, rules_value)
        result = _call(_backend(server, lang, timeout), "sets/validate", body, source, moved)
    if json_out:
        print_json(result)
    else:
        render.render_validate(_out(), body, result, lang.value)
    if source is None and len(sets) > 1 and all(len(parse_tile_words(a)) == 1 for a in sets):
        _err().print(Text(render.words(lang.value)["hint_one_set"].format(tiles=" ".join(sets))))
    _verdict_exit(result)


# --- meld ------------------------------------------------------------------------------------------


@app.command(
    epilog="Examples:\n\n"
    '  rummikub meld "K10 B10 O10" "R1 R2 R3"\n\n'
    '  rummikub meld "R11 R12 R13" --rack "R11 R12 R13 K1 B4"\n\n'
    "  rummikub meld meld.json --rules opening-50 --json",
)
def meld(
    sets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="SET...",
            help="The sets of the initial meld as words (one argument per set), or one JSON file (or -) holding "
            "a melds/check body or an array of sets.",
            show_default=False,
        ),
    ] = None,
    rack: Annotated[
        str | None,
        typer.Option(
            "--rack",
            metavar="TILES",
            help="The player's rack (tiles separated by spaces or commas): the meld must come from it.",
        ),
    ] = None,
    rules: RulesOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Check an initial meld: valid sets from the rack, worth at least the opening minimum."""
    with _guard(json_out):
        rules_value = _rules_given(rules, sets or [])  # (before any document is read: docs/cli.md)
        if not sets and rack is None:
            raise CliError("give the meld's sets as words or one JSON file (or -) (see 'rummikub meld --help')")
        body, source, moved = _sets_body(sets or [], "a melds/check body")
        if rack is not None:
            rack_tiles = parse_tile_words(rack)
            # beside a file, its mistakes are the option's; beside words, the request lists
            # them with the sets' (as suggest does)
            body = {**body, "rack": rack_tiles if source is None else _option_tiles("--rack", rack_tiles)}
        body = with_rules(body, rules_value)
        options = {"/rack": "--rack"} if rack is not None else None
        result = _call(_backend(server, lang, timeout), "melds/check", body, source, moved, options)
    if json_out:
        print_json(result)
    else:
        render.render_meld(_out(), body, result, lang.value)
    _verdict_exit(result)


# --- verify ----------------------------------------------------------------------------------------


@app.command(
    epilog='A turn file is {"rules"?, "before": table, "after": table, "rack": tiles, "opened": bool, '
    '"elapsed_seconds"?}.\n\n'
    "Examples:\n\n"
    "  rummikub verify turn.json\n\n"
    "  rummikub verify turn.json --rules pressman-2009 --lang es\n\n"
    "  cat turn.json | rummikub verify - --json",
)
def verify(
    file: Annotated[str, typer.Argument(metavar="TURN_FILE", help="A turn file, or - for stdin.", show_default=False)],
    rules: RulesOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Verify a turn: compare the table before and after, with the player's rack."""
    with _guard(json_out):
        rules_value = _rules_given(rules, [file])  # (before any document is read: docs/cli.md)
        doc = load_document(file)
        if not isinstance(doc, dict):
            raise CliError(f"{_source_name(file)}: a turn file must be a JSON object")
        body = with_rules(doc, rules_value)
        result = _call(_backend(server, lang, timeout), "turns/verify", body, _source_name(file))
    if json_out:
        print_json(result)
    else:
        render.render_verify(_out(), body, result, lang.value)
    _verdict_exit(result)


# --- score / replay (batch) -----------------------------------------------------------------------


def _batch(
    command: str,
    paths: list[str],
    *,
    rules: str | None,
    lang: Lang,
    json_out: bool,
    server: str | None,
    timeout: float,
    jobs: int,
    output: Format | None,
    continue_on_error: bool = False,
    analyze: bool = False,
    html_report: str | None = None,
    scheduler: str | None = None,
    shared_files: bool = False,
    chunk_size: int = 0,
) -> None:
    err = _err()
    with _guard(json_out):
        if json_out and output in (Format.csv, Format.table):
            raise CliError(
                f"--json prints the API's JSON (JSON Lines for a batch): give either --json or --format {output}"
            )
        output = output or Format.table
        if scheduler is not None:
            _check_scheduler(command, scheduler, server)
        rules_value = _rules_given(rules, paths)
        if html_report is not None:
            _check_html_target(html_report)
        backend = _backend(server, lang, timeout, batch=True)  # (a bad URL told before reading any input)
        if server is None:
            check_limit_settings()  # (this process's limits, and the workers', are the command's)
        sources = collect_sources(paths)
        if all(source.error in (EMPTY_FOLDER, EMPTY_JSONL) for source in sources):
            if all(source.error == EMPTY_FOLDER for source in sources):
                raise CliError("no documents found (folders are searched for *.json and *.jsonl)")
            raise CliError(f"no documents found in {', '.join(s.file for s in sources)}")
        single = len(sources) == 1 and sources[0].line is None
        fmt = Format.jsonl if json_out else output
        job_settings = batch.Job(
            command,
            rules_value,
            continue_on_error,
            analyze,
            jsonl=fmt is Format.jsonl,
            keep_result=html_report is not None,
        )
        if single and (json_out or output is Format.table) and html_report is None:
            _single(job_settings, backend, sources[0], json_out, lang.value)
        noun = "game" if command == batch.REPLAY else "document"
        out = _out()
        writer: batch.TableWriter | batch.JsonlWriter | batch.CsvWriter
        if fmt is Format.table:
            writer = batch.TableWriter(out, command, lang.value, len(sources))
        elif fmt is Format.jsonl:
            writer = batch.JsonlWriter(sys.stdout)
        else:
            writer = batch.CsvWriter(sys.stdout)
        summary = batch.Summary()
        progress = batch.progress_bar(
            err,
            len(sources),
            noun,
            rows_to=None if isinstance(writer, batch.TableWriter) and not writer.streamed else sys.stdout,
            lang=lang.value,
        )
        report_to = progress.console if progress is not None else err

        pairs: list[tuple[Source, batch.Row]] = []

        def on_row(row: batch.Row) -> None:
            if html_report is not None:
                pairs.append((sources[len(pairs)], row))
            summary.add(row)
            writer.add(row)
            batch.report_error(report_to, row)
            if progress is not None:
                progress.advance(progress.task_ids[0])

        def run() -> None:
            if scheduler is None:
                batch.run_rows(job_settings, backend, sources, jobs, on_row)
                return
            from cli import cluster

            workers = batch.workers_for(0 if jobs == 1 else jobs, len(sources), local=True)
            cluster.run_rows_dask(
                job_settings,
                lang.value,
                sources,
                scheduler,
                on_row,
                workers=workers,
                shared_files=shared_files,
                chunk=chunk_size,
            )

        if progress is not None:
            with progress:
                run()
        else:
            run()
        writer.close()
        if html_report is not None:
            _write_html(html_report, pairs, job_settings, lang)
        # (on the standard error beside a CSV or JSON Lines report, with no line ending in a space either)
        summary_console = out if fmt is Format.table else _err_report()
        summary_console.print(batch.summary_renderable(summary, noun, lang.value))
    raise typer.Exit(summary.exit_code)


def _check_html_target(path: str) -> None:
    """``--html``: a path the page can be written to, checked before the games are replayed."""
    if not path:  # (Path("") is the current folder: "cannot write : it is a folder")
        raise CliError("--html: an empty path names no file")
    target = Path(path)
    try:
        folder, parent_is_folder = target.is_dir(), target.parent.is_dir()
    except OSError as exc:  # a name too long for the file system...
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    if folder:
        raise CliError(f"cannot write {path}: it is a folder")
    if not parent_is_folder:
        # (a folder that does not exist is no "not a folder": the batch audit, session 60)
        why = "is not a folder" if target.parent.exists() else "does not exist"
        raise CliError(f"cannot write {path}: {target.parent} {why}")
    existed = target.exists()
    try:  # (a folder that refuses a new file: told now, not after every game is replayed)
        with open(target, "a" if existed else "x", encoding="utf-8"):
            pass
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not existed:
        target.unlink(missing_ok=True)


def _write_html(path: str, pairs: list[tuple[Source, batch.Row]], job: batch.Job, lang: Lang) -> None:
    """``replay --html``: the report page (cli.pictures), written as UTF-8 (a lone surrogate
    in a name, JSON's "\\ud800", as the escape \\ud800: it has no UTF-8 bytes)."""
    from cli import pictures

    page = pictures.html_report(pairs, job, lang.value)
    try:
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(page)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_scheduler(command: str, scheduler: str, server: str | None) -> None:
    """``--scheduler``: the dask extra is installed, the address is one, no ``--server``."""
    from cli import cluster

    cluster.require_distributed(command, local=scheduler == cluster.LOCAL)
    if server is not None:
        raise CliError("--scheduler runs the engine on the Dask workers: it cannot be combined with --server")
    if scheduler != cluster.LOCAL and "://" not in scheduler and ":" not in scheduler:
        raise CliError(f"--scheduler: expected tcp://HOST:PORT or 'local', got {scheduler!r}")


def _single(job: batch.Job, backend: Backend, source: Source, json_out: bool, lang: str) -> NoReturn:
    """One document: the API's JSON, or the detailed report (not a one-row table). Always
    raises typer.Exit (or CliError)."""
    try:
        doc = load_source(source)
    except DocumentError as exc:
        raise CliError(f"{source.file}: {exc.message}") from None
    operation, kind = batch.operation_for(job.command, doc)
    body = batch.request_body(job, doc)
    result = _call(backend, operation, body, source.file)
    if json_out:
        print_json(result)
    elif kind == "match":
        render.render_match(_out(), body, result, lang)
    elif kind == "game":
        render.render_replay(_out(), body, result, lang)
    else:
        render.render_round(_out(), body, result, lang)
    raise typer.Exit(EXIT_INVALID if result.get("valid") is False else EXIT_OK)


PathsArg = Annotated[
    list[str],
    typer.Argument(
        metavar="PATH...",
        help="JSON files, JSON Lines files (.jsonl, one document a line), folders (searched recursively for "
        "*.json and *.jsonl) or - for stdin.",
        show_default=False,
    ),
]


@app.command(
    epilog='A round file is {"rules"?, "players": [{"name", "rack", "opened"?}], "winner"?}; '
    'a match file is {"rules"?, "rounds": [round, ...]}.\n\n'
    "Examples:\n\n"
    "  rummikub score round.json\n\n"
    "  rummikub score rounds/ --jobs 4 --format csv > scores.csv\n\n"
    "  rummikub score night.jsonl --rules komoni --format jsonl\n\n"
    "One document prints a detailed report (or, with --json, the API's JSON); several print one row each "
    "and a summary with totals per player name. Exit 2 if any document was unreadable or rejected, else 1 if any was "
    "invalid, else 0.",
)
def score(
    paths: PathsArg,
    rules: RulesOpt = None,
    jobs: JobsOpt = 1,
    output: FormatOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    scheduler: SchedulerOpt = None,
    shared_files: SharedFilesOpt = False,
    chunk_size: ChunkOpt = 0,
) -> None:
    """Score rounds and matches: one document or a whole batch."""
    _batch(
        "score",
        paths,
        rules=rules,
        lang=lang,
        json_out=json_out,
        server=server,
        timeout=timeout,
        jobs=jobs,
        output=output,
        scheduler=scheduler,
        shared_files=shared_files,
        chunk_size=chunk_size,
    )


@app.command(
    epilog='A game record is {"rules"?, "players": [{"name", "rack"}], "pool"?, "turns": '
    '[{"player", "draw"} | {"player", "table"}], "end"?} (SPEC §6).\n\n'
    "Examples:\n\n"
    "  rummikub replay game.json\n\n"
    "  rummikub replay games/ --jobs 2 --format jsonl > verdicts.jsonl\n\n"
    "  rummikub replay game.json --continue --lang es\n\n"
    "Exit 2 if any record was unreadable or rejected, else 1 if any game had an illegal turn, else 0.",
)
def replay(
    paths: PathsArg,
    continue_on_error: Annotated[
        bool,
        typer.Option(
            "--continue",
            help="Go on after an illegal turn (the table is restored, or keeps its valid sets under timeout_keeps_valid_sets; penalty draws apply).",
        ),
    ] = False,
    analyze: Annotated[
        bool, typer.Option("--analyze", help="For each draw turn, say whether a legal play existed and the best one.")
    ] = False,
    rules: RulesOpt = None,
    jobs: JobsOpt = 1,
    output: FormatOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    html: Annotated[
        str | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Also write one self-contained HTML page: a summary of the batch and, for each game with a "
            "problem, the picture of the offending turn (with --analyze, the missed plays too).",
        ),
    ] = None,
    scheduler: SchedulerOpt = None,
    shared_files: SharedFilesOpt = False,
    chunk_size: ChunkOpt = 0,
) -> None:
    """Replay game records turn by turn, then score the finished round."""
    _batch(
        "replay",
        paths,
        rules=rules,
        lang=lang,
        json_out=json_out,
        server=server,
        timeout=timeout,
        jobs=jobs,
        output=output,
        continue_on_error=continue_on_error,
        analyze=analyze,
        html_report=html,
        scheduler=scheduler,
        shared_files=shared_files,
        chunk_size=chunk_size,
    )


# --- show ------------------------------------------------------------------------------------------


def _tile_errors(value: Any, pointer: str) -> list[dict[str, str]]:
    """Position racks and pool are only displayed; still, bad tiles are bad input: every one
    of them, as the service lists a body's errors."""
    from engine.errors import InputError
    from engine.tiles import parse_tile, parse_tiles

    if isinstance(value, str):  # (parse_tiles reads a string as tile words; a rack is an array, SPEC §1)
        return [{"pointer": pointer, "detail": "expected an array of tiles, not a string"}]
    if not isinstance(value, list):
        try:
            parse_tiles(value)
        except InputError as exc:
            return [{"pointer": f"{pointer}{exc.pointer}", "detail": exc.message}]
        return []
    errors = []
    for i, raw in enumerate(value):
        try:
            parse_tile(raw)
        except InputError as exc:
            errors.append({"pointer": f"{pointer}/{i}{exc.pointer}", "detail": exc.message})
    return errors


@app.command(
    epilog='A position file is {"rules"?, "table": [set, ...], "players": [{"name", "rack", "opened"}], '
    '"pool"?: count | tiles}; a turn file has "before" and "after" (see verify).\n\n'
    "Examples:\n\n"
    "  rummikub show position.json\n\n"
    "  rummikub show turn.json --lang es\n\n"
    "  rummikub show position.json --format svg > position.svg",
)
def show(
    file: Annotated[
        str, typer.Argument(metavar="FILE", help="A position file or a turn file, or - for stdin.", show_default=False)
    ],
    rules: RulesOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    show_format: Annotated[
        ShowFormat,
        typer.Option(
            "--format",
            "-f",
            metavar="text|svg",
            show_default=True,
            help="text: a coloured report; svg: a picture on stdout (drawn in-process; the exit code is the verdict).",
        ),
    ] = ShowFormat.text,
) -> None:
    """Show a position (table, racks, pool) or a turn (before, after, what was played) in colour.

    The table's sets are validated (a turn is verified), so invalid sets are highlighted; with
    --json the underlying sets/validate (or turns/verify) answer is printed.
    """
    with _guard(json_out):
        rules_value = _rules_given(rules, [file])  # (before any document is read: docs/cli.md)
        if json_out and show_format is ShowFormat.svg:
            raise CliError("give either --json or --format svg")
        source = _source_name(file)
        doc = load_document(file)
        if not isinstance(doc, dict):
            raise CliError(f"{source}: expected a position or turn file (a JSON object)")
        backend = _backend(server, lang, timeout)
        if "before" in doc or "after" in doc:
            body = with_rules(doc, rules_value)
            result = _call(backend, "turns/verify", body, source)
            if show_format is ShowFormat.svg:
                from cli import pictures

                sys.stdout.write(pictures.turn_svg(body, lang.value, source))
                _verdict_exit(result)
            if json_out:
                print_json(result)
            else:
                render.render_verify(_out(), body, result, lang.value)
            _verdict_exit(result)
        if "table" not in doc:
            raise CliError(f"{source}: a position file needs 'table' (a turn file needs 'before' and 'after')")
        tile_errors = _check_position(doc, source)
        body = {"sets": doc["table"]}
        effective_rules = rules_value if rules_value is not None else doc.get("rules")
        if effective_rules is not None:
            body["rules"] = effective_rules
        try:
            result = _call(backend, "sets/validate", body, source, {"/sets": "/table"})
        except CliError as exc:
            if not tile_errors or exc.code != EXIT_INPUT or exc.problem is None:
                raise
            # the table's errors first, then the racks' and the pool's: one list, in file order
            raise _tiles_refused(source, tile_errors, _pointers_moved(exc.problem, {"/sets": "/table"})) from None
        if tile_errors:
            raise _tiles_refused(source, tile_errors)
        from cli import pictures

        picture = None
        if show_format is ShowFormat.svg:
            picture = pictures.position_svg(doc, rules_value, lang.value, source)  # (checks the limits)
        elif not json_out:
            pictures.check_position_limits(doc, source)  # (the text report too: it holds every rack)
    if picture is not None:
        sys.stdout.write(picture)
    elif json_out:
        print_json(result)
    else:
        render.render_position(_out(), doc, result, lang.value)
    _verdict_exit(result)


# --- rules -----------------------------------------------------------------------------------------


@app.command(
    name="rules",
    epilog="Examples:\n\n  rummikub rules\n\n  rummikub rules sabra\n\n  rummikub rules komoni --json",
)
def rules_command(
    preset: Annotated[
        str | None, typer.Argument(metavar="PRESET", help="Show this preset's settings.", show_default=False)
    ] = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """List the rules presets, or show every setting of one."""
    with _guard(json_out):
        answer = _backend(server, lang, timeout).rules(preset)
    if json_out:
        print_json(answer)
    elif preset is None:
        render.render_rules_list(_out(), answer, lang.value)
    else:
        render.render_rules_one(_out(), answer, lang.value)


# --- arrange / suggest (SPEC §9) -------------------------------------------------------------------


@app.command(
    epilog="Examples:\n\n"
    '  rummikub arrange "R5 R6 R7 K9 B9 O9 J"\n\n'
    "  rummikub arrange R1 R2 R3 R4 --json\n\n"
    "  rummikub arrange tiles.json",
)
def arrange(
    tiles: Annotated[
        list[str],
        typer.Argument(
            metavar="TILES...",
            help="Tiles as words (spaces or commas, any number of arguments), or one JSON file (or -) holding a "
            "tables/arrange body or an array of tiles.",
            show_default=False,
        ),
    ],
    rules: RulesOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Can these tiles be laid out as valid sets, every tile used? Shows one arrangement."""
    with _guard(json_out):
        rules_value = _rules_given(rules, tiles)  # (before any document is read: docs/cli.md)
        source: str | None = None
        moved: dict[str, str] = {}
        if any(looks_like_file(t) for t in tiles):
            if len(tiles) != 1:
                raise CliError("give either one file (or '-') or tiles as words, not both")
            source = _source_name(tiles[0])
            doc = load_document(tiles[0])
            body: Any = {"tiles": doc} if isinstance(doc, list) else doc
            if isinstance(doc, list):
                moved = {"/tiles": ""}  # a bare array of tiles is the whole file
        else:
            body = {"tiles": [t for arg in tiles for t in parse_tile_words(arg)]}
        body = with_rules(body, rules_value)
        result = _call(_backend(server, lang, timeout), "tables/arrange", body, source, moved)
    if json_out:
        print_json(result)
    else:
        render.render_arrange(_out(), body, result, lang.value)
    raise typer.Exit(EXIT_OK if result.get("arrangeable") else EXIT_INVALID)


@app.command(
    epilog='The position file is a moves/suggest body {"table", "rack", "opened", "objective"?, "rules"?} '
    "or a position file (its first player's rack, or --player NAME).\n\n"
    "Examples:\n\n"
    '  rummikub suggest --table "R3 R4 R5" --table "K9 B9 O9" --rack "R6 R7 K1" --opened\n\n'
    "  rummikub suggest position.json --player Ann --objective value\n\n"
    "  rummikub suggest move.json --json",
)
def suggest(
    file: Annotated[
        str | None,
        typer.Argument(metavar="FILE", help="A moves/suggest body or a position file.", show_default=False),
    ] = None,
    table: Annotated[
        list[str] | None,
        typer.Option("--table", metavar="SET", help="A table set as words (repeat for each set)."),
    ] = None,
    rack: Annotated[str | None, typer.Option("--rack", metavar="TILES", help="The rack as words.")] = None,
    opened: Annotated[
        bool | None,
        typer.Option(
            "--opened/--not-opened",
            help="Has the player made the initial meld? [default: the file's 'opened', else not opened]",
        ),
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", metavar="NAME", help="With a position file: whose move.")
    ] = None,
    objective: Annotated[
        Objective | None,
        typer.Option(
            "--objective", metavar="tiles|value", help="Play the most tiles, or the most points [default: tiles]."
        ),
    ] = None,
    tie_break: Annotated[
        TieBreak | None,
        typer.Option(
            "--tie-break",
            metavar="least_change|any",
            help="Among the best moves, the one disturbing the table least, or the first found "
            "(faster) [default: least_change].",
        ),
    ] = None,
    rules: RulesOpt = None,
    lang: LangOpt = Lang.en,
    json_out: JsonOpt = False,
    server: ServerOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Suggest a legal move: the most rack tiles (or points) that can be played now, shown as
    steps to follow ("add R8 to R5 R6 R7"; in Spanish with --lang es).

    Exit 0 when a play was found, 1 when the player can only draw.
    """
    with _guard(json_out):
        rules_value = _rules_given(rules, [file])  # (before any document is read: docs/cli.md)
        table_sets = None if table is None else [parse_set_words(s) for s in table]
        rack_tiles = None if rack is None else parse_tile_words(rack)
        if file is not None:  # the options' tiles too: beside a file, their mistakes are theirs
            for i, laid in enumerate(table_sets or []):
                _option_tiles("--table", laid["tiles"] if isinstance(laid, dict) else laid, f"/{i}")
            if rack_tiles is not None:
                _option_tiles("--rack", rack_tiles)
        source: str | None = None
        body: dict[str, Any] = {}
        moved: dict[str, str] = {}  # a position file holds the player's rack and opened under /players/i
        if file is not None:
            source = _source_name(file)
            doc = load_document(file)
            if not isinstance(doc, dict):
                raise CliError(f"{source}: expected a moves/suggest body or a position file (a JSON object)")
            body, index = _suggest_body(doc, player, source)
            if index is not None:
                moved = {"/rack": f"/players/{index}/rack", "/opened": f"/players/{index}/opened"}
        elif player is not None:
            raise CliError("--player needs a position file")
        if table_sets is not None:
            body["table"] = table_sets
        if rack_tiles is not None:
            body["rack"] = rack_tiles
            moved.pop("/rack", None)
        if opened is not None:
            body["opened"] = opened
            moved.pop("/opened", None)
        if objective is not None:
            body["objective"] = objective.value
        if tie_break is not None:
            body["tie_break"] = tie_break.value
        body.setdefault("table", [])
        if file is None and "rack" not in body:
            raise CliError("give a file, or --rack (and --table, --opened)")
        body.setdefault("opened", False)
        body = with_rules(body, rules_value)
        options = {"/table": "--table"} if table_sets is not None else {}
        if rack_tiles is not None:
            options["/rack"] = "--rack"
        result = _call(_backend(server, lang, timeout), "moves/suggest", body, source, moved, options)
    if json_out:
        print_json(result)
    else:
        render.render_suggest(_out(), body, result, lang.value)
    raise typer.Exit(EXIT_OK if result.get("played") else EXIT_INVALID)


def _option_tiles(option: str, tiles: list[str], at: str = "") -> list[str]:
    """The tiles an option gives (its words parsed), checked here when the request also comes
    from a file: a mistake in them is the option's (``--rack: /1: 'Z' is not a tile``), not a
    pointer into the file."""
    errors = _tile_errors(tiles, at)
    if errors:
        raise CliError(f"{option}: {problem_line({'errors': errors})}")
    return tiles


def _check_position(doc: dict[str, Any], source: str) -> list[dict[str, str]]:
    """A position file's players (names, no name twice; racks; ``opened``) and pool, as SPEC §6
    gives them: raises for a malformed player or pool, and returns the errors of its tiles and
    of ``opened`` (pointer and detail, every one)."""
    players = doc.get("players")
    if not isinstance(players, list):
        raise CliError(f"{source}: /players: expected an array of players")
    names: set[str] = set()
    errors: list[dict[str, str]] = []
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or "rack" not in p:
            raise CliError(f"{source}: /players/{i}: each player needs a 'name' string and a 'rack'")
        if p["name"] in names:
            raise CliError(f"{source}: /players/{i}/name: two players are named {p['name']!r}")
        names.add(p["name"])
        errors += _tile_errors(p["rack"], f"/players/{i}/rack")
        if "opened" in p and not isinstance(p["opened"], bool):
            errors.append({"pointer": f"/players/{i}/opened", "detail": "must be true or false"})
    pool = doc.get("pool")
    if isinstance(pool, list):
        errors += _tile_errors(pool, "/pool")
    elif pool is not None and (isinstance(pool, bool) or not isinstance(pool, int) or pool < 0):
        raise CliError(f"{source}: /pool: expected a tile count or an array of tiles")
    return errors


def _tiles_refused(source: str, errors: list[dict[str, str]], problem: Mapping[str, Any] | None = None) -> CliError:
    """Bad input: a document's tile errors (after those of a refused request's ``problem``), the
    first three on the line and the rest counted, as for a request's problem."""
    earlier = (problem.get("errors") or []) if problem is not None else []
    listed = [*earlier, *errors]
    return CliError(f"{source}: {problem_line({'errors': listed})}", EXIT_INPUT, {**(problem or {}), "errors": listed})


def _suggest_body(doc: dict[str, Any], player: str | None, source: str) -> tuple[dict[str, Any], int | None]:
    """A moves/suggest body from a body or from a position file, and the index of the position
    file's player whose move it is (None for a body)."""
    if "players" not in doc:
        return dict(doc), None
    players = doc.get("players")
    if not isinstance(players, list) or not players:
        raise CliError(f"{source}: /players: expected a non-empty array of players")
    if "table" not in doc:  # as show reads a position file (the CLI audit, session 47)
        raise CliError(f"{source}: a position file needs 'table' (an empty table is [])")
    errors = _check_position(doc, source)  # every player's rack, as show checks it (docs/cli.md)
    if errors:
        raise _tiles_refused(source, errors)
    found = [
        (i, p) for i, p in enumerate(players) if isinstance(p, dict) and (player is None or p.get("name") == player)
    ]
    if not found:
        raise CliError(f"{source}: no player named {player!r}")
    index, chosen = found[0]
    body: dict[str, Any] = {
        "table": doc["table"],
        "rack": chosen.get("rack"),
        "opened": chosen.get("opened", False),
    }
    if "rules" in doc:
        body["rules"] = doc["rules"]
    for key in ("objective", "tie_break"):
        if key in doc:
            body[key] = doc[key]
    return body, index


# --- serve -----------------------------------------------------------------------------------------


@app.command(epilog="Examples:\n\n  rummikub serve\n\n  rummikub serve --host 0.0.0.0 --port 8080 --workers 4")
def serve(
    host: Annotated[
        str | None,
        typer.Option(
            "--host", metavar="HOST", help="Interface to listen on [default: RUMMIKUB_BIND's, else 127.0.0.1]."
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=1, max=65535, metavar="PORT", help="TCP port [default: RUMMIKUB_BIND's, else 8000]."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            help="Worker processes (default: RUMMIKUB_WORKERS or the CPUs this process may use).",
        ),
    ] = None,
) -> None:
    """Run the HTTP service under granian (docs at /docs; settings: RUMMIKUB_* variables)."""
    missing = [name for name in ("flask", "granian", "prometheus_client") if importlib.util.find_spec(name) is None]
    if missing:
        typer.echo(
            f"rummikub serve needs {', '.join(missing)}: pip install 'rummikub-rules[serve]'",
            err=True,
        )
        raise typer.Exit(2)
    env = dict(os.environ)
    if host is not None or port is not None:  # (each one not given is RUMMIKUB_BIND's)
        from service.server import parse_bind

        with _guard():
            try:
                bound_host, bound_port = parse_bind(env.get("RUMMIKUB_BIND", ""))
            except ValueError as exc:
                raise CliError(str(exc), EXIT_INPUT) from None
        host = bound_host if host is None else host
        port = bound_port if port is None else port
        env["RUMMIKUB_BIND"] = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if workers is not None:
        env["RUMMIKUB_WORKERS"] = str(workers)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "service.server"], env)

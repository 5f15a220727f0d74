"""Reading the command line's documents: JSON files, ``-`` (stdin), JSON Lines, folders, tile
words and the ``--rules`` option. Nothing here knows the rules of the game: documents are
passed on as JSON to the operations (in-process or over HTTP), which do all request parsing.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from cli.errors import CliError
from engine.errors import json_value_error_text

STDIN = "-"
_WORD_SPLIT = re.compile(r"[\s,]+")
_KINDS = ("run", "group")


class DocumentError(Exception):
    """A document that cannot be read (I/O, encoding, JSON). ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(text: str, one_line: bool = False) -> Any:
    """Strict JSON (no NaN/Infinity, which the HTTP API could not receive either).
    ``one_line``: the text is one line of a JSON Lines file (errors name the column only)."""
    if not text.strip(" \t\r\n"):
        raise DocumentError("empty: no JSON document")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno} column {exc.colno}"
        raise DocumentError(f"bad JSON at {where}: {exc.msg}", exc.lineno) from None
    except RecursionError:
        raise DocumentError("bad JSON: nested too deeply to read") from None
    except ValueError as exc:
        raise DocumentError(f"bad JSON: {json_value_error_text(exc)}") from None


def decode(data: bytes, where: str = "") -> str:
    """UTF-8 text (a byte order mark dropped); ``where`` ends the error's words."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not UTF-8 text (byte {exc.start}{where})") from None


_BOMS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _wide_encoding(data: bytes) -> str | None:
    """UTF-16 or UTF-32, which the API reads too (PowerShell's ``>`` writes UTF-16): told by a
    byte order mark or, without one, by the zeros among the first bytes (RFC 8259's rule,
    ``json.detect_encoding``); None for UTF-8 and anything else."""
    encoding = next((encoding for bom, encoding in _BOMS if data.startswith(bom)), None)
    if encoding is None and not data.startswith(codecs.BOM_UTF8) and any(data[:4]):  # (not /dev/zero)
        detected = json.detect_encoding(data)
        encoding = None if detected.startswith("utf-8") else detected
    return encoding


def _as_utf8(data: bytes) -> bytes:
    """UTF-16 or UTF-32 text (``_wide_encoding``) as UTF-8; anything else as it is."""
    encoding = _wide_encoding(data)
    if encoding is None:
        return data
    try:
        return data.decode(encoding).encode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not {encoding[:6].upper()} text (byte {exc.start})") from None


MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""The most bytes read for one JSON document (a file, a JSON Lines line, stdin holding one):
no request may be near that large (``RUMMIKUB_MAX_BODY_BYTES``, 256 KiB by default, limits the
body sent), and a file that never ends (``/dev/zero``, ``yes |``) is refused once past it."""
MAX_STDIN_BYTES = 256 * 1024 * 1024
"""The most bytes a batch reads from stdin (JSON Lines, many documents; a file is read line
by line without such a limit)."""


def _too_large(limit: int) -> DocumentError:
    return DocumentError(f"larger than {limit} bytes: no document is read past that")


def read_bytes(source: str, limit: int | None = None, regular_only: bool = False) -> bytes:
    """The bytes of a file, or of stdin for ``-`` (UTF-16 or UTF-32 made UTF-8): at most
    ``limit`` of them (``MAX_DOCUMENT_BYTES``), else a DocumentError. ``regular_only``: a
    DocumentError for what is no regular file when opened (a folder walk's file replaced by a
    FIFO since the walk listed it would block its opening without end)."""
    limit = MAX_DOCUMENT_BYTES if limit is None else limit
    if source == STDIN:
        stdin = sys.stdin
        if stdin is None:  # (fd 0 closed: ``<&-``)
            raise DocumentError("standard input is closed")
        raw = stdin.buffer.read(limit + 1) if hasattr(stdin, "buffer") else stdin.read(limit + 1).encode()
        if len(raw) > limit:
            raise _too_large(limit)
        return _as_utf8(raw)
    if not source:  # Path("") is the current folder
        raise DocumentError("an empty argument names no file")
    with _opened(source, regular_only) as file:
        raw = file.read(limit + 1)
    if len(raw) > limit:
        raise _too_large(limit)
    return _as_utf8(raw)


NOT_REGULAR = "not a regular file (a FIFO, device or socket)"


@contextlib.contextmanager
def _opened(source: str, regular_only: bool = False) -> Iterator[BinaryIO]:
    """A file opened for reading bytes; a DocumentError saying why it cannot be read.
    ``regular_only``: opened without waiting (a FIFO's opening waits for a writer), and
    refused unless it is a regular file."""
    try:
        with _open_regular(source) if regular_only else Path(source).open("rb") as file:
            yield file
    except FileNotFoundError:
        raise DocumentError("no such file") from None
    except IsADirectoryError:
        raise DocumentError("is a folder, not a file") from None
    except OSError as exc:
        raise DocumentError(exc.strerror or str(exc)) from None


def _open_regular(source: str) -> BinaryIO:
    """``source`` opened for reading bytes if it is a regular file, without waiting to open it
    (a FIFO's opening waits for a writer); a DocumentError otherwise."""
    fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DocumentError(NOT_REGULAR)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def display_name(source: str) -> str:
    return "stdin" if source == STDIN else source or "''"


def load_document(source: str) -> Any:
    """One JSON document from a file or ``-``; a CliError (exit 2) naming the source when it
    cannot be read."""
    try:
        return parse_json(decode(read_bytes(source)))
    except DocumentError as exc:
        raise CliError(f"{display_name(source)}: {exc.message}") from None


def looks_like_file(arg: str) -> bool:
    """Whether a positional argument names a file rather than tiles: ``-``, or anything with
    a dot or a slash (tile words never hold either)."""
    return arg == STDIN or any(ch in arg for ch in "./\\")


def parse_set_words(arg: str) -> list[str] | dict[str, Any]:
    """One set from words: tiles separated by spaces or commas (``"R5 R6 R7"``,
    ``"K9,B9,J"``). A leading ``run:`` or ``group:`` declares the set's kind. The tiles are
    passed on as written; the operation reads (and rejects) them."""
    words = [w for w in _WORD_SPLIT.split(arg.strip()) if w]
    kind = None
    if words and words[0].endswith(":") and words[0][:-1].lower() in _KINDS:
        kind = words.pop(0)[:-1].lower()
    elif words and ":" in words[0] and words[0].split(":", 1)[0].lower() in _KINDS:
        head, rest = words[0].split(":", 1)
        kind = head.lower()
        words = ([rest] if rest else []) + words[1:]
    if kind is not None:
        return {"tiles": words, "kind": kind}
    return words


def parse_tile_words(arg: str) -> list[str]:
    """A rack or a loose tile list from words."""
    return [w for w in _WORD_SPLIT.split(arg.strip()) if w]


def rules_option(value: str | None) -> Any:
    """The ``--rules`` value as a request's ``rules``: a preset name as given, or the JSON in
    a file (a preset name or an object ``{"preset"?, ...overrides}``; a file holding
    ``{"rules": ...}`` is unwrapped). None when the option was not given."""
    if value is None:
        return None
    if not looks_like_file(value):
        return value
    doc = load_document(value)
    if isinstance(doc, dict) and set(doc) == {"rules"}:
        doc = doc["rules"]
    return doc


def with_rules(body: Any, rules: Any) -> Any:
    """The request body with ``--rules`` applied (it overrides the document's own rules)."""
    if rules is None or not isinstance(body, dict):
        return body
    return {**body, "rules": rules}


# --- batch sources -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """One input document of a batch: a whole file (``text`` None: read it where it is
    processed), or a line of a JSON Lines file / stdin (``text`` holds it). ``error`` is set
    when the source could not even be read."""

    file: str
    line: int | None = None
    text: str | None = None
    error: str | None = None
    parsed: tuple[Any] | None = None
    """``text``'s document when already read (stdin: read to tell one document from JSON
    Lines), as a 1-tuple (the document may be ``null``)."""
    walked: bool = False
    """Found by a folder walk: read only while it is a regular file (``read_bytes``)."""


def _lines(file: str, data: bytes | BinaryIO) -> Iterator[Source]:
    """The documents of JSON Lines (bytes, or a file read line by line): one a physical line
    (split at ``\\n`` only: JSON strings may hold U+2028 and the like), each decoded alone, so
    one line that is not UTF-8 is one error row and its neighbours are still read. A line over
    ``MAX_DOCUMENT_BYTES`` is an error row; the lines after it are read in a regular file (or
    bytes), not in anything else (a line there may never end: a link to ``/dev/zero``)."""
    stream = io.BytesIO(data) if isinstance(data, bytes) else data
    ends = isinstance(data, bytes) or stat.S_ISREG(os.fstat(data.fileno()).st_mode)
    number = 0
    while raw := stream.readline(MAX_DOCUMENT_BYTES + 1):
        number += 1
        if len(raw) > MAX_DOCUMENT_BYTES and not raw.endswith(b"\n"):
            if not ends:
                message = f"{_too_large(MAX_DOCUMENT_BYTES).message}; the rest of the file is not read"
                yield Source(file, number, error=message)
                return
            yield Source(file, number, error=_too_large(MAX_DOCUMENT_BYTES).message)
            while (rest := stream.readline(MAX_DOCUMENT_BYTES + 1)) and not rest.endswith(b"\n"):
                pass  # (the rest of the line, a piece at a time: its size is the file's)
            continue
        if not raw.strip(b" \t\r\n"):
            continue  # (a blank line, skipped before any decoding: a file of them is quick)
        raw = raw.removesuffix(b"\n")
        try:
            line = decode(raw, " of the line")
        except DocumentError as exc:
            yield Source(file, number, error=exc.message)
            continue
        if line.strip(" \t\r"):
            yield Source(file, number, line)


def _json_lines(data: bytes) -> bool:
    """Whether stdin that is not one JSON document reads as JSON Lines: more than one line,
    and some line is a whole JSON object by itself, not indented (a broken pretty-printed
    document has none: its inner objects are indented; it is one unreadable document, as a
    file's would be)."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if len(lines) < 2:
        return False
    for line in lines:
        if line[:1] in (b" ", b"\t"):
            continue
        try:
            if isinstance(json.loads(line), dict):
                return True
        except ValueError:
            continue
    return False


def _expand(arg: str) -> Iterator[Source]:
    if arg == STDIN:
        try:
            data = read_bytes(STDIN, MAX_STDIN_BYTES)
        except DocumentError as exc:  # past a batch's limit, or not UTF-16/UTF-32 after its mark
            yield Source("stdin", error=exc.message)
            return
        # A whole JSON document (possibly spread over lines; read once, and not past a
        # document's limit), else JSON Lines. Anything else is one unreadable document,
        # reported as a file's would be.
        try:
            if len(data) > MAX_DOCUMENT_BYTES:
                raise _too_large(MAX_DOCUMENT_BYTES)
            text = decode(data)
            value = parse_json(text)
        except DocumentError as exc:
            if _json_lines(data):
                yield from _lines("stdin", data)
            else:
                yield Source("stdin", error=exc.message)
            return
        yield Source("stdin", text=text, parsed=(value,))
        return
    path = Path(arg)
    try:
        folder = path.is_dir()
    except OSError as exc:  # a name too long for the file system...
        yield Source(arg, error=exc.strerror or str(exc))
        return
    if not folder:
        yield from _file(arg)
        return
    found = False
    for name, error in _folder_files(path):
        found = True
        if error is not None:
            yield Source(name, error=error)
        else:
            yield from _file(name, walked=True)
    if not found:
        yield Source(arg, error=EMPTY_FOLDER)


EMPTY_FOLDER = "no documents in this folder (folders are searched for *.json and *.jsonl)"
EMPTY_JSONL = "no documents in this file (JSON Lines: one a line, blank lines skipped)"
_SUFFIXES = (".json", ".jsonl")


def _folder_files(top: Path) -> list[tuple[str, str | None]]:
    """The ``*.json`` and ``*.jsonl`` files under a folder (any case of the suffix), in path
    order, following links to folders (as ``find -L``: a link back to a folder it is inside
    of is not followed again, so a loop ends), with ``(folder, error)`` for a folder that
    cannot be listed: nothing under it is lost silently. A dangling link with such a name is
    listed too (its document gets its error row)."""
    return sorted(_walk(top), key=lambda found: Path(found[0]).parts)


def _walk(top: Path) -> Iterator[tuple[str, str | None]]:
    pending: list[tuple[Path, frozenset[str]]] = [(top, frozenset())]
    while pending:
        folder, ancestors = pending.pop()
        try:
            real = os.path.realpath(folder)
            if real in ancestors:
                continue
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as exc:
            yield str(folder), f"cannot list this folder: {exc.strerror or exc}"
            continue
        inside = ancestors | {real}
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            if is_folder:
                pending.append((Path(entry.path), inside))
            elif entry.name.lower().endswith(_SUFFIXES):
                yield (
                    entry.path,
                    None if _regular_or_dangling(entry) else NOT_REGULAR,
                )


def _regular_or_dangling(entry: os.DirEntry[str]) -> bool:
    """Whether a folder's entry is a file to read: a regular file (through links), or a
    dangling link (its row then says why). A FIFO, a device or a socket found by a folder walk
    is not read: it may never end (one named on the command line is: ``<(command)``)."""
    try:
        return entry.is_file() or not os.path.exists(entry.path)
    except OSError:
        return True  # (its row says why, when read)


def _file(name: str, walked: bool = False) -> Iterator[Source]:
    if name.lower().endswith(".jsonl"):
        try:
            with _opened(name, walked) as file:
                if _wide_encoding(file.peek(4)[:4]) is not None:  # type: ignore[attr-defined]
                    # (UTF-16 or UTF-32: decoded whole, within a batch's stdin limit)
                    yield from _lines(name, read_bytes(name, MAX_STDIN_BYTES, walked))
                    return
                found = False
                for source in _lines(name, file):  # line by line (each line's text is kept: docs/cli.md)
                    found = True
                    yield source
                if not found:  # (a zero-length export among the inputs is told, as an empty folder)
                    yield Source(name, error=EMPTY_JSONL)
        except DocumentError as exc:
            yield Source(name, error=exc.message)
    else:
        yield Source(name, walked=walked)


def collect_sources(args: list[str]) -> list[Source]:
    """Every document named by the arguments, in order: files, folders (recursively, their
    ``*.json`` and ``*.jsonl`` files in name order), JSON Lines (one document a line; blank
    lines are skipped) and ``-`` (stdin: one JSON document, or JSON Lines)."""
    if args.count(STDIN) > 1:
        raise CliError("'-' (stdin) can be given only once")
    if "" in args:  # Path("") is the current folder, not one the user named
        raise CliError("an empty argument names no file or folder")
    out: list[Source] = []
    for arg in args:
        out.extend(_expand(arg))
    return out


def load_source(source: Source) -> Any:
    """The JSON document of a source; DocumentError when it cannot be read."""
    if source.error is not None:
        raise DocumentError(source.error, source.line)
    if source.parsed is not None:
        return source.parsed[0]
    if source.text is not None:
        try:
            return parse_json(source.text, one_line=source.line is not None)
        except DocumentError as exc:
            # JSON Lines: report the file's line, not the line inside the one-line document.
            raise DocumentError(exc.message, source.line) from None
    return parse_json(decode(read_bytes(source.file, regular_only=source.walked)))

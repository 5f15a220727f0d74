"""What a batch reads and what its readable reports write, from the batch audit (session 37):
every input document yields one row (a bad line of a JSON Lines file, a folder that cannot be
listed), a name no terminal should receive is shown escaped, and a ``--server`` that is not the
rules service stops the batch in one line instead of failing every document.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cli.inputs
from cli.main import app
from cli.remote import VERDICT_KEYS
from service.app import create_app
from tests.test_cli import one_line_error
from tests.test_cli_server import serve_wsgi

pytestmark = pytest.mark.cli

GOOD = {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}
LINE = json.dumps(GOOD).encode()


def run(*args: str, input: bytes | str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input, env={"NO_COLOR": "1", "COLUMNS": "200"})


def rows(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.split("\n") if line]


# --- JSON Lines ------------------------------------------------------------------------------------


def test_a_line_that_is_not_utf8_is_one_error_row(tmp_path: Path) -> None:
    # the whole file was one error row: its 999 good documents were lost
    data = b"\n".join([LINE, LINE, b"\xe9", LINE]) + b"\n"
    (tmp_path / "games.jsonl").write_bytes(data)
    for args, input in (([str(tmp_path / "games.jsonl")], None), (["-"], data)):
        result = run("score", *args, "-f", "jsonl", input=input)
        got = [(r["line"], r["status"]) for r in rows(result.stdout)]
        assert got == [(1, "ok"), (2, "ok"), (3, "error"), (4, "ok")]
        assert "not UTF-8" in rows(result.stdout)[2]["error"] and result.exit_code == 2


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-16-be"])
def test_utf16_and_utf32_text_with_a_byte_order_mark_is_read(tmp_path: Path, encoding: str) -> None:
    # PowerShell's ">" writes UTF-16: the CLI said "not UTF-8 text (byte 0)" where the API reads it
    text = "\r\n".join([LINE.decode(), LINE.decode()]) + "\r\n"
    bom = codecs.BOM_UTF16_BE if encoding == "utf-16-be" else b""  # (the others write their own)
    data = bom + text.encode(encoding)
    (tmp_path / "rounds.jsonl").write_bytes(data)
    (tmp_path / "round.json").write_bytes(bom + LINE.decode().encode(encoding))
    for args, input in (([str(tmp_path / "rounds.jsonl")], None), (["-"], data)):
        result = run("score", *args, "-f", "jsonl", input=input)
        assert [(r["line"], r["status"]) for r in rows(result.stdout)] == [(1, "ok"), (2, "ok")], result.stdout
    single = run("score", str(tmp_path / "round.json"), "--json")
    assert single.exit_code == 0 and json.loads(single.stdout)["winner"] == "A"
    broken = tmp_path / "broken.json"
    broken.write_bytes(codecs.BOM_UTF16_LE + b"{\x00\x00\xd8")
    assert one_line_error(run("score", str(broken))) == f"rummikub: {broken}: not UTF-16 text (byte 4)"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_text_without_a_byte_order_mark_is_read_as_the_api_reads_it(
    tmp_path: Path, encoding: str
) -> None:
    # JSON text's encoding is told by its first bytes' zeros (RFC 8259): the API read such a
    # body, the CLI said "not UTF-8 text (byte 1)" (CLI audit, session 45)
    client = create_app({"TESTING": True}).test_client()
    response = client.post("/v1/rounds/score", data=LINE.decode().encode(encoding), content_type="application/json")
    assert response.status_code == 200
    data = ("\n".join([LINE.decode(), LINE.decode()]) + "\n").encode(encoding)
    (tmp_path / "rounds.jsonl").write_bytes(data)
    (tmp_path / "round.json").write_bytes(LINE.decode().encode(encoding))
    for args, input in (([str(tmp_path / "rounds.jsonl")], None), (["-"], data)):
        result = run("score", *args, "-f", "jsonl", input=input)
        assert [(r["line"], r["status"]) for r in rows(result.stdout)] == [(1, "ok"), (2, "ok")], result.stdout
    for args, input in (([str(tmp_path / "round.json")], None), (["-"], LINE.decode().encode(encoding))):
        single = run("score", *args, "--json", input=input)
        assert single.exit_code == 0 and json.loads(single.stdout)["winner"] == "A", single.stdout
    broken = tmp_path / "broken.json"
    broken.write_bytes(LINE.decode().encode(encoding)[:-1])  # its last character cut short
    assert one_line_error(run("score", str(broken))).startswith(f"rummikub: {broken}: not {encoding[:6].upper()} text")


@pytest.fixture
def small_documents(monkeypatch: pytest.MonkeyPatch) -> int:
    """``cli.inputs.MAX_DOCUMENT_BYTES`` made 1,000 bytes, for files over it that stay small."""
    monkeypatch.setattr(cli.inputs, "MAX_DOCUMENT_BYTES", 1000)
    return 1000


def test_a_document_is_read_no_further_than_its_limit(tmp_path: Path, small_documents: int) -> None:
    """A file that never ends (``/dev/zero``, ``yes |``) was read into memory without bound,
    then a MemoryError traceback (a worst-cost hunt, session 43): past the limit it is refused
    in one line, exit 2, having read no more than the limit."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"sets": [["R1", "R2", "R3"]], "pad": "A" * 2000}), encoding="utf-8")
    result = run("validate", str(big))
    assert (
        result.exit_code == 2
        and one_line_error(result) == f"rummikub: {big}: larger than 1000 bytes: no document is read past that"
    )
    endless = tmp_path / "zero.json"
    endless.symlink_to("/dev/zero")
    assert run("validate", str(endless)).exit_code == 2
    assert run("validate", "-", input="y\n" * 1000).exit_code == 2
    assert run("validate", str(big), "--json").exit_code == 2


@pytest.mark.parametrize("command", ["score", "replay"])
def test_one_document_on_stdin_is_read_once_and_not_past_a_documents_limit(
    monkeypatch: pytest.MonkeyPatch, small_documents: int, command: str
) -> None:
    """score and replay read one document on stdin up to a batch's 256 MiB and parsed it twice
    before refusing it: a 100 MB one took 16.8 s and 730 MB, the same file named 0.4 s (the
    input audit, session 50: WBI-11)."""
    parsed = []
    parse_json = cli.inputs.parse_json

    def counted(text: str, one_line: bool = False) -> Any:
        parsed.append(len(text))
        return parse_json(text, one_line)

    monkeypatch.setattr(cli.inputs, "parse_json", counted)
    big = json.dumps({**GOOD, "pad": "A" * 2000})
    for text in (big, big.replace(", ", ",\n")):  # (one line, or a document spread over lines)
        result = run(command, "-", input=text)
        assert result.exit_code == 2 and parsed == []
        assert one_line_error(result) == "rummikub: stdin: larger than 1000 bytes: no document is read past that"
    assert run(command, "-", "--json", input=json.dumps(GOOD)).exit_code in (0, 1, 2) and len(parsed) == 1


def test_a_json_lines_line_over_the_limit_is_an_error_row_and_the_next_lines_are_read(
    tmp_path: Path, small_documents: int
) -> None:
    """It is an error row, and the lines after it are read in a regular file or stdin: they had
    no row, against "Nothing is lost" (the input audit, session 50: WBI-6). Something that is
    no regular file is read no further (a line there may never end: a link to ``/dev/zero``
    named ``*.jsonl``). Blank lines cost no memory."""
    lines = tmp_path / "rounds.jsonl"
    data = LINE + b"\n" * 10_000 + b"x" * 2000 + b"\n" + LINE + b"\n" + b"y" * 3500 + b"\n" + LINE + b"\n" + b"z" * 1001
    lines.write_bytes(data)
    for args, input in (([str(lines)], None), (["-"], data)):
        out = rows(run("score", *args, "--json", input=input).stdout)
        got = [(row["line"], row["status"]) for row in out]
        assert got == [
            (1, "ok"),
            (10_001, "error"),
            (10_002, "ok"),
            (10_003, "error"),
            (10_004, "ok"),
            (10_005, "error"),
        ]
        assert out[1]["error"] == "larger than 1000 bytes: no document is read past that"
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    out = rows(run("score", str(zero), "--json").stdout)
    assert [row["status"] for row in out] == ["error"] and out[0]["error"].endswith("the rest of the file is not read")


def test_a_fifo_found_in_a_folder_is_an_error_row_not_a_wait(tmp_path: Path) -> None:
    """A folder walk that found a FIFO named ``*.json`` blocked on it for ever (a worst-cost
    hunt, session 43): it is not read, and its row says why; the batch goes on."""
    (tmp_path / "a.json").write_bytes(LINE)
    fifo = tmp_path / "b.json"
    os.mkfifo(fifo)
    # (were it read, a writer opening and closing it ends the wait: the test fails, not hangs)
    threading.Thread(target=lambda: fifo.open("wb").close(), daemon=True).start()
    out = rows(run("score", str(tmp_path), "--json").stdout)
    assert [row["status"] for row in out] == ["ok", "error"] and "not a regular file" in out[1]["error"]


def test_json_lines_split_at_newlines_only(tmp_path: Path) -> None:
    # U+2028, U+0085 and the like are text inside a JSON string, not line ends
    named = {"players": [{"name": "A\u2028B\x85C\x0cD", "rack": []}, {"name": "E", "rack": ["R5"]}]}
    text = json.dumps(named, ensure_ascii=False) + "\r\n" + json.dumps(GOOD) + "\n"
    (tmp_path / "r.jsonl").write_text(text, encoding="utf-8")
    result = run("score", str(tmp_path / "r.jsonl"), "-f", "jsonl")
    got = rows(result.stdout)
    assert [(r["line"], r["status"]) for r in got] == [(1, "ok"), (2, "ok")] and result.exit_code == 0
    assert got[0]["result"]["winner"] == "A\u2028B\x85C\x0cD"


def test_a_broken_document_on_stdin_spread_over_lines_is_one_row() -> None:
    text = json.dumps(GOOD, indent=2)[:-10]
    result = run("score", "-", "-f", "jsonl", input=text)
    assert [(r["line"], r["status"]) for r in rows(result.stdout)] == [(None, "error")]


# --- folders ---------------------------------------------------------------------------------------


def test_folders_hold_any_case_of_suffix_and_links_to_folders(tmp_path: Path) -> None:
    (tmp_path / "top").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "top" / "a.json").write_bytes(LINE)
    (tmp_path / "elsewhere" / "B.JSON").write_bytes(LINE)
    (tmp_path / "elsewhere" / "c.Jsonl").write_bytes(LINE + b"\n" + LINE)
    (tmp_path / "top" / "linked").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "top" / "loop").symlink_to(tmp_path / "top")  # followed once, not forever
    result = run("score", str(tmp_path / "top"), "-f", "jsonl")
    got = [(Path(r["file"]).relative_to(tmp_path).as_posix(), r["line"]) for r in rows(result.stdout)]
    assert got == [
        ("top/a.json", None),
        ("top/linked/B.JSON", None),
        ("top/linked/c.Jsonl", 1),
        ("top/linked/c.Jsonl", 2),
    ]
    assert result.exit_code == 0


def test_a_folder_that_cannot_be_listed_is_an_error_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # rglob skipped it silently (exit 0, its documents neither listed nor counted)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.json").write_bytes(LINE)
    (tmp_path / "a.json").write_bytes(LINE)
    scandir = os.scandir

    def refuse_locked(path: Any) -> Any:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse_locked)
    result = run("score", str(tmp_path), "-f", "jsonl")
    got = [(Path(r["file"]).name, r["status"], r.get("error")) for r in rows(result.stdout)]
    assert got == [("a.json", "ok", None), ("locked", "error", "cannot list this folder: Permission denied")]
    assert result.exit_code == 2


def test_an_empty_folder_named_beside_others_is_an_error_row(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "a.json").write_bytes(LINE)
    result = run("score", str(tmp_path / "a.json"), str(tmp_path / "empty"), "-f", "jsonl")
    assert [(Path(r["file"]).name, r["status"]) for r in rows(result.stdout)] == [("a.json", "ok"), ("empty", "error")]
    assert result.exit_code == 2
    alone = run("score", str(tmp_path / "empty"))
    assert alone.exit_code == 2 and alone.stdout == ""
    assert one_line_error(alone) == "rummikub: no documents found (folders are searched for *.json and *.jsonl)"


# --- names no terminal should receive ---------------------------------------------------------------


def test_a_lone_surrogate_in_a_name_does_not_stop_the_batch(tmp_path: Path) -> None:
    # JSON's "\ud800" has no UTF-8 bytes: writing it ended the batch with a traceback (exit 1)
    (tmp_path / "a.json").write_text('{"players": [{"name": "\\ud800", "rack": []}, {"name": "B", "rack": ["R5"]}]}')
    (tmp_path / "b.json").write_bytes(LINE)
    jsonl = run("score", str(tmp_path), "-f", "jsonl")
    assert jsonl.exit_code == 0 and "Traceback" not in jsonl.stderr
    assert [r["result"]["winner"] for r in rows(jsonl.stdout)] == ["\ud800", "A"]  # the same string, escaped
    for args in (["-f", "table"], ["-f", "csv"], []):
        result = run("score", str(tmp_path), *args)
        assert result.exit_code == 0 and "Traceback" not in result.stderr
        assert "\\ud800" in result.stdout and "A" in result.stdout
    single = run("score", str(tmp_path / "a.json"))
    assert single.exit_code == 0 and "\\ud800" in single.stdout


def test_a_lone_surrogate_in_a_name_is_written_escaped_in_the_html_report(tmp_path: Path) -> None:
    # it has no UTF-8 bytes: the report ended in a traceback, its file left empty (session 42)
    record = tmp_path / "game.json"
    record.write_text(
        '{"players": [{"name": "\\ud800<b>", "rack": ["R1"]}, {"name": "B", "rack": ["R2"]}],'
        ' "turns": [{"player": "\\ud800<b>", "draw": "R3"}]}'
    )
    page = tmp_path / "report.html"
    result = run("replay", str(record), "--html", str(page))
    assert "Traceback" not in result.stderr and result.exit_code == 1  # the deal is too small
    assert "\\ud800&lt;b&gt;" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("A\x1b[31mX", "A\\x1b[31mX"),
        ("A\x9bX", "A\\x9bX"),
        ("A\u202eX", "A\\u202eX"),
        ("A\x00X", "A\\x00X"),
        ("A\tX\nY", "A\\x09X\\x0aY"),
        ("A\u2028X\u2029Y", "A\\u2028X\\u2029Y"),
    ],
)
def test_control_characters_in_names_are_shown_escaped(tmp_path: Path, name: str, escaped: str) -> None:
    doc = {"players": [{"name": name, "rack": []}, {"name": "B", "rack": ["R5"]}]}
    (tmp_path / "a.json").write_text(json.dumps(doc))
    (tmp_path / "b.json").write_text(json.dumps(doc))
    for args in ([str(tmp_path / "a.json")], [str(tmp_path)]):  # a report, a batch table
        result = run("score", *args)
        assert escaped in result.stdout
        assert not any(ch in result.stdout for ch in name if not ch.isprintable() and ch != "\n"), result.stdout
        assert "X\nY" not in result.stdout
    as_json = run("score", str(tmp_path / "a.json"), "--json")
    assert json.loads(as_json.stdout)["winner"] == name  # the API's JSON is never altered


# --- a --server that is not the rules service --------------------------------------------------------


@pytest.fixture(scope="module")
def not_the_service() -> Iterator[str]:
    """Another program: every POST answers 200 with a JSON object that is no verdict."""
    count = {"requests": 0}
    lock = threading.Lock()

    def wsgi(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        with lock:
            count["requests"] += 1
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b'{"status": "ok"}']

    yield from serve_wsgi(wsgi)


def test_a_200_without_a_verdict_is_not_the_service(tmp_path: Path, not_the_service: str) -> None:
    # every document passed as "ok", with empty winners and scores, exit 0
    for i in range(3):
        (tmp_path / f"{i}.json").write_bytes(LINE)
    lacking = {"score": "'winner', 'scores'", "replay": "'valid', 'turns', 'first_invalid_turn'"}
    for command, keys in lacking.items():
        result = run(command, str(tmp_path), "-f", "jsonl", "--server", not_the_service)
        assert result.exit_code == 3 and result.stdout == ""
        assert one_line_error(result).endswith(f"(no {keys}): is {not_the_service} the rules service?")
    single = run("validate", "R1 R2 R3", "--server", not_the_service)
    assert single.exit_code == 3 and "without a verdict (no 'valid', 'sets')" in one_line_error(single)


@pytest.fixture(scope="module")
def wrong_shapes() -> Iterator[str]:
    """Another program, or another version: 200 answers with the verdict's members, of the
    wrong types (a list where sets are objects, a string where scores are a list)."""
    answers = {
        "/v1/sets/validate": {"valid": True, "sets": [1]},
        "/v1/rounds/score": {"winner": "A", "winners": ["A"], "scores": "x"},
        "/v1/rules": [],
        "/v1/rules/sabra": {},
    }

    def wsgi(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(answers.get(environ["PATH_INFO"], "str")).encode()]

    yield from serve_wsgi(wsgi)


def test_an_answer_of_the_wrong_shape_is_one_line_not_a_traceback(tmp_path: Path, wrong_shapes: str) -> None:
    """They ended in a traceback (exit 1), and ``rules`` printed an empty table, exit 0 (the CLI
    audit, session 47)."""
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps({"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}))
    for args in (["validate", "R1 R2 R3"], ["score", str(round_file)], ["rules"], ["rules", "sabra"]):
        result = run(*args, "--server", wrong_shapes)
        assert result.exit_code == 3, (args, result.output)
        assert wrong_shapes in one_line_error(result) and "Traceback" not in result.output


@pytest.fixture(scope="module")
def valid_as_a_string() -> Iterator[str]:
    """Another program: the verdict's members, ``valid`` no boolean."""
    answers = {
        "/v1/games/replay": {"valid": "false", "turns": [], "first_invalid_turn": 3},
        "/v1/turns/verify": {"valid": "false", "action": "play", "violations": []},
        "/v1/sets/validate": {"valid": None, "sets": []},
    }

    def wsgi(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(answers.get(environ["PATH_INFO"], {})).encode()]

    yield from serve_wsgi(wsgi)


def test_a_verdict_that_is_no_boolean_is_not_the_service(tmp_path: Path, valid_as_a_string: str) -> None:
    """ "false" read as true: batch rows "ok" and exit 0, verify "legal play" (the CLI audit,
    session 51)."""
    (tmp_path / "g.json").write_text(json.dumps({"players": [{"name": "A", "rack": ["R1"]}], "turns": []}))
    turn = {"before": [["R1", "R2", "R3"]], "after": [["R1", "R2", "R3", "R4"]], "rack": ["R4"], "opened": True}
    (tmp_path / "turn.json").write_text(json.dumps(turn))
    for args in (
        ["replay", str(tmp_path / "g.json"), "-f", "csv"],
        ["replay", str(tmp_path / "g.json")],
        ["verify", str(tmp_path / "turn.json")],
        ["validate", "R1 R2 R3"],
    ):
        result = run(*args, "--server", valid_as_a_string)
        assert result.exit_code == 3, (args, result.output)
        assert "'valid' is " in one_line_error(result) and "not true or false" in one_line_error(result)


def test_an_output_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    """A full disk ended in a traceback, exit 1 (the code of an invalid verdict; the CLI audit,
    session 51)."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps({"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}))
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "cli", "score", str(round_file), "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == "rummikub: cannot write the output: No space left on device\n"


def test_the_verdict_keys_are_the_contract_s(tmp_path: Path) -> None:
    import yaml

    spec = yaml.safe_load((Path(__file__).parents[1] / "openapi.yaml").read_text(encoding="utf-8"))
    for operation, keys in VERDICT_KEYS.items():
        schema = spec["paths"][f"/v1/{operation}"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema
        assert set(keys) <= set(schema["required"]), operation


@pytest.fixture(scope="module")
def real_server() -> Iterator[str]:
    from service.app import create_app

    yield from serve_wsgi(create_app())


def test_a_server_url_with_a_path_stops_the_batch(tmp_path: Path, real_server: str) -> None:
    # each document got the 404 and its own stderr line (thousands, for thousands of files)
    for i in range(4):
        (tmp_path / f"{i}.json").write_bytes(LINE)
    for suffix in ("/v1", "/healthz"):
        result = run("score", str(tmp_path), "-f", "csv", "--server", real_server + suffix)
        assert result.exit_code == 2 and result.stdout == ""
        assert one_line_error(result).endswith(f": is {real_server}{suffix} the rules service?")
    # a preset the service does not have is the service's answer, not a wrong URL
    unknown = run("rules", "house", "--server", real_server)
    assert unknown.exit_code == 2 and "Unknown rules preset 'house'" in one_line_error(unknown)
    wrong = run("rules", "sabra", "--server", real_server + "/v1")
    assert wrong.exit_code == 2 and one_line_error(wrong).endswith(f"is {real_server}/v1 the rules service?")


def test_a_server_that_is_no_http_url_is_refused_before_any_document(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(LINE)
    (tmp_path / "b.json").write_bytes(LINE)
    result = run("score", str(tmp_path), "-f", "csv", "--server", "ftp://x")
    assert result.exit_code == 2 and result.stdout == ""
    assert one_line_error(result) == "rummikub: --server ftp://x: not a usable http:// or https:// URL"


def test_a_rules_file_that_cannot_be_read_is_named_as_the_option_s(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(LINE)
    for args in (["score", str(tmp_path)], ["validate", "R1 R2 R3"]):
        result = run(*args, "--rules", str(tmp_path / "missing.json"))
        assert result.exit_code == 2 and result.stdout == ""
        assert one_line_error(result) == f"rummikub: --rules {tmp_path / 'missing.json'}: no such file"


def test_a_broken_pretty_printed_match_on_stdin_is_one_unreadable_document() -> None:
    """Its indented round lines are whole objects: read as JSON Lines, the last round alone was
    scored "ok" and added to the totals (the CLI audit, session 51)."""
    broken = (
        '{\n  "rounds": [\n'
        '    {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R1"]}]},\n'
        '    {"players": [{"name": "A", "rack": ["K13"]}, {"name": "B", "rack": []}]}\n'
        "  ]\n"
    )
    result = run("score", "-", input=broken)
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert one_line_error(result).startswith("rummikub: stdin: bad JSON at line 6"), result.output
    # JSON Lines with a bad line are still read line by line
    lines = '{"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R1"]}]}\n{"players": [\n'
    assert len(rows(run("score", "-", "-f", "jsonl", input=lines).stdout)) == 2


def test_an_empty_json_lines_file_is_told(tmp_path: Path) -> None:
    """Beside another file it gave no row and exit 0; alone it said folders are searched (the
    CLI audit, session 51)."""
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_bytes(b"\n \n")
    (tmp_path / "round.json").write_bytes(LINE)
    alone = run("score", str(tmp_path / "empty.jsonl"))
    assert (
        alone.exit_code == 2 and one_line_error(alone) == f"rummikub: no documents found in {tmp_path / 'empty.jsonl'}"
    )
    beside = run("score", str(tmp_path / "blank.jsonl"), str(tmp_path / "round.json"), "-f", "jsonl")
    assert beside.exit_code == 2
    assert [r["status"] for r in rows(beside.stdout)] == ["error", "ok"], beside.stdout

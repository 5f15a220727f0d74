"""Errors a user acts on (#14): every error of a document (the first few, then a count; ``--json``
all of them), ``rejected`` batch rows, and a progress bar that never mixes into streamed rows."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli import batch
from cli.errors import LISTED_AT_MOST, problem_line
from cli.main import app
from service.schemas import MAX_REPORTED_ERRORS
from tests.test_cli import one_line_error

pytestmark = pytest.mark.cli

BAD_ROUND = {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["X1", "R99", "Q2", "B0", "K14"]}]}


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_problem_line_shows_the_first_errors_and_counts_the_rest() -> None:
    errors = [{"pointer": f"/sets/{i}", "detail": f"bad {i}"} for i in range(5)]
    line = problem_line({"title": "Unprocessable", "errors": errors})
    assert line == "/sets/0: bad 0; /sets/1: bad 1; /sets/2: bad 2; … and 2 more (--json shows them all)"
    assert problem_line({"errors": errors[:2]}) == "/sets/0: bad 0; /sets/1: bad 1"


def test_a_problem_listing_as_many_errors_as_the_service_lists_says_there_may_be_more() -> None:
    """Sixty bad tiles: the service lists 50 (a list stops being read there), so neither the
    problem nor the line may say that is all of them (a docs audit, session 43)."""
    assert LISTED_AT_MOST == MAX_REPORTED_ERRORS
    code, out, err = invoke("arrange", *["X1"] * 60)
    assert code == 2 and err.rstrip().endswith("… and at least 47 more (--json lists 50 of them)")
    code, out, _ = invoke("arrange", *["X1"] * 60, "--json")
    problem = json.loads(out)
    assert len(problem["errors"]) == 50 and problem["detail"].endswith("(at least 50 errors; 50 are listed).")
    few = json.loads(invoke("arrange", *["X1"] * 5, "--json")[1])
    assert few["detail"].endswith("(5 errors in all).")
    # in Spanish too (it said "(50 errores)": a docs audit, session 44)
    spanish = json.loads(invoke("arrange", *["X1"] * 60, "--json", "--lang", "es")[1])
    assert "(al menos 50 errores; se listan 50)" in spanish["detail"]
    few = json.loads(invoke("arrange", *["X1"] * 5, "--json", "--lang", "es")[1])
    assert "(5 errores en total)" in few["detail"]


def test_every_error_of_a_document(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(BAD_ROUND), encoding="utf-8")
    code, out, err = invoke("score", str(path))
    assert code == 2 and out == ""
    assert "/players/1/rack/0: 'X1'" in err and "/players/1/rack/1:" in err and "/players/1/rack/2:" in err
    assert "… and 2 more (--json shows them all)" in err
    code, out, err = invoke("score", str(path), "--json")
    assert code == 2
    problem = json.loads(out)  # the API's problem, every error
    assert [e["pointer"] for e in problem["errors"]] == [f"/players/1/rack/{i}" for i in range(5)]
    assert err.startswith("rummikub: ")


def test_batch_rows_say_rejected_not_unreadable(tmp_path: Path) -> None:
    (tmp_path / "a-bad.json").write_text(json.dumps(BAD_ROUND), encoding="utf-8")
    (tmp_path / "b-broken.json").write_text("{", encoding="utf-8")
    (tmp_path / "c-good.json").write_text(
        json.dumps({"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}), encoding="utf-8"
    )
    code, out, _err = invoke("score", str(tmp_path))
    assert code == 2
    rows = {line.split()[0].rsplit("/", 1)[-1]: line for line in out.splitlines() if ".json" in line}
    assert "✗ rejected" in rows["a-bad.json"]
    assert "✗ unreadable" in rows["b-broken.json"]
    assert "✓ ok" in rows["c-good.json"]
    summary = {line.split()[0]: line.split()[-1] for line in out.splitlines() if line.startswith("  ")}
    assert (summary["unreadable"], summary["rejected"]) == ("1", "1")
    code, out, _ = invoke("score", str(tmp_path), "-f", "jsonl")
    first = json.loads(out.splitlines()[0])
    assert first["status"] == "error" and len(first["errors"]) == 5


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_progress_bar_over_rows_streamed_to_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    terminal = Console(file=_Tty(), force_terminal=True)
    # Rows streamed to a terminal: no bar (it would be redrawn between the rows).
    assert batch.progress_bar(terminal, 10, "game", rows_to=_Tty()) is None
    # Rows to a file or pipe: the bar, on stderr only.
    progress = batch.progress_bar(terminal, 10, "game", rows_to=io.StringIO())
    assert progress is not None and progress.console is terminal
    # A table is printed after the bar: the bar is transient (cleared before the rows).
    table = batch.progress_bar(terminal, 10, "game")
    assert table is not None and table.live.transient


def test_streamed_rows_go_to_stdout_only(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"{i}.json").write_text(
            json.dumps({"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}), encoding="utf-8"
        )
    code, out, err = invoke("score", str(tmp_path), "-f", "csv")
    assert code == 0
    assert out.splitlines()[0].startswith("file,line,kind,status")
    assert len(out.splitlines()) == 4  # header + one row a document; the summary is on stderr
    assert "documents" in err and "file,line" not in err


@pytest.mark.parametrize("command", ["score", "replay", "verify", "show", "suggest"])
def test_an_empty_path_argument_is_bad_input_not_the_current_folder(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Path("") is "."; a batch command would read every document under the working folder.
    (tmp_path / "round.json").write_text(json.dumps({"players": BAD_ROUND["players"][:1]}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [command, ""], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 2 and result.stdout == ""
    assert "empty argument" in one_line_error(result)


@pytest.mark.parametrize("server", ["nope://host", "ftp://host", "http://", "http://[::1", "http://127.0.0.1:99999"])
def test_a_server_that_is_no_http_url_is_bad_usage(server: str) -> None:
    # Exit 3 is for a service that is down or failing; a --server value no request can use is exit 2.
    result = CliRunner().invoke(app, ["validate", "R1 R2 R3", "--server", server], env={"NO_COLOR": "1"})
    assert result.exit_code == 2 and result.stdout == ""
    assert f"--server {server}: not a usable http:// or https:// URL" in one_line_error(result)  # (as given)
    assert "adapters" not in one_line_error(result)  # requests' own words


@pytest.mark.parametrize("timeout", ["nan", "inf", "1e308", "0"])
def test_a_timeout_that_is_no_number_of_seconds_is_bad_usage(timeout: str) -> None:
    # nan passed the range check and crashed in requests with a traceback (exit 1)
    args = ["validate", "R1 R2 R3", "--server", "http://127.0.0.1:9", "--timeout", timeout]
    result = CliRunner().invoke(app, args, env={"NO_COLOR": "1"})
    assert result.exit_code == 2 and result.stdout == ""
    assert "--timeout" in one_line_error(result)


@pytest.mark.parametrize("command", ["score", "replay", "verify", "validate"])
@pytest.mark.parametrize("text", ["", "\n \n"])
def test_empty_stdin_says_so(command: str, text: str) -> None:
    # it said "bad JSON at line 1 column 1: Expecting value" (the first-time user audit, session 36)
    result = CliRunner().invoke(app, [command, "-"], input=text, env={"NO_COLOR": "1"})
    assert result.exit_code == 2 and result.stdout == ""
    assert one_line_error(result) == "rummikub: stdin: empty: no JSON document"


@pytest.mark.parametrize("command", ["score", "replay"])
@pytest.mark.parametrize("text", ["NaN\n", "\x00\x01", '{"players": [\n'])
def test_one_unreadable_document_on_stdin_is_one_line(command: str, text: str) -> None:
    # As in a file: stdin that is not JSON and not several lines of JSON Lines is one bad document.
    result = CliRunner().invoke(app, [command, "-", "--json"], input=text, env={"NO_COLOR": "1"})
    assert result.exit_code == 2 and result.stdout == ""
    assert one_line_error(result).startswith("rummikub: stdin: bad JSON")


def test_stdin_json_lines_with_a_bad_line_keep_the_others() -> None:
    text = json.dumps({"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}) + "\nNaN\n\n"
    result = CliRunner().invoke(app, ["score", "-", "-f", "jsonl"], input=text, env={"NO_COLOR": "1"})
    assert result.exit_code == 2
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["line"], r["status"]) for r in rows] == [(1, "ok"), (2, "error")]


def test_an_html_report_that_cannot_be_written_is_refused_before_replaying(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text(json.dumps(BAD_ROUND), encoding="utf-8")
    for target, reason in (
        (tmp_path, "it is a folder"),
        (tmp_path / "bad.json" / "r.html", "is not a folder"),
        # (said "… is not a folder" of a folder that does not exist: the batch audit, session 60)
        (tmp_path / "nope" / "dir" / "r.html", f"{tmp_path / 'nope' / 'dir'} does not exist"),
    ):
        result = CliRunner().invoke(app, ["replay", str(tmp_path / "bad.json"), "--html", str(target)])
        assert result.exit_code == 2 and result.stdout == ""
        assert reason in one_line_error(result)


def test_an_html_report_in_a_folder_refusing_new_files_is_refused_before_replaying(tmp_path: Path) -> None:
    """/proc takes no new file (not even from root): told after every game was replayed, the
    summary lost (the CLI audit, session 51). A writable path is left as it was."""
    (tmp_path / "bad.json").write_text(json.dumps(BAD_ROUND), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(tmp_path / "bad.json"), "--html", "/proc/rummikub-report.html"])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert one_line_error(result).startswith("rummikub: cannot write /proc/rummikub-report.html:")
    report = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["replay", str(tmp_path / "bad.json"), "--html", str(report)])
    assert report.stat().st_size > 0, result.output  # (the page written there)


def test_suggest_on_a_position_file_points_into_the_file(tmp_path: Path) -> None:
    # The request's /rack and /opened are the chosen player's: the error names where the file has them.
    position = {
        "table": [["R1", "R2", "R3"]],
        "players": [{"name": "A", "rack": ["R4"], "opened": True}, {"name": "B", "rack": ["K1", "Q9"], "opened": 1}],
    }
    path = tmp_path / "position.json"
    path.write_text(json.dumps(position), encoding="utf-8")
    line = one_line_error(CliRunner().invoke(app, ["suggest", str(path), "--player", "B"]))
    assert "/players/1/rack/1: 'Q9'" in line and "/players/1/opened:" in line
    # A rack given as words is the option's, not the file's.
    line = one_line_error(CliRunner().invoke(app, ["suggest", str(path), "--player", "B", "--rack", "Q1", "--opened"]))
    assert line.startswith("rummikub: --rack: /0: 'Q1'")


PLAYERS = [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]


@pytest.mark.parametrize(
    ("engine_function", "args", "document"),
    [
        ("validate_sets", ["validate", "R1 R2 R3"], None),
        ("check_meld", ["meld", "R11 R12 R13"], None),
        ("score_round", ["score", "-"], {"players": PLAYERS}),
        ("validate_sets", ["show", "-"], {"table": [], "players": PLAYERS}),
    ],
)
def test_an_engine_crash_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, engine_function: str, args: list[str], document: object
) -> None:
    """docs/cli.md: exit 3 "(or the in-process engine crashed)", one line without a traceback; a
    single-document command printed the traceback and exited 1, the code of an invalid verdict
    (the input audit, session 50: WBI-7). A batch's failed row says the same words."""

    def boom(*args: object, **kwargs: object) -> None:
        raise RecursionError("simulated bug")

    monkeypatch.setattr(f"service.operations.{engine_function}", boom)
    result = CliRunner().invoke(app, args, input=None if document is None else json.dumps(document))
    assert result.exit_code == 3 and result.stdout == ""
    assert one_line_error(result) == "rummikub: internal error: RecursionError: simulated bug"


def test_meld_words_and_a_bad_rack_list_both_as_suggest_does(tmp_path: Path) -> None:
    # meld checked --rack first and dropped the sets' bad tiles (the input audit, session 50: WBI-12)
    code, _, err = invoke("meld", "R1 R2 X3", "--rack", "R1 Q2")
    assert code == 2 and err.startswith("rummikub: /sets/0/2: 'X3' has an unknown colour 'X'")
    assert "; /rack/1: 'Q2' has an unknown colour 'Q'" in err and err.count("\n") == 1
    code, _, err = invoke("suggest", "--table", "R1 R2 X3", "--rack", "R1 Q2")
    assert code == 2 and err.startswith("rummikub: /table/0/2: 'X3'") and "; /rack/1: 'Q2'" in err
    # the rack's mistakes alone are still the option's; beside a file, the option's first
    assert invoke("meld", "R1 R2 R3", "--rack", "R1 Q2")[2].startswith("rummikub: --rack: /1: 'Q2'")
    path = tmp_path / "meld.json"
    path.write_text(json.dumps([["R1", "R2", "X3"]]), encoding="utf-8")
    assert one_line_error(CliRunner().invoke(app, ["meld", str(path), "--rack", "R1 Q2"])).startswith(
        "rummikub: --rack: /1: 'Q2'"
    )


def test_suggest_on_a_position_file_checks_its_names_and_pool(tmp_path: Path) -> None:
    players = [{"name": "A", "rack": ["R4"], "opened": True}, {"name": "A", "rack": ["K1"], "opened": True}]
    path = tmp_path / "position.json"
    path.write_text(json.dumps({"table": [], "players": players}), encoding="utf-8")
    twice = CliRunner().invoke(app, ["suggest", str(path), "--player", "A"])
    assert twice.exit_code == 2 and "/players/1/name: two players are named 'A'" in one_line_error(twice)
    path.write_text(json.dumps({"table": [], "players": players[:1], "pool": ["R1", "Q2"]}), encoding="utf-8")
    pool = CliRunner().invoke(app, ["suggest", str(path)])
    assert pool.exit_code == 2 and "/pool/1" in one_line_error(pool)


@pytest.mark.parametrize(
    ("command", "doc", "pointer"),
    [
        ("validate", [["R1", "R2", "R3"], ["R5", "X6", "R7"]], "/1/1"),  # a bare array of sets is the file
        ("meld", [["R5", "X6", "R7"]], "/0/1"),
        ("arrange", ["R1", "X2", "R3"], "/1"),  # a bare array of tiles
        ("show", {"table": [["R1", "R2", "R3"], ["R5", "X6", "R7"]], "players": []}, "/table/1/1"),  # a position
        ("validate", {"sets": [["R5", "X6", "R7"]]}, "/sets/0/1"),  # a body is the request itself
    ],
)
def test_errors_point_into_the_file_not_the_request_made_of_it(
    command: str, doc: object, pointer: str, tmp_path: Path
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    line = one_line_error(CliRunner().invoke(app, [command, str(path)], env={"NO_COLOR": "1"}))
    assert line.startswith(f"rummikub: {path}: {pointer}: "), line


@pytest.mark.parametrize("args", [["score"], ["replay", "-f", "jsonl"], ["verify"]])
def test_a_file_name_too_long_for_the_file_system_is_bad_input(args: list[str], tmp_path: Path) -> None:
    # Path.is_dir() raises OSError (ENAMETOOLONG) instead of answering False: it was a traceback, exit 1.
    name = str(tmp_path / ("x" * 300 + ".json"))
    result = CliRunner().invoke(app, [args[0], name, *args[1:]], env={"NO_COLOR": "1"})
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "too long" in (result.stdout if "jsonl" in args else one_line_error(result))
    html = CliRunner().invoke(app, ["replay", str(tmp_path / "x.json"), "--html", name])
    assert html.exit_code == 2 and "cannot write" in one_line_error(html)


def test_a_dangling_link_in_a_batch_folder_gets_its_row(tmp_path: Path) -> None:
    # every input document yields one row: a link to nothing was skipped silently
    good = {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}
    (tmp_path / "round.json").write_text(json.dumps(good))
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere.json")
    result = CliRunner().invoke(app, ["score", str(tmp_path), "-f", "jsonl"], env={"NO_COLOR": "1"})
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [Path(r["file"]).name for r in rows] == ["gone.json", "round.json"]
    assert rows[0]["status"] == "error" and result.exit_code == 2


def test_json_with_another_output_format_is_bad_usage() -> None:
    # --json won silently over -f svg / -f csv (the first-time user audit, session 36)
    env = {"NO_COLOR": "1"}
    for args, words in (
        (["show", "examples/turn.json", "-f", "svg", "--json"], "give either --json or --format svg"),
        (["score", "examples/round.json", "--json", "-f", "csv"], "give either --json or --format csv"),
        (["replay", "examples/game.json", "--json", "-f", "csv"], "give either --json or --format csv"),
        (["score", "examples/round.json", "--json", "-f", "table"], "give either --json or --format table"),
    ):
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 2 and result.stdout == "", args
        assert words in one_line_error(result)


def test_suggest_reads_a_position_file_as_show_does(tmp_path: Path) -> None:
    """A position file without 'table' was shown as an error by show and read as an empty table
    by suggest (the CLI audit, session 47)."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"players": [{"name": "A", "rack": ["R4"]}]}), encoding="utf-8")
    for command in ("show", "suggest"):
        result = CliRunner().invoke(app, [command, str(path)])
        assert result.exit_code == 2 and "needs 'table'" in one_line_error(result), command


def test_a_limit_on_a_bare_array_file_is_told_as_on_an_object(tmp_path: Path) -> None:
    """A file of 101 sets as a bare array said "The request is over the service's limits ..."
    with the limit twice and no word of what: the object form names the sets (the CLI audit,
    session 47)."""
    sets = [["R1", "R2", "R3"]] * 101
    bare, wrapped = tmp_path / "bare.json", tmp_path / "wrapped.json"
    bare.write_text(json.dumps(sets), encoding="utf-8")
    wrapped.write_text(json.dumps({"sets": sets}), encoding="utf-8")
    bare_line = one_line_error(CliRunner().invoke(app, ["validate", str(bare)]))
    wrapped_line = one_line_error(CliRunner().invoke(app, ["validate", str(wrapped)]))
    assert bare_line == f"rummikub: {bare}: this table has 101 sets; the limit is 100 (RUMMIKUB_MAX_SETS_PER_TABLE)"
    assert (
        wrapped_line
        == f"rummikub: {wrapped}: /sets: this table has 101 sets; the limit is 100 (RUMMIKUB_MAX_SETS_PER_TABLE)"
    )

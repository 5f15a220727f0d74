"""Batch audit, session 51 (h5): stdin that cannot be read is one error (no traceback), a match
whose rounds carry their own penalty_only rules is added up as penalty points, and a worker
process that dies stops the batch in one line with exit 3."""

from __future__ import annotations

import json
import os
import signal
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cli.batch
from cli.main import app
from tests.test_cli import one_line_error

pytestmark = pytest.mark.cli

GOOD = {"players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R5"]}]}


def run(*args: str, input: bytes | str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input, env={"NO_COLOR": "1", "COLUMNS": "200"})


@pytest.mark.parametrize("command", ["score", "replay"])
def test_stdin_that_is_not_utf16_after_its_mark_is_one_line_and_exit_2(command: str) -> None:
    result = run(command, "-", input=b"\xff\xfe{\x00}")
    assert result.exit_code == 2
    assert "rummikub: stdin: not UTF-16 text (byte 4)" in result.output
    assert "Traceback" not in result.output and "DocumentError" not in result.output


def test_stdin_past_a_batchs_limit_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.inputs

    monkeypatch.setattr(cli.inputs, "MAX_STDIN_BYTES", 1000)
    result = run("score", "-", "-f", "jsonl", input=(json.dumps(GOOD) + "\n") * 100)
    assert result.exit_code == 2
    assert "stdin: larger than 1000 bytes" in result.output and "DocumentError" not in result.output


def test_a_match_of_penalty_only_rounds_adds_up_as_penalty_points(tmp_path: Path) -> None:
    match = {
        "rounds": [
            {"rules": "komoni", "players": [{"name": "A", "rack": []}, {"name": "B", "rack": ["R10", "K12"]}]},
            {"rules": "komoni", "players": [{"name": "A", "rack": ["R1"]}, {"name": "B", "rack": []}]},
        ]
    }
    (tmp_path / "m.json").write_text(json.dumps(match))
    (tmp_path / "r.json").write_text(
        json.dumps({"rules": "komoni", "players": [{"name": "A", "rack": ["R5"]}, {"name": "B", "rack": []}]})
    )
    result = run("score", str(tmp_path / "m.json"), str(tmp_path / "r.json"))
    assert result.exit_code == 0
    assert "not added" not in result.output
    totals = result.output.split("totals")[1].split()
    assert totals == ["A", "+6", "B", "+22"]  # lowest first: penalty points


def _dies(job: Any, lang: str, source: Any) -> Any:
    os.kill(os.getpid(), signal.SIGKILL)  # (the OOM killer's way)


def test_a_worker_process_that_dies_stops_the_batch_with_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli.batch, "process_local", _dies)
    monkeypatch.setattr(cli.batch, "cpus", lambda: 2)
    for i in range(4):
        (tmp_path / f"r{i}.json").write_text(json.dumps(GOOD))
    result = run("score", str(tmp_path), "-j", "2", "-f", "jsonl")
    assert result.exit_code == 3, result.output
    assert "rummikub: a worker process died" in result.output
    assert not isinstance(result.exception, BrokenProcessPool)


def test_a_body_that_is_no_object_says_why_in_spanish_too(tmp_path: Path) -> None:
    """The Spanish 422's detail only counts the errors and points at 'errors', which the line
    does not show: the reason was lost ("No se puede leer la petición (1 error); ver 'errors'.")."""
    result = run("score", "-", "--lang", "es", input="[1, 2]")
    assert result.exit_code == 2
    assert "rummikub: stdin: must be a JSON object" in result.output and "consulta 'errors'" not in result.output
    (tmp_path / "b.jsonl").write_text("[1, 2]\n" + json.dumps(GOOD) + "\n")
    result = run("score", str(tmp_path / "b.jsonl"), "--lang", "es", "-f", "csv")
    assert "must be a JSON object" in result.stdout and "consulta 'errors'" not in result.stdout
    english = run("score", "-", input="[1, 2]")  # (the same line: English in every --lang; docs/cli.md)
    assert one_line_error(english) == one_line_error(run("score", "-", "--lang", "es", input="[1, 2]"))
    assert one_line_error(english) == "rummikub: stdin: must be a JSON object"


@pytest.mark.parametrize("server", ["http://", "http://127.0.0.1:99999", "http://exa mple.com"])
def test_a_server_url_requests_cannot_use_stops_the_batch_in_one_line(tmp_path: Path, server: str) -> None:
    """Such a URL passed the scheme check and every document became a 'rejected' row with the
    same line (thousands of them for a big batch)."""
    for i in range(3):
        (tmp_path / f"r{i}.json").write_text(json.dumps(GOOD))
    result = run("score", str(tmp_path), "-f", "csv", "--server", server)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.output.count("not a usable http:// or https:// URL") == 1


def test_a_narrow_table_folds_a_long_error_rather_than_cutting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (the note read "/turns/0/elapsed_secon…" in a narrow terminal; the batch audit, session 60)
    game = json.loads((Path(__file__).resolve().parents[1] / "examples" / "games" / "game-1.json").read_text())
    game["turns"][0]["elapsed_seconds"] = "slow"
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(game))
    monkeypatch.chdir(tmp_path)  # (short names: only the note's cells take more than one line)
    result = CliRunner().invoke(app, ["replay", "a.json", "b.json"], env={"NO_COLOR": "1", "COLUMNS": "60"})
    assert result.exit_code == 2
    assert "…" not in result.stdout
    assert "/turns/0/elapsed_seconds:mustbe" in "".join(result.stdout.split()), result.stdout

"""Every ``rummikub`` command that README.md and docs/cli.md show runs, on the files in examples/.

Commands are taken from the docs' ```sh blocks (``rummikub ...`` lines, also after ``echo … |`` or
``cat FILE |``) and from the ``$ rummikub ...`` lines of ```text transcripts. Each runs in-process
(Typer's CliRunner) with the repository root as the working directory; output redirections
(``> verdicts.csv``) are captured instead of written. ``EXPECTED`` holds each command's exit code
and one line of its output; a transcript's shown lines must all appear in the real output too.
A documented command missing from ``EXPECTED`` (or an entry no document shows) fails the test, so
the docs and this table change together. ``rummikub serve`` needs a live server and is skipped.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

pytestmark = pytest.mark.cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/cli.md")
SKIPPED = ("rummikub serve",)  # runs the HTTP service until stopped
# Commands that need a Dask cluster or write a report file are run by their own tests
# (tests/test_cli_dask.py, tests/test_svg.py).
ELSEWHERE = ("--scheduler", "--html")


def runs_here(text: str) -> bool:
    return not text.startswith(SKIPPED) and not any(option in text for option in ELSEWHERE)


# command as documented → (exit code, a line its stdout or stderr holds)
EXPECTED: dict[str, tuple[int, str]] = {
    'rummikub validate "R5 R6 R7" "K9 B9 J"': (0, "✓ all 2 sets valid"),
    "rummikub verify examples/turn.json --lang es": (0, "✓ jugada legal"),
    "rummikub show examples/turn.json --format svg": (0, '<svg xmlns="http://www.w3.org/2000/svg"'),
    "rummikub show docs/examples/turn.json --format svg": (1, '<svg xmlns="http://www.w3.org/2000/svg"'),
    "rummikub score examples/rounds/ --jobs 4 --format csv": (
        2,
        "examples/rounds/round-1.json,,round,ok,A,A=66;B=-40;C=-25;D=-1,,",
    ),
    "rummikub replay examples/games/ --format jsonl": (2, '"status": "invalid"'),
    "rummikub show examples/position.json": (0, "✓ the table is valid"),
    "rummikub rules sabra": (0, "initial_meld_min 30"),
    "rummikub verify examples/turn.json": (0, "✓ legal play"),
    "rummikub replay examples/games/ --jobs 4 --format csv": (
        2,
        "examples/games/illegal.json,,game,invalid,,,6,TILE_NOT_IN_RACK",
    ),
    'rummikub validate "run: R5 J J"': (0, "✓ run 18"),
    'rummikub validate "K1 K1 B1" --lang es': (1, "GROUP_DUPLICATE_COLOUR"),
    "rummikub validate examples/table.json --json": (1, '"code": "RUN_WRAPAROUND"'),
    "rummikub validate - --rules strict-joker": (0, "1 J=R11 R12 R13 ✓ run 36"),
    'rummikub meld "K10 B10 O10" "R1 R2 R3" --rules opening-50': (1, "Meld value 36 (needs 50) ✗ does not open"),
    "rummikub meld examples/meld.json --json": (0, '"value": 30,'),
    'rummikub meld examples/meld.json --rack "K10 B10"': (1, "TILE_NOT_IN_RACK"),
    "rummikub verify examples/turn.json --rules pressman-2009 --lang es": (0, "Atril después K1"),
    "rummikub verify - --json": (0, '"valid": true,'),
    "rummikub score examples/match.json --rules komoni": (0, "A wins the match"),
    "rummikub score examples/round.json --json": (0, '"winner": "A",'),
    "rummikub rules": (0, "komoni"),
    "rummikub rules komoni": (0, 'scoring "penalty_only"'),
    "rummikub rules sabra --json": (0, '"initial_meld_min": 30,'),
    'rummikub suggest --table "R3 R4 R5" --table "K9 B9 O9" --rack "R6 R7 K1" --opened': (0, "Play R6 R7 (worth 13)"),
    "rummikub suggest examples/position.json --player Ann --objective value": (0, "Play R6 J (worth 13)"),
    "rummikub suggest examples/move.json --json": (0, '"played": ['),
    'rummikub suggest --table "R5 R6 R7" --table "K9 B9 O9 R9" --rack "R8 K10 K11 O1 O2 J" --opened --lang es': (
        0,
        "1. toma K9 de K9 B9 O9 R9 y forma K9 K10 K11",
    ),
    "rummikub suggest examples/move.json --tie-break any": (0, "Steps"),
    # transcripts (```text blocks)
    'rummikub validate "R5 X6 R7"': (2, "rummikub: /sets/0/1: 'X6' has an unknown colour 'X': use K, B, O (or Y) or R"),
    "rummikub score examples/two-winners.json": (2, "two players have empty racks (A, B)"),
    "rummikub validate R1 --server http://127.0.0.1:9": (3, "(connection refused)"),
    "rummikub validate --bogus": (2, "no such option: --bogus"),
    'rummikub validate "R5 R6 R7" "K9 B9 J" "R13 R1 R2"': (1, "✗ 1 of 3 sets invalid"),
    'rummikub meld "R11 R12 R13" --rack "R11 R12 R13 K1"': (0, "✓ opens"),
    "rummikub score examples/round.json": (0, "A wins (a player went out)"),
    "rummikub replay examples/game.json": (0, "P2 wins (a player went out)"),
    "rummikub replay examples/late.json": (1, "✗ turn 1 is illegal"),
    "rummikub replay examples/games/ -f csv": (2, "examples/games/truncated.json,,game,error"),
    'rummikub arrange "R5 R6 R7 K9 B9 O9 J"': (0, "✓ every tile fits in a valid set"),
}


@dataclass
class Command:
    doc: str
    text: str  # the rummikub command as documented (pipes and redirections removed)
    args: list[str]
    stdin: str | None = None
    shown: list[str] = field(default_factory=list)  # a transcript's output lines


def _split(line: str) -> tuple[str, list[str], str | None]:
    """(command text, arguments, stdin) of a shell line that runs rummikub."""
    stdin = None
    if "|" in line.split("rummikub", 1)[0]:
        feed, line = (part.strip() for part in line.split("|", 1))
        words = shlex.split(feed)
        if words[0] == "echo":
            stdin = " ".join(words[1:]) + "\n"
        elif words[0] == "cat":
            stdin = (ROOT / words[1]).read_text(encoding="utf-8")
        else:
            raise AssertionError(f"unsupported pipe in {line!r}")
    words = shlex.split(line, comments=True)
    if ">" in words:  # an output redirection: captured, not written
        words = words[: words.index(">")]
    assert words[0] == "rummikub", line
    return shlex.join(words).replace("'", '"'), words[1:], stdin


def documented_commands() -> list[Command]:
    found: list[Command] = []
    for doc in DOCS:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for kind, body in re.findall(r"```(sh|text)\n(.*?)\n```", text, flags=re.S):
            lines = body.split("\n")
            for i, line in enumerate(lines):
                if kind == "sh" and re.match(r"^(rummikub |(echo|cat) .*\| *rummikub )", line):
                    command, args, stdin = _split(line)
                    found.append(Command(doc, command, args, stdin))
                elif kind == "text" and line.startswith("$ rummikub "):
                    command, args, stdin = _split(line[2:])
                    shown = []
                    for out in lines[i + 1 :]:
                        if out.startswith("$ "):
                            break
                        shown.append(out)
                    found.append(Command(doc, command, args, stdin, shown))
    return found


COMMANDS = documented_commands()


def _normal(line: str) -> str:
    return " ".join(line.split())


def test_every_documented_command_has_an_expectation() -> None:
    documented = {c.text for c in COMMANDS if runs_here(c.text)}
    assert len(COMMANDS) > 30
    assert sorted(documented - EXPECTED.keys()) == []
    assert sorted(EXPECTED.keys() - documented) == []


@pytest.mark.parametrize("command", [c for c in COMMANDS if runs_here(c.text)], ids=lambda c: c.text)
def test_documented_command(command: Command, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    env: dict[str, str | None] = {"COLUMNS": "200", "NO_COLOR": "1", "RUMMIKUB_SERVER": None, "RUMMIKUB_LANG": None}
    result = CliRunner().invoke(app, command.args, input=command.stdin, env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    code, line = EXPECTED[command.text]
    output = [_normal(out) for out in (result.stdout + "\n" + result.stderr).splitlines()]
    assert result.exit_code == code, (command.text, result.stdout, result.stderr)
    assert _normal(line) in output or any(_normal(line) in out for out in output), (command.text, output)
    for shown in command.shown:  # a transcript: every line it shows is real (shown at 80
        # columns, run here at 200: a line the narrower table wraps is part of one)
        if shown.strip() and shown.strip() != "..." and set(shown.strip()) != {"─"}:
            assert any(_normal(shown) in out for out in output), (command.text, shown, output)

"""``rummikub --help``: real metavars, texts as written (brackets too), defaults, examples, and
shell completion."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine.rules import PRESETS

pytestmark = pytest.mark.cli

COMMANDS = ("validate", "meld", "verify", "score", "replay", "show", "rules", "arrange", "suggest", "serve")
ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


def help_text(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env=ENV)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_bare_rummikub_prints_its_help() -> None:
    """``rummikub`` alone prints what ``rummikub --help`` does (it printed nothing: the first-time
    user audit, session 36), and exits 2: no command was given."""
    bare = subprocess.run([sys.executable, "-m", "cli"], capture_output=True, text=True, env={**os.environ, **ENV})
    assert bare.returncode == 2, bare.stderr
    assert bare.stdout.startswith("Usage: rummikub [OPTIONS] COMMAND") and "Exit codes:" in bare.stdout
    assert all(re.search(rf"^  {command} ", bare.stdout, flags=re.M) for command in COMMANDS), bare.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_metavars_not_python_types(command: str) -> None:
    text = help_text(command)
    # Typer's fallbacks (<bool>, <list[str]>, <str>, <int range>, <en|es>...) never show.
    assert re.findall(r"<[\w|\[\] ]+>", text) == []
    assert "Examples:" in text
    assert re.search(r"^ {4}(\S.*)?rummikub " + command, text, flags=re.M), text  # examples keep their indent


def test_help_metavars_and_defaults() -> None:
    score = help_text("score")
    assert re.search(r"Usage: rummikub score \[OPTIONS\] \{?PATH\.\.\.\}?\n", score)  # Typer 0.16: no braces
    for shown in (
        "-j, --jobs N",
        "-f, --format table|jsonl|csv",
        "--lang en|es",
        "--rules PRESET|FILE",
        "--server URL",
    ):
        assert shown in score
    flat = " ".join(score.split())
    for default in ("[default: 1; x>=0]", "[default: table]", "default: en]", "[default: 30.0; 0.1<=x<=86400.0]"):
        assert default in flat
    serve = " ".join(help_text("serve").split())
    assert "--host HOST Interface to listen on [default: RUMMIKUB_BIND's, else 127.0.0.1]." in serve
    assert "--port PORT TCP port [default: RUMMIKUB_BIND's, else 8000]. [1<=x<=65535]" in serve
    suggest = " ".join(help_text("suggest").split())
    assert "--opened / --not-opened" in suggest
    assert "--objective tiles|value" in suggest
    assert "--table SET" in suggest and "--rack TILES" in suggest


def test_help_brackets_survive() -> None:
    score = " ".join(help_text("score").split())
    assert 'a match file is {"rules"?, "rounds": [round, ...]}' in score
    replay = " ".join(help_text("replay").split())
    assert '"turns": [{"player", "draw"} | {"player", "table"}]' in replay
    show = " ".join(help_text("show").split())
    assert '"table": [set, ...]' in show


def test_shell_completion_can_be_installed() -> None:
    top = help_text()
    assert "--install-completion" in top
    assert "--show-completion" in top
    # In a process of its own: Typer's completion reads the environment and the program name.
    rummikub = Path(sys.executable).with_name("rummikub")
    env = {**os.environ, **ENV, "SHELL": "/bin/bash"}
    # Under bash: older Typer releases detect the shell from the parent process, not the argument.
    # A second command keeps bash alive as that parent (bash execs a lone command in place).
    script = subprocess.run(
        ["bash", "-c", f"'{rummikub}' --show-completion bash; exit $?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert script.returncode == 0, script.stderr
    assert "complete" in script.stdout and "_RUMMIKUB_COMPLETE" in script.stdout


def test_rules_option_lists_every_preset() -> None:
    joined = "".join(help_text("verify").split())  # wrapping may break a name at its hyphen
    for name in PRESETS:
        assert name in joined, name

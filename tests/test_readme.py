"""The README's Python examples run as doctests, so the tour stays true."""

from __future__ import annotations

import doctest
from pathlib import Path


def test_readme_examples() -> None:
    readme = Path(__file__).resolve().parents[1] / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5
    assert result.failed == 0


def test_the_readme_picture_is_what_its_command_makes() -> None:
    """docs/turn.svg is ``rummikub show docs/examples/turn.json --format svg``'s output, as the
    README says (it kept "1 violation(s)" after the picture's words changed; session 48)."""
    from typer.testing import CliRunner

    from cli.main import app

    root = Path(__file__).resolve().parents[1]
    result = CliRunner().invoke(app, ["show", str(root / "docs/examples/turn.json"), "--format", "svg"])
    assert result.exit_code == 1  # (the turn drawn is illegal)
    assert result.stdout == (root / "docs/turn.svg").read_text(encoding="utf-8")

"""The README's Python examples run as doctests, so the tour stays true."""

from __future__ import annotations

import doctest
from pathlib import Path


def test_readme_examples() -> None:
    readme = Path(__file__).resolve().parents[1] / "README.md"
    result = doctest.testfile(str(readme), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5
    assert result.failed == 0

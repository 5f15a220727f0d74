"""Exit codes and the one error type the commands raise (SPEC §8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EXIT_OK = 0
"""Everything checked is valid (or there was nothing to judge, e.g. ``rules``)."""
EXIT_INVALID = 1
"""A verdict found something invalid (a set, a meld, a turn, a game)."""
EXIT_INPUT = 2
"""Bad input or usage: unreadable file, bad JSON, bad tile, unknown preset, a 4xx problem."""
EXIT_SERVICE = 3
"""The rules service is unreachable or failing (or the in-process engine crashed)."""


class CliError(Exception):
    """A failure reported as one line on stderr, then ``exit(code)``."""

    def __init__(self, message: str, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def problem_line(problem: Mapping[str, Any]) -> str:
    """One line for an RFC 9457 problem: the first error's pointer and detail, else the
    problem's detail or title."""
    errors = problem.get("errors")
    whole = isinstance(errors, list) and len(errors) == 1 and isinstance(errors[0], Mapping) and not errors[0].get("pointer")
    if whole and isinstance(problem.get("detail"), str) and problem["detail"]:
        return str(problem["detail"])  # about the whole request: the detail says the most (presets...)
    if isinstance(errors, list) and errors and isinstance(errors[0], Mapping):
        first = errors[0]
        pointer = str(first.get("pointer") or "")
        detail = str(first.get("detail") or first.get("message") or problem.get("title") or "bad request")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{pointer}: {detail}{more}" if pointer else f"{detail}{more}"
    detail = problem.get("detail") or problem.get("title") or "bad request"
    return str(detail)

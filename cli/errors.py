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

    def __init__(
        self, message: str, code: int = EXIT_INPUT, problem: Mapping[str, Any] | None = None, stops: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.problem = problem  # the RFC 9457 problem a rejected request answered (``--json`` prints it)
        self.stops = stops or code == EXIT_SERVICE
        """Whether a batch stops here: the service (or ``--server``) fails for every document alike."""


SHOWN_ERRORS = 3
"""How many of a problem's errors one line shows; the rest are counted (``--json`` has them all)."""
LISTED_AT_MOST = 50
"""The most errors a problem lists (``service.schemas.MAX_REPORTED_ERRORS``, equal by a test):
a request with more is told that many, and the line says there may be more."""


def problem_line(problem: Mapping[str, Any], default: str = "bad request", detail_first: bool = False) -> str:
    """One line for an RFC 9457 problem: its first errors, each as ``pointer: detail``
    (``; ``-separated, then "… and N more"), else the problem's detail or title (or a
    gateway's ``message``), else ``default``.

    The errors' details are English in every language (docs/cli.md, ``--lang``), so the line is
    too, a whole-request error's included (the problem's own detail, in ``--lang``, made the
    line Spanish, or shorter in Spanish: "must be a JSON object"); ``detail_first`` tells such
    an error by the problem's detail instead (``rules PRESET``: the presets, in ``--lang``)."""
    errors = problem.get("errors")
    whole = (
        isinstance(errors, list)
        and len(errors) == 1
        and isinstance(errors[0], Mapping)
        and not errors[0].get("pointer")
    )
    detail = problem.get("detail")
    if detail_first and whole and isinstance(detail, str) and detail:
        return detail
    if isinstance(errors, list) and errors and all(isinstance(e, Mapping) for e in errors):
        shown = []
        for error in errors[:SHOWN_ERRORS]:
            pointer = str(error.get("pointer") or "")
            detail = str(error.get("detail") or error.get("message") or problem.get("title") or default)
            shown.append(f"{pointer}: {detail}" if pointer else detail)
        line = "; ".join(shown)
        if len(errors) >= LISTED_AT_MOST:  # the service stopped listing: there may be more
            line += f"; … and at least {len(errors) - SHOWN_ERRORS} more (--json lists {len(errors)} of them)"
        elif len(errors) > SHOWN_ERRORS:
            line += f"; … and {len(errors) - SHOWN_ERRORS} more (--json shows them all)"
        return line
    detail = problem.get("detail") or problem.get("title") or problem.get("message") or default
    return str(detail)

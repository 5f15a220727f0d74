"""The one error type for input the engine cannot read or that cannot describe a real game."""

from __future__ import annotations


class InputError(ValueError):
    """Input that is not a question the rules can answer (HTTP 422, CLI exit 2).

    ``pointer`` is a JSON Pointer to the offending value, relative to whatever the caller
    passed in; callers prefix it with the value's place in their own request.
    """

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer

    def under(self, prefix: str) -> InputError:
        """The same error with its pointer prefixed by ``prefix``."""
        return type(self)(self.message, prefix + self.pointer)


MAX_ERRORS_LISTED = 50
"""The most errors one reading of input collects: a request lists at most this many, and a body
of many bad entries costs no more to refuse than to read."""


def pointer_token(name: object) -> str:
    """One JSON Pointer reference token for a key (RFC 6901: ``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(name).replace("~", "~0").replace("/", "~1")


def json_value_error_text(exc: ValueError) -> str:
    """What a ValueError from reading JSON says, in words a user acts on (no Python internals:
    the standard library refuses integers of more than 4300 digits with advice about
    ``sys.set_int_max_str_digits``)."""
    text = str(exc)
    if "integer string conversion" in text or "int_max_str_digits" in text:
        return "a number has too many digits (at most 4300)"
    return text or "not valid JSON"

"""The service reads request bodies exactly as ``json.loads`` does, though msgspec reads most.

``service.app.decode_json`` tries msgspec first and falls back to the standard library on
anything msgspec refuses. These tests hold it to ``json.loads(raw, parse_constant=...)``: the
same value (same types, same key order, same float bits) or the same kind of error, on edge
cases and on generated documents, encodings and corrupted bytes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.app import decode_json


def _reference(raw: bytes) -> Any:
    def reject(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    return json.loads(raw, parse_constant=reject)


def _outcome(decode: Any, raw: bytes) -> tuple[str, str]:
    """``("ok", repr of the value)`` or ``("error", the error's kind)``. ``repr`` tells apart
    what ``==`` does not: 1 and 1.0 and True, 0.0 and -0.0, key order."""
    try:
        return ("ok", repr(decode(raw)))
    except RecursionError:
        return ("error", "recursion")
    except ValueError:  # JSONDecodeError, UnicodeDecodeError, too many digits
        return ("error", "value")


def _same_as_json_loads(raw: bytes) -> None:
    assert _outcome(decode_json, raw) == _outcome(_reference, raw), raw[:200]


EDGE_CASES = [
    b'{"before": [["R1", "R2", "R3"]], "rack": ["J"]}',
    b'{"a": 1, "a": 2}',  # duplicate keys: the last wins, at the first one's place
    b'{"b": 1, "a": 2, "b": 3}',
    b"[1, 1.0, -0, -0.0, 0.1, 1e2, 1E-2, 2.5e-324, 1.7976931348623157e308]",
    b"[1e400, -1e400, 1e-400]",  # out of float range: inf, -inf and 0.0 for json.loads
    b"[18446744073709551615, 18446744073709551616, -9223372036854775809]",  # past 64 bits
    b"[" + b"9" * 4300 + b"]",
    b"[" + b"9" * 4301 + b"]",  # past Python's int digit limit: an error
    b"[NaN]",
    b"[Infinity, -Infinity]",
    b'["\\ud800"]',  # an escaped lone surrogate
    b'["\\ud83d\\ude00", "\\u00e9", "\\/", "\\u0000"]',
    b'["\xed\xa0\x80"]',  # an encoded lone surrogate: json.loads reads it (surrogatepass)
    b'["\xc3\xa9", "\xf0\x9f\x98\x80"]',
    b'["\xff"]',
    b'["\x01"]',  # a raw control character
    b"\xef\xbb\xbf{}",  # UTF-8 byte order mark
    '{"a": "é"}'.encode("utf-16"),
    '{"a": "é"}'.encode("utf-16-le"),
    '{"a": "é"}'.encode("utf-16-be"),
    '{"a": "é"}'.encode("utf-32"),
    '{"a": "é"}'.encode("utf-32-le"),
    b" \t\r\n[] \n",
    b"",
    b" ",
    b"{}x",
    b"[1,]",
    b"[01]",
    b"[1.]",
    b"[.5]",
    b"[tru]",
    b"[true, false, null]",
    b'"just a string"',
    b"42",
    b"[" * 5000 + b"]" * 5000,  # nested deeper than either reader goes
    b"[" * 900 + b"]" * 900,
]


@pytest.mark.parametrize("raw", EDGE_CASES)
def test_edge_cases_read_as_json_loads_reads_them(raw: bytes) -> None:
    _same_as_json_loads(raw)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=20,
)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    """A JSON document as a client might send it: any value, ASCII-escaped or not, compact or
    indented, in UTF-8 (now and then another encoding the standard library reads)."""
    value = draw(json_values)
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2])),
        separators=draw(st.sampled_from([None, (",", ":"), (", ", ": ")])),
    )
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-16", "utf-16-le", "utf-32-be"]))
    return text.encode(encoding, "surrogatepass")


@settings(max_examples=500, deadline=None)
@given(documents())
def test_generated_documents_read_as_json_loads_reads_them(raw: bytes) -> None:
    _same_as_json_loads(raw)


@settings(max_examples=300, deadline=None)
@given(documents(), st.data())
def test_corrupted_documents_read_as_json_loads_reads_them(raw: bytes, data: st.DataObject) -> None:
    """Cut, overwritten or grown by a byte: valid or not, both readers agree."""
    at = data.draw(st.integers(min_value=0, max_value=len(raw)))
    byte = bytes([data.draw(st.integers(min_value=0, max_value=255))])
    change = data.draw(st.sampled_from(["cut", "overwrite", "insert"]))
    if change == "cut":
        raw = raw[:at]
    elif change == "overwrite":
        raw = raw[:at] + byte + raw[at + 1 :]
    else:
        raw = raw[:at] + byte + raw[at:]
    _same_as_json_loads(raw)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_read_as_json_loads_reads_them(raw: bytes) -> None:
    _same_as_json_loads(raw)

"""The request schemas' own reading path (``StrictSchema._load_fields``) against marshmallow's
generic ``Schema.load``: for every schema without hooks, the same result or the same errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from service import schemas
from service.limits import DEFAULT_LIMITS
from service.operations import OPERATIONS

PLAIN = {
    name: op.schema
    for name, op in OPERATIONS.items()
    if isinstance(op.schema, schemas.StrictSchema) and not any(op.schema._hooks.values())
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats(allow_nan=False) | st.sampled_from(["R1", "J", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["tiles", "kind", "a"]), inner),
    max_leaves=12,
)
tiles = st.sampled_from(["R1", "R2", "R3", "B3", "K3", "O3", "J", "R14", 7, {"color": "R", "number": 4}])
tables = st.lists(st.lists(tiles, max_size=5), max_size=4)
values = st.one_of(
    json_values,
    tables,
    st.lists(tiles, max_size=6),
    st.sampled_from(["sabra", "nope", {"preset": "sabra"}, {"initial_meld_min": 20}, 1.5, -1]),
)


def _outcome(load: Any, body: Any) -> tuple[str, Any]:
    """("ok", result) or ("error", messages), with a fresh tile budget."""
    token = schemas._BUDGET.set(schemas._Budget(DEFAULT_LIMITS))
    try:
        return "ok", load(body)
    except ValidationError as exc:
        return "error", exc.messages
    finally:
        schemas._BUDGET.reset(token)


def test_the_fast_path_covers_the_hot_operations() -> None:
    assert {"sets/validate", "melds/check", "turns/verify", "tables/arrange", "moves/suggest"} <= set(PLAIN)


@pytest.mark.parametrize("name", sorted(PLAIN))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_same_answer_as_marshmallow(name: str, data: st.DataObject) -> None:
    schema = PLAIN[name]
    keys = st.sampled_from([*schema.load_fields, "extra", "Before"])
    body = data.draw(st.dictionaries(keys, values, max_size=7))
    assert _outcome(schema.load, body) == _outcome(lambda b: Schema.load(schema, b), body)


@pytest.mark.parametrize("body", [[], "text", None, 3, [{"sets": []}]])
def test_a_body_that_is_not_an_object_takes_marshmallows_path(body: Any) -> None:
    schema = PLAIN["sets/validate"]
    assert _outcome(schema.load, body) == ("error", {"_schema": ["must be a JSON object"]})


@pytest.mark.parametrize(
    ("name", "body", "pointer", "detail"),
    [
        ("games/replay", {"players": 5, "turns": []}, "/players", "must be an array"),
        ("matches/score", {"rounds": "x"}, "/rounds", "must be an array"),
        ("games/replay", {"players": [5], "turns": []}, "/players/0", "must be a JSON object"),
        ("rounds/score", {"players": [{"name": "A", "rack": []}, "B"]}, "/players/1", "must be a JSON object"),
    ],
)
def test_arrays_and_objects_of_the_wrong_type_are_told_in_our_words(
    name: str, body: dict[str, Any], pointer: str, detail: str
) -> None:
    """Not marshmallow's "Not a valid list." (a hostile-client audit, session 44)."""
    from service.operations import RequestError, run_operation

    with pytest.raises(RequestError) as caught:
        run_operation(name, body)
    assert {"pointer": pointer, "detail": detail} in caught.value.errors, caught.value.errors

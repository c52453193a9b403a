"""``fast_load`` of the ``WithState`` schemas is marshmallow's ``load`` (the same dict,
in the same key order) wherever it answers, and it answers for the usual bodies."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service import schemas

STATE_SCHEMAS = [
    schemas.apply_body,
    schemas.validate_body,
    schemas.view_body,
    schemas.legal_moves_body,
    schemas.score_body,
]
field_values = (
    st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3), max_size=3)
    | st.none()
    | st.booleans()
    | st.integers(min_value=-2, max_value=101)
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
    | st.sampled_from(["x" * 65536, "x" * 65537])
    | st.lists(st.integers(), max_size=2)
)
bodies = st.dictionaries(
    st.sampled_from(["state", "state_token", "move", "player", "seat", "State"]),
    field_values,
    max_size=4,
)


def load(schema: Any, body: dict[str, Any]) -> Any:
    try:
        return schema.load(body)
    except ValidationError as exc:
        return exc


@settings(max_examples=1500, deadline=None)
@given(body=bodies)
def test_fast_load_is_load(body: dict[str, Any]) -> None:
    for schema in STATE_SCHEMAS:
        fast = schema.fast_load(body)
        if fast is not None:
            slow = load(schema, body)
            assert not isinstance(slow, ValidationError), (schema, body, slow)
            assert list(fast.items()) == list(slow.items())
            for key in ("state", "move"):  # fields.Dict copies: so does the fast path
                if isinstance(body.get(key), dict):
                    assert fast[key] is not body[key]


def test_fast_load_takes_the_usual_bodies() -> None:
    state, move, token = {"variant": "uno_classic"}, {"type": "draw", "player": 0}, "t0k3n"
    usual: list[tuple[Any, dict[str, Any]]] = [
        (schemas.apply_body, {"state": state, "move": move}),
        (schemas.apply_body, {"move": move, "state_token": token}),
        (schemas.validate_body, {"state": state, "move": move}),
        (schemas.view_body, {"state": state, "player": 1}),
        (schemas.view_body, {"state_token": token, "player": None}),
        (schemas.legal_moves_body, {"state": state}),
        (schemas.legal_moves_body, {"state": state, "player": 99}),
        (schemas.score_body, {"state_token": token}),
    ]
    for schema, body in usual:
        fast = schema.fast_load(body)
        assert fast is not None and list(fast.items()) == list(schema.load(body).items())
    unusual: list[tuple[Any, dict[str, Any]]] = [
        (schemas.apply_body, {"state": state}),
        (schemas.apply_body, {"state": state, "move": move, "state_token": token}),
        (schemas.apply_body, {"state": state, "move": move, "x": 1}),
        (schemas.apply_body, {"state": None, "move": move, "state_token": token}),
        (schemas.apply_body, {"state_token": "", "move": move}),
        (schemas.view_body, {"state": state}),
        (schemas.view_body, {"state": state, "player": True}),
        (schemas.view_body, {"state": state, "player": 100}),
        (schemas.legal_moves_body, {"state": state, "player": -1}),
        (schemas.score_body, {}),
    ]
    for schema, body in unusual:
        assert schema.fast_load(body) is None
        with pytest.raises(ValidationError):
            schema.load(body)

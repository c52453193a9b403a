"""The ``WithState`` schemas: the usual bodies load as they are (objects copied), the
unusual ones are refused, and ``load`` (its ``fast_load`` first) answers every body as
marshmallow alone does: the same dict in the same key order, or the same errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from service import schemas

STATE, MOVE, TOKEN = {"variant": "uno_classic"}, {"type": "draw", "player": 0}, "t0k3n"


@pytest.mark.parametrize(
    ("schema", "body", "loaded"),
    [
        (schemas.apply_body, {"state": STATE, "move": MOVE}, {"state_token": None}),
        (schemas.apply_body, {"move": MOVE, "state_token": TOKEN}, {"state": None}),
        (schemas.validate_body, {"state": STATE, "move": MOVE}, {"state_token": None}),
        (schemas.view_body, {"state": STATE, "player": 1}, {"state_token": None}),
        (schemas.view_body, {"state_token": TOKEN, "player": None}, {"state": None}),
        (schemas.legal_moves_body, {"state": STATE}, {"state_token": None, "player": None}),
        (schemas.legal_moves_body, {"state": STATE, "player": 99}, {"state_token": None}),
        (schemas.score_body, {"state_token": TOKEN}, {"state": None}),
    ],
)
def test_the_usual_bodies_load_as_they_are(
    schema: Schema, body: dict[str, Any], loaded: dict[str, Any]
) -> None:
    out = schema.load(body)
    assert out == {**body, **loaded}
    for key in ("state", "move"):  # fields.Dict copies: the request body is not shared
        if key in body:
            assert out[key] is not body[key]


@pytest.mark.parametrize(
    ("schema", "body"),
    [
        (schemas.apply_body, {"state": STATE}),
        (schemas.apply_body, {"state": STATE, "move": MOVE, "state_token": TOKEN}),
        (schemas.apply_body, {"state": STATE, "move": MOVE, "x": 1}),
        (schemas.apply_body, {"state": None, "move": MOVE, "state_token": TOKEN}),
        (schemas.apply_body, {"state_token": "", "move": MOVE}),
        (schemas.apply_body, {"state_token": "x" * (schemas.MAX_TOKEN + 1), "move": MOVE}),
        (schemas.view_body, {"state": STATE}),
        (schemas.view_body, {"state": STATE, "player": True}),
        (schemas.view_body, {"state": STATE, "player": 100}),
        (schemas.legal_moves_body, {"state": STATE, "player": -1}),
        (schemas.score_body, {}),
    ],
)
def test_the_unusual_bodies_are_refused(schema: Schema, body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        schema.load(body)


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
    | st.sampled_from(["x" * schemas.MAX_TOKEN, "x" * (schemas.MAX_TOKEN + 1)])
    | st.lists(st.integers(), max_size=2)
)
objects = st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3), max_size=3)
#: Each key present or not; a key's value mostly of its usual kind, else anything.
bodies = st.fixed_dictionaries(
    {},
    optional={
        "state": objects | field_values,
        "state_token": st.text(min_size=1, max_size=4) | field_values,
        "move": objects | field_values,
        "player": st.integers(min_value=-1, max_value=100) | field_values,
        "seat": field_values,
        "State": objects,
    },
)


def outcome(load: Any, body: dict[str, Any]) -> Any:
    """What ``load(body)`` gives: the loaded items in order, or the error messages."""
    try:
        return ("loaded", list(load(body).items()))
    except ValidationError as exc:
        return ("refused", exc.normalized_messages())


@settings(max_examples=1500, deadline=None)
@given(body=bodies)
def test_load_answers_as_marshmallow_alone(body: dict[str, Any]) -> None:
    for schema in STATE_SCHEMAS:
        ours = outcome(schema.load, body)
        assert ours == outcome(lambda b, s=schema: Schema.load(s, b), body), (schema, body)
        fast = schema.fast_load(body)
        if fast is not None:
            assert ours == ("loaded", list(fast.items()))
            for key in ("state", "move"):  # fields.Dict copies: so does the fast path
                if isinstance(body.get(key), dict):
                    assert fast[key] is not body[key]


@pytest.mark.parametrize(
    ("schema", "body"),
    [
        (schemas.apply_body, {"state": STATE, "move": MOVE}),
        (schemas.apply_body, {"move": MOVE, "state_token": TOKEN}),
        (schemas.validate_body, {"state": STATE, "move": MOVE}),
        (schemas.view_body, {"state": STATE, "player": 1}),
        (schemas.view_body, {"state_token": TOKEN, "player": None}),
        (schemas.legal_moves_body, {"state": STATE}),
        (schemas.legal_moves_body, {"state": STATE, "player": 99}),
        (schemas.score_body, {"state_token": TOKEN}),
    ],
)
def test_the_fast_path_takes_the_usual_bodies(schema: Schema, body: dict[str, Any]) -> None:
    assert schema.fast_load(body) is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("schema", "body"),
    [
        (schemas.apply_body, {"state": STATE}),
        (schemas.apply_body, {"state": STATE, "move": MOVE, "state_token": TOKEN}),
        (schemas.apply_body, {"state": STATE, "move": MOVE, "x": 1}),
        (schemas.apply_body, {"state": None, "move": MOVE, "state_token": TOKEN}),
        (schemas.apply_body, {"state_token": "", "move": MOVE}),
        (schemas.view_body, {"state": STATE}),
        (schemas.view_body, {"state": STATE, "player": True}),
        (schemas.view_body, {"state": STATE, "player": 100}),
        (schemas.legal_moves_body, {"state": STATE, "player": -1}),
        (schemas.score_body, {}),
    ],
)
def test_the_fast_path_leaves_the_unusual_to_marshmallow(
    schema: Schema, body: dict[str, Any]
) -> None:
    assert schema.fast_load(body) is None  # type: ignore[attr-defined]

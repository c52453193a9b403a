"""The ``WithState`` schemas: the usual bodies load as they are (objects copied), the
unusual ones are refused, and ``load`` (its ``fast_load`` first) answers every body as
marshmallow alone does: the same dict in the same key order, or the same errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError, fields, validate, validates

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
#: The usual kind of value of each field class, for the bodies below.
usual_values = {
    fields.Dict: objects,
    fields.String: st.text(min_size=1, max_size=4),
    schemas.Int: st.integers(min_value=-1, max_value=100),
}
#: Every field of every schema (read from the schemas: a new field is tried too),
#: plus two names no schema has.
body_fields = {
    name: usual_values[type(field)] | field_values
    for schema in STATE_SCHEMAS
    for name, field in schema.fields.items()
} | {"seat": field_values, "State": objects}
#: Each key present or not; a key's value mostly of its usual kind, else anything.
bodies = st.fixed_dictionaries({}, optional=body_fields)


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


class WithSeat(schemas.WithState):
    """A body with a field of its own: the fast path reads it from the declaration."""

    seat = schemas.Int(load_default=7, validate=validate.Range(min=1, max=9, max_inclusive=False))


class WithList(schemas.WithState):
    """A field of a kind the fast path does not understand."""

    cards = fields.List(schemas.Int(), load_default=None)


class WithFieldCheck(schemas.WithState):
    """A field validator (``@validates``): the fast path could not run it."""

    move = fields.Dict(required=True)

    @validates("move")
    def _no_draw(self, value: Any, **_: Any) -> None:
        if value.get("type") == "draw":
            raise ValidationError("no draws")


def test_the_fast_path_reads_a_new_field_from_the_schema() -> None:
    schema = WithSeat()
    assert schema.fast_load({"state": STATE}) == {"state": STATE, "state_token": None, "seat": 7}
    assert schema.fast_load({"state": STATE, "seat": 8})["seat"] == 8  # type: ignore[index]
    for refused in (0, 9, True, None, "1"):  # outside the range, or not an int
        assert schema.fast_load({"state": STATE, "seat": refused}) is None
        with pytest.raises(ValidationError):
            schema.load({"state": STATE, "seat": refused})


@pytest.mark.parametrize("schema", [WithList(), WithFieldCheck(), schemas.ApplyBody(partial=True)])
def test_a_schema_the_fast_path_does_not_understand_goes_to_marshmallow(schema: Schema) -> None:
    assert schemas.fast_plan(schema) is None
    body = {"state": STATE, "move": MOVE} if "move" in schema.fields else {"state": STATE}
    assert schema.fast_load(body) is None  # type: ignore[attr-defined]
    assert outcome(schema.load, body) == outcome(lambda b: Schema.load(schema, b), body)


@settings(max_examples=300, deadline=None)
@given(body=st.fixed_dictionaries({}, optional={**body_fields, "seat": field_values}))
def test_a_new_field_loads_as_marshmallow_alone(body: dict[str, Any]) -> None:
    schema = WithSeat()
    assert outcome(schema.load, body) == outcome(lambda b: Schema.load(schema, b), body)

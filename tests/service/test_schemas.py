"""The request schemas: the usual bodies load as they are (objects copied), the unusual
ones are refused; every integer and boolean of every request body is read by the one
strict field of its kind (``service.fields``): ``6`` and ``6.0`` are the integer 6,
``6.5``, ``true`` and ``"6"`` are not integers, only ``true`` and ``false`` are booleans."""

from __future__ import annotations

from typing import Any

import pytest
from marshmallow import Schema, ValidationError, fields

from service import fields as strict
from service import schemas
from service.sessions import schemas as session_schemas

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


@pytest.mark.parametrize(
    ("value", "loaded"),
    [(6, 6), (6.0, 6), (-0.0, 0), (-3.0, -3), (2.0**53 - 1, 2**53 - 1), (2**64 - 1, 2**64 - 1)],
)
def test_an_integer_may_be_written_with_a_zero_fraction(value: Any, loaded: int) -> None:
    out = strict.Int().deserialize(value)
    assert out == loaded and type(out) is int


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (6.5, "Not a valid integer: 6.5 has a fractional part."),
        (-0.25, "Not a valid integer: -0.25 has a fractional part."),
        # Past 2**53 a float no longer names one integer (nor does a number past 64
        # bits, which the JSON parser reads as a float).
        (2.0**53, "Not a valid integer."),
        (1.8446744073709552e19, "Not a valid integer."),
        (True, "Not a valid integer."),
        ("6", "Not a valid integer."),
        (float("nan"), "Not a valid integer."),
        (float("inf"), "Not a valid integer."),
    ],
)
def test_anything_else_is_not_an_integer(value: Any, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        strict.Int().deserialize(value)
    assert info.value.messages == [message]


@pytest.mark.parametrize("value", [1, 0, "true", "yes", None, 1.0, [], {}])
def test_a_boolean_is_true_or_false_only(value: Any) -> None:
    field = strict.Bool(allow_none=False)
    assert field.deserialize(True) is True and field.deserialize(False) is False
    with pytest.raises(ValidationError):
        field.deserialize(value)


def request_schemas() -> list[Schema]:
    """Every request schema of the service, nested ones included."""
    found: list[Schema] = []
    todo: list[Schema] = [
        v for mod in (schemas, session_schemas) for v in vars(mod).values()
        if isinstance(v, Schema)
    ]  # fmt: skip
    while todo:
        schema = todo.pop()
        if any(type(schema) is type(s) for s in found):
            continue
        found.append(schema)
        for field in schema.fields.values():
            inner = getattr(field, "inner", None) or field
            if isinstance(inner, fields.Nested):
                todo.append(inner.schema)
    return found


def leaf_fields(schema: Schema) -> list[tuple[str, fields.Field[Any]]]:
    out = []
    for name, field in schema.fields.items():
        inner = getattr(field, "inner", None)
        out.append((name, field))
        if inner is not None:
            out.append((f"{name}[]", inner))
    return out


def test_every_integer_and_boolean_field_is_the_strict_one() -> None:
    seen: set[type] = set()
    for schema in request_schemas():
        for name, field in leaf_fields(schema):
            where = f"{type(schema).__name__}.{name}"
            if isinstance(field, fields.Integer):
                assert type(field) is strict.Int, where
            if isinstance(field, fields.Boolean):
                assert type(field) is strict.Bool, where
            seen.add(type(field))
    assert {strict.Int, strict.Bool} <= seen


@pytest.mark.parametrize(
    ("schema", "body", "field", "loaded"),
    [
        (schemas.create_game, {"variant": "uno_classic", "players": 4.0}, "players", 4),
        (schemas.view_body, {"state": STATE, "player": 1.0}, "player", 1),
        (session_schemas.create_schema, {"variant": "uno_classic", "players": 3.0, "seed": 7.0},
         "seed", 7),
        (session_schemas.join_schema, {"name": "Ann", "seat": 2.0}, "seat", 2),
    ],
)  # fmt: skip
def test_the_schemas_take_a_zero_fraction(
    schema: Schema, body: dict[str, Any], field: str, loaded: int
) -> None:
    out = schema.load(body)
    assert out[field] == loaded and type(out[field]) is int
    with pytest.raises(ValidationError) as info:
        schema.load({**body, field: loaded + 0.5})
    assert "fractional part" in str(info.value.normalized_messages()[field])


def test_a_seat_count_takes_a_zero_fraction_too() -> None:
    out = session_schemas.create_schema.load({"variant": "uno_classic", "players": 3.0})
    assert len(out["players"]) == 3
    with pytest.raises(ValidationError) as info:
        session_schemas.create_schema.load({"variant": "uno_classic", "players": 2.5})
    assert info.value.messages == {"players": ["Not a valid integer: 2.5 has a fractional part."]}

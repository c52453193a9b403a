"""The ``WithState`` schemas (marshmallow, no fast path of our own): the usual bodies
load as they are (objects copied), the unusual ones are refused."""

from __future__ import annotations

from typing import Any

import pytest
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

"""marshmallow schemas for every request body (shape only: 400 on failure).

Envelopes are shallow on purpose: ``state`` and ``move`` are checked deeply by the
engine (``engine.from_dict`` / ``Move.from_dict``), which names the failing field.
Integers and booleans are ``service.fields``' strict ones.
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from service.fields import Bool, Int

MAX_DECK = 200
MAX_OPTIONS = 32
MAX_SEAT = 99
MAX_SEED = 2**64 - 1
MAX_TOKEN = 65536


class Strict(Schema):
    class Meta:
        unknown = RAISE


class CreateGame(Strict):
    """``POST /v1/games``. Player count, dealer, options and deck are checked by the
    engine against the variant (422 with its code); here only their types and sizes."""

    variant = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = Int(required=True)
    seed = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEED))
    dealer = Int(load_default=None, allow_none=True)
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(max=64)),
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=MAX_OPTIONS),
    )
    deck = fields.List(
        Int(), load_default=None, allow_none=True, validate=validate.Length(max=MAX_DECK)
    )
    sealed = Bool(load_default=False)
    seat = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEAT))

    @validates_schema
    def _seat_needs_sealed(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("seat") is not None and not data.get("sealed"):
            raise ValidationError("seat binds a sealed state token; send sealed: true", "seat")


class WithState(Strict):
    """A state as raw JSON (trusted callers) or as a sealed ``state_token``."""

    # Absent, not null: a null would say nothing the absence does not.
    state = fields.Dict(load_default=None, allow_none=False)
    state_token = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=MAX_TOKEN)
    )

    @validates_schema
    def _one_state(self, data: dict[str, Any], **_: Any) -> None:
        if (data.get("state") is None) == (data.get("state_token") is None):
            raise ValidationError("send exactly one of state and state_token", "state")


class ApplyBody(WithState):
    move = fields.Dict(required=True)


class ValidateBody(WithState):
    move = fields.Dict(required=True)


class ViewBody(WithState):
    player = Int(required=True, allow_none=True, validate=validate.Range(min=0, max=MAX_SEAT))


class LegalMovesBody(WithState):
    player = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEAT))


class ScoreBody(WithState):
    pass


create_game = CreateGame()
apply_body = ApplyBody()
validate_body = ValidateBody()
view_body = ViewBody()
legal_moves_body = LegalMovesBody()
score_body = ScoreBody()

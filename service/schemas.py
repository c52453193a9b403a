"""marshmallow schemas for every request body (shape only: 400 on failure).

Envelopes are shallow on purpose: ``state`` and ``move`` are checked deeply by the
engine (``engine.from_dict`` / ``Move.from_dict``), which names the failing field;
checking them twice would only cost time on the hot path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

MAX_DECK = 200
MAX_OPTIONS = 32
MAX_SEAT = 99
MAX_SEED = 2**64 - 1
MAX_TOKEN = 65536


class Strict(Schema):
    class Meta:
        unknown = RAISE


class Int(fields.Integer):
    def __init__(self, **kw: Any) -> None:
        super().__init__(strict=True, **kw)


class Bool(fields.Boolean):
    """``true`` or ``false`` only (marshmallow's Boolean also takes 1, "yes", ...)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


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


def _is_object(value: Any) -> bool:
    return type(value) is dict


def _is_seat_or_null(value: Any) -> bool:
    return value is None or (type(value) is int and 0 <= value <= MAX_SEAT)


class WithState(Strict):
    """A state as raw JSON (trusted callers) or as a sealed ``state_token``.

    ``load`` answers the usual well-formed body itself (``fast_load``: every field
    present has a plain valid value, no unknown field), as marshmallow would; anything
    else goes to marshmallow, with its 400s. marshmallow's load of an apply body costs
    ~89k instructions, about 9% of an in-process apply; ``fast_load`` ~4k.
    tests/service/test_schemas.py holds the two to the same answers."""

    # Absent, not null: a null would say nothing the absence does not.
    state = fields.Dict(load_default=None, allow_none=False)
    state_token = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=MAX_TOKEN)
    )

    #: The fields after ``state`` / ``state_token``, for ``fast_load``: name, required,
    #: and a test that holds only for values the field takes as they are (an object
    #: is copied, as ``fields.Dict`` copies it).
    FAST_FIELDS: ClassVar[tuple[tuple[str, bool, Callable[[Any], bool]], ...]] = ()

    @validates_schema
    def _one_state(self, data: dict[str, Any], **_: Any) -> None:
        if (data.get("state") is None) == (data.get("state_token") is None):
            raise ValidationError("send exactly one of state and state_token", "state")

    def load(  # type: ignore[override]
        self,
        data: Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        many: bool | None = None,
        partial: bool | Sequence[str] | None = None,
        unknown: Any = None,
    ) -> Any:
        if many is None and partial is None and unknown is None and type(data) is dict:
            loaded = self.fast_load(data)
            if loaded is not None:
                return loaded
        return super().load(data, many=many, partial=partial, unknown=unknown)

    def fast_load(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """What marshmallow's load returns for ``data``, when it is a well-formed body
        of the usual kind; else None (marshmallow then decides, with its errors)."""
        state = data.get("state")
        token = data.get("state_token")
        if type(state) is dict:
            if "state_token" in data:
                return None
            state = dict(state)
        elif "state" in data or type(token) is not str or not 0 < len(token) <= MAX_TOKEN:
            return None
        out = {"state": state, "state_token": token}
        known = 1
        for name, required, valid in self.FAST_FIELDS:
            if name in data:
                value = data[name]
                if not valid(value):
                    return None
                out[name] = dict(value) if type(value) is dict else value
                known += 1
            elif required:
                return None
            else:
                out[name] = None
        return out if known == len(data) else None


class ApplyBody(WithState):
    move = fields.Dict(required=True)

    FAST_FIELDS = (("move", True, _is_object),)


class ValidateBody(WithState):
    move = fields.Dict(required=True)

    FAST_FIELDS = (("move", True, _is_object),)


class ViewBody(WithState):
    player = Int(required=True, allow_none=True, validate=validate.Range(min=0, max=MAX_SEAT))

    FAST_FIELDS = (("player", True, _is_seat_or_null),)


class LegalMovesBody(WithState):
    player = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=MAX_SEAT))

    FAST_FIELDS = (("player", False, _is_seat_or_null),)


class ScoreBody(WithState):
    pass


create_game = CreateGame()
apply_body = ApplyBody()
validate_body = ValidateBody()
view_body = ViewBody()
legal_moves_body = LegalMovesBody()
score_body = ScoreBody()

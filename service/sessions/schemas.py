"""Request shapes of the session endpoints (marshmallow; a failure is a 400)."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

import engine.bots
from service.fields import Bool, Int

from .models import OnLeave, SpectatorAccess

MAX_SEED = (1 << 64) - 1
MAX_SEATS = 10
#: The longest ``external_id`` a seat may carry.
MAX_EXTERNAL_ID = 256
#: The longest identity assertion (a JWT) a seat may send.
MAX_IDENTITY = 4096
#: The bot levels a seat may ask for (``true``: the simple bot of before the levels).
BOT_LEVELS: tuple[str, ...] = engine.bots.LEVELS


class BotField(fields.Field):
    """A seat's ``bot``: ``false`` (a person), ``true`` (the simple bot) or a level."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool | str:
        if isinstance(value, bool) or (isinstance(value, str) and value in BOT_LEVELS):
            return value
        raise ValidationError(
            "must be true, false or a bot level (" + ", ".join(map(repr, BOT_LEVELS)) + ")"
        )


#: Spectator access (``models.SpectatorAccess``).
SPECTATORS = tuple(a.value for a in SpectatorAccess)
#: What becomes of a seat that leaves after the start (``models.OnLeave``).
ON_LEAVE = tuple(o.value for o in OnLeave)


class SeatSpec(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(validate=validate.Length(min=1, max=40))
    bot = BotField(load_default=False)
    #: An open seat: nobody has it yet; a person takes it with ``POST .../join``.
    open = Bool(load_default=False)
    #: The app's reference of the person: the webhooks echo it; no answer shows it. It
    #: comes from ``identity`` (``identity.py``): alone it is refused.
    external_id = fields.String(validate=validate.Length(min=1, max=MAX_EXTERNAL_ID))
    #: The app's backend's signed assertion of the person (a JWT): gives ``external_id``.
    identity = fields.String(validate=validate.Length(min=1, max=MAX_IDENTITY))

    @validates_schema
    def _open_is_alone(self, data: dict[str, Any], **kwargs: Any) -> None:
        taken = data.get("bot") or {"name", "external_id", "identity"} & set(data)
        if data.get("open") and taken:
            raise ValidationError(
                "an open seat has no name, external_id or identity and is not a bot", "open"
            )


#: A seat count as ``Players`` reads it: ``6`` or ``6.0``, as every integer field.
_SEAT_COUNT = Int()


class Players(fields.Field):
    """A seat count, or a list of seats ``{name?, bot?}``."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if type(value) is int or type(value) is float:
            count = _SEAT_COUNT.deserialize(value)
            if not 1 <= count <= MAX_SEATS:
                raise ValidationError(f"must be from 1 to {MAX_SEATS}")
            return [{"bot": False, "open": False} for _ in range(count)]
        if isinstance(value, list):
            if not 1 <= len(value) <= MAX_SEATS:
                raise ValidationError(f"must list 1 to {MAX_SEATS} seats")
            return SeatSpec(many=True).load(value)  # type: ignore[no-any-return]
        raise ValidationError("must be a seat count or a list of seats {name?, bot?, open?}")


#: The longest turn time and time bank a clock may give (14 days: correspondence play).
MAX_CLOCK_SECONDS = 14 * 86_400


class ClockSpec(Schema):
    """A turn clock (``service.sessions.clock``): seconds per move, an optional time
    bank per seat for the whole game, and optional timeouts in a row before a bot
    takes the seat."""

    class Meta:
        unknown = RAISE

    turn_seconds = Int(required=True, validate=validate.Range(min=1, max=MAX_CLOCK_SECONDS))
    bank_seconds = Int(load_default=0, validate=validate.Range(min=0, max=MAX_CLOCK_SECONDS))
    max_timeouts = Int(load_default=None, validate=validate.Range(min=1, max=1000))


class CreateSession(Schema):
    class Meta:
        unknown = RAISE

    variant = fields.String(required=True)
    players = Players(required=True)
    seed = Int(validate=validate.Range(min=0, max=MAX_SEED))
    dealer = Int(validate=validate.Range(min=0))
    options = fields.Dict(keys=fields.String())
    clock = fields.Nested(ClockSpec)
    #: Listed by ``GET /v1/sessions`` while it waits, and joined without a code.
    public = Bool(load_default=False)
    #: Who may read the session without a seat token (see ``SPECTATORS``).
    spectators = fields.String(load_default="anyone", validate=validate.OneOf(SPECTATORS))
    #: What becomes of a seat that leaves after the start (see ``ON_LEAVE``).
    on_leave = fields.String(load_default="bot", validate=validate.OneOf(ON_LEAVE))
    #: The session's notifications go to the deployment's webhook (``WEBHOOK_URL``).
    notify = Bool(load_default=False)


class JoinRequest(Schema):
    """``{name, code?, seat?, identity?}``: take an open seat (the lowest, or ``seat``)."""

    class Meta:
        unknown = RAISE

    name = fields.String(required=True, validate=validate.Length(min=1, max=40))
    code = fields.String(validate=validate.Length(min=1, max=256))
    seat = Int(validate=validate.Range(min=0, max=MAX_SEATS - 1))
    #: The app's reference of the person and its assertion (see ``SeatSpec``).
    external_id = fields.String(validate=validate.Length(min=1, max=MAX_EXTERNAL_ID))
    identity = fields.String(validate=validate.Length(min=1, max=MAX_IDENTITY))


class MoveRequest(Schema):
    """``{"move": {...}}``; the move itself is checked by the engine (``Move.from_dict``)."""

    class Meta:
        unknown = RAISE

    move = fields.Dict(required=True)


create_schema = CreateSession()
join_schema = JoinRequest()
move_schema = MoveRequest()

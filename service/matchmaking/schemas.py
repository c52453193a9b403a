"""The shape of ``POST /v1/matches`` (marshmallow; a failure is a 400), and the checks
the variant makes of it (seats in its range, the house rules: 422)."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

import engine
from service.fields import Int

from .errors import SeatsOutOfRange, WaitTooLong
from .models import Pace

MAX_SEATS = 10
#: The longest identity assertion (a JWT), as a session's seat takes it.
MAX_IDENTITY = 4096
PACES = tuple(p.value for p in Pace)


class SeatRange(Schema):
    class Meta:
        unknown = RAISE

    min = Int(required=True, validate=validate.Range(min=1, max=MAX_SEATS))
    max = Int(required=True, validate=validate.Range(min=1, max=MAX_SEATS))


_COUNT = Int(validate=validate.Range(min=1, max=MAX_SEATS))


class Seats(fields.Field):
    """A seat count (``4``) or a range (``{"min": 2, "max": 4}``), loaded as a range."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> dict[str, int]:
        if isinstance(value, dict):
            return SeatRange().load(value)  # type: ignore[no-any-return]
        if type(value) in (int, float):
            count = _COUNT.deserialize(value)
            return {"min": count, "max": count}
        raise ValidationError("must be a seat count or {min, max}")


class MatchRequest(Schema):
    class Meta:
        unknown = RAISE

    variant = fields.String(required=True, validate=validate.Length(min=1, max=64))
    seats = Seats(required=True)
    options = fields.Dict(keys=fields.String())
    pace = fields.String(load_default="live", validate=validate.OneOf(PACES))
    #: Seconds before bots take the table's empty seats (default: the pace's).
    wait_seconds = Int(validate=validate.Range(min=1))
    name = fields.String(load_default="Player", validate=validate.Length(min=1, max=40))
    #: The app's backend's signed assertion of the person (``docs/notifications.md``):
    #: its seat's ``external_id``, which the table's webhooks echo.
    identity = fields.String(validate=validate.Length(min=1, max=MAX_IDENTITY))


match_schema = MatchRequest()


def check_request(req: dict[str, Any], max_wait: int) -> dict[str, Any]:
    """``req`` as the matchmaker takes it: the variant known (422 ``unknown_variant``),
    its seats within the variant's players (422 ``invalid_player_count``), its options
    such as a game can be dealt with (the engine's 422s), the wait at most ``max_wait`` (422 ``wait_too_long``)."""
    variant = engine.find_variant(req["variant"])
    low, high = req["seats"]["min"], req["seats"]["max"]
    if low > high:  # a schema-valid request: a check the spec's JSON Schema cannot state
        raise SeatsOutOfRange(f"seats asks for at least {low} and at most {high}")
    if low < variant.min_players or high > variant.max_players:
        raise SeatsOutOfRange(
            f"{variant.id} is played by {variant.min_players} to {variant.max_players}; "
            f"seats asks for {low} to {high}"
        )
    # The engine judges the options, and answers them resolved (defaults filled in), so
    # tickets that name a default and tickets that leave it out share a queue.
    state, _ = engine.start(variant.id, high, 0, None, req.get("options"))
    options = dict(state.options)
    wait = req.get("wait_seconds")
    if wait is not None and wait > max_wait:
        raise WaitTooLong(f"wait_seconds is {wait}; this service waits at most {max_wait}")
    return {
        **req, "options": options, "pace": Pace(req["pace"]), "seats_min": low, "seats_max": high,
    }  # fmt: skip

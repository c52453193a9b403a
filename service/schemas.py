"""marshmallow schemas for every request body (shape only: 400 on failure).

Envelopes are shallow on purpose: ``state`` and ``move`` are checked deeply by the
engine (``engine.from_dict`` / ``Move.from_dict``), which names the failing field;
checking them twice would only cost time on the hot path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, missing, validate, validates_schema

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


#: The field classes the fast path understands, by their ``_deserialize``: the one
#: type of value that method takes as it is (an object is copied, as ``fields.Dict``
#: copies it; booleans are not ints here: marshmallow decides them), and whether
#: ``Length`` (not ``Range``) is the validator that bounds it.
_FAST_KINDS: dict[Any, tuple[Any, bool]] = {
    fields.Mapping._deserialize: (dict, True),
    fields.Integer._deserialize: (int, False),
    fields.String._deserialize: (str, True),
}
#: A required field, in a fast plan (it has no default).
_REQUIRED = object()

#: How ``fast_load`` takes one field: name, type, None allowed, bounded, bounds
#: (inclusive, of the value or of its length: ``sized``), copied, default (or
#: ``_REQUIRED``).
FastStep = tuple[str, Any, bool, bool, float, float, bool, bool, Any]
#: A schema's fast plan: its steps and its schema-level validators.
FastPlan = tuple[tuple[FastStep, ...], tuple[Callable[..., Any], ...]]


def _bounds(check: Any, sized: bool) -> tuple[int | None, int | None] | None:
    """The inclusive bounds a ``Length`` (``sized``) or integer ``Range`` validator
    sets; None for any other validator."""
    if sized and type(check) is validate.Length:
        if check.equal is not None:
            return check.equal, check.equal
        return check.min, check.max
    if not sized and type(check) is validate.Range:
        lo, hi = check.min, check.max
        if not all(b is None or type(b) is int for b in (lo, hi)):
            return None
        if lo is not None and not check.min_inclusive:
            lo += 1
        if hi is not None and not check.max_inclusive:
            hi -= 1
        return lo, hi
    return None


def fast_step(name: str, field: fields.Field[Any]) -> FastStep | None:
    """How ``fast_load`` takes ``field``: the values it loads as they are, read from the
    field's class, ``allow_none``, validators and default; None for a field not
    understood here (its schema then has no fast path)."""
    kind = type(field)
    taken = _FAST_KINDS.get(kind._deserialize)
    default = _REQUIRED if field.required else field.load_default
    if (
        taken is None
        or callable(default)
        or kind.deserialize is not fields.Field.deserialize
        or getattr(field, "key_field", None) is not None
        or getattr(field, "value_field", None) is not None
        or getattr(field, "mapping_type", dict) is not dict
        or field.data_key is not None
        or field.attribute is not None
        or field.dump_only
    ):
        return None
    value_type, sized = taken
    lo: int | None = None
    hi: int | None = None
    for check in field.validators:
        bounds = _bounds(check, sized)
        if bounds is None:
            return None
        if bounds[0] is not None:
            lo = bounds[0] if lo is None else max(lo, bounds[0])
        if bounds[1] is not None:
            hi = bounds[1] if hi is None else min(hi, bounds[1])
    low = -math.inf if lo is None else lo
    high = math.inf if hi is None else hi
    bounded = lo is not None or hi is not None
    return (
        name,
        value_type,
        field.allow_none,
        bounded,
        low,
        high,
        sized,
        value_type is dict,
        default,
    )


def fast_plan(schema: Schema) -> FastPlan | None:
    """How ``fast_load`` loads a body of ``schema``, made from the schema's own fields,
    options and hooks; None when any of them is not understood here."""
    hooks = schema._hooks
    if schema.many or schema.partial or schema.unknown != RAISE:
        return None
    if any(hooks.get(tag) for tag in ("pre_load", "post_load", "validates")):
        return None
    checks = []
    for attr, many, options in hooks.get("validates_schema", ()):
        if many or options.get("pass_original"):
            return None
        checks.append(getattr(schema, attr))
    steps = []
    for name, field in schema.load_fields.items():
        step = fast_step(name, field)
        if step is None:
            return None
        steps.append(step)
    return tuple(steps), tuple(checks)


class WithState(Strict):
    """A state as raw JSON (trusted callers) or as a sealed ``state_token``.

    ``load`` answers the usual well-formed body itself (``fast_load``: every field
    present has a plain valid value, no unknown field, the schema's own checks pass),
    as marshmallow would; anything else goes to marshmallow, with its 400s. What the
    fast path accepts is read from the schema's declared fields (``fast_plan``): a
    field of a kind it does not understand turns it off for that schema.
    marshmallow's load of an apply body costs ~89k instructions, about 9% of an
    in-process apply; ``fast_load`` a few thousand.
    tests/service/test_schemas.py holds the two to the same answers."""

    # Absent, not null: a null would say nothing the absence does not.
    state = fields.Dict(load_default=None, allow_none=False)
    state_token = fields.String(
        load_default=None, allow_none=False, validate=validate.Length(min=1, max=MAX_TOKEN)
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fast = fast_plan(self)

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
        plan = self._fast
        if plan is None:
            return None
        out: dict[str, Any] = {}
        known = 0
        for name, value_type, allow_none, bounded, lo, hi, sized, copies, default in plan[0]:
            if name in data:
                value: Any = data[name]
                if value is None:
                    if not allow_none:
                        return None
                elif type(value) is not value_type:
                    return None
                else:
                    if bounded and not lo <= (len(value) if sized else value) <= hi:
                        return None
                    if copies:
                        value = dict(value)
                out[name] = value
                known += 1
            elif default is _REQUIRED:
                return None
            elif default is not missing:
                out[name] = default
        if known != len(data):
            return None
        for check in plan[1]:
            try:
                check(out, partial=None, many=False, unknown=RAISE)
            except ValidationError:
                return None
        return out


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

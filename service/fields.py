"""The marshmallow fields every request schema shares (the stateless game bodies in
``service.schemas``, the session bodies in ``service.sessions.schemas``): one strict
integer and one strict boolean, so a JSON type is checked one way everywhere."""

from __future__ import annotations

import math
from typing import Any

from marshmallow import fields

#: Up to this size every integer is exactly a float (JavaScript's safe integers), so a
#: number written ``6.0``, which JSON parsers read as a float, names one integer.
MAX_SAFE_INTEGER = 2**53 - 1


class Int(fields.Integer):
    """A JSON integer, as JSON Schema counts one: ``6``, or ``6.0`` (a zero fraction, up
    to ``MAX_SAFE_INTEGER``); never ``6.5``, a boolean or a string."""

    default_error_messages = {"fraction": "Not a valid integer: {input} has a fractional part."}

    def __init__(self, **kw: Any) -> None:
        super().__init__(strict=True, **kw)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int:
        if type(value) is float:
            if value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
                value = int(value)
            elif math.isfinite(value) and not value.is_integer():
                raise self.make_error("fraction", input=value)
        return super()._deserialize(value, attr, data, **kwargs)


class Bool(fields.Boolean):
    """JSON ``true`` or ``false`` only (marshmallow's Boolean also takes 1, "yes", ...)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value

"""Game options: each one's allowed values and default."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .errors import SetupError


def _shown(value: Any) -> str:
    """A value as a request writes it (``true``, not ``True``)."""
    return json.dumps(value) if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class OptionSpec:
    """A game option: allowed ``choices`` (values of the default's type) or an integer
    range, the default, and its ``label`` (what a form calls it: "Points to win", not
    ``target``). ``stored_at_default``: whether a state lists the option when it has its
    default value; an option added to a game later (a house rule) is left out at its
    default, so the states of games that do not use it stay as they were."""

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    stored_at_default: bool = True
    label: str = field(kw_only=True)

    def check(self, value: Any) -> Any:
        if self.choices:
            # The type too: ``1 in (False, True)`` holds in Python, not in a request.
            if type(value) is not type(self.default) or value not in self.choices:
                raise SetupError(
                    f"option {self.name!r} must be one of {', '.join(map(_shown, self.choices))}",
                    code="invalid_option",
                )
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise SetupError(f"option {self.name!r} must be an integer", code="invalid_option")
        lo = self.minimum if self.minimum is not None else value
        hi = self.maximum if self.maximum is not None else value
        if not lo <= value <= hi:
            raise SetupError(
                f"option {self.name!r} must be between {self.minimum} and {self.maximum}",
                code="invalid_option",
            )
        return value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "default": self.default,
            "description": self.description,
        }
        if self.choices:
            out["choices"] = list(self.choices)
        else:
            out["minimum"], out["maximum"] = self.minimum, self.maximum
        return out


def flag(name: str, description: str, *, label: str) -> OptionSpec:
    """An on/off option, off by default and left out of a state while off."""
    return OptionSpec(
        name, False, description, choices=(False, True), stored_at_default=False, label=label
    )

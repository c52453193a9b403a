"""Game options: each one's allowed values and default."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import SetupError


@dataclass(frozen=True)
class OptionSpec:
    """A game option: allowed ``choices`` (or an integer range), the default, and its
    ``label`` (what a form calls it: "Points to win", not ``target``)."""

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    label: str = field(kw_only=True)

    def check(self, value: Any) -> Any:
        if self.choices:
            if value not in self.choices:
                raise SetupError(
                    f"option {self.name!r} must be one of {', '.join(map(str, self.choices))}",
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

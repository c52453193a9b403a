"""The engine's error hierarchy: every failure carries a stable snake_case ``code``.

The engine speaks no HTTP: ``service/problems.py`` maps each error to a status at the edge."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code = "engine_error"

    def __init__(self, detail: str, code: str | None = None, **context: object) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.context = context

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


class RulesError(EngineError):
    """A move the rules do not allow in this state."""

    code = "illegal_move"


class InvalidState(EngineError):
    """A serialized state that is malformed or breaks the game's invariants."""

    code = "invalid_state"


class InvalidMove(EngineError):
    """A move object that is malformed: unknown type, wrong field types."""

    code = "invalid_move"


class SetupError(EngineError):
    """Bad arguments to ``new_game``: unknown variant, player count, deck, options."""

    code = "invalid_setup"


class UnknownVariant(SetupError):
    code = "unknown_variant"

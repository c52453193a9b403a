"""Every refusal of the session core, built here once: a domain error (its stable
``code``, a ``detail`` a person understands, and the facts: ``errors``,
``current_version``, ``seat``, when to retry ...), one function per code. A session
part raises what these return; nothing else spells a session code.

No HTTP here: the kind of refusal is the error's class (``NotFoundError``,
``StageError`` ...), and the API edge (``api.py``: ``STATUS``, ``answer``) maps each
kind to its status and its problem+json with its headers (``ETag`` from
``current_version``, ``Retry-After`` from ``retry_after``, the bearer challenge), once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from engine import EngineError

P = ParamSpec("P")
R = TypeVar("R")


class SessionError(Exception):
    """A refusal: ``code`` (stable, snake_case), ``detail``, ``facts`` (members of the
    answer beside them), ``retry_after`` (seconds; None: retrying will not help)."""

    def __init__(
        self, detail: str, *, code: str, retry_after: int | None = None, **facts: Any
    ) -> None:
        super().__init__(detail)
        self.code, self.detail, self.retry_after, self.facts = code, detail, retry_after, facts


class InvalidRequestError(SessionError):
    """The request cannot be read as sent (a header, a parameter, a name)."""


class UnauthenticatedError(SessionError):
    """No token, or a token that holds no seat here (now). ``presented``: a token was
    sent (and is not one of this session's seats)."""

    def __init__(self, detail: str, *, code: str, presented: bool = True, **facts: Any) -> None:
        super().__init__(detail, code=code, **facts)
        self.presented = presented


class ForbiddenError(SessionError):
    """The caller is known and may not do this (another seat's move, not the host)."""


class NotFoundError(SessionError):
    """No such session (or it expired)."""


class StageError(SessionError):
    """The session's stage forbids it (waiting, started, over, at a cap)."""


class StaleVersionError(SessionError):
    """The change answers another version than the current one (``current_version``)."""


class VersionRequiredError(SessionError):
    """The change names no version it answers (``current_version``)."""


class RefusedError(SessionError):
    """Understood and refused: the rules, or a setting of this deployment."""


class QuotaError(SessionError):
    """The caller holds all it may (``retry_after``)."""


class UnavailableError(SessionError):
    """The service cannot take it now (``retry_after``)."""


# ---------------------------------------------------------------- the request's shape
def invalid_request(detail: str, errors: dict[str, Any]) -> SessionError:
    return InvalidRequestError(detail, code="invalid_request", errors=errors)


def unreadable(name: str, detail: str) -> SessionError:
    """A header or query parameter that cannot be read (If-Match, Idempotency-Key, the
    lobby's cursor)."""
    return invalid_request(detail, {name: ["invalid"]})


def invalid_name(field: str, detail: str) -> SessionError:
    """A seat's name that cannot be shown as it is (``names.clean``)."""
    return InvalidRequestError(detail, code="invalid_name", errors={field: [detail]})


# ---------------------------------------------------------------- the session
def not_found(sid: str) -> SessionError:
    return NotFoundError(f"no session {sid!r} (it may have expired)", code="session_not_found")


def unavailable(retry_after: int) -> SessionError:
    return UnavailableError(
        "the session store cannot be reached; try again shortly",
        code="store_unavailable",
        retry_after=retry_after,
    )


def notifications_not_configured() -> SessionError:
    return RefusedError(
        "this deployment sends no webhooks (WEBHOOK_URL is not set): leave notify out",
        code="notifications_not_configured",
        errors={"notify": ["no webhook is configured"]},
    )


def session_waiting(open_seats: int) -> SessionError:
    return StageError(
        f"this session waits for {open_seats} more seat(s) to be taken; nothing is dealt yet",
        code="session_waiting",
    )


def client_seed_refused() -> SessionError:
    return RefusedError(
        "this service chooses every session's seed (ALLOW_CLIENT_SEED is off): leave seed out",
        code="client_seed_not_allowed",
        errors={"seed": ["not allowed here"]},
    )


# ---------------------------------------------------------------- identity assertions
def _seat_identity(field: str, detail: str, name: str = "identity") -> dict[str, list[str]]:
    """The ``errors`` of a seat's ``identity`` (or ``external_id``) the service will not
    take; ``field``: the seat's place in the body ("" for a join's)."""
    return {f"{field}.{name}" if field else name: [detail]}


def identity_assertion_missing(field: str) -> SessionError:
    detail = (
        "external_id comes from an identity assertion the app's backend signs: send it "
        "as identity (docs/notifications.md)"
    )
    return RefusedError(
        detail,
        code="identity_assertion_missing",
        errors=_seat_identity(field, detail, "external_id"),
    )


def identity_assertion_expired(field: str) -> SessionError:
    detail = "the identity assertion has expired: get a new one"
    return RefusedError(
        detail, code="identity_assertion_expired", errors=_seat_identity(field, detail)
    )


def identity_assertion_bad_signature(field: str) -> SessionError:
    detail = "the identity assertion is not signed with this service's IDENTITY_ASSERTION_KEY"
    return RefusedError(
        detail, code="identity_assertion_bad_signature", errors=_seat_identity(field, detail)
    )


def identity_assertion_wrong_audience(field: str, audience: str) -> SessionError:
    detail = f"the identity assertion is not for this service: its aud must be {audience!r}"
    return RefusedError(
        detail, code="identity_assertion_wrong_audience", errors=_seat_identity(field, detail)
    )


def identity_assertion_invalid(field: str, why: str) -> SessionError:
    detail = f"the identity assertion is not valid: {why}"
    return RefusedError(
        detail, code="identity_assertion_invalid", errors=_seat_identity(field, detail)
    )


def identity_assertion_mismatch(field: str) -> SessionError:
    detail = "external_id differs from the identity assertion's sub: leave external_id out"
    return RefusedError(
        detail,
        code="identity_assertion_mismatch",
        errors=_seat_identity(field, detail, "external_id"),
    )


def identity_assertions_not_configured(field: str) -> SessionError:
    detail = "this deployment takes no identity assertions (IDENTITY_ASSERTION_KEY is not set)"
    return RefusedError(
        detail, code="identity_assertions_not_configured", errors=_seat_identity(field, detail)
    )


def rules(code: str, detail: str) -> SessionError:
    """An engine's rules error (``EngineError``) with its own code."""
    return RefusedError(detail, code=code)


def judged(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(...)`` of the engine, its ``EngineError`` (a rules error) refused with its code."""
    try:
        return fn(*args, **kwargs)
    except EngineError as e:
        raise rules(e.code, e.detail) from None


# ---------------------------------------------------------------- tokens and codes
def missing_token(detail: str) -> SessionError:
    return UnauthenticatedError(detail, code="missing_token", presented=False)


def invalid_token() -> SessionError:
    return UnauthenticatedError(
        "the token is not a seat token of this session", code="invalid_token"
    )


def seat_lost(seat: int, at: str, reason: str, replaced_by: str) -> SessionError:
    """A former token of ``seat``: ``seat_taken_by_bot`` (after its timeouts) or
    ``seat_left`` (it left), with when (``at``, RFC 3339), why and what holds it now."""
    facts: dict[str, Any] = {"seat": seat, "at": at, "reason": reason, "replaced_by": replaced_by}
    if reason == "timeouts":
        return UnauthenticatedError(
            f"a bot took seat {seat} at {at}: it ran out of time too often in a row; while "
            "the game runs, POST /v1/sessions/{id}/return with this token takes it back",
            code="seat_taken_by_bot", **facts,
        )  # fmt: skip
    now = "a bot plays it now" if replaced_by == "bot" else "it is open again"
    return UnauthenticatedError(
        f"seat {seat} left the session at {at}; {now}", code="seat_left", **facts
    )


def invalid_invitation() -> SessionError:
    return ForbiddenError(
        "this is not the invitation code of this session", code="invalid_invitation"
    )


def not_your_seat(seat: int, named: int) -> SessionError:
    return ForbiddenError(
        f"your token is seat {seat}'s; the move names {named}", code="not_your_seat"
    )


def not_host(host: int) -> SessionError:
    return ForbiddenError(
        f"only the host (seat {host}, who created the session) deletes it; "
        "leave it instead (POST .../leave)",
        code="not_host",
    )


# ---------------------------------------------------------------- versions
def if_match_required(current: int) -> SessionError:
    return VersionRequiredError(
        'a move needs If-Match: "<version>" (the ETag of the state it answers)',
        code="if_match_required",
        current_version=current,
    )


def version_mismatch(current: int) -> SessionError:
    return StaleVersionError(
        f"the session is at version {current}; reload it and try again",
        code="version_mismatch",
        current_version=current,
    )


def idempotency_key_reused() -> SessionError:
    return RefusedError(
        "this Idempotency-Key was used for another move or version",
        code="idempotency_key_reused",
    )


# ---------------------------------------------------------------- the session's stage
def move_limit_reached(moves: int) -> SessionError:
    return StageError(
        f"this session has made {moves} moves, its limit; start a new one",
        code="move_limit_reached",
    )


def session_started() -> SessionError:
    return StageError("this session has started: its seats are taken", code="session_started")


def session_full(wanted: int | None) -> SessionError:
    return StageError(
        "no open seat here" + ("" if wanted is None else f" (seat {wanted})"),
        code="session_full",
    )


# ---------------------------------------------------------------- taking a seat back
def return_game_over(seat: int) -> SessionError:
    return StageError(
        f"the game has ended: seat {seat} is not taken back; ask for the rematch with this "
        "token (POST /v1/sessions/{id}/rematch)", code="seat_return_game_over", seat=seat,
    )  # fmt: skip


def return_left(seat: int) -> SessionError:
    return StageError(
        f"seat {seat} was left by its person: only a seat a bot took after its timeouts is "
        "given back", code="seat_return_left", seat=seat,
    )  # fmt: skip


def return_taken(seat: int) -> SessionError:
    return StageError(
        f"seat {seat} is no longer the bot's that took it from this token (a person holds "
        "it, or it changed hands since)", code="seat_return_taken", seat=seat,
    )  # fmt: skip


def game_not_over() -> SessionError:
    return StageError("a rematch is made when the game is over", code="game_not_over")


def session_in_progress() -> SessionError:
    return StageError(
        "a session is deleted before it starts or after it ends; this game is being "
        "played (leave it instead: a bot takes your seat)",
        code="session_in_progress",
    )


def session_too_large(stored: int) -> SessionError:
    return StageError(
        f"this session has stored {stored} bytes of events and moves, its limit; start a new one",
        code="session_too_large",
    )


# ---------------------------------------------------------------- quotas and capacity
def too_many_sessions(limit: int, retry_after: int) -> SessionError:
    return QuotaError(
        f"this client's {limit} sessions still live, its quota; "
        "delete one (as its host) or wait for one to expire",
        code="too_many_sessions",
        retry_after=retry_after,
    )


def too_many_waiting_sessions(limit: int, retry_after: int) -> SessionError:
    return QuotaError(
        f"this client has {limit} sessions waiting for seats, its quota; "
        "wait until one starts, or delete one",
        code="too_many_waiting_sessions",
        retry_after=retry_after,
    )


def too_many_streams(limit: int, retry_after: int) -> SessionError:
    return QuotaError(
        f"this client holds {limit} event streams open, its quota; close one first",
        code="too_many_streams",
        retry_after=retry_after,
    )


def streams_full(retry_after: int) -> SessionError:
    return UnavailableError(
        "this server holds as many event streams as it can; reconnect shortly "
        "(or read GET .../events meanwhile)",
        code="streams_full",
        retry_after=retry_after,
    )

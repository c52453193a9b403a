"""Every problem a session answers, built here once: the service's ``ApiProblem`` (its
error table renders problem+json, ``{type, title, status, detail, code}``), one function
per code. A session part raises what these return; nothing else spells a session code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from engine import EngineError
from service.problems import ApiProblem

SessionProblem = ApiProblem
P = ParamSpec("P")
R = TypeVar("R")

#: The challenge of every 401 (RFC 6750).
REALM = 'Bearer realm="sessions"'


# ---------------------------------------------------------------- the request's shape (400)
def invalid_request(detail: str, errors: dict[str, Any]) -> ApiProblem:
    return ApiProblem(400, "invalid_request", detail, errors=errors)


def unreadable(name: str, detail: str) -> ApiProblem:
    """A header or query parameter that cannot be read (If-Match, Idempotency-Key, the
    lobby's cursor)."""
    return invalid_request(detail, {name: ["invalid"]})


def invalid_name(field: str, detail: str) -> ApiProblem:
    """A seat's name that cannot be shown as it is (``names.clean``)."""
    return ApiProblem(400, "invalid_name", detail, errors={field: [detail]})


# ---------------------------------------------------------------- the session
def not_found(sid: str) -> ApiProblem:
    return ApiProblem(404, "session_not_found", f"no session {sid!r} (it may have expired)")


def unavailable(retry_after: int) -> ApiProblem:
    return ApiProblem(
        503,
        "store_unavailable",
        "the session store cannot be reached; try again shortly",
        headers={"Retry-After": str(retry_after)},
    )


def notifications_not_configured() -> ApiProblem:
    return ApiProblem(
        422,
        "notifications_not_configured",
        "this deployment sends no webhooks (WEBHOOK_URL is not set): leave notify out",
        errors={"notify": ["no webhook is configured"]},
    )


def session_waiting(open_seats: int) -> ApiProblem:
    return ApiProblem(
        409,
        "session_waiting",
        f"this session waits for {open_seats} more seat(s) to be taken; nothing is dealt yet",
    )


def client_seed_refused() -> ApiProblem:
    return ApiProblem(
        422,
        "client_seed_not_allowed",
        "this service chooses every session's seed (ALLOW_CLIENT_SEED is off): leave seed out",
        errors={"seed": ["not allowed here"]},
    )


# ---------------------------------------------------------------- identity assertions (422)
def _seat_identity(field: str, detail: str, name: str = "identity") -> dict[str, list[str]]:
    """The ``errors`` of a seat's ``identity`` (or ``external_id``) the service will not
    take; ``field``: the seat's place in the body ("" for a join's)."""
    return {f"{field}.{name}" if field else name: [detail]}


def identity_assertion_missing(field: str) -> ApiProblem:
    detail = (
        "external_id comes from an identity assertion the app's backend signs: send it "
        "as identity (docs/notifications.md)"
    )
    return ApiProblem(
        422,
        "identity_assertion_missing",
        detail,
        errors=_seat_identity(field, detail, "external_id"),
    )


def identity_assertion_expired(field: str) -> ApiProblem:
    detail = "the identity assertion has expired: get a new one"
    return ApiProblem(
        422, "identity_assertion_expired", detail, errors=_seat_identity(field, detail)
    )


def identity_assertion_bad_signature(field: str) -> ApiProblem:
    detail = "the identity assertion is not signed with this service's IDENTITY_ASSERTION_KEY"
    return ApiProblem(
        422, "identity_assertion_bad_signature", detail, errors=_seat_identity(field, detail)
    )


def identity_assertion_wrong_audience(field: str, audience: str) -> ApiProblem:
    detail = f"the identity assertion is not for this service: its aud must be {audience!r}"
    return ApiProblem(
        422, "identity_assertion_wrong_audience", detail, errors=_seat_identity(field, detail)
    )


def identity_assertion_invalid(field: str, why: str) -> ApiProblem:
    detail = f"the identity assertion is not valid: {why}"
    return ApiProblem(
        422, "identity_assertion_invalid", detail, errors=_seat_identity(field, detail)
    )


def identity_assertion_mismatch(field: str) -> ApiProblem:
    detail = "external_id differs from the identity assertion's sub: leave external_id out"
    return ApiProblem(
        422,
        "identity_assertion_mismatch",
        detail,
        errors=_seat_identity(field, detail, "external_id"),
    )


def identity_assertions_not_configured(field: str) -> ApiProblem:
    detail = "this deployment takes no identity assertions (IDENTITY_ASSERTION_KEY is not set)"
    return ApiProblem(
        422, "identity_assertions_not_configured", detail, errors=_seat_identity(field, detail)
    )


def rules(code: str, detail: str) -> ApiProblem:
    """An engine's rules error (``EngineError``) with its own code: 422."""
    return ApiProblem(422, code, detail)


def judged(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(...)`` of the engine, its ``EngineError`` (a rules error) answered as 422."""
    try:
        return fn(*args, **kwargs)
    except EngineError as e:
        raise rules(e.code, e.detail) from None


# ---------------------------------------------------------------- tokens and codes (401, 403)
def missing_token(detail: str) -> ApiProblem:
    return ApiProblem(401, "missing_token", detail, headers={"WWW-Authenticate": REALM})


def invalid_token() -> ApiProblem:
    return ApiProblem(
        401,
        "invalid_token",
        "the token is not a seat token of this session",
        headers={"WWW-Authenticate": f'{REALM}, error="invalid_token"'},
    )


def seat_lost(seat: int, at: str, reason: str, replaced_by: str) -> ApiProblem:
    """A former token of ``seat``: 401 ``seat_taken_by_bot`` (after its timeouts) or
    ``seat_left`` (it left), with when (``at``, RFC 3339), why and what holds it now."""
    headers = {"WWW-Authenticate": f'{REALM}, error="invalid_token"'}
    extra = {"seat": seat, "at": at, "reason": reason, "replaced_by": replaced_by}
    if reason == "timeouts":
        return ApiProblem(
            401, "seat_taken_by_bot",
            f"a bot took seat {seat} at {at}: it ran out of time too often in a row; while "
            "the game runs, POST /v1/sessions/{id}/return with this token takes it back",
            headers, **extra,
        )  # fmt: skip
    now = "a bot plays it now" if replaced_by == "bot" else "it is open again"
    return ApiProblem(
        401, "seat_left", f"seat {seat} left the session at {at}; {now}", headers, **extra
    )


def invalid_invitation() -> ApiProblem:
    return ApiProblem(403, "invalid_invitation", "this is not the invitation code of this session")


def not_your_seat(seat: int, named: int) -> ApiProblem:
    return ApiProblem(403, "not_your_seat", f"your token is seat {seat}'s; the move names {named}")


def not_host(host: int) -> ApiProblem:
    return ApiProblem(
        403,
        "not_host",
        f"only the host (seat {host}, who created the session) deletes it; "
        "leave it instead (POST .../leave)",
    )


# ---------------------------------------------------------------- versions (412, 428)
def if_match_required(current: int) -> ApiProblem:
    return ApiProblem(
        428,
        "if_match_required",
        'a move needs If-Match: "<version>" (the ETag of the state it answers)',
        current_version=current,
        headers={"ETag": f'"{current}"'},
    )


def version_mismatch(current: int) -> ApiProblem:
    return ApiProblem(
        412,
        "version_mismatch",
        f"the session is at version {current}; reload it and try again",
        current_version=current,
        headers={"ETag": f'"{current}"'},
    )


def idempotency_key_reused() -> ApiProblem:
    return ApiProblem(
        422,
        "idempotency_key_reused",
        "this Idempotency-Key was used for another move or version",
    )


# ---------------------------------------------------------------- the session's stage (409)
def move_limit_reached(moves: int) -> ApiProblem:
    return ApiProblem(
        409,
        "move_limit_reached",
        f"this session has made {moves} moves, its limit; start a new one",
    )


def session_started() -> ApiProblem:
    return ApiProblem(409, "session_started", "this session has started: its seats are taken")


def session_full(wanted: int | None) -> ApiProblem:
    return ApiProblem(
        409,
        "session_full",
        "no open seat here" + ("" if wanted is None else f" (seat {wanted})"),
    )


# ---------------------------------------------------------------- taking a seat back (409)
def return_game_over(seat: int) -> ApiProblem:
    return ApiProblem(
        409, "seat_return_game_over",
        f"the game has ended: seat {seat} is not taken back; ask for the rematch with this "
        "token (POST /v1/sessions/{id}/rematch)", seat=seat,
    )  # fmt: skip


def return_left(seat: int) -> ApiProblem:
    return ApiProblem(
        409, "seat_return_left",
        f"seat {seat} was left by its person: only a seat a bot took after its timeouts is "
        "given back", seat=seat,
    )  # fmt: skip


def return_taken(seat: int) -> ApiProblem:
    return ApiProblem(
        409, "seat_return_taken",
        f"seat {seat} is no longer the bot's that took it from this token (a person holds "
        "it, or it changed hands since)", seat=seat,
    )  # fmt: skip


def game_not_over() -> ApiProblem:
    return ApiProblem(409, "game_not_over", "a rematch is made when the game is over")


def session_in_progress() -> ApiProblem:
    return ApiProblem(
        409,
        "session_in_progress",
        "a session is deleted before it starts or after it ends; this game is being "
        "played (leave it instead: a bot takes your seat)",
    )


def session_too_large(stored: int) -> ApiProblem:
    return ApiProblem(
        409,
        "session_too_large",
        f"this session has stored {stored} bytes of events and moves, its limit; start a new one",
    )


# ---------------------------------------------------------------- quotas (429, 503)
def too_many_sessions(limit: int, retry_after: int) -> ApiProblem:
    return ApiProblem(
        429,
        "too_many_sessions",
        f"this client's {limit} sessions still live, its quota; "
        "delete one (as its host) or wait for one to expire",
        headers={"Retry-After": str(retry_after)},
    )


def too_many_waiting_sessions(limit: int, retry_after: int) -> ApiProblem:
    return ApiProblem(
        429,
        "too_many_waiting_sessions",
        f"this client has {limit} sessions waiting for seats, its quota; "
        "wait until one starts, or delete one",
        headers={"Retry-After": str(retry_after)},
    )


def too_many_streams(limit: int, retry_after: int) -> ApiProblem:
    return ApiProblem(
        429,
        "too_many_streams",
        f"this client holds {limit} event streams open, its quota; close one first",
        headers={"Retry-After": str(retry_after)},
    )


def streams_full(retry_after: int) -> ApiProblem:
    return ApiProblem(
        503,
        "streams_full",
        "this server holds as many event streams as it can; reconnect shortly "
        "(or read GET .../events meanwhile)",
        headers={"Retry-After": str(retry_after)},
    )

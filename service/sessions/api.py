"""The ``/v1/sessions`` blueprint: thin views over the session parts (``SessionManager`` holds them), and every
translation between HTTP and the session parts, here and nowhere else.

- Requests: the JSON bodies (the service's schemas), the query parameters, the bearer
  token of ``Authorization``, ``If-Match`` (werkzeug's ``parse_etags``),
  ``Idempotency-Key``, ``Last-Event-ID``. A header the move checks later in the
  contract's order is handed over unread as its problem (``MoveRequest``).
- Answers: a part's ``Reply`` (its JSON bytes) with its ``ETag``, ``Idempotent-Replayed``
  and ``Cache-Control``; 201 for a new session, 204 for a deletion; the event stream as
  ``text/event-stream``.
- Refusals: a session part raises a domain error (``problems.SessionError``: a code, a
  detail, the facts); ``STATUS`` gives each kind its HTTP status and ``problem`` its
  problem+json with its headers (``ETag`` of ``current_version``, ``Retry-After``, the
  bearer challenge of a 401), here and nowhere else. A store that cannot be reached
  (``StoreUnavailable``, from any part) is answered here too: 503 ``store_unavailable``
  with ``Retry-After``, logged with the request id.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from flask import Blueprint, Response, current_app, request, stream_with_context
from werkzeug.datastructures import Authorization
from werkzeug.http import parse_etags

import engine
from service.http import json_body
from service.problems import problem_response
from service.ratelimit import client_address

from . import names, quotas
from .manager import SessionManager
from .models import MoveRequest, Reply
from .problems import (
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    QuotaError,
    RefusedError,
    SessionError,
    StageError,
    StaleVersionError,
    UnauthenticatedError,
    UnavailableError,
    VersionRequiredError,
    invalid_request,
    unavailable,
    unreadable,
)
from .schemas import create_schema, join_schema, move_schema
from .store import StoreUnavailable
from .streams import MAX_EVENTS_PAGE, sse

T = TypeVar("T")
log = logging.getLogger("service.sessions")
bp = Blueprint("sessions", __name__, url_prefix="/v1/sessions")

JSON = "application/json"
#: The most sessions one lobby page lists.
MAX_LOBBY_PAGE = 100
VARIANT_IDS = frozenset(v.id for v in engine.all_variants())
#: The largest number a query parameter or Last-Event-ID may name: 19 digits (below
#: 2**64, the bound of a Redis stream id's part; no session gets near it).
MAX_NUMBER = 10**19 - 1
#: A seat token is 43 characters; anything much longer is not one (and is not hashed).
MAX_TOKEN_CHARS = 256
#: The longest If-Match read (longer is a 400), and the most digits a version has.
MAX_IF_MATCH_CHARS = 256
MAX_VERSION_DIGITS = 19
IDEM_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


#: The HTTP status of each kind of session refusal (``problems.py``): its one place.
STATUS: dict[type[SessionError], int] = {
    InvalidRequestError: 400,
    UnauthenticatedError: 401,
    ForbiddenError: 403,
    NotFoundError: 404,
    StageError: 409,
    StaleVersionError: 412,
    RefusedError: 422,
    VersionRequiredError: 428,
    QuotaError: 429,
    UnavailableError: 503,
}
#: The challenge of every 401 (RFC 6750).
REALM = 'Bearer realm="sessions"'


def manager() -> SessionManager:
    return current_app.extensions["sessions"]  # type: ignore[no-any-return]


def status_of(e: SessionError) -> int:
    """The HTTP status of ``e``'s kind (its class, or the kind it refines)."""
    return next(STATUS[kind] for kind in type(e).__mro__ if kind in STATUS)


def problem(e: SessionError) -> Response:
    """``e`` as problem+json: its status, code, detail and facts, and the headers its
    facts call for."""
    headers: dict[str, str] = {}
    if e.retry_after is not None:
        headers["Retry-After"] = str(e.retry_after)
    if "current_version" in e.facts:
        headers["ETag"] = f'"{e.facts["current_version"]}"'
    if isinstance(e, UnauthenticatedError):
        headers["WWW-Authenticate"] = f'{REALM}, error="invalid_token"' if e.presented else REALM
    return problem_response(status_of(e), e.code, e.detail, headers, **e.facts)


@bp.app_errorhandler(SessionError)
def _refused(e: SessionError) -> Response:
    return problem(e)


@bp.errorhandler(StoreUnavailable)
def _unavailable(e: StoreUnavailable) -> Response:
    log.error("session store unavailable: %s", e)
    return problem(unavailable(manager().config.retry_after))


# ---------------------------------------------------------------------- requests
def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, parsed by werkzeug
    (``None`` without the header; "" when it is malformed, another scheme or too long)."""
    if header is None:
        return None
    auth = Authorization.from_header(header.strip())
    if auth is None or auth.type != "bearer" or not auth.token:
        return ""
    token = auth.token.strip()
    return token if len(token) <= MAX_TOKEN_CHARS else ""


def _token() -> str | None:
    return bearer(request.headers.get("Authorization"))


def parse_if_match(header: str | None) -> int | None:
    """The version named by ``If-Match`` (``"7"``, ``W/"7"`` or ``7``, parsed by werkzeug's
    ``parse_etags``): ``None`` when absent or ``*``, -1 for a tag that names no version
    (it matches nothing: 412). Malformed, oversized or several tags: 400."""
    if header is None:
        return None
    if len(header) > MAX_IF_MATCH_CHARS:
        raise unreadable("If-Match", f"If-Match is longer than {MAX_IF_MATCH_CHARS} characters")
    etags = parse_etags(header)
    if etags.star_tag:
        return None
    tags = [*etags.as_set(include_weak=True)]
    if not tags:
        raise unreadable("If-Match", 'If-Match is not an entity tag (send "<version>")')
    if len(tags) > 1:
        raise unreadable(
            "If-Match", "If-Match names several versions; send the one the move answers"
        )
    tag = tags[0] or ""
    if not (tag.isascii() and tag.isdigit()) or len(tag) > MAX_VERSION_DIGITS:
        return -1  # no version is spelled so
    return int(tag)


def idempotency_key(header: str | None) -> str | None:
    """The Idempotency-Key as sent (None: absent): 1 to 255 visible ASCII characters."""
    if header is not None and not IDEM_KEY.match(header):
        raise unreadable(
            "Idempotency-Key", "Idempotency-Key must be 1 to 255 visible ASCII characters"
        )
    return header


def _or_problem(read: Callable[[str | None], T], header: str | None) -> T | SessionError:
    """``read(header)``, or the problem it raised (answered later, in the contract's
    order)."""
    try:
        return read(header)
    except SessionError as p:
        return p


def _number(name: str, raw: str, minimum: int) -> int:
    """``raw`` as an integer from ``minimum`` to ``MAX_NUMBER`` (ASCII digits only), or a
    400 ``invalid_request`` naming ``name``."""
    whole, point, fraction = raw.partition(".")  # 6.0 is 6, as JSON Schema reads it
    if point and (not fraction or fraction.strip("0")):
        whole = ""
    raw = whole
    if not (raw.isascii() and raw.isdigit()) or len(raw) > len(str(MAX_NUMBER)):
        raise invalid_request(
            f"{name} must be an integer from {minimum} to {MAX_NUMBER} (ASCII digits)",
            {name: ["not a valid integer"]},
        )
    value = int(raw)
    if value < minimum:
        raise invalid_request(
            f"{name} must be an integer from {minimum} to {MAX_NUMBER}", {name: ["too small"]}
        )
    return value


def _int_arg(name: str, default: int, minimum: int = 0) -> int:
    raw = request.args.get(name)
    if raw is None:  # absent; an empty value is not a number (400)
        return default
    return _number(name, raw, minimum)


def _float_arg(name: str, default: float | None) -> float | None:
    raw = request.args.get(name)
    if raw is None:  # absent; an empty value is not a number (400)
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise invalid_request(f"{name} must be a positive number", {name: ["not positive"]})
    return value


# ---------------------------------------------------------------------- answers
def _answer(reply: Reply, status: int = 200) -> Response:
    resp = Response(reply.body, status=status, mimetype=JSON)
    if reply.version is not None:
        resp.headers["ETag"] = f'"{reply.version}"'
    if reply.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    resp.headers["Cache-Control"] = "no-store"
    return resp


# ---------------------------------------------------------------------- the views
def client() -> str:
    """The caller as the quotas name it: its address as the rate limit counts it
    (``ratelimit.client_address``: after ``TRUSTED_PROXIES``, an IPv6 address by its
    /64), as a digest keyed with a key derived from the sealing keys
    (``quotas.client_key``)."""
    ring = current_app.extensions["state_keys"]
    return quotas.client_key(client_address(), ring.derived(quotas.CLIENT_KEY_PURPOSE))


@bp.post("")
def create_session() -> Response:
    caller = client()
    manager().quotas.refuse_when_full(caller)  # before the body is read
    req = json_body(create_schema)
    for i, seat in enumerate(req["players"]):
        if "name" in seat:
            seat["name"] = names.clean(seat["name"], f"players.{i}.name")
    return _answer(manager().creation.create(req, caller), 201)


@bp.get("")
def list_sessions() -> Response:
    """The public lobby: sessions created ``public`` that wait for seats."""
    status = request.args.get("status", "waiting")
    if status != "waiting":
        raise invalid_request(
            "the lobby lists waiting sessions only (status=waiting)", {"status": ["not waiting"]}
        )
    variant = request.args.get("variant")
    if variant is not None and variant not in VARIANT_IDS:
        raise invalid_request(f"no variant {variant!r}", {"variant": ["unknown variant"]})
    raw_limit = request.args.get("limit")
    limit = 20 if raw_limit is None else _number("limit", raw_limit, 1)
    if limit > MAX_LOBBY_PAGE:
        raise invalid_request(f"limit must be from 1 to {MAX_LOBBY_PAGE}", {"limit": ["too large"]})
    return _answer(manager().listing.page(variant, request.args.get("cursor"), limit))


@bp.post("/<sid>/join")
def join_session(sid: str) -> Response:
    req = json_body(join_schema)
    req["name"] = names.clean(req["name"], "name")
    return _answer(manager().seats.join(sid, req))


@bp.post("/<sid>/leave")
def leave_session(sid: str) -> Response:
    return _answer(manager().seats.leave(sid, _token()))


@bp.post("/<sid>/return")
def return_to_seat(sid: str) -> Response:
    return _answer(manager().seats.take_back(sid, _token()))


@bp.post("/<sid>/rematch")
def rematch_session(sid: str) -> Response:
    return _answer(manager().rematches.rematch(sid, _token()))


@bp.get("/<sid>")
def get_session(sid: str) -> Response:
    """The session as the token's seat sees it; with ``?after=N`` the events after N too."""
    raw = request.args.get("after")
    after = None if raw is None else _number("after", raw, 0)  # empty: not a number (400)
    return _answer(manager().get(sid, _token(), after))


@bp.get("/<sid>/legal-moves")
def session_legal_moves(sid: str) -> Response:
    return _answer(manager().legal_moves(sid, _token()))


@bp.post("/<sid>/moves")
def session_move(sid: str) -> Response:
    h = request.headers
    body = json_body(move_schema)
    req = MoveRequest(
        _token(),
        _or_problem(parse_if_match, h.get("If-Match")),
        _or_problem(idempotency_key, h.get("Idempotency-Key")),
        body["move"],
    )
    return _answer(manager().moves.move(sid, req))


@bp.get("/<sid>/events")
def session_events(sid: str) -> Response:
    after = _int_arg("after", 0)
    limit = _int_arg("limit", 500, minimum=1)
    if limit > MAX_EVENTS_PAGE:
        raise invalid_request(
            f"limit must be from 1 to {MAX_EVENTS_PAGE}", {"limit": ["too large"]}
        )
    return _answer(manager().events(sid, _token(), after, limit))


@bp.get("/<sid>/record")
def session_record(sid: str) -> Response:
    return _answer(manager().record(sid, _token()))


@bp.delete("/<sid>")
def delete_session(sid: str) -> Response:
    manager().delete(sid, _token())
    return Response(status=204)


@bp.get("/<sid>/stream")
def session_stream(sid: str) -> Response:
    """Server-Sent Events: ``id: <seq>``, ``event: <type>``, ``data: <json>``.

    Resumes after ``Last-Event-ID`` (or ``?after=N``). Ends after ``timeout`` seconds
    (default and maximum ``SESSION_STREAM_SECONDS``) or ``max_events`` events, or after
    one page of events when more are waiting; the client then reconnects with
    ``Last-Event-ID``. A seat's stream ends with
    ``event: stream_end`` when its token no longer holds the seat.

    It holds one of this worker's stream places and one of the client's (503
    ``streams_full``, 429 ``too_many_streams``), given back when the answer is closed."""
    m = manager()
    after = _int_arg("after", 0)  # checked even when Last-Event-ID says where to resume
    last_id = request.headers.get("Last-Event-ID", "").strip()
    if last_id:
        after = _number("Last-Event-ID", last_id, 0)
    limit = m.config.stream_seconds
    seconds = min(_float_arg("timeout", limit) or limit, limit)
    max_events = _int_arg("max_events", 0)
    until = time.monotonic() + seconds
    give_back = m.quotas.take_stream(client(), m.env.now() + seconds)
    try:
        _, items = m.streams.open(sid, _token(), after, until)
    except BaseException:
        give_back()
        raise

    def frames() -> Iterator[bytes]:
        try:
            yield from sse(items, int(m.config.retry_after * 1000), max_events)
        finally:
            give_back()

    resp = Response(stream_with_context(frames()), mimetype="text/event-stream")
    resp.call_on_close(give_back)  # also when the stream never started
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp

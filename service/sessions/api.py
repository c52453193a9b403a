"""The ``/v1/sessions`` blueprint: thin views over ``SessionManager``."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, request, stream_with_context
from marshmallow import Schema

import engine
from service.http import json_body
from service.problems import problem_response

from .manager import Answer, SessionManager
from .problems import invalid_request, unavailable
from .schemas import create_schema, join_schema, move_schema
from .store import StoreUnavailable

log = logging.getLogger("service.sessions")
bp = Blueprint("sessions", __name__, url_prefix="/v1/sessions")

JSON = "application/json"
#: The most sessions one lobby page lists.
MAX_LOBBY_PAGE = 100
VARIANT_IDS = frozenset(v.id for v in engine.all_variants())


def manager() -> SessionManager:
    return current_app.extensions["sessions"]  # type: ignore[no-any-return]


@bp.errorhandler(StoreUnavailable)
def _unavailable(e: StoreUnavailable) -> Response:
    log.error("session store unavailable: %s", e)
    p = unavailable(manager().config.retry_after)
    return problem_response(p.status, p.code, p.detail, p.headers)


def _body(schema: Schema) -> dict[str, Any]:
    """The JSON body loaded with ``schema`` (the service's 400/415 problems otherwise)."""
    return json_body(schema)


def _answer(a: Answer) -> Response:
    resp = Response(a.body, status=a.status, mimetype=JSON)
    if a.version is not None:
        resp.headers["ETag"] = f'"{a.version}"'
    if a.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    resp.headers["Cache-Control"] = "no-store"
    return resp


#: The largest number a query parameter or Last-Event-ID may name: 19 digits (below
#: 2**64, the bound of a Redis stream id's part; no session gets near it).
MAX_NUMBER = 10**19 - 1


def _number(name: str, raw: str, minimum: int) -> int:
    """``raw`` as an integer from ``minimum`` to ``MAX_NUMBER`` (ASCII digits only), or a
    400 ``invalid_request`` naming ``name``."""
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
    if raw is None or raw == "":
        return default
    return _number(name, raw, minimum)


def _float_arg(name: str, default: float | None) -> float | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise invalid_request(f"{name} must be a positive number", {name: ["not positive"]})
    return value


@bp.post("")
def create_session() -> Response:
    return _answer(manager().create(_body(create_schema)))


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
    return _answer(manager().lobby(variant, request.args.get("cursor"), limit))


@bp.post("/<sid>/join")
def join_session(sid: str) -> Response:
    return _answer(manager().join(sid, _body(join_schema)))


@bp.post("/<sid>/leave")
def leave_session(sid: str) -> Response:
    return _answer(manager().leave(sid, request.headers.get("Authorization")))


@bp.post("/<sid>/rematch")
def rematch_session(sid: str) -> Response:
    return _answer(manager().rematch(sid, request.headers.get("Authorization")))


@bp.get("/<sid>")
def get_session(sid: str) -> Response:
    return _answer(manager().get(sid, request.headers.get("Authorization")))


@bp.get("/<sid>/legal-moves")
def session_legal_moves(sid: str) -> Response:
    return _answer(manager().legal_moves(sid, request.headers.get("Authorization")))


@bp.post("/<sid>/moves")
def session_move(sid: str) -> Response:
    h = request.headers
    body = _body(move_schema)
    return _answer(
        manager().move(
            sid, h.get("Authorization"), h.get("If-Match"), h.get("Idempotency-Key"), body
        )
    )


@bp.get("/<sid>/events")
def session_events(sid: str) -> Response:
    after = _int_arg("after", 0)
    limit = _int_arg("limit", 500, minimum=1)
    return _answer(manager().events(sid, request.headers.get("Authorization"), after, limit))


@bp.get("/<sid>/record")
def session_record(sid: str) -> Response:
    return _answer(manager().record(sid, request.headers.get("Authorization")))


@bp.delete("/<sid>")
def delete_session(sid: str) -> Response:
    manager().delete(sid, request.headers.get("Authorization"))
    return Response(status=204)


@bp.get("/<sid>/stream")
def session_stream(sid: str) -> Response:
    """Server-Sent Events: ``id: <seq>``, ``event: <type>``, ``data: <json>``.

    Resumes after ``Last-Event-ID`` (or ``?after=N``). Ends after ``timeout`` seconds
    (default and maximum ``SESSION_STREAM_SECONDS``) or ``max_events`` events; the
    client then reconnects with ``Last-Event-ID``."""
    m = manager()
    last_id = request.headers.get("Last-Event-ID", "").strip()
    after = _number("Last-Event-ID", last_id, 0) if last_id else _int_arg("after", 0)
    limit = m.config.stream_seconds
    seconds = min(_float_arg("timeout", limit) or limit, limit)
    max_events = _int_arg("max_events", 0)
    until = time.monotonic() + seconds
    _, events = m.open_stream(sid, request.headers.get("Authorization"), after, until)
    retry_ms = int(m.config.retry_after * 1000)

    def gen() -> Iterator[bytes]:
        sent = 0
        yield f"retry: {retry_ms}\n\n".encode()
        try:
            for item in events:
                if item is None:
                    yield b": keep-alive\n\n"
                else:
                    seq, ev = item
                    yield (
                        f"id: {seq}\nevent: {ev['type']}\ndata: ".encode()
                        + orjson.dumps(ev)
                        + b"\n\n"
                    )
                    sent += 1
                    if max_events and sent >= max_events:
                        return
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()

    resp = Response(stream_with_context(gen()), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp

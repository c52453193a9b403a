"""One error table: every failure becomes RFC 9457 ``application/problem+json``.

``{type, title, status, detail, code}``; a malformed body adds ``errors`` (the failing
fields, at most ``MAX_NAMED`` in one place, the rest counted), an invalid state
``field``. Engine errors keep their stable codes; Flask's own
404/405/413 and any unexpected exception become problems too. An unexpected exception
is a bug, whatever the input: it is a 500 ``internal_error``, logged with its traceback
and the request id and counted in ``uno_internal_errors_total`` (an engine failure on a
state that passed ``engine.from_dict`` is a missing check there: add it to the engine).

| raised | status | code |
|---|---|---|
| ``ApiProblem`` | its own | its own |
| marshmallow ``ValidationError`` | 400 | ``invalid_request`` |
| ``engine.InvalidMove`` | 400 | its code (``invalid_move``, ``unknown_move_type``, ``invalid_color``) |
| ``engine.UnknownVariant`` | 422 (404 on ``GET /v1/variants/{id}``) | ``unknown_variant`` |
| ``engine.SetupError`` | 422 | its code (``invalid_player_count``, ``invalid_deck``, ...) |
| ``engine.InvalidState`` | 422 | ``invalid_state`` |
| ``engine.RulesError`` | 422 | its code (``not_your_turn``, ``does_not_match``, ...) |
| ``SealError`` | 422 | ``invalid_state_token`` |
| werkzeug ``HTTPException`` | its status | ``not_found``, ``method_not_allowed``, ``payload_too_large``, ... |
| ``RecursionError`` | 400 | ``invalid_request`` |
| anything else | 500 | ``internal_error`` (logged, counted) |
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import orjson
from flask import Flask, Response, request
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

import engine
from service.observability import count_internal_error
from service.sealing import SealError

PROBLEM = "application/problem+json"
#: ``type`` is this prefix and the code: a stable identifier, not a page to fetch.
TYPE_BASE = "urn:uno-rules:problem:"
log = logging.getLogger("service")

#: Titles by code; any other code is titled by its HTTP status.
TITLES = {
    "invalid_request": "Invalid request",
    "invalid_json": "Invalid JSON",
    "invalid_move": "Invalid move",
    "unknown_move_type": "Invalid move",
    "invalid_color": "Invalid move",
    "invalid_state": "Invalid state",
    "invalid_state_token": "Invalid state token",
    "unknown_variant": "Unknown variant",
    "invalid_player": "Not a seat",
    "internal_error": "Internal error",
}

HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    411: "length_required",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    429: "rate_limited",
    431: "headers_too_large",
}


#: The most failing fields (or messages) an answer names in one place; the rest are
#: counted under ``MORE`` ("and 79990 more"), so no answer echoes a body back.
MAX_NAMED = 10
MORE = "..."


def bounded(errors: Any) -> Any:
    """``errors`` (marshmallow's field -> messages, nested) with at most ``MAX_NAMED``
    fields or messages in each place, the rest counted."""
    if isinstance(errors, Mapping):
        items = list(errors.items())
        out = {str(k): bounded(v) for k, v in items[:MAX_NAMED]}
        if len(items) > MAX_NAMED:
            out[MORE] = [f"and {len(items) - MAX_NAMED} more"]
        return out
    if isinstance(errors, list | tuple):
        kept = [bounded(v) for v in errors[:MAX_NAMED]]
        if len(errors) > MAX_NAMED:
            kept.append(f"and {len(errors) - MAX_NAMED} more")
        return kept
    return errors


class ApiProblem(Exception):
    """An error answer: status, stable code, a detail a person understands, and any
    extra members (``errors``, ``current_version``, ...)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail
        self.headers = headers or {}
        self.extra = extra


def _title(status: int, code: str) -> str:
    title = TITLES.get(code)
    if title is not None:
        return title
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _str_keys(value: Any) -> Any:
    """marshmallow keys list errors by index; JSON object keys are strings."""
    if isinstance(value, Mapping):
        return {str(k): _str_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_str_keys(v) for v in value]
    return value


def problem_body(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": TYPE_BASE + code,
        "title": extra.pop("title", None) or _title(status, code),
        "status": status,
        "detail": detail,
        "code": code,
        **_str_keys(extra),
    }


def problem_response(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    body = problem_body(status, code, detail, **extra)
    try:
        data = orjson.dumps(body)
    except TypeError:  # a detail or member that JSON cannot hold: keep the problem itself
        data = orjson.dumps(problem_body(status, code, str(detail)))
    resp = Response(data, status=status, mimetype=PROBLEM)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def register(app: Flask) -> None:
    """Install the error table on ``app``."""

    @app.errorhandler(ApiProblem)
    def _api(e: ApiProblem) -> Response:
        return problem_response(e.status, e.code, e.detail, e.headers, **e.extra)

    @app.errorhandler(ValidationError)
    def _validation(e: ValidationError) -> Response:
        errors = e.normalized_messages()
        names = sorted(str(k) for k in errors) if isinstance(errors, dict) else []
        fields = ", ".join(names[:MAX_NAMED])
        if len(names) > MAX_NAMED:
            fields += f" and {len(names) - MAX_NAMED} more"
        detail = f"the request body is not valid ({fields})" if fields else "invalid body"
        return problem_response(400, "invalid_request", detail, errors=bounded(errors))

    @app.errorhandler(engine.InvalidMove)
    def _invalid_move(e: engine.InvalidMove) -> Response:
        field = e.context.get("field")
        errors = {"move": {str(field): [e.detail]}} if field else {"move": [e.detail]}
        return problem_response(400, e.code, e.detail, title="Invalid move", errors=errors)

    @app.errorhandler(engine.RulesError)
    def _rules(e: engine.RulesError) -> Response:
        return problem_response(422, e.code, e.detail, title="Illegal move")

    @app.errorhandler(engine.InvalidState)
    def _invalid_state(e: engine.InvalidState) -> Response:
        extra: dict[str, Any] = {"field": str(e.context["field"])} if "field" in e.context else {}
        return problem_response(422, e.code, e.detail, title="Invalid state", **extra)

    @app.errorhandler(engine.SetupError)
    def _setup(e: engine.SetupError) -> Response:
        title = "Unknown variant" if isinstance(e, engine.UnknownVariant) else "Invalid setup"
        return problem_response(422, e.code, e.detail, title=title)

    @app.errorhandler(engine.EngineError)
    def _engine(e: engine.EngineError) -> Response:
        return problem_response(422, e.code, e.detail)

    @app.errorhandler(SealError)
    def _seal(e: SealError) -> Response:
        return problem_response(422, e.code, e.detail)

    @app.errorhandler(RecursionError)
    def _too_deep(e: RecursionError) -> Response:
        return problem_response(
            400, "invalid_request", "the request is nested too deeply to be processed"
        )

    @app.errorhandler(HTTPException)
    def _http(e: HTTPException) -> Response:
        status = e.code or 500
        code = HTTP_CODES.get(status, "http_error")
        detail = e.description or HTTPStatus(status).phrase
        if status == 413:
            limit = request.max_content_length if request else app.config.get("MAX_CONTENT_LENGTH")
            detail = f"the request body is larger than the {limit} bytes this service accepts"
        elif status == 404:
            detail = "no such resource; the API lives under /v1 (see /openapi.yaml)"
        elif status == 405:
            detail = "this method is not allowed here"
        valid = getattr(e, "valid_methods", None)
        headers = {"Allow": ", ".join(valid)} if valid else None
        if valid:
            detail += f"; allowed: {', '.join(valid)}"
        return problem_response(status, code, detail, headers)

    @app.errorhandler(Exception)
    def _unexpected(e: Exception) -> Response:
        # A bug (in the engine or here), never the caller's fault: loud, with the
        # traceback and the request id, and counted (uno_internal_errors_total).
        log.exception("unhandled error: %s", type(e).__name__)
        count_internal_error(e)
        return problem_response(
            500, "internal_error", "an unexpected error occurred; it has been logged"
        )

"""One error table: every failure becomes RFC 9457 ``application/problem+json``.

``{type, title, status, detail, code}`` and, for a malformed body, ``errors`` (the
failing fields). Engine errors keep their stable codes; Flask's own 404/405/413 and any
unexpected exception are turned into problems too (the last one is logged and is a
bug: no input should reach it).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import orjson
from flask import Flask, Response
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

import engine
from service.sealing import SealError

PROBLEM = "application/problem+json"
TYPE_BASE = "https://uno-rules.example/problems/"
log = logging.getLogger("service")


class ApiProblem(Exception):
    """An error answer: status, stable code, a detail a person understands."""

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


def problem_response(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    body = {
        "type": TYPE_BASE + code.replace("_", "-"),
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    resp = Response(orjson.dumps(body), status=status, mimetype=PROBLEM)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


def register(app: Flask) -> None:
    @app.errorhandler(ApiProblem)
    def _api(e: ApiProblem) -> Response:
        return problem_response(e.status, e.code, e.detail, e.headers, **e.extra)

    @app.errorhandler(ValidationError)
    def _validation(e: ValidationError) -> Response:
        return problem_response(
            400, "invalid_request", "the request body is not valid", errors=e.normalized_messages()
        )

    @app.errorhandler(engine.UnknownVariant)
    def _unknown_variant(e: engine.UnknownVariant) -> Response:
        return problem_response(422, e.code, e.detail)

    @app.errorhandler(engine.InvalidMove)
    def _invalid_move(e: engine.InvalidMove) -> Response:
        field = e.context.get("field")
        errors = {"move": {str(field): [e.detail]}} if field else {"move": [e.detail]}
        return problem_response(400, e.code, e.detail, errors=errors)

    @app.errorhandler(engine.EngineError)
    def _engine(e: engine.EngineError) -> Response:
        extra = (
            {"field": e.context["field"]}
            if isinstance(e, engine.InvalidState) and "field" in e.context
            else {}
        )
        return problem_response(422, e.code, e.detail, **extra)

    @app.errorhandler(SealError)
    def _seal(e: SealError) -> Response:
        return problem_response(422, e.code, e.detail)

    @app.errorhandler(HTTPException)
    def _http(e: HTTPException) -> Response:
        status = e.code or 500
        code = HTTP_CODES.get(status, "http_error")
        detail = e.description or HTTPStatus(status).phrase
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH")
            detail = f"the request body is larger than the {limit} bytes this service accepts"
        headers = (
            {"Allow": ", ".join(e.valid_methods)} if getattr(e, "valid_methods", None) else None
        )  # type: ignore[attr-defined]
        return problem_response(status, code, detail, headers)

    @app.errorhandler(Exception)
    def _unexpected(e: Exception) -> Response:  # pragma: no cover - a bug if reached
        log.exception("unhandled error")
        return problem_response(
            500, "internal_error", "an unexpected error occurred; it has been logged"
        )

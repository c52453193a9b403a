"""Session errors as RFC 9457 problems: ``{type, title, status, detail, code}``."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import orjson
from flask import Response

PROBLEM = "application/problem+json"


class SessionProblem(Exception):
    """An error answer of a session endpoint (turned into problem+json)."""

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

    def body(self) -> dict[str, Any]:
        return {
            "type": f"https://uno-rules.example/problems/{self.code.replace('_', '-')}",
            "title": HTTPStatus(self.status).phrase,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
            **self.extra,
        }

    def response(self) -> Response:
        resp = Response(orjson.dumps(self.body()), status=self.status, mimetype=PROBLEM)
        for k, v in self.headers.items():
            resp.headers[k] = v
        return resp


def not_found(sid: str) -> SessionProblem:
    return SessionProblem(404, "session_not_found", f"no session {sid!r} (it may have expired)")


def unavailable(retry_after: int) -> SessionProblem:
    return SessionProblem(
        503,
        "store_unavailable",
        "the session store cannot be reached; try again shortly",
        headers={"Retry-After": str(retry_after)},
    )


def invalid_request(detail: str, errors: dict[str, Any]) -> SessionProblem:
    return SessionProblem(400, "invalid_request", detail, errors=errors)

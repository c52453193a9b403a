"""Small request/response helpers: strict JSON bodies in, orjson out."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response, request
from marshmallow import Schema

from service.problems import ApiProblem

JSON = "application/json"


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    resp = Response(orjson.dumps(body), status=status, mimetype=JSON)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def json_body(schema: Schema) -> dict[str, Any]:
    """The request's JSON object, loaded with ``schema`` (400/415 problems otherwise)."""
    mimetype = request.mimetype
    if mimetype and mimetype != JSON and not mimetype.endswith("+json"):
        raise ApiProblem(415, "unsupported_media_type", f"send application/json, not {mimetype}")
    raw = request.get_data(cache=False)
    if not raw:
        raise ApiProblem(400, "invalid_json", "the request body is empty; send a JSON object")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(
            400, "invalid_json", f"the request body is not valid JSON: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise ApiProblem(400, "invalid_json", "the request body must be a JSON object")
    return schema.load(data)  # type: ignore[no-any-return]

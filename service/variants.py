"""``/v1/variants``: what can be played (the engine's variant metadata)."""

from __future__ import annotations

from flask import Blueprint, Response

import engine
from service.http import json_response
from service.problems import ApiProblem

bp = Blueprint("variants", __name__, url_prefix="/v1/variants")


@bp.get("")
def list_variants() -> Response:
    return json_response({"variants": [v.metadata() for v in engine.all_variants()]})


@bp.get("/<variant_id>")
def get_variant(variant_id: str) -> Response:
    try:
        variant = engine.find_variant(variant_id)
    except engine.UnknownVariant as exc:
        raise ApiProblem(404, "unknown_variant", exc.detail, title="Unknown variant") from None
    return json_response(variant.metadata(with_catalog=True))

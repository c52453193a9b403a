"""``/v1/variants``: what can be played (the engine's variant metadata, and ``rules_url``:
where this service serves the game's rules)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

import engine
from service.http import json_response
from service.problems import ApiProblem
from service.rules_docs import rules_url

bp = Blueprint("variants", __name__, url_prefix="/v1/variants")


@bp.get("")
def list_variants() -> Response:
    return json_response({"variants": [_metadata(v) for v in engine.all_variants()]})


@bp.get("/<variant_id>")
def get_variant(variant_id: str) -> Response:
    try:
        variant = engine.find_variant(variant_id)
    except engine.UnknownVariant as exc:
        raise ApiProblem(404, "unknown_variant", exc.detail, title="Unknown variant") from None
    return json_response(_metadata(variant, with_catalog=True))


def _metadata(variant: engine.Variant, with_catalog: bool = False) -> dict[str, Any]:
    return {**variant.metadata(with_catalog), "rules_url": rules_url(variant.id)}

"""``/docs/``: Swagger UI over ``/openapi.yaml`` (``service/spec.py``), its assets served
from this app (flask-swagger-ui bundles Swagger UI 5, which renders OpenAPI 3.1; no CDN).
``/docs`` redirects to ``/docs/``."""

from __future__ import annotations

from flask import Flask
from flask_swagger_ui import get_swaggerui_blueprint

DOCS_URL = "/docs"
SPEC_URL = "/openapi.yaml"


def init_app(app: Flask) -> None:
    ui = get_swaggerui_blueprint(
        DOCS_URL,
        SPEC_URL,
        config={
            "app_name": "UNO rules service API",
            "displayOperationId": True,
            "deepLinking": True,
            "validatorUrl": None,  # no call to an online validator
        },
        blueprint_name="docs",
    )
    app.register_blueprint(ui)

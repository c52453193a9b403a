"""Fixtures of the service tests (``api``, ``api_app``, ``openapi_spec``): see ``harness``."""

from tests.service.harness import api, api_app, openapi_spec

__all__ = ["api", "api_app", "openapi_spec"]

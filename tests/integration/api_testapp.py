"""The uvicorn factory of the API integration tests: the real app, with the test tools registered.

``python -m uvicorn tests.integration.api_testapp:create --factory``; settings come from the environment
(``CSILLAG_API_*``, ``CSILLAG_SPARK_MASTER``, ``CSILLAG_LAKEHOUSE_ROOT``) exactly as in production.
"""

from __future__ import annotations

from fastapi import FastAPI

from api.app import create_app
from api.server import check_serving_settings
from tests.unit.api.apitest_tools import make_registry
from tools.config import load_settings
from tools.plugins import ToolRegistry


def create() -> FastAPI:
    """The app over the default tool plugins plus the test task and chat tools."""
    settings = load_settings()
    check_serving_settings(settings)
    registry = make_registry()
    for cls in ToolRegistry().classes().values():  # the installed plugins (the ingestion tools) as well
        registry.register(cls)
    return create_app(settings, registry=registry)

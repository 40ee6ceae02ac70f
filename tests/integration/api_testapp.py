"""The uvicorn factory of the API integration tests: the real app, with the test tools registered.

``python -m uvicorn tests.integration.api_testapp:create --factory``; settings come from the environment
(``CSILLAG_API_*``, ``CSILLAG_SPARK_MASTER``, ``CSILLAG_LAKEHOUSE_ROOT``) exactly as in production.
"""

from __future__ import annotations

from fastapi import FastAPI

from api.app import create_app
from api.server import check_serving_settings
from settings.config import load_settings
from tests.unit.api.apitest_tools import make_registry
from tools.ingestion import IngestionTool
from tools.plugins import ToolRegistry


def create() -> FastAPI:
    """The app over the default tool plugins plus the test task and chat tools."""
    settings = load_settings()
    check_serving_settings(settings)
    registry = make_registry()
    # The installed ingestion tools as well (runs name them); not the installed chat domains, whose orchestrator
    # would take the test's chat requests away from the test tools.
    for cls in ToolRegistry().classes().values():
        if issubclass(cls, IngestionTool):
            registry.register(cls)
    return create_app(settings, registry=registry)

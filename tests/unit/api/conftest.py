"""Fixtures of the API unit tests: settings in tmp_path, the app with the test tools, a TestClient."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.unit.api.apitest_tools import make_registry

KEY = "test-key-0123456789"
AUTH = {"X-API-Key": KEY}


@pytest.fixture
def api_settings(tmp_path: Path) -> Callable[..., Any]:
    """Settings whose state and allowed root live in tmp_path; keyword overrides go to the ``api`` section."""
    from settings.config import load_settings

    def build(**api: Any) -> Any:
        (tmp_path / "data").mkdir(exist_ok=True)
        values = {"state_dir": tmp_path / "state", "allowed_roots": [tmp_path / "data"], "api_key": KEY} | api
        return load_settings(api=values, lakehouse={"root": tmp_path / "data" / "lake"})

    return build


@pytest.fixture
def client(api_settings: Callable[..., Any]) -> Iterator[TestClient]:
    """A TestClient over the app with the test tools (lifespan run: shutdown on exit)."""
    from api.app import create_app

    app = create_app(api_settings(), registry=make_registry())
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client

"""Running the API under uvicorn: ``python -m api`` or ``csillag serve``.

The service fails closed: without ``CSILLAG_API_API_KEY`` it refuses to start rather than serve an open API.
"""

from __future__ import annotations

import logging

from settings.config import CsillagSettings
from tools.errors import ConfigError

logger = logging.getLogger(__name__)


def check_serving_settings(settings: CsillagSettings) -> None:
    """Refuse settings the service must not run with.

    Raises:
        ConfigError: no API key in the environment.
    """
    if not settings.api.api_key.get_secret_value():
        raise ConfigError(
            "no API key: set the environment variable CSILLAG_API_API_KEY before starting the API", field="api.api_key"
        )


def serve(
    settings: CsillagSettings, *, host: str | None = None, port: int | None = None, log_level: str = "info"
) -> None:
    """Serve the API until interrupted (uvicorn, one process); ``host``/``port`` override ``settings.api``."""
    import uvicorn

    from api.app import create_app

    check_serving_settings(settings)
    app = create_app(settings)
    uvicorn.run(app, host=host or settings.api.host, port=port or settings.api.port, log_level=log_level)

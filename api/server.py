"""Running the API under uvicorn: ``python -m api`` or ``csillag serve``.

The service fails closed: without ``CSILLAG_API_API_KEY`` (or with a key shorter than ``MIN_API_KEY_LENGTH``) it
refuses to start rather than serve an open API.
"""

from __future__ import annotations

import logging

from settings.config import CsillagSettings
from tools.errors import ConfigError

logger = logging.getLogger(__name__)


# Shorter keys fall to guessing over the network; `openssl rand -hex 24` (docs/api.md) gives 48 characters.
MIN_API_KEY_LENGTH = 16


def check_serving_settings(settings: CsillagSettings) -> None:
    """Refuse settings the service must not run with.

    Raises:
        ConfigError: no API key in the environment, or one that is too short or padded with white space (a client
            could never send it: HTTP strips a header's value).
    """
    key = settings.api.api_key.get_secret_value()
    if not key.strip():
        raise ConfigError(
            "no API key: set the environment variable CSILLAG_API_API_KEY before starting the API", field="api.api_key"
        )
    if key != key.strip():
        raise ConfigError("the API key in CSILLAG_API_API_KEY begins or ends with white space; remove it",
                          field="api.api_key")
    if len(key) < MIN_API_KEY_LENGTH:
        raise ConfigError(
            f"the API key in CSILLAG_API_API_KEY is too short (length {len(key)}); at least {MIN_API_KEY_LENGTH} "
            "characters are needed, e.g. from `openssl rand -hex 24`", field="api.api_key",
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

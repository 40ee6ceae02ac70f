"""The settings' own error: every layer catches it, so it lives here and not in a side's package."""

from __future__ import annotations


class ConfigError(Exception):
    """Raised when a setting is invalid, or a settings file is missing or malformed; names the field and value."""

    def __init__(self, message: str, *, field: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.path = path

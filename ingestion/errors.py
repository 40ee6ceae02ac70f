"""Errors of the batch side. Inside the pipeline code raises these; the tool boundary turns them into results."""

from __future__ import annotations


class IngestionError(Exception):
    """Raised when an ingestion stage cannot do its work; carries the stage and the path or document concerned."""

    def __init__(self, message: str, *, stage: str | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.stage = stage
        self.path = path


class InputNotFoundError(IngestionError):
    """Raised when an input path named in the request does not exist or holds no readable document."""


class ModelLoadError(IngestionError):
    """Raised when the configured spaCy pipeline (package name or path) cannot be loaded."""


class LakehouseError(IngestionError):
    """Raised when the lakehouse root cannot be created, written or read."""


class UnknownStageError(IngestionError):
    """Raised when a stage name is not one of the pipeline's stages; the message lists the valid ones."""

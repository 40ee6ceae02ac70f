"""Pronouns and descriptions of people linked to the entities a document names (``ingestion.coref.references``)."""

from __future__ import annotations

from ingestion.coref.references import (
    NOMINAL,
    PRONOUN,
    Reading,
    Reference,
    Resolution,
    Speech,
    resolve,
    resolve_references,
)

__all__ = ["NOMINAL", "PRONOUN", "Reading", "Reference", "Resolution", "Speech", "resolve", "resolve_references"]

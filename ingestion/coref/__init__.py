"""Pronouns and descriptions of people linked to the entities a document names (``ingestion.coref.references``)."""

from __future__ import annotations

from ingestion.coref.references import NOMINAL, PRONOUN, Reference, Speech, resolve_references

__all__ = ["NOMINAL", "PRONOUN", "Reference", "Speech", "resolve_references"]

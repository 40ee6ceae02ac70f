"""Quotations of a document and who speaks them: pure Python over one document's text (no model, no book lists).

``find_quotations(text)`` gives every quotation's offsets (``ingestion.quotes.detection``); ``attribute(text,
quotations, names)`` gives each one's speaker among the text's person-name spans (``ingestion.quotes.attribution``).
"""

from __future__ import annotations

from ingestion.quotes.attribution import Attribution, attribute
from ingestion.quotes.detection import Paragraph, Quotation, find_quotations, paragraphs

__all__ = ["Attribution", "Paragraph", "Quotation", "attribute", "find_quotations", "paragraphs"]

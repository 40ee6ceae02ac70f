"""The generic NER ingestion tool: any language and spaCy pipeline, chosen entirely through settings.

With the defaults it is the English tool (en_core_web_sm, the standard OntoNotes labels); ``ner.model``,
``ner.language`` and ``ner.labels`` make it any other corpus's tool without code.
"""

from __future__ import annotations

from ingestion.tool import AbstractNERIngestionTool


class GenericNERIngestionTool(AbstractNERIngestionTool):
    """Ingests documents with the configured spaCy pipeline (default: English, en_core_web_sm)."""

    name = "ner_ingestion"
    instruction = "Loads documents into the knowledge base (batch only; never activated by chat)."

"""The generic NER ingestion tool: any language and spaCy pipeline, chosen entirely through settings.

With the defaults it reads every document in its own language: the documents stage detects it (any language,
``ingestion/language_id.py``) and the mentions stage runs that language's default pipeline
(``ingestion/language_models.py``: English ``en_litbank``, Hungarian csillag's NerKor model), rules only for a
language without one. ``ner.language`` pins
one language for the whole corpus; ``ner.model`` and ``ner.labels`` make it any other corpus's tool without code.
"""

from __future__ import annotations

from ingestion.tool import AbstractNERIngestionTool


class GenericNERIngestionTool(AbstractNERIngestionTool):
    """Ingests documents with the configured spaCy pipeline (default: English, en_core_web_sm)."""

    name = "ner_ingestion"
    instruction = "Loads documents into the knowledge base (batch only; never activated by chat)."
    detects_language = True

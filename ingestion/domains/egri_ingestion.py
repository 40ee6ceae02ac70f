"""``EgriCsillagokNERIngestionTool``: the reference domain's ingestion (R-REF-1, R-NER-1).

Gazetteer first, model for everything else: the domain's character and place list as EntityRuler phrase patterns,
every name in all its case forms (Gergely, Gergelyt, Gergelynek…), runs before csillag's Hungarian NER model
(``hu_nerkor``, trained on NYTK-NerKor), which then finds the names outside the list — minor characters and places —
in what the ruler left. Each pattern's id is the canonical name, and the same list is the alias table that entity
resolution applies first; the model's mentions carry their base form (nominative) as id. ``ner.model = ""`` gives
the gazetteer alone.
"""

from __future__ import annotations

from typing import Any

from ingestion.chunking import UnitPatterns
from ingestion.domains import egri_csillagok
from ingestion.tool import AbstractNERIngestionTool


class EgriCsillagokNERIngestionTool(AbstractNERIngestionTool):
    """Ingests Gárdonyi Géza's *Egri csillagok* (Hungarian; blank pipeline + the domain's gazetteer)."""

    name = "egri_csillagok_ner_ingestion"
    domain = "egri_csillagok"
    instruction = "Loads the Egri csillagok corpus into the knowledge base (batch only)."
    language = "hu"
    entity_labels = ("PER", "LOC", "ORG")
    phrase_matcher_attr = "LOWER"

    def entity_patterns(self) -> list[dict[str, Any]]:
        """Every alias in every case form, as phrase patterns whose id is the canonical name."""
        return egri_csillagok.entity_ruler_patterns(phrase=True)

    def alias_table(self) -> dict[str, list[str]]:
        """Canonical name → every base and inflected form."""
        return egri_csillagok.alias_table()

    def unit_patterns(self) -> UnitPatterns | None:
        """Parts ("ELSŐ RÉSZ") and Roman-numeral chapters."""
        return UnitPatterns.hungarian()

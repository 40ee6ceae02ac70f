"""Typed relations between the people of a document ("src is the TYPE of dst"): kinship, marriage and engagement,
read from sentence patterns over the text and its resolved person mentions, from the kinship words its quotations
call people by (``vocatives``) and from couples' names (``couples``), without a model."""

from __future__ import annotations

from graph.kinship import FAMILY_TYPES, INVERSE, RELATION_TYPES, ROMANCE_TYPES, kinship_words
from ingestion.relations.extract import Relation, RelationMention, aggregate, extract_relations, relation_mentions
from ingestion.relations.inference import infer
from ingestion.relations.sentences import PersonMention
from ingestion.relations.speech import SpokenQuote

__all__ = [
    "FAMILY_TYPES",
    "INVERSE",
    "RELATION_TYPES",
    "ROMANCE_TYPES",
    "PersonMention",
    "Relation",
    "RelationMention",
    "SpokenQuote",
    "aggregate",
    "extract_relations",
    "infer",
    "kinship_words",
    "relation_mentions",
]

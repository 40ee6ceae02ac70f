"""The *Egri csillagok* domain: Gárdonyi's characters and places as a spaCy EntityRuler for Hungarian.

There is no trained Hungarian pipeline in our dependency set, so the novel is annotated by a gazetteer:
``data/egri_csillagok_entities.json`` lists each entity's canonical name, label and the base forms the
text uses for it (``aliases``, each attested in the 1909 text) plus ``extra_aliases`` that the 1909 text
lacks but modern texts use: today's spellings ("Tinódi" for "Tinódy") and plain titles ("Dobó kapitány").
Hungarian adds case suffixes to names, so every alias becomes a token pattern whose last token accepts
all case forms from :mod:`ingestion.domains.hungarian` ("Dobó István" also matches "Dobó Istvánnak").
Each pattern carries the canonical name as its ``id``, which spaCy exposes as ``Span.ent_id_``: entity
resolution for this domain is done by the ruler itself. Optional keys: ``case_sensitive`` (names that
are also common words) and ``note`` (why an alias is in or out; ignored by the code).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ingestion.domains.hungarian import inflect

if TYPE_CHECKING:
    from spacy.language import Language

logger = logging.getLogger(__name__)

LABELS = ("PER", "LOC", "ORG")
DATA_FILE = "egri_csillagok_entities.json"


@dataclass(frozen=True)
class DomainEntity:
    """One gazetteer entry: the canonical name, its NER label and the base forms the text uses for it.

    ``aliases`` are the base forms found in the 1909 text; ``extra_aliases`` are forms it lacks but modern
    texts use (today's spellings, plain titles), so a modern retelling matches too.

    ``case_sensitive`` entries match only as written (capitalised or all caps), for names that are also
    common words ("Tulipán" / tulipán, "Sziget" / sziget).
    """

    canonical: str
    label: str
    aliases: tuple[str, ...]
    extra_aliases: tuple[str, ...] = ()
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"entity {self.canonical!r} has label {self.label!r}; valid labels: {', '.join(LABELS)}")
        if not self.aliases:
            raise ValueError(f"entity {self.canonical!r} has no aliases")

    @property
    def base_forms(self) -> tuple[str, ...]:
        """The canonical name followed by the aliases and modern aliases, without repeats."""
        return tuple(dict.fromkeys((self.canonical, *self.aliases, *self.extra_aliases)))

    def surface_forms(self, base: str) -> list[str]:
        """All inflected forms of one base form, in 1909 and modern spelling."""
        return inflect(base, archaic=True, place=self.label == "LOC")


@lru_cache(maxsize=1)
def load_entities() -> tuple[DomainEntity, ...]:
    """Read and validate the packaged entity list (cached: it never changes at run time).

    Raises:
        ValueError: when an entry has an unknown label or no aliases.
    """
    text = resources.files("ingestion.domains").joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    entries: list[dict[str, Any]] = json.loads(text)
    entities = tuple(
        DomainEntity(
            canonical=entry["canonical"],
            label=entry["label"],
            aliases=tuple(entry["aliases"]),
            extra_aliases=tuple(entry.get("extra_aliases", ())),
            case_sensitive=bool(entry.get("case_sensitive", False)),
        )
        for entry in entries
    )
    logger.debug("loaded %d Egri csillagok entities", len(entities))
    return entities


def _token_pattern(base: str, forms: list[str], *, case_sensitive: bool) -> list[dict[str, Any]]:
    """Token pattern for one multi-word base form whose last token may be any of ``forms``' last tokens."""
    tokens = base.split()
    last_forms = [form.split()[-1] for form in forms]
    if case_sensitive:
        # Keep the capital letter the name is written with; all-caps covers chapter titles ("EGER VESZEDELME").
        pattern: list[dict[str, Any]] = [{"ORTH": {"IN": [token, token.upper()]}} for token in tokens[:-1]]
        last = sorted({*last_forms, *(form.upper() for form in last_forms)})
        pattern.append({"ORTH": {"IN": last}})
        return pattern
    pattern = [{"LOWER": token.lower()} for token in tokens[:-1]]
    pattern.append({"LOWER": {"IN": sorted({form.lower() for form in last_forms})}})
    return pattern


def entity_ruler_patterns(*, phrase: bool = False) -> list[dict[str, Any]]:
    """Return spaCy EntityRuler patterns for every alias of every entity.

    Each pattern is ``{"label": "PER"|"LOC"|"ORG", "pattern": ..., "id": canonical}``; the ruler reports the
    ``id`` as ``Span.ent_id_``. By default every alias is one token pattern whose last token is ``IN`` the
    list of its case forms, matched on ``LOWER`` (so sentence-initial and all-caps variants match) except
    for ``case_sensitive`` entities, which match on ``ORTH``.

    Args:
        phrase: give each surface form of a case-insensitive entity as a string (phrase) pattern instead,
            for a ruler built with ``phrase_matcher_attr="LOWER"``; case-sensitive entities stay token
            patterns. Same matches, about three times faster on a whole novel (one trie instead of
            ~160 token patterns tried at every position).
    """
    patterns: list[dict[str, Any]] = []
    for entity in load_entities():
        for base in entity.base_forms:
            forms = entity.surface_forms(base)
            if phrase and not entity.case_sensitive:
                patterns.extend({"label": entity.label, "pattern": form, "id": entity.canonical} for form in forms)
                continue
            patterns.append(
                {
                    "label": entity.label,
                    "pattern": _token_pattern(base, forms, case_sensitive=entity.case_sensitive),
                    "id": entity.canonical,
                }
            )
    return patterns


def alias_table() -> dict[str, list[str]]:
    """Return canonical name → every surface form (base forms and their inflections), without repeats."""
    table: dict[str, list[str]] = {}
    for entity in load_entities():
        forms: list[str] = []
        for base in entity.base_forms:
            forms.extend(entity.surface_forms(base))
        table[entity.canonical] = list(dict.fromkeys(forms))
    return table


def build_nlp(*, phrase: bool = True) -> Language:
    """Return a blank Hungarian pipeline with a ``sentencizer`` and an ``entity_ruler`` holding the domain patterns.

    The ruler uses phrase patterns matched on ``LOWER`` (``phrase_matcher_attr``) plus ``ORTH`` token
    patterns for the case-sensitive names; ``phrase=False`` uses token patterns only (same matches, slower).
    See :func:`entity_ruler_patterns`.
    """
    import spacy  # deferred: importing spaCy costs ~1 s and most callers of this module only want the data

    nlp = spacy.blank("hu")
    nlp.add_pipe("sentencizer")
    config: dict[str, Any] = {"validate": True}
    if phrase:
        config["phrase_matcher_attr"] = "LOWER"
    ruler = nlp.add_pipe("entity_ruler", config=config)
    ruler.add_patterns(entity_ruler_patterns(phrase=phrase))  # type: ignore[attr-defined]
    return nlp

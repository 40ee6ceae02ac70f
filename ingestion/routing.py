"""Each document to the NER pipeline of its own language, never another language's.

``NlpRouting`` holds the run's primary pipeline (the tool's language, with the domain's patterns and the ``ner.*``
settings) and gives every other language its default from ``ingestion.language_models``; a language with no model gets
``spacy.blank`` (or the multi-language blank ``xx``) — rules only, with a warning — rather than a model trained on
another language, which would find names in function words ("Az", "hanem", "Ha" by the English model).

``ingestion.language_id.detect_language`` decides a document's language from its text (the documents stage records
it) when the tool does not pin one; ``corpus_language`` is the language most of the corpus's words are in, which the
language-wide stages (chunk headings, name resolution, the search index) then use.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ingestion.language_models import DEFAULT_PIPELINES, default_pipeline
from ingestion.markers import fingerprint
from ingestion.nlp import NlpSpec, model_version
from ingestion.normalize import SUPPORTED_LANGUAGES

if TYPE_CHECKING:
    from ingestion.context import RunContext
    from ingestion.lakehouse import LakehouseTables

logger = logging.getLogger(__name__)

MULTI_LANGUAGE = "xx"


@dataclass(frozen=True)
class NlpRouting:
    """Language → ``NlpSpec``: the primary spec for its own language, each other language's default, else rules."""

    primary: NlpSpec
    # Whether documents carry their own detected language (else all are the primary language).
    detect: bool = False

    @property
    def key(self) -> str:
        """Identifies the routing: the primary spec and the defaults the other languages would get."""
        defaults = {
            lang: [p.model, list(p.labels), model_version(p.model)] for lang, p in sorted(DEFAULT_PIPELINES.items())
        }
        return fingerprint({"primary": self.primary.key, "detect": self.detect, "defaults": defaults})

    def spec_for(self, language: str | None) -> NlpSpec:
        """The pipeline for documents of ``language`` (None or blank: the primary language)."""
        if not language or language == self.primary.language:
            return self.primary
        default = default_pipeline(language)
        if default is not None:
            return NlpSpec(
                language=language,
                model=default.model,
                labels=default.labels,
                batch_size=self.primary.batch_size,
                cached_words=self.primary.cached_words,
            )
        return NlpSpec(language=blank_language(language), batch_size=self.primary.batch_size,
                       cached_words=self.primary.cached_words)

    def has_model(self, language: str | None) -> bool:
        """Whether documents of ``language`` get a statistical model (else rules only)."""
        return self.spec_for(language).model is not None


def blank_language(language: str) -> str:
    """``language`` if spaCy has it, else the multi-language ``xx`` (its tokenizer works for any script)."""
    from spacy.util import get_lang_class

    try:
        get_lang_class(language)
    except ImportError:
        return MULTI_LANGUAGE
    return language


def warn_rules_only(routing: NlpRouting, languages: Counter[str]) -> list[str]:
    """Log one warning naming every language of the corpus that has no NER model (and its documents); those languages.

    ``languages`` counts the documents of each language about to be read.
    """
    missing = sorted(lang for lang in languages if not routing.has_model(lang))
    if missing:
        primary = routing.primary.language
        # The run's own language lacks a model only when the settings say so.
        each = ", ".join(
            f"{lang!r} ({languages[lang]}{', ner.model is empty' if lang == primary else ''})" for lang in missing
        )
        logger.warning(
            "mentions: %d document(s) get rules only, in languages without an NER model: %s. They are not run "
            "through another language's model. Set ner.language/ner.model for them, or register a model in "
            "ingestion/language_models.py",
            sum(languages[lang] for lang in missing),
            each,
        )
    return missing


def corpus_language(lake: LakehouseTables, fallback: str) -> str:
    """The language most of the corpus's words are in (documents table), among those name resolution has rules for
    (``ingestion.normalize.SUPPORTED_LANGUAGES``); ``fallback`` without documents in any of them.

    A corpus mostly in German is still run as ``fallback`` (its German documents get rules only, by their own
    language's blank pipeline): the language-wide stages know no German.
    """
    if not lake.exists("documents"):
        return fallback
    table = lake.columns("documents", ["language", "n_words"]).to_pydict()
    words: Counter[str] = Counter()
    for language, n in zip(table["language"], table["n_words"], strict=True):
        if (language or fallback) in SUPPORTED_LANGUAGES:
            words[language or fallback] += int(n or 0)
    return words.most_common(1)[0][0] if words else fallback


def settle_corpus_language(ctx: RunContext) -> None:
    """With detected languages, make the corpus's main language the run's language (once the documents are in).

    The language-wide stages (chunk headings, name resolution, the search index) and the primary NER pipeline
    then follow the corpus: a Hungarian text nobody configured is read as Hungarian throughout. Documents of other
    languages still get their own language's pipeline in the mentions stage.
    """
    domain = getattr(ctx, "domain", None)
    if domain is None or not domain.detect_language:
        return
    language = corpus_language(ctx.lakehouse, domain.language)
    if language == domain.language:
        return
    logger.info("corpus language: %s (detected; the tool's default was %s)", language, domain.language)
    nlp = domain.routing.spec_for(language)
    if domain.nlp.patterns and nlp.model is None and not nlp.patterns:
        nlp = replace(nlp, patterns=domain.nlp.patterns, phrase_matcher_attr=domain.nlp.phrase_matcher_attr)
    ctx.domain = replace(domain, language=language, nlp=nlp)

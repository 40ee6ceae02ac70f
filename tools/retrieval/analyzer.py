"""The one text analyser of the chat side: words, stop words and an offline Snowball stemmer per language.

Hungarian is agglutinative: "Gergely", "Gergelyt", "Gergelynek" must meet in one index term, so both the chunks and
the queries go through the same Snowball stemmer (PyPI ``PyStemmer``: the C Snowball stemmers, no model files).
Stems are computed once per distinct word (a cache), which makes indexing a novel a matter of a second. Retrieval
uses one language's ``Analyzer``; routing and extractive quoting, which do not know a text's language, use
``MultilingualStems`` over the same analysers.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections import Counter
from collections.abc import Sequence, Set

from tools.errors import ConfigError

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

STEMMER_LANGUAGES = {"en": "english", "hu": "hungarian", "de": "german", "fr": "french", "ru": "russian"}
"""ISO code → Snowball algorithm; the languages whose analysers are offered."""

STOP_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        """a an the and or but of to in on at by for with from as is are was were be been being do does did what who
        whom which when where why how this that these those it its he she they them his her their i you we me my your
        our about tell please can could would should will there here not no yes any some all into than then so if
        had has have him himself herself said""".split()
    ),
    "hu": frozenset(
        """a az egy és vagy de hogy mi mit ki kit kik milyen mikor hol miért hogyan ez ezt azt ő ők van volt lesz
        nem igen is meg el fel le be már még csak mert ha akkor mint minden sem se nagyon kérem mondd róla neki
        ezek azok én te mi ti ön aki ami amely pedig hát így úgy azért vele nagy""".split()
    ),
}


class Analyzer:
    """Turns text into index terms: casefolded words, stop words dropped, Snowball-stemmed."""

    def __init__(self, language: str) -> None:
        algorithm = STEMMER_LANGUAGES.get(language)
        if algorithm is None:
            raise ConfigError(
                f"no retrieval analyser for language {language!r}; valid: {sorted(STEMMER_LANGUAGES)}",
                field="ner.language",
            )
        self.language = language
        self.stop_words = STOP_WORDS.get(language, frozenset())
        # Imported here, as the pure-Python snowballstemmer was (~50 ms of import), so a chat start-up that routes
        # nothing pays for no stemmer (tests/unit/tools/test_tools_import_time.py).
        import Stemmer

        # PyStemmer: the C Snowball stemmers, ~27x the pure-Python package's speed (War and Peace's 17,557 words:
        # 0.036 s against 0.96 s). Named explicitly: snowballstemmer.stemmer() silently became PyStemmer's whenever
        # that was installed, with other stems for some words under the same key.
        self._stemmer = Stemmer.Stemmer(algorithm)
        # A Snowball stemmer keeps the word being stemmed in itself: threads sharing an analyser take turns.
        self._lock = threading.Lock()
        self.stem = functools.lru_cache(maxsize=200_000)(self._stem)

    @functools.cached_property
    def key(self) -> str:
        """What the terms depend on (language, stemmer and its version, stop words, the word pattern), hashed: an
        index made with another key cannot be extended with this analyser's terms."""
        import hashlib
        from importlib.metadata import version

        parts = [self.language, STEMMER_LANGUAGES[self.language], "PyStemmer", version("PyStemmer"), _WORD.pattern,
                 *sorted(self.stop_words)]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]

    def _stem(self, word: str) -> str:
        with self._lock:
            return str(self._stemmer.stemWord(word))

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text`` in order (repeats kept: BM25 counts them)."""
        return [self.stem(w) for w in words(text) if w not in self.stop_words]

    def term_counts(self, text: str) -> Counter[str]:
        """``Counter(self.terms(text))``, each distinct word casefolded and stemmed once: an index needs the counts
        only, and a passage says most of its words more than once (a third fewer steps over a novel's chunks)."""
        counts: Counter[str] = Counter()
        for word, n in Counter(_WORD.findall(text)).items():
            folded = word.casefold()
            if folded not in self.stop_words:
                counts[self.stem(folded)] += n
        return counts


def words(text: str) -> list[str]:
    """The casefolded words of ``text``: runs of letters and digits."""
    return [m.casefold() for m in _WORD.findall(text)]


@functools.cache
def analyzer_for(language: str) -> Analyzer:
    """The shared ``Analyzer`` of ``language``, built once per process (its stem cache is shared too)."""
    return Analyzer(language)


def overlap_score(query: Set[str], target: Set[str]) -> float:
    """Cosine similarity of two term sets (0..1)."""
    if not query or not target:
        return 0.0
    return len(query & target) / (len(query) * len(target)) ** 0.5


class MultilingualStems:
    """A text's content stems under several languages' analysers, for matching texts of unknown language.

    A tool's instruction may mix languages ("Tells what happens in a chapter. Mi történik egy fejezetben.") and a
    prompt's language is not known, so a text is stemmed by each language's Snowball stemmer, after dropping the stop
    words of all of them (a Hungarian view of an English text must not match on "the"). Two texts are as similar as
    their best-matching language makes them (``similarity``).
    """

    def __init__(self, languages: Sequence[str] = ("en", "hu")) -> None:
        unknown = sorted(set(languages) - set(STEMMER_LANGUAGES))
        if unknown:
            raise ConfigError(f"no analyser for languages {unknown}; valid: {sorted(STEMMER_LANGUAGES)}")
        self.languages = tuple(languages)
        self.stop_words = frozenset().union(*(STOP_WORDS.get(language, ()) for language in self.languages))

    @functools.cached_property
    def analyzers(self) -> tuple[Analyzer, ...]:
        """The languages' analysers, built on first use (the stemmers load lazily, see ``Analyzer``)."""
        return tuple(analyzer_for(language) for language in self.languages)

    def __call__(self, text: str) -> tuple[frozenset[str], ...]:
        """One stem set per language, in the order of ``languages`` (numbers are not content)."""
        content = [w for w in words(text) if w not in self.stop_words and not w.isdigit()]
        return tuple(frozenset(a.stem(w) for w in content) for a in self.analyzers)

    @staticmethod
    def similarity(query: Sequence[Set[str]], target: Sequence[Set[str]]) -> float:
        """The best ``overlap_score`` of the two texts' stem sets over the languages (0..1)."""
        return max((overlap_score(q, t) for q, t in zip(query, target, strict=True)), default=0.0)

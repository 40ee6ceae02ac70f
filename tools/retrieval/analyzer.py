"""Text analysis for retrieval: words, stop words and an offline Snowball stemmer per language.

Hungarian is agglutinative: "Gergely", "Gergelyt", "Gergelynek" must meet in one index term, so both the chunks and
the queries go through the same Snowball stemmer (PyPI ``snowballstemmer``, pure Python, no model files). Stems are
computed once per distinct word (a cache), which makes indexing a novel a matter of seconds.
"""

from __future__ import annotations

import functools
import logging
import re

import snowballstemmer

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
        self._stemmer = snowballstemmer.stemmer(algorithm)
        self._stop = STOP_WORDS.get(language, frozenset())
        self.stem = functools.lru_cache(maxsize=200_000)(self._stem)

    def _stem(self, word: str) -> str:
        return str(self._stemmer.stemWord(word))

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text`` in order (repeats kept: BM25 counts them)."""
        return [self.stem(w) for w in (m.casefold() for m in _WORD.findall(text)) if w not in self._stop]

"""Casing evidence for entity resolution: how the text itself writes the words of names.

A word the corpus writes in lowercase somewhere and never capitalises inside a sentence is capitalised only because
a sentence starts with it (a sentence opener, glued onto a name by the NER); a word written after "a", "an" or "the"
is used as a common noun; a one-word name also written in lowercase is a common word too. The entities stage asks
these questions of the chunks' text — one Spark pass answers all three (``casing_evidence``), per document in
document scope.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ingestion.names import ARTICLED_WORD

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


# A capitalised word after a letter, digit, comma or semicolon and one space or line break: inside a sentence,
# where only names are capitalised. (After a full stop, a dash or a blank line a sentence may start.)
MID_SENTENCE_CAPITAL = r"(?<=[\p{L}\p{M}\p{N},;][ \t\r\n])\p{Lu}[\p{L}\p{M}]*"
LOWERCASE_WORD = r"(?<![\p{L}\p{M}\p{N}])\p{Ll}[\p{L}\p{M}]*"
# The three questions by kind: words written in lowercase, capitalised inside a sentence, capitalised (after an
# article or not). Java's regexes (the Spark pass) and the ``regex`` package (the driver's) read them alike.
CASING_PATTERNS = {"lower": LOWERCASE_WORD, "capital": MID_SENTENCE_CAPITAL, "articled": ARTICLED_WORD}


def sentence_openers(chunks: DataFrame, candidates: set[str]) -> set[str]:
    """The ``candidates`` the corpus writes in lowercase somewhere and never capitalises inside a sentence.

    Such a word is capitalised only because a sentence starts with it, so a name span beginning with it was glued
    on by the NER ("Ránézett Gergely": *ránézett* is "looked at him"; "Meanwhile Pierre"). A real name word is
    capitalised inside sentences too, even one that is also a common word ("Fekete Bálint", "Rose"). One Spark
    pass over the chunks; only the candidates (first words of multi-word names) are counted.
    """
    return scoped_sentence_openers(chunks, candidates, by_document=False).get("", set())


def scoped_sentence_openers(chunks: DataFrame, candidates: set[str], *, by_document: bool) -> dict[str, set[str]]:
    """``sentence_openers`` per resolution scope: per document id when ``by_document`` (each document's casing
    alone, so that adding a book never changes another's people), else the corpus's under ``""``."""
    casing = casing_evidence(chunks, lowercase=candidates, capitalised=candidates, by_document=by_document)
    return casing.sentence_openers(candidates)


def article_usage(chunks: DataFrame, candidates: set[str]) -> dict[str, tuple[int, int]]:
    """How the corpus writes each capitalised ``candidate``: (occurrences, occurrences just after "a", "an" or
    "the") — "the Cossack", "a Frenchman": a common noun's use, not a name's (``resolve_entities``'s
    ``article_usage``). Every
    occurrence counts, not only the NER's mentions: a model that tags a word seldom still sees it everywhere. One
    Spark pass over the chunks; only the candidates are counted."""
    return scoped_article_usage(chunks, candidates, by_document=False).get("", {})


def scoped_article_usage(
    chunks: DataFrame, candidates: set[str], *, by_document: bool
) -> dict[str, dict[str, tuple[int, int]]]:
    """``article_usage`` per resolution scope (per document id when ``by_document``, else under ``""``)."""
    return casing_evidence(chunks, articled=candidates, by_document=by_document).usage


def written_lowercase(chunks: DataFrame, candidates: set[str]) -> set[str]:
    """The ``candidates`` the corpus also writes in lowercase ("Will" where "will" occurs): one Spark pass."""
    return scoped_written_lowercase(chunks, candidates, by_document=False).get("", set())


def scoped_written_lowercase(chunks: DataFrame, candidates: set[str], *, by_document: bool) -> dict[str, set[str]]:
    """``written_lowercase`` per resolution scope (per document id when ``by_document``, else under ``""``)."""
    return casing_evidence(chunks, lowercase=candidates, by_document=by_document).written_lowercase(candidates)


@dataclass
class Casing:
    """What one pass over the chunks found of some words' casing, per resolution scope (the document id when
    by document, else ``""``): what ``sentence_openers``, ``article_usage`` and ``written_lowercase`` answer."""

    asked_lowercase: frozenset[str] = frozenset()
    lowercase: dict[str, set[str]] = field(default_factory=dict)  # the words asked about written in lowercase
    capitalised: dict[str, set[str]] = field(default_factory=dict)  # those capitalised inside a sentence
    usage: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)

    def sentence_openers(self, candidates: set[str]) -> dict[str, set[str]]:
        """Per scope, the ``candidates`` written in lowercase and never capitalised inside a sentence (asked about
        as ``lowercase`` and as ``capitalised``)."""
        out: dict[str, set[str]] = {}
        for scope, lower in self.lowercase.items():
            if found := (lower & candidates) - self.capitalised.get(scope, set()):
                out[scope] = found
        return out

    def written_lowercase(self, candidates: set[str]) -> dict[str, set[str]]:
        """Per scope, the ``candidates`` written in lowercase (asked about as ``lowercase``)."""
        return {scope: found for scope, lower in self.lowercase.items() if (found := lower & candidates)}


def casing_evidence(
    chunks: DataFrame,
    *,
    lowercase: Collection[str] = (),
    capitalised: Collection[str] = (),
    articled: Collection[str] = (),
    by_document: bool,
) -> Casing:
    """One Spark pass over the chunks for the casing the resolution and the carrying ask about, per scope: which of
    the ``lowercase`` words the text also writes in lowercase, which of the ``capitalised`` ones it capitalises
    inside a sentence (``MID_SENTENCE_CAPITAL``), and how often each ``articled`` word stands, and stands after an
    article (``ARTICLED_WORD``). One scan instead of one per question: each was a job over every chunk's text."""
    from pyspark.sql import functions as F

    asked = asked_words(lowercase, capitalised, articled)
    kinds = sorted(asked)
    if not kinds:
        return Casing()
    keys = ["doc_id"] if by_document else []
    wanted = chunks.sparkSession.createDataFrame(
        pa.table({
            "kind": pa.array([kind for kind in kinds for _ in sorted(asked[kind])], pa.string()),
            "word": pa.array([word for kind in kinds for word in sorted(asked[kind])], pa.string()),
        })
    )
    matches = F.concat(*[_tagged(kind, CASING_PATTERNS[kind]) for kind in kinds])
    found = chunks.select(*keys, F.inline(matches))
    # an articled match is the word with the article before it, if any
    word = F.when(F.col("kind") == "articled", F.regexp_extract("m", r"(\S+)$", 1)).otherwise(F.col("m"))
    words = found.select(*keys, "kind", word.alias("word"), (F.col("m") != word).alias("articled"))
    counted = words.join(F.broadcast(wanted), ["kind", "word"], "left_semi").groupBy(*keys, "kind", "word").agg(
        F.count("*").alias("n"), F.sum(F.col("articled").cast("int")).alias("articled")
    )
    return casing_of(
        ((row.doc_id if by_document else "", row.kind, row.word, int(row.n), int(row.articled or 0))
         for row in counted.collect()),
        lowercase,
    )


def casing_evidence_local(
    chunks: pa.Table,
    *,
    lowercase: Collection[str] = (),
    capitalised: Collection[str] = (),
    articled: Collection[str] = (),
    by_document: bool,
) -> Casing:
    """``casing_evidence`` in the driver, over the chunks' Arrow rows (doc_id, text): the same answers, for the few
    documents of a ``small_increment``. The patterns are the same text, read by the ``regex`` package, which knows
    the Unicode classes (``\\p{Lu}``) Java's regexes do."""
    asked = asked_words(lowercase, capitalised, articled)
    if not asked:
        return Casing()
    facts = casing_facts(chunks, sorted(asked), by_document=by_document, articled=asked.get("articled", set()))
    return casing_of([row for scope, found in facts.items() for row in found.rows(scope, asked)], lowercase)


def asked_words(
    lowercase: Collection[str], capitalised: Collection[str], articled: Collection[str]
) -> dict[str, set[str]]:
    """The casing questions by kind (``CASING_PATTERNS``), only those asked; lowercase words compared lowercased."""
    asked = {"lower": {w.lower() for w in lowercase}, "capital": set(capitalised), "articled": set(articled)}
    return {kind: words for kind, words in asked.items() if words}


@dataclass
class CasingFacts:
    """How some text writes its words: per pattern kind scanned, every word it found (``seen``); and per
    capitalised word counted, [occurrences, occurrences just after an article]. Facts of two texts add up to the
    facts of both, which is what lets a corpus keep them between runs (``ingestion.evidence``)."""

    seen: dict[str, set[str]] = field(default_factory=dict)
    articled: dict[str, list[int]] = field(default_factory=dict)

    def add(self, other: CasingFacts) -> None:
        """Add another text's facts."""
        for kind, words in other.seen.items():
            self.seen.setdefault(kind, set()).update(words)
        for word, (n, after) in other.articled.items():
            counts = self.articled.setdefault(word, [0, 0])
            counts[0] += n
            counts[1] += after

    def rows(self, scope: str, asked: dict[str, set[str]]) -> list[tuple[str, str, str, int, int]]:
        """The ``asked`` words found, as ``casing_of`` reads them: (scope, kind, word, occurrences, after an
        article); a kind is answered only when it was scanned and asked."""
        rows = [(scope, kind, word, 1, 0) for kind, found in self.seen.items() if kind in asked
                for word in found & asked[kind]]
        if "articled" in asked:
            rows += [(scope, "articled", word, n, a) for word, (n, a) in self.articled.items()
                     if word in asked["articled"]]
        return rows


def casing_facts(
    chunks: pa.Table, kinds: Collection[str], *, by_document: bool, articled: Collection[str] | None = None
) -> dict[str, CasingFacts]:
    """Per scope (the document id when ``by_document``, else ``""``), the facts of the chunks' text (doc_id, text)
    for the pattern ``kinds``; the articled tally kept for the words in ``articled`` (every capitalised word when
    None). The patterns are the Spark pass's text, read by the ``regex`` package, which knows the Unicode classes
    (``\\p{Lu}``) Java's regexes do."""
    import regex

    compiled = {kind: regex.compile(CASING_PATTERNS[kind]) for kind in kinds}
    out: dict[str, CasingFacts] = {}
    # ``findall`` and sets work in C: a Python step per match (half a million lowercase words in a long novel) was
    # most of this pass. Only articled words are counted one by one.
    for doc_id, text in zip(chunks.column("doc_id").to_pylist(), chunks.column("text").to_pylist(), strict=True):
        if text is None:
            continue
        facts = out.setdefault(doc_id if by_document else "", CasingFacts())
        for kind, pattern in compiled.items():
            matches = pattern.findall(text)
            if kind != "articled":
                facts.seen.setdefault(kind, set()).update(matches)
                continue
            for m in matches:
                # the word, with the article before it if any: the match's last word (Java's (\S+)$ in Spark)
                word = m.rsplit(None, 1)[-1]
                if articled is None or word in articled:
                    counts = facts.articled.setdefault(word, [0, 0])
                    counts[0] += 1
                    counts[1] += m != word
    return out


def casing_of(counted: Iterable[tuple[str, str, str, int, int]], lowercase: Collection[str]) -> Casing:
    """The ``Casing`` of the counted matches: (scope, kind, word, occurrences, occurrences after an article)."""
    lowered: dict[str, set[str]] = {}
    casing = Casing(asked_lowercase=frozenset(lowercase))
    for scope, kind, word, n, articled in counted:
        if kind == "lower":
            lowered.setdefault(scope, set()).add(word)
        elif kind == "capital":
            casing.capitalised.setdefault(scope, set()).add(word)
        else:
            casing.usage.setdefault(scope, {})[word] = (n, articled)
    for scope, words_found in lowered.items():
        casing.lowercase[scope] = {w for w in lowercase if w.lower() in words_found}
    return casing


def _tagged(kind: str, pattern: str) -> Any:
    """The chunk text's matches of ``pattern`` as (kind, m) structs."""
    from pyspark.sql import functions as F

    return F.transform(
        F.regexp_extract_all("text", F.lit(pattern), F.lit(0)),
        lambda m: F.struct(F.lit(kind).alias("kind"), m.alias("m")),
    )

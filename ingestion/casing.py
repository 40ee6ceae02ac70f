"""Casing evidence for entity resolution: how the text itself writes the words of names.

A word the corpus writes in lowercase somewhere and never capitalises inside a sentence is capitalised only because
a sentence starts with it (a sentence opener, glued onto a name by the NER); a word written after "a", "an" or "the"
is used as a common noun; a one-word name also written in lowercase is a common word too. The entities stage asks
these questions of the chunks' text — one query answers all three (``casing_evidence``, run by DuckDB or Spark SQL),
per document in document scope.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ingestion.relational import query_rows

# The patterns are read alike by RE2 (DuckDB, in process) and Java (Spark SQL), so neither looks behind a match (RE2
# cannot): a match takes the characters its word must follow with it, and the query keeps the word.
# A word in lowercase, not after a letter, mark or digit: each run of those is matched whole but for a word in
# lowercase at its start, and only the matches in lowercase are kept. (A lowercase word in a match's group, after the
# character before it, costs RE2 four times the time.)
LOWERCASE_WORD = r"\p{Ll}[\p{L}\p{M}]*|[\p{L}\p{M}\p{N}]+"
CAPITAL_WORD = r"\p{Lu}[\p{L}\p{M}]*"
# Capitalised words after a letter, digit, comma or semicolon and one space or line break: inside a sentence, where
# only names are capitalised. (After a full stop, a dash or a blank line a sentence may start.) A run of them is one
# match, as the letter a word follows may be the end of the word before it ("Anna Mikhaylovna Drubetskaya").
MID_SENTENCE_CAPITALS = rf"[\p{{L}}\p{{M}}\p{{N}},;][ \t\r\n]{CAPITAL_WORD}(?:[ \t\r\n]{CAPITAL_WORD})*"
# A capitalised word with the article before it when there is one. A person's name seldom takes an article; a common
# noun, a rank or a group does ("the Frenchman", "a Cossack", "the Kremlin"). English only: Hungarian puts "a"/"az"
# before names in speech. The article starts a word: the character before it is no word's (RE2's \b knows ASCII only).
ARTICLED_WORD = rf"(?:(?:^|[^\p{{L}}\p{{Mn}}\p{{Nd}}_])(?:[Aa]|[Aa]n|[Tt]he|THE)[ \t\r\n]+)?{CAPITAL_WORD}"
# The three questions by kind: words written in lowercase, capitalised inside a sentence, capitalised (after an
# article or not).
CASING_PATTERNS = {"lower": LOWERCASE_WORD, "capital": MID_SENTENCE_CAPITALS, "articled": ARTICLED_WORD}


def sentence_openers(chunks: Any, candidates: set[str]) -> set[str]:
    """The ``candidates`` the corpus writes in lowercase somewhere and never capitalises inside a sentence.

    Such a word is capitalised only because a sentence starts with it, so a name span beginning with it was glued
    on by the NER ("Ránézett Gergely": *ránézett* is "looked at him"; "Meanwhile Pierre"). A real name word is
    capitalised inside sentences too, even one that is also a common word ("Fekete Bálint", "Rose"). One pass over
    the chunks; only the candidates (first words of multi-word names) are counted.
    """
    return scoped_sentence_openers(chunks, candidates, by_document=False).get("", set())


def scoped_sentence_openers(chunks: Any, candidates: set[str], *, by_document: bool) -> dict[str, set[str]]:
    """``sentence_openers`` per resolution scope: per document id when ``by_document`` (each document's casing
    alone, so that adding a book never changes another's people), else the corpus's under ``""``."""
    casing = casing_evidence(chunks, lowercase=candidates, capitalised=candidates, by_document=by_document)
    return casing.sentence_openers(candidates)


def article_usage(chunks: Any, candidates: set[str]) -> dict[str, tuple[int, int]]:
    """How the corpus writes each capitalised ``candidate``: (occurrences, occurrences just after "a", "an" or
    "the") — "the Cossack", "a Frenchman": a common noun's use, not a name's (``resolve_entities``'s
    ``article_usage``). Every
    occurrence counts, not only the NER's mentions: a model that tags a word seldom still sees it everywhere. One
    pass over the chunks; only the candidates are counted."""
    return scoped_article_usage(chunks, candidates, by_document=False).get("", {})


def scoped_article_usage(
    chunks: Any, candidates: set[str], *, by_document: bool
) -> dict[str, dict[str, tuple[int, int]]]:
    """``article_usage`` per resolution scope (per document id when ``by_document``, else under ``""``)."""
    return casing_evidence(chunks, articled=candidates, by_document=by_document).usage


def written_lowercase(chunks: Any, candidates: set[str]) -> set[str]:
    """The ``candidates`` the corpus also writes in lowercase ("Will" where "will" occurs): one pass over the chunks."""
    return scoped_written_lowercase(chunks, candidates, by_document=False).get("", set())


def scoped_written_lowercase(chunks: Any, candidates: set[str], *, by_document: bool) -> dict[str, set[str]]:
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
    chunks: Any,
    *,
    lowercase: Collection[str] = (),
    capitalised: Collection[str] = (),
    articled: Collection[str] = (),
    by_document: bool,
) -> Casing:
    """One pass over the chunks (doc_id, text: Arrow rows in process, a DataFrame for Spark) for the casing the
    resolution and the carrying ask about, per scope: which of the ``lowercase`` words the text also writes in
    lowercase, which of the ``capitalised`` ones it capitalises inside a sentence (``MID_SENTENCE_CAPITALS``), and how
    often each ``articled`` word stands, and stands after an article (``ARTICLED_WORD``). One scan instead of one per
    question: each was a job over every chunk's text."""
    asked = asked_words(lowercase, capitalised, articled)
    if not asked:
        return Casing()
    kinds = sorted(asked)
    wanted = pa.table({
        "kind": pa.array([kind for kind in kinds for _ in sorted(asked[kind])], pa.string()),
        "word": pa.array([word for kind in kinds for word in sorted(asked[kind])], pa.string()),
    })
    rows = query_rows(casing_sql(kinds, by_document=by_document, asked=True), {"chunks": chunks, "asked": wanted})
    return casing_of(((r["scope"], r["kind"], r["word"], r["n"], r["articled"]) for r in rows), lowercase)


def casing_sql(kinds: Collection[str], *, by_document: bool, asked: bool) -> str:
    """The query (DuckDB's dialect) of the pattern ``kinds``' matches in the table ``chunks`` (doc_id, text): a row
    (scope, kind, word, n occurrences, articled: occurrences after an article) per word found, the scope being the
    document id when ``by_document``, else ``''``; with ``asked``, only the (kind, word) rows of the table ``asked``.
    """
    scope = "doc_id" if by_document else "''"
    found = {
        "lower": f"regexp_extract_all(text, '{LOWERCASE_WORD}')",
        "capital": f"""flatten(list_transform(regexp_extract_all(text, '{MID_SENTENCE_CAPITALS}'),
                     lambda run: regexp_extract_all(substring(run, 3), '{CAPITAL_WORD}')))""",
        "articled": f"regexp_extract_all(text, '{ARTICLED_WORD}')",
    }
    matched = " UNION ALL ".join(
        f"SELECT {scope} AS scope, '{kind}' AS kind, unnest({found[kind]}) AS m FROM chunks" for kind in sorted(kinds)
    )
    only_asked = "JOIN asked AS a ON w.kind = a.kind AND w.word = a.word" if asked else ""
    # an articled match is the word with the article before it, if any: its last word
    return f"""WITH matched AS ({matched}), words AS (
  SELECT scope, kind, m, CASE WHEN kind = 'articled' THEN regexp_extract(m, '(\\S+)$', 1) ELSE m END AS word
  FROM matched WHERE kind <> 'lower' OR regexp_matches(m, '^\\p{{Ll}}')
)
SELECT w.scope, w.kind, w.word, count(*) AS n,
       CAST(sum(CASE WHEN w.m <> w.word THEN 1 ELSE 0 END) AS BIGINT) AS articled
FROM words AS w {only_asked}
GROUP BY w.scope, w.kind, w.word"""


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


def casing_facts(chunks: pa.Table, *, by_document: bool) -> dict[str, CasingFacts]:
    """Per scope (the document id when ``by_document``, else ``""``), the facts of the chunks' text (doc_id, text):
    every word of each ``CASING_PATTERNS`` kind, and every capitalised word's articled tally (``casing_sql``)."""
    out: dict[str, CasingFacts] = {}
    for r in query_rows(casing_sql(CASING_PATTERNS, by_document=by_document, asked=False), {"chunks": chunks}):
        facts = out.setdefault(r["scope"], CasingFacts())
        if r["kind"] == "articled":
            facts.articled[r["word"]] = [r["n"], r["articled"]]
        else:
            facts.seen.setdefault(r["kind"], set()).add(r["word"])
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

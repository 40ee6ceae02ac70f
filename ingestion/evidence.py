"""The evidence entity resolution reads of each document, kept between corpus-scope runs.

In corpus scope the entities stage resolves every surface form of the library again on each run: a new mention
anywhere can change how names merge. What it resolves *from* does not change for the documents it saw before: a
document's surface forms (mentions per keyed text and label, first offset, the pronouns after them, the units they
are said in) and the casing of its text (the words it writes in lowercase, those it capitalises inside a sentence,
how often a capitalised word follows an article) depend on that document's chunks and mentions alone, and the
corpus's are their sums and unions. So a run keeps the corpus's totals in the stage's state
(``MarkerStore.write_state``) with the documents they cover, and the next run adds the new documents' to them
instead of reading every chunk's text again: 8× War and Peace plus one chapter, 3.9 s of casing pass and 1.8 s of
forms saved.

The totals are reused only when they are those of a subset of today's documents, made from chunks and mentions of
the same settings (the chunks and mentions stages' config fingerprints), by the same patterns and the same code
(``EVIDENCE_VERSION``); a removed document (sets are not subtracted) or anything else makes the run count everything
again. The answers are equal to ``surface_forms_by`` and ``casing_evidence`` over all the documents: they
are built on the same tallies (``form_tallies`` here, ``ingestion.casing.casing_facts``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ingestion.casing import CASING_PATTERNS, Casing, CasingFacts, asked_words, casing_facts, casing_of
from ingestion.markers import fingerprint
from ingestion.names import (
    CONTEXT_WINDOW,
    LOCATIVE_BEFORE,
    NAMED_ALSO,
    NAMED_ALSO_GAP,
    OATH_AFTER,
    OATH_BEFORE,
    PERSON_LABELS,
    POSSESSIVE,
    POSSESSIVE_AFTER,
    PRONOUN_CLAUSE,
    PRONOUN_PATTERNS,
    PRONOUN_WINDOW,
    SPOKEN_AFTER,
    SPOKEN_BEFORE,
    VESSEL_BEFORE,
)
from ingestion.relational import columns, query_rows
from ingestion.resolution import SurfaceForm

# Bumped when what a document's evidence holds changes in a way the patterns in ``code_key`` do not show.
# 2: where each mention stands (located, spoken, sworn); 3: after a vessel's kind (vessel); 4: the names said in one
# sentence with it (together); 5: the names the text says are its bearer's too (stated)
EVIDENCE_VERSION = 5


def code_key() -> str:
    """The fingerprint of the patterns and windows the evidence is counted with: other patterns, other evidence."""
    return fingerprint([EVIDENCE_VERSION, CASING_PATTERNS, PRONOUN_CLAUSE, PRONOUN_PATTERNS, PRONOUN_WINDOW,
                        *CONTEXT_PATTERNS, CONTEXT_WINDOW, NAMED_ALSO, NAMED_ALSO_GAP])


CONTEXT_PATTERNS = (LOCATIVE_BEFORE, POSSESSIVE, POSSESSIVE_AFTER, SPOKEN_BEFORE, SPOKEN_AFTER, OATH_BEFORE, OATH_AFTER,
                    VESSEL_BEFORE)


@dataclass
class FormTally:
    """Per (keyed text, label): [mentions, first offset, "he" pronouns, "she" pronouns, mentions per unit, mentions
    said where a place is, mentions beside a speech verb, mentions in an oath, mentions after a vessel's kind, the
    sentences it shares with each other keyed text, the sentences saying each other keyed text is its bearer's too]."""

    rows: dict[tuple[str, str], list[Any]] = field(default_factory=dict)

    def add(self, other: FormTally) -> None:
        """Add another document set's tally (units and sentences are a document's own, so their counts add)."""
        for key, (n, first, he, she, units, located, spoken, sworn, vessel, together, stated) in other.rows.items():
            mine = self.rows.get(key)
            if mine is None:
                self.rows[key] = [n, first, he, she, Counter(units), located, spoken, sworn, vessel,
                                  Counter(together), Counter(stated)]
                continue
            mine[0] += n
            mine[1] = min(mine[1], first)
            mine[2] += he
            mine[3] += she
            mine[4].update(units)
            mine[5] += located
            mine[6] += spoken
            mine[7] += sworn
            mine[8] += vessel
            mine[9].update(together)
            mine[10].update(stated)

    def surface_forms(self) -> list[SurfaceForm]:
        """The forms, as ``surface_forms_by`` makes them."""
        return [
            SurfaceForm(text=text, label=label, count=n, first_pos=first, he=he, she=she,
                        units=tuple(sorted(units.items())), located=located, spoken=spoken, sworn=sworn,
                        vessel=vessel, cooccurring=tuple(sorted(together.items())),
                        stated=tuple(sorted(stated.items())))
            for (text, label), (n, first, he, she, units, located, spoken, sworn, vessel, together, stated)
            in self.rows.items()
        ]


# What the regex package's \w (so its \b) and \s match, as classes RE2 and Java read alike: their own \w and \s, and
# RE2's \b, know ASCII only. The same on every character the engines' Unicode tables all assign (a character assigned
# since may be unknown to an engine's older tables): test_surface_forms_query.
WORD_CHARS = (r"\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}\x{24B6}-\x{24E9}\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}"
              r"\x{1F170}-\x{1F189}")
SPACE_CHARS = r"\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}"


TALLIED = ("located", "spoken", "sworn", "vessel")  # where the mentions stand, in FormTally's order after the units


def portable(pattern: str) -> str:
    """``pattern`` (as the regex package reads it) for a search by RE2 or Java: ``\\w`` and ``\\s`` written as
    ``WORD_CHARS`` and ``SPACE_CHARS``, and ``\\b`` — which neither can say as the regex package means it — as the
    character before a word's start (or the text's start) or after a word's end (or the text's end). A search finds a
    match where the regex package finds one."""

    def boundary(found: re.Match[str]) -> str:
        following = pattern[found.end():found.end() + 1]
        if following == "(" or following.isalpha():
            return f"(?:^|[^{WORD_CHARS}])"
        return f"(?:$|[^{WORD_CHARS}])"

    written = re.sub(r"\\b", boundary, pattern)
    return written.replace(r"\w", f"[{WORD_CHARS}]").replace(r"\s", f"[{SPACE_CHARS}]")


def pronoun_words(pattern: str) -> list[str]:
    """The words of a ``PRONOUN_PATTERNS`` pattern, ``(?i)\\b(he|him|…)\\b``: a match is a word (a run of word
    characters) that is one of them, whatever its case."""
    found = re.fullmatch(r"\(\?i\)\\b\(([a-z|]+)\)\\b", pattern)
    if found is None:
        raise ValueError(f"a pronoun pattern must read (?i)\\b(word|word…)\\b, not {pattern!r}")
    return found.group(1).split("|")


def _literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def form_tally_sql(by_document: bool) -> str:
    """The query of the tally rows of the keyed mentions (table ``mentions``: doc_id, chunk_id, start, end, text,
    label) over their chunks (table ``chunks``: chunk_id, unit_id, start, text): one row per scope, form and unit with
    n mentions, the first offset, the pronouns after them (``he``, ``she``) and how many stand where a place does
    (``located``), beside a speech verb (``spoken``), in an oath (``sworn``), after a vessel's kind (``vessel``). A
    mention of no chunk given is left out."""
    locative, possessive, possessive_after, spoken_before, spoken_after, oath_before, oath_after, vessel_before = (
        _literal(portable(p)) for p in CONTEXT_PATTERNS
    )
    pronouns = ",\n         ".join(
        f"array_length(list_filter(regexp_extract_all(lower(after), '[{WORD_CHARS}]+'), lambda w: w IN "
        f"({', '.join(_literal(w) for w in pronoun_words(pattern))}))) AS {sex}"
        for sex, pattern in PRONOUN_PATTERNS.items()
    )
    scope = "m.doc_id" if by_document else "''"
    return f"""WITH located AS (
  SELECT {scope} AS scope, m.text, m.label, m.start, c.unit_id,
         regexp_extract(substring(c.text, m."end" - c.start + 1, {PRONOUN_WINDOW}), {_literal(PRONOUN_CLAUSE)})
           AS after,
         substring(c.text, greatest(1, m.start - c.start - {CONTEXT_WINDOW - 1}),
                   least({CONTEXT_WINDOW}, greatest(0, m.start - c.start))) AS before,
         substring(c.text, m."end" - c.start + 1, {CONTEXT_WINDOW}) AS following,
         substring(c.text, greatest(0, m.start - c.start) + 1, greatest(0, m."end" - greatest(m.start, c.start)))
           AS written
  FROM mentions AS m JOIN chunks AS c ON m.chunk_id = c.chunk_id
), marked AS (
  SELECT *, {pronouns},
         regexp_matches(before, {locative}) AND NOT regexp_matches(written, {possessive})
           AND NOT regexp_matches(following, {possessive_after}) AS is_located,
         regexp_matches(before, {spoken_before}) OR regexp_matches(following, {spoken_after}) AS is_spoken,
         regexp_matches(before, {oath_before}) OR regexp_matches(following, {oath_after}) AS is_sworn,
         regexp_matches(before, {vessel_before}) AS is_vessel
  FROM located
)
SELECT scope, text, label, unit_id, count(*) AS n, min(start) AS first, CAST(sum(he) AS BIGINT) AS he,
       CAST(sum(she) AS BIGINT) AS she,
       {", ".join(f"CAST(sum(CASE WHEN is_{kind} THEN 1 ELSE 0 END) AS BIGINT) AS {kind}" for kind in TALLIED)}
FROM marked GROUP BY scope, text, label, unit_id
ORDER BY scope, text, label, unit_id"""


def together_sql(by_document: bool) -> str:
    """The query of the people's names said in one sentence (table ``mentions``: the keyed mentions with their
    sentence_id; the NER labels of people only): per scope, keyed text and label, each other keyed text of its
    sentences and the number of sentences the two share. Two names said in one sentence again and again are most
    often two people ("Mr Dedalus" and "Stephen")."""
    scope = "doc_id" if by_document else "''"
    people = ", ".join(_literal(label) for label in sorted(PERSON_LABELS))
    return f"""WITH said AS (
  SELECT DISTINCT {scope} AS scope, sentence_id, text, label FROM mentions
  WHERE sentence_id IS NOT NULL AND label IN ({people})
)
SELECT a.scope, a.text, a.label, b.text AS other, count(DISTINCT a.sentence_id) AS n
FROM said AS a JOIN said AS b ON a.scope = b.scope AND a.sentence_id = b.sentence_id AND a.text <> b.text
GROUP BY a.scope, a.text, a.label, b.text
ORDER BY a.scope, a.text, a.label, b.text"""


def stated_sql(by_document: bool) -> str:
    """The query of the people's names the text says are one person's (table ``mentions``: the keyed mentions with
    their sentence_id; table ``chunks``): per scope, keyed text and label, each keyed text said after it in one
    sentence, at most ``NAMED_ALSO_GAP`` characters on, with words between that say so (``names.NAMED_ALSO``: "Abel
    Magwitch, otherwise Provis") and not a possessive ("Captain Timokhin, formerly Dolokhov's squadron commander"),
    and the number of sentences saying it."""
    scope = "m.doc_id" if by_document else "''"
    people = ", ".join(_literal(label) for label in sorted(PERSON_LABELS))
    return f"""WITH said AS (
  SELECT {scope} AS scope, m.chunk_id, m.sentence_id, m.start, m."end", m.text, m.label FROM mentions AS m
  WHERE m.sentence_id IS NOT NULL AND m.label IN ({people})
), pairs AS (
  SELECT a.scope, a.text, a.label, b.text AS other, a.sentence_id,
         substring(c.text, a."end" - c.start + 1, b.start - a."end") AS between_them,
         substring(c.text, b.start - c.start + 1, b."end" - b.start) AS named,
         substring(c.text, b."end" - c.start + 1, 3) AS following
  FROM said AS a
  JOIN said AS b ON a.scope = b.scope AND a.sentence_id = b.sentence_id AND a.chunk_id = b.chunk_id
    AND b.start >= a."end" AND b.start - a."end" <= {NAMED_ALSO_GAP} AND a.text <> b.text
  JOIN chunks AS c ON c.chunk_id = a.chunk_id
)
SELECT scope, text, label, other, count(DISTINCT sentence_id) AS n FROM pairs
WHERE regexp_matches(concat(between_them, '|', named), {_literal(portable(NAMED_ALSO))})
  AND NOT regexp_matches(named, {_literal(portable(POSSESSIVE))})
  AND NOT regexp_matches(following, {_literal(portable(POSSESSIVE_AFTER))})
GROUP BY scope, text, label, other
ORDER BY scope, text, label, other"""


def form_tallies(mentions: Any, chunks: Any, *, by_document: bool) -> dict[str, FormTally]:
    """Per scope (the document id when ``by_document``, else ``""``), the tally of the keyed mentions
    (``keyed_mentions``: doc_id, chunk_id, start, end, text, label, and sentence_id for the names said together) over
    their ``chunks`` (chunk_id, unit_id, start, text), Arrow rows or DataFrames: ``form_tally_sql``'s,
    ``together_sql``'s and ``stated_sql``'s rows, added up per form."""
    out: dict[str, FormTally] = {}
    for r in query_rows(form_tally_sql(by_document), {"mentions": mentions, "chunks": chunks}):
        tally = out.setdefault(r["scope"], FormTally()).rows
        entry = tally.setdefault((r["text"], r["label"]),
                                 [0, r["first"], 0, 0, Counter(), 0, 0, 0, 0, Counter(), Counter()])
        entry[0] += r["n"]
        entry[1] = min(entry[1], r["first"])
        entry[2] += r["he"] or 0
        entry[3] += r["she"] or 0
        entry[4][r["unit_id"]] += r["n"]
        for index, kind in enumerate(TALLIED, start=5):
            entry[index] += r[kind] or 0
    if "sentence_id" in columns(mentions):
        for sql, at in ((together_sql(by_document), 9), (stated_sql(by_document), 10)):
            for r in query_rows(sql, {"mentions": mentions, "chunks": chunks}):
                found = out.get(r["scope"], FormTally()).rows.get((r["text"], r["label"]))
                if found is not None:  # a mention of no chunk given is left out of the tally, and so of this
                    found[at][r["other"]] += r["n"]
    return out


@dataclass
class CorpusEvidence:
    """The corpus's forms and casing facts, and the documents they are the sums of."""

    doc_ids: set[str] = field(default_factory=set)
    forms: FormTally = field(default_factory=FormTally)
    casing: CasingFacts = field(default_factory=CasingFacts)

    @classmethod
    def of(cls, doc_ids: Iterable[str], keyed: pa.Table, chunks: pa.Table) -> CorpusEvidence:
        """Count the evidence of these documents' keyed mentions (``keyed_mentions``) and chunks."""
        forms = form_tallies(keyed, chunks, by_document=False).get("", FormTally())
        casing = casing_facts(chunks, by_document=False).get("", CasingFacts())
        return cls(set(doc_ids), forms, casing)

    def add(self, other: CorpusEvidence) -> None:
        """Add the evidence of other documents (never ones already counted: the caller checks)."""
        if overlap := self.doc_ids & other.doc_ids:
            raise ValueError(f"evidence of documents {sorted(overlap)[:5]} would be counted twice")
        self.doc_ids |= other.doc_ids
        self.forms.add(other.forms)
        self.casing.add(other.casing)

    def surface_forms(self, _mentions: Any = None, _chunks: Any = None, *, by_document: bool = False
                      ) -> dict[str, list[SurfaceForm]]:
        """``surface_forms_by``'s answer over the counted documents (the entities stage's step signature)."""
        if by_document:
            raise ValueError("corpus evidence answers for the corpus scope only")
        return {"": self.forms.surface_forms()}

    def casing_evidence(self, _chunks: Any = None, *, lowercase: Collection[str] = (),
                        capitalised: Collection[str] = (), articled: Collection[str] = (),
                        by_document: bool = False) -> Casing:
        """``casing_evidence``'s answer over the counted documents (the entities stage's step signature)."""
        if by_document:
            raise ValueError("corpus evidence answers for the corpus scope only")
        asked = asked_words(lowercase, capitalised, articled)
        if not asked:
            return Casing()
        return casing_of(self.casing.rows("", asked), lowercase)

    def to_json(self) -> dict[str, Any]:
        """A JSON value (the stage's state): sorted, so equal evidence is equal text."""
        return {
            "doc_ids": sorted(self.doc_ids),
            "forms": [[text, label, n, first, he, she, sorted(units.items()), located, spoken, sworn, vessel,
                       sorted(together.items()), sorted(stated.items())]
                      for (text, label), (n, first, he, she, units, located, spoken, sworn, vessel, together, stated)
                      in sorted(self.forms.rows.items())],
            "lower": sorted(self.casing.seen.get("lower", ())),
            "capital": sorted(self.casing.seen.get("capital", ())),
            "articled": [[word, n, a] for word, (n, a) in sorted(self.casing.articled.items())],
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> CorpusEvidence:
        """Read back ``to_json``'s value.

        Raises:
            ValueError: the value is not what ``to_json`` writes (the caller counts everything again).
        """
        try:
            forms = FormTally({
                (text, label): [int(n), int(first), int(he), int(she), Counter({u: int(k) for u, k in units}),
                                int(located), int(spoken), int(sworn), int(vessel),
                                Counter({other: int(k) for other, k in together}),
                                Counter({other: int(k) for other, k in stated})]
                for text, label, n, first, he, she, units, located, spoken, sworn, vessel, together, stated
                in value["forms"]
            })
            casing = CasingFacts(
                seen={"lower": set(value["lower"]), "capital": set(value["capital"])},
                articled={word: [int(n), int(a)] for word, n, a in value["articled"]},
            )
            return cls(set(value["doc_ids"]), forms, casing)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not corpus evidence: {exc}") from exc

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
again. The answers are equal to ``surface_forms_local`` and ``casing_evidence`` over all the documents: they
are built on the same tallies (``form_tallies`` here, ``ingestion.casing.casing_facts``).
"""

from __future__ import annotations

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
    OATH_AFTER,
    OATH_BEFORE,
    POSSESSIVE,
    POSSESSIVE_AFTER,
    PRONOUN_CLAUSE,
    PRONOUN_PATTERNS,
    PRONOUN_WINDOW,
    SPOKEN_AFTER,
    SPOKEN_BEFORE,
    VESSEL_BEFORE,
)
from ingestion.resolution import SurfaceForm

# Bumped when what a document's evidence holds changes in a way the patterns in ``code_key`` do not show.
EVIDENCE_VERSION = 3  # 2: where each mention stands (located, spoken, sworn); 3: after a vessel's kind (vessel)


def code_key() -> str:
    """The fingerprint of the patterns and windows the evidence is counted with: other patterns, other evidence."""
    return fingerprint([EVIDENCE_VERSION, CASING_PATTERNS, PRONOUN_CLAUSE, PRONOUN_PATTERNS, PRONOUN_WINDOW,
                        *CONTEXT_PATTERNS, CONTEXT_WINDOW])


CONTEXT_PATTERNS = (LOCATIVE_BEFORE, POSSESSIVE, POSSESSIVE_AFTER, SPOKEN_BEFORE, SPOKEN_AFTER, OATH_BEFORE, OATH_AFTER,
                    VESSEL_BEFORE)


@dataclass
class FormTally:
    """Per (keyed text, label): [mentions, first offset, "he" pronouns, "she" pronouns, mentions per unit, mentions
    said where a place is, mentions beside a speech verb, mentions in an oath, mentions after a vessel's kind]."""

    rows: dict[tuple[str, str], list[Any]] = field(default_factory=dict)

    def add(self, other: FormTally) -> None:
        """Add another document set's tally (units are a document's own, so their counts simply add)."""
        for key, (n, first, he, she, units, located, spoken, sworn, vessel) in other.rows.items():
            mine = self.rows.get(key)
            if mine is None:
                self.rows[key] = [n, first, he, she, Counter(units), located, spoken, sworn, vessel]
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

    def surface_forms(self) -> list[SurfaceForm]:
        """The forms, as ``surface_forms_local`` makes them."""
        return [
            SurfaceForm(text=text, label=label, count=n, first_pos=first, he=he, she=she,
                        units=tuple(sorted(units.items())), located=located, spoken=spoken, sworn=sworn,
                        vessel=vessel)
            for (text, label), (n, first, he, she, units, located, spoken, sworn, vessel) in self.rows.items()
        ]


def form_tallies(mentions: pa.Table, chunks: pa.Table, *, by_document: bool) -> dict[str, FormTally]:
    """Per scope (the document id when ``by_document``, else ``""``), the tally of the keyed mentions
    (``keyed_mentions``: doc_id, chunk_id, start, end, text, label) over their ``chunks`` (chunk_id, unit_id, start,
    text). A mention of no chunk given is left out, as the Spark join leaves it."""
    import regex

    where = {
        chunk_id: (unit_id, start, text)
        for chunk_id, unit_id, start, text in zip(*(chunks.column(c).to_pylist() for c in (
            "chunk_id", "unit_id", "start", "text")), strict=True)
    }
    clause = regex.compile(PRONOUN_CLAUSE)
    patterns = {sex: regex.compile(pattern) for sex, pattern in PRONOUN_PATTERNS.items()}
    # the patterns before a mention end at it ("$"): searched from the end (``regex.REVERSE``), a miss is found at once
    # instead of after trying every start in the window; those after it start there ("^"): ``match``
    locative, possessive, possessive_after, spoken_before, spoken_after, oath_before, oath_after, vessel_before = (
        regex.compile(p, regex.REVERSE if p.endswith("$") else 0) for p in CONTEXT_PATTERNS
    )
    out: dict[str, FormTally] = {}
    columns = ("doc_id", "chunk_id", "start", "end", "text", "label")
    for doc_id, chunk_id, start, end, text, label in zip(*(mentions.column(c).to_pylist() for c in columns),
                                                         strict=True):
        if chunk_id not in where:
            continue
        unit_id, chunk_start, chunk_text = where[chunk_id]
        offset = end - chunk_start
        after = clause.match(chunk_text[offset:offset + PRONOUN_WINDOW]).group(0)  # to the sentence's end
        at = start - chunk_start
        before = chunk_text[max(0, at - CONTEXT_WINDOW):max(0, at)]
        tally = out.setdefault(doc_id if by_document else "", FormTally()).rows
        entry = tally.setdefault((text, label), [0, start, 0, 0, Counter(), 0, 0, 0, 0])
        entry[0] += 1
        entry[1] = min(entry[1], start)
        entry[2] += sum(1 for _ in patterns["he"].finditer(after))
        entry[3] += sum(1 for _ in patterns["she"].finditer(after))
        entry[4][unit_id] += 1
        following = chunk_text[offset:offset + CONTEXT_WINDOW]
        if locative.search(before):
            owner = possessive.search(chunk_text[max(0, at):offset]) or possessive_after.match(following)
            entry[5] += not owner
        entry[6] += bool(spoken_before.search(before) or spoken_after.match(following))
        entry[7] += bool(oath_before.search(before) or oath_after.match(following))
        entry[8] += bool(vessel_before.search(before))
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
        """``surface_forms_local``'s answer over the counted documents (the entities stage's step signature)."""
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
            "forms": [[text, label, n, first, he, she, sorted(units.items()), located, spoken, sworn, vessel]
                      for (text, label), (n, first, he, she, units, located, spoken, sworn, vessel)
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
                                int(located), int(spoken), int(sworn), int(vessel)]
                for text, label, n, first, he, she, units, located, spoken, sworn, vessel in value["forms"]
            })
            casing = CasingFacts(
                seen={"lower": set(value["lower"]), "capital": set(value["capital"])},
                articled={word: [int(n), int(a)] for word, n, a in value["articled"]},
            )
            return cls(set(value["doc_ids"]), forms, casing)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not corpus evidence: {exc}") from exc

"""Issue 16, item 4: the corpus's resolution evidence (surface forms, casing facts) is the sum of its documents', so an
incremental corpus-scope run adds the new documents' to the last run's instead of reading every chunk again.

Pure Python over crafted Arrow rows: the kept-and-extended evidence must answer exactly as the driver's passes over
all the documents at once (``surface_forms_by``, ``casing_evidence``), which the entities stage used before.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from ingestion.casing import casing_evidence
from ingestion.evidence import CorpusEvidence
from ingestion.stages.entities import keyed_mentions, surface_forms_by

TEXTS = {
    "a": ["Meanwhile Pierre rode up. A Cossack saw him; meanwhile the Cossack slept. Will you go?",
          "She will say so, and Rose laughed. Meanwhile, Rose rose. Pierre said he would stay."],
    "b": ["Meanwhile Natasha sang, with Rose and the Cossack. Will came.",
          "Natasha smiled at Pierre, and she took his hand. The Rose of Moscow was there."],
}
NAMES = ("Pierre", "Rose", "Natasha", "Cossack", "Will", "Moscow")


def _tables() -> tuple[pa.Table, pa.Table]:
    """Chunks (one unit per chunk) and the mentions of every name in them, as the mentions table holds them (each
    chunk read as one sentence)."""
    chunks: dict[str, list] = {"chunk_id": [], "doc_id": [], "unit_id": [], "start": [], "text": []}
    mentions: dict[str, list] = {"doc_id": [], "chunk_id": [], "sentence_id": [], "start": [], "end": [], "text": [],
                                 "label": [], "ent_id": []}
    for doc, texts in TEXTS.items():
        offset = 0
        for number, text in enumerate(texts):
            chunk = f"{doc}:c{number}"
            for key, value in zip(chunks, (chunk, doc, f"{doc}:u{number}", offset, text), strict=True):
                chunks[key].append(value)
            for name in NAMES:
                at = text.find(name)
                while at >= 0:
                    label = "GPE" if name == "Moscow" else "PERSON"
                    row = (doc, chunk, f"{chunk}:s0", offset + at, offset + at + len(name), name, label, "")
                    for key, value in zip(mentions, row, strict=True):
                        mentions[key].append(value)
                    at = text.find(name, at + 1)
            offset += len(text) + 2
    return pa.table(mentions), pa.table(chunks)


def _of(documents: list[str], mentions: pa.Table, chunks: pa.Table) -> CorpusEvidence:
    ids = pa.array(documents, pa.string())
    return CorpusEvidence.of(
        documents, keyed_mentions(mentions.filter(pc.is_in(mentions.column("doc_id"), value_set=ids))),
        chunks.filter(pc.is_in(chunks.column("doc_id"), value_set=ids)),
    )


def _forms(forms: dict) -> dict:
    return {scope: sorted(group, key=lambda f: (f.text, f.label)) for scope, group in forms.items()}


def test_issue_16_corpus_evidence_extended_by_a_document_answers_as_the_pass_over_all() -> None:
    mentions, chunks = _tables()
    whole = _of(["a", "b"], mentions, chunks)
    grown = _of(["a"], mentions, chunks)
    grown.add(_of(["b"], mentions, chunks))
    assert grown.to_json() == whole.to_json()
    assert grown.doc_ids == {"a", "b"}

    expected = surface_forms_by(keyed_mentions(mentions), chunks, by_document=False)
    assert _forms(grown.surface_forms()) == _forms(expected)
    pierre = next(f for f in grown.surface_forms()[""] if f.text == "Pierre")
    # the sums, read from the texts: three mentions in three units; up to each one's sentence end, "he" after the
    # second, "she" and "his" after the third (document b's)
    assert (pierre.count, pierre.he, pierre.she) == (3, 2, 1)
    assert pierre.units == (("a:u0", 1), ("a:u1", 1), ("b:u1", 1))
    # the people's names of the chunks Pierre is said in, each sentence once: Rose beside him in a:c1 and in b:c1;
    # Moscow, a place, is not counted
    assert dict(pierre.cooccurring) == {"Cossack": 1, "Will": 1, "Rose": 2, "Natasha": 1}

    asked = {"lowercase": {"Meanwhile", "Rose", "Will", "Natasha"}, "capitalised": {"Meanwhile", "Rose", "Natasha"},
             "articled": {"Cossack", "Rose", "Natasha"}}
    casing = grown.casing_evidence(**asked)
    alone = casing_evidence(chunks, by_document=False, **asked)
    assert casing == alone
    # what the answers are, read from the texts: "Meanwhile" only opens sentences, "Rose" is capitalised inside
    # one too; "Rose" stands capitalised four times, once after "The"
    assert casing.sentence_openers(asked["capitalised"]) == {"": {"Meanwhile"}}
    assert casing.written_lowercase({"Will", "Rose", "Natasha"}) == {"": {"Will", "Rose"}}
    assert casing.usage == {"": {"Cossack": (3, 3), "Rose": (4, 1), "Natasha": (2, 0)}}


def test_issue_16_corpus_evidence_survives_its_json_and_refuses_a_document_twice() -> None:
    mentions, chunks = _tables()
    evidence = _of(["a", "b"], mentions, chunks)
    again = CorpusEvidence.from_json(evidence.to_json())
    assert again.to_json() == evidence.to_json()
    assert _forms(again.surface_forms()) == _forms(evidence.surface_forms())
    with pytest.raises(ValueError, match=r"documents \['a'\] would be counted twice"):
        again.add(_of(["a"], mentions, chunks))
    with pytest.raises(ValueError, match="not corpus evidence"):
        CorpusEvidence.from_json({"doc_ids": ["a"], "forms": [["Pierre"]]})
    with pytest.raises(ValueError, match="corpus scope only"):
        evidence.surface_forms(by_document=True)


def test_issue_16_corpus_evidence_adds_up_the_names_the_text_says_are_one_persons() -> None:
    texts = {"a": "Abel Magwitch, otherwise Provis, came in.", "b": "Then Abel Magwitch, otherwise Provis, sat."}
    chunks: dict[str, list] = {"chunk_id": [], "doc_id": [], "unit_id": [], "start": [], "text": []}
    mentions: dict[str, list] = {"doc_id": [], "chunk_id": [], "sentence_id": [], "start": [], "end": [], "text": [],
                                 "label": [], "ent_id": []}
    for doc, text in texts.items():
        for key, value in zip(chunks, (f"{doc}:c0", doc, f"{doc}:u0", 0, text), strict=True):
            chunks[key].append(value)
        for name in ("Abel Magwitch", "Provis"):
            at = text.find(name)
            row = (doc, f"{doc}:c0", f"{doc}:c0:s0", at, at + len(name), name, "PERSON", "")
            for key, value in zip(mentions, row, strict=True):
                mentions[key].append(value)
    both = (pa.table(mentions), pa.table(chunks))
    grown = _of(["a"], *both)
    grown.add(_of(["b"], *both))
    assert grown.to_json() == _of(["a", "b"], *both).to_json()
    assert CorpusEvidence.from_json(grown.to_json()).to_json() == grown.to_json()
    # one statement in each document's sentence, said of the first name
    stated = {f.text: dict(f.stated) for f in grown.surface_forms()[""]}
    assert stated == {"Abel Magwitch": {"Provis": 2}, "Provis": {}}

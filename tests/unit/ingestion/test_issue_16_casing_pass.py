"""Issue 16, items 4-5: the entities stage asks its three casing questions of the chunks in one pass."""

from __future__ import annotations

from typing import Any

from ingestion.casing import (
    casing_evidence,
    scoped_article_usage,
    scoped_sentence_openers,
    scoped_written_lowercase,
)


def test_issue_16_one_casing_pass_answers_as_one_pass_per_question(spark: Any) -> None:
    chunks = spark.createDataFrame(
        [("k0", "a", "Meanwhile Pierre rode up. A Cossack saw him; meanwhile the Cossack slept. Will you go?"),
         ("k1", "a", "She will say so, and Rose laughed. Meanwhile, Rose rose."),
         ("k2", "b", "Meanwhile Natasha sang, with Rose and the Cossack. Will came.")],
        "chunk_id string, doc_id string, text string",
    )
    openers, articled, lowercase = {"Meanwhile", "Rose", "Natasha"}, {"Cossack", "Natasha"}, {"Will", "Pierre"}
    for by_document in (False, True):
        casing = casing_evidence(
            chunks, lowercase=openers | lowercase, capitalised=openers, articled=articled, by_document=by_document
        )
        alone = scoped_sentence_openers(chunks, openers, by_document=by_document)
        assert casing.sentence_openers(openers) == alone
        assert casing.usage == scoped_article_usage(chunks, articled, by_document=by_document)
        common = scoped_written_lowercase(chunks, lowercase, by_document=by_document)
        assert casing.written_lowercase(lowercase) == common
        assert casing.asked_lowercase == openers | lowercase
    # what the answers are: "Meanwhile" is written lowercase and capitalised only where a sentence starts; "Rose" is
    # capitalised inside a sentence too
    assert scoped_sentence_openers(chunks, openers, by_document=False) == {"": {"Meanwhile"}}
    assert scoped_sentence_openers(chunks, openers, by_document=True) == {"a": {"Meanwhile"}}
    assert scoped_written_lowercase(chunks, lowercase, by_document=True) == {"a": {"Will"}}
    assert scoped_article_usage(chunks, articled, by_document=True) == {
        "a": {"Cossack": (2, 2)}, "b": {"Cossack": (1, 1), "Natasha": (1, 0)},
    }
    assert casing_evidence(chunks, by_document=False).usage == {}

"""The casing query (``ingestion.casing.casing_sql``) gives the same words on both engines — DuckDB's RE2 and Spark's
Java regexes — where a look-behind pattern would have needed one engine: runs of capitalised words, a word after a
digit, an "a" ending a word before a name, letters outside ASCII."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ingestion.casing import casing_evidence, casing_facts

TEXTS = {
    "a": "Anna Mikhaylovna Drubetskaya came; Doña Maria said the 2nd thing to ábel, Ábel. The Frenchman and an "
         "Englishman",
    "b": "Meanwhile Natasha sang.\nthe Cossack",
}


def _chunks() -> pa.Table:
    return pa.table({"doc_id": list(TEXTS), "text": list(TEXTS.values())})


def test_casing_facts_read_from_the_text() -> None:
    facts = casing_facts(_chunks(), by_document=True)
    a, b = facts["a"], facts["b"]
    # "nd" follows a digit and "oña" a capital: neither is a lowercase word
    assert a.seen["lower"] == {"came", "said", "the", "thing", "to", "ábel", "and", "an"}
    # every word of a capitalised run counts, and a word after a semicolon or comma; "The" opens a sentence, the
    # "Frenchman" after it does not
    assert a.seen["capital"] == {"Mikhaylovna", "Drubetskaya", "Doña", "Maria", "Ábel", "Frenchman", "Englishman"}
    # "Doña Maria": the "a" ends a word, so Maria stands without an article
    assert a.articled == {"Anna": [1, 0], "Mikhaylovna": [1, 0], "Drubetskaya": [1, 0], "Doña": [1, 0],
                          "Maria": [1, 0], "Ábel": [1, 0], "Frenchman": [1, 1], "Englishman": [1, 1]}
    assert (b.seen["lower"], b.seen.get("capital", set())) == ({"sang", "the"}, {"Natasha", "Cossack"})
    assert b.articled == {"Meanwhile": [1, 0], "Natasha": [1, 0], "Cossack": [1, 1]}


def test_casing_evidence_is_the_same_on_both_engines(spark: Any) -> None:
    asked = {"lowercase": {"The", "Came", "Nd", "Sang"}, "capitalised": {"Maria", "Anna", "Natasha"},
             "articled": {"Maria", "Frenchman", "Cossack", "Anna"}}
    frame = spark.createDataFrame(_chunks())
    for by_document in (False, True):
        in_process = casing_evidence(_chunks(), by_document=by_document, **asked)
        assert casing_evidence(frame, by_document=by_document, **asked) == in_process
    assert in_process.usage == {"a": {"Maria": (1, 0), "Frenchman": (1, 1), "Anna": (1, 0)},
                                "b": {"Cossack": (1, 1)}}
    assert in_process.written_lowercase(asked["lowercase"]) == {"a": {"The", "Came"}, "b": {"The", "Sang"}}
    assert in_process.capitalised == {"a": {"Maria"}, "b": {"Natasha"}}

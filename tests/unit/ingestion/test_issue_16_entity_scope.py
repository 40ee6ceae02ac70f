"""Issue 16, "entity scope across documents": two unrelated novels with a heroine called Mary in one lakehouse.

``ingestion.entity_scope = "corpus"`` (the shipped default) makes one name one entity across the documents — right
for news and for a book split into files; ``"document"`` resolves each document apart, so the two Marys stay two,
and the chat side asks which book's Mary is meant and says which book its answer is about. The real pipeline (Spark,
Delta, the default English NER) runs on both; expected values come from the texts below.
"""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cli.ask import main as ask
from tests.unit.ingestion.tables import read

pytestmark = pytest.mark.spark

MILL_HOUSE = """# The Mill House

## Chapter 1

Mary Ashdown lived at the mill with her brother Thomas. Every morning Mary walked to the river, and Thomas
followed her with the baskets. "You are late again," said Mary, and Thomas only laughed.

## Chapter 2

In the evening Thomas mended the wheel while Mary read aloud by the fire. Mary loved the old stories, and Thomas
loved to hear her read them.
"""

NORTHERN_LIGHTS = """# Northern Lights

## Chapter 1

Captain Reeve met Mary Lindqvist on the quay at Tromsø. Mary had come north to paint the ice, she said, and
Captain Reeve offered her a berth on his ship. "We sail at dawn," said Captain Reeve.

## Chapter 2

For three weeks Mary painted from the deck while Captain Reeve watched the weather. Mary never once complained
of the cold, and Captain Reeve came to admire her for it.
"""


PRINTERS_NOTE = """# A note from the printer

This edition was set and printed in London by John Murray.
"""


# The documents' titles: the file names' stems (the documents stage's title of a plain .md file).
MILL, NORTH = "the_mill_house", "northern_lights"


def _library(folder: Path) -> Path:
    folder.mkdir()
    (folder / f"{MILL}.md").write_text(MILL_HOUSE, encoding="utf-8")
    (folder / f"{NORTH}.md").write_text(NORTHERN_LIGHTS, encoding="utf-8")
    return folder


def _marys(lake: Path) -> Any:
    entities = read(lake, "entities")
    return entities[entities.canonical_name.str.startswith("Mary")]


@pytest.fixture(scope="module")
def libraries(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    base = tmp_path_factory.mktemp("scope")
    books = _library(base / "books")
    lakes = {}
    for scope in ("corpus", "document"):
        lake = base / scope
        tool = GenericNERIngestionTool()
        tool.set_settings(load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2},
                                        ingestion={"entity_scope": scope}))
        tool.set_spark_session(spark)
        result = tool.execute_ingestion(IngestionRequest(inputs=[str(books)]))
        assert result.status == "succeeded", result
        lakes[scope] = SimpleNamespace(lake=lake, tool=tool, result=result)
    return SimpleNamespace(books=books, base=base, **lakes)


def test_issue_16_corpus_scope_makes_one_mary_of_both_books(libraries: SimpleNamespace) -> None:
    marys = _marys(libraries.corpus.lake)
    assert len(marys) == 1 and int(marys.iloc[0].doc_count) == 2


def test_issue_16_document_scope_keeps_each_books_mary(libraries: SimpleNamespace) -> None:
    lake = libraries.document.lake
    marys = _marys(lake)
    assert len(marys) == 2 and set(marys.doc_count) == {1}
    links = read(lake, "mention_entities")
    documents = read(lake, "documents").set_index("doc_id").title
    books = {documents[doc] for doc in links[links.entity_id.isin(marys.entity_id)].doc_id}
    assert books == {MILL, NORTH}
    # each Mary's companions are her own book's people: no co-occurrence crosses the two books
    names = read(lake, "entities").set_index("entity_id").canonical_name
    pairs = read(lake, "cooccurrences")
    companion = {MILL: "Thomas", NORTH: "Reeve"}
    for mary in marys.itertuples():
        (book,) = {documents[doc] for doc in links[links.entity_id == mary.entity_id].doc_id}
        mine = pairs[(pairs.src_id == mary.entity_id) | (pairs.dst_id == mary.entity_id)]
        others = " | ".join(names[i] for i in (set(mine.src_id) | set(mine.dst_id)) - {mary.entity_id})
        stranger = companion[NORTH if book == MILL else MILL]
        assert companion[book] in others and stranger not in others, (book, others)


def _scope_tool(lake: Path, spark: Any, scope: str) -> Any:
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings

    tool = GenericNERIngestionTool()
    tool.set_settings(load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2},
                                    ingestion={"entity_scope": scope}))
    tool.set_spark_session(spark)
    return tool


def _rows(lake: Path, table: str, documents: set[str] | None = None) -> list[tuple]:
    """A table's rows, comparable; with ``documents``, only those documents' (document scope: an entity's and a
    pair's document is the one its mentions are in)."""
    from tests.unit.ingestion.tables import comparable

    frame = read(lake, table)
    if documents is not None:
        links = read(lake, "mention_entities")
        mine = set(links[links.doc_id.isin(documents)].entity_id)
        key = "entity_id" if "entity_id" in frame.columns else "src_id"
        frame = frame[frame[key].isin(mine)]
    return comparable(frame.reset_index(drop=True))


def test_issue_16_document_scope_resolves_and_counts_only_the_removed_and_added_documents_and_ids_survive(
    libraries: SimpleNamespace, spark: Any, tmp_path: Path
) -> None:
    """Document scope, on a copy of the two books' lakehouse: a book removed — its rows go and the other's stay as
    they were, ids and all, and nothing is resolved; a note without entities added — resolved once, then no longer
    new; the book added again — only it is resolved, its pairs counted and its quotations found, and the tables are
    exactly those of the run over both books from scratch (``libraries.document``)."""
    import shutil

    from tools.ingestion import IngestionRequest

    lake = tmp_path / "lake"
    shutil.copytree(libraries.document.lake, lake)
    folder = tmp_path / "books"
    folder.mkdir()
    (folder / f"{MILL}.md").write_text(MILL_HOUSE, encoding="utf-8")
    tool = _scope_tool(lake, spark, "document")
    documents = read(lake, "documents").set_index("title").doc_id
    # The stages this test is about and those they read; the graph and the index after them follow their input
    # whatever the scope, and other tests prove that (test_pipeline's incremental runs).
    upto = ["documents", "chunks", "mentions", "entities", "quotes", "cooccurrences"]

    removed = tool.execute_ingestion(IngestionRequest(inputs=[str(folder)], stages=upto))
    assert removed.status == "succeeded", removed
    entities_report = {report.stage: report for report in removed.stages}["entities"]
    plan = entities_report.details["documents"]
    assert plan["resolved"] == [] and plan["removed"] == [documents[NORTH]] and plan["extends"]
    assert entities_report.counts["surface_forms"] == 0  # nothing to resolve: the removed rows go, that is all
    mill = {documents[MILL]}
    for table in ("entities", "mention_entities", "cooccurrences"):
        assert _rows(lake, table) == _rows(libraries.document.lake, table, mill), table
    assert set(read(lake, "mention_entities").doc_id) == mill
    assert _quotes(lake) == _quotes(libraries.document.lake, mill) and _quotes(lake)
    assert {report.stage: report for report in removed.stages}["quotes"].counts["documents_read"] == 0

    # A printer's note added: two names said once each, so it has mentions but no entity kept (fewer than
    # ingestion.min_entity_mentions = 2) — resolved once, and not taken for a new document by the next increment.
    (folder / "printers_note.md").write_text(PRINTERS_NOTE, encoding="utf-8")
    noted = tool.execute_ingestion(IngestionRequest(inputs=[str(folder)], stages=upto))
    assert noted.status == "succeeded", noted
    note = read(lake, "documents").set_index("title").doc_id["printers_note"]
    assert note in set(read(lake, "mentions").doc_id), "the note must have mentions for this test to prove anything"
    entities_report = {report.stage: report for report in noted.stages}["entities"]
    assert entities_report.details["documents"]["resolved"] == [note]
    assert entities_report.details["without_entities"] == [note]

    (folder / f"{NORTH}.md").write_text(NORTHERN_LIGHTS, encoding="utf-8")
    added = tool.execute_ingestion(IngestionRequest(inputs=[str(folder)], stages=upto))
    assert added.status == "succeeded", added
    plan = {report.stage: report for report in added.stages}["entities"].details["documents"]
    assert plan["resolved"] == [documents[NORTH]] and plan["removed"] == []
    for table in ("entities", "mention_entities", "cooccurrences"):
        assert _rows(lake, table) == _rows(libraries.document.lake, table), table
    assert _quotes(lake) == _quotes(libraries.document.lake)
    assert {report.stage: report for report in added.stages}["quotes"].counts["documents_read"] == 1
    assert any(name.startswith("Mary") for name in read(lake, "entities").canonical_name)


def _quotes(lake: Path, documents: set[str] | None = None) -> list[tuple]:
    """The quotes table's rows, comparable; with ``documents``, only those documents'."""
    from tests.unit.ingestion.tables import comparable

    frame = read(lake, "quotes")
    if documents is not None:
        frame = frame[frame.doc_id.isin(documents)]
    return comparable(frame.reset_index(drop=True))


def _evidence(result: Any) -> dict[str, int]:
    return {report.stage: report for report in result.stages}["entities"].details["evidence"]


def test_issue_16_corpus_scope_counts_the_evidence_of_new_documents_only_and_writes_the_same_tables(
    libraries: SimpleNamespace, spark: Any, tmp_path: Path
) -> None:
    """Corpus scope resolves every form again, but counts the forms and casing of only the documents its last run
    did not see (``ingestion.evidence``): one book, then the other added — one document kept, one counted — and the
    tables exactly those of the same run counting both (its kept evidence deleted); a book removed: all counted
    again, as sets are not subtracted."""
    import shutil

    from ingestion.markers import MARKERS_DIR, STATE_FILE
    from tools.ingestion import IngestionRequest

    lake, folder = tmp_path / "lake", tmp_path / "books"
    folder.mkdir()
    (folder / f"{MILL}.md").write_text(MILL_HOUSE, encoding="utf-8")
    upto = ["documents", "chunks", "mentions", "entities", "cooccurrences"]

    def run(at: Path) -> Any:
        result = _scope_tool(at, spark, "corpus").execute_ingestion(IngestionRequest(inputs=[str(folder)], stages=upto))
        assert result.status == "succeeded", result
        return result

    assert _evidence(run(lake)) == {"documents_kept": 0, "documents_counted": 1}
    alone = sorted(row[1:] for row in _rows(lake, "entities"))  # ids aside (below)
    (folder / f"{NORTH}.md").write_text(NORTHERN_LIGHTS, encoding="utf-8")
    recount = tmp_path / "recount"
    shutil.copytree(lake, recount)
    (recount / MARKERS_DIR / "entities" / STATE_FILE).unlink()

    assert _evidence(run(lake)) == {"documents_kept": 1, "documents_counted": 1}
    assert _evidence(run(recount)) == {"documents_kept": 0, "documents_counted": 2}
    for table in ("entities", "mention_entities", "cooccurrences"):
        assert _rows(lake, table) == _rows(recount, table), table
    marys = _marys(lake)  # the books' two Marys are one in corpus scope: the new book's forms were counted
    assert len(marys) == 1 and int(marys.iloc[0].doc_count) == 2

    (folder / f"{NORTH}.md").unlink()
    assert _evidence(run(lake)) == {"documents_kept": 0, "documents_counted": 1}
    # the first run's entities again, ids aside: an entity keeps the id it had in the table before (issue 14)
    assert sorted(row[1:] for row in _rows(lake, "entities")) == alone
    assert [m.canonical_name for m in _marys(lake).itertuples()] == ["Mary Ashdown"]


def test_issue_16_chat_asks_which_books_mary_and_names_the_book(libraries: SimpleNamespace) -> None:
    lake = libraries.document.lake
    out = io.StringIO()
    inp = io.StringIO(f"Who is Mary?\n{NORTH}\nquit\n")
    assert ask(["--interactive", "--lakehouse", str(lake), "--quiet"], out=out, inp=inp) == 0
    text = out.getvalue()
    options = [line for line in text.splitlines() if line[:2] in {"1.", "2."}]
    assert sorted(line.split(" — ")[-1] for line in options) == sorted([MILL, NORTH]), text
    # each book introduces its Mary by her full name once ("Mary Ashdown", "Mary Lindqvist"): the options carry it
    assert sorted(line.split(" — ")[0][3:] for line in options) == ["Mary Ashdown", "Mary Lindqvist"], text
    assert f"first in {NORTH} › " in text, text
    # with one Mary per corpus there is nothing to ask
    single = io.StringIO()
    assert ask(["Who is Mary?", "--lakehouse", str(libraries.corpus.lake), "--quiet"], out=single) == 0
    assert "is mentioned" in single.getvalue() and " — " not in single.getvalue()


def test_issue_16_a_lakehouse_turned_to_document_scope_gives_each_entity_its_own_id(
    libraries: SimpleNamespace, spark: Any, tmp_path: Path
) -> None:
    # The corpus-scope table has one Mary named in both books; resolved one book at a time, each book's Mary may
    # continue the old id, but only one of them can hold it: ids must stay unique, or every join on them multiplies.
    import shutil

    from tools.ingestion import IngestionRequest

    lake = tmp_path / "turned"
    shutil.copytree(libraries.corpus.lake, lake)
    (old_mary,) = _marys(lake).entity_id
    tool = _scope_tool(lake, spark, "document")
    result = tool.execute_ingestion(IngestionRequest(inputs=[str(libraries.books)]))
    assert result.status == "succeeded", result
    entities = read(lake, "entities")
    assert entities.entity_id.is_unique
    marys = _marys(lake)
    assert len(marys) == 2 and old_mary in set(marys.entity_id)  # one of them keeps the id a user may have kept
    assert read(lake, "cooccurrences").duplicated(["src_id", "dst_id"]).sum() == 0

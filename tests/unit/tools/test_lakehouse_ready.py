"""Issue 12 item 1: the chat side checks its lakehouse and takes the books' language from it, not from a default.

The end-to-end runs on real ingested lakehouses are in tests/integration/test_chat_surfaces.py; these cover the
rules' edges on Delta tables written with delta-rs and the pipeline's marker layout.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from graph.lakehouse import Lakehouse
from settings.config import load_settings
from tools.analysis.domain import DomainSettings
from tools.analysis.lakehouse import CHAT_STAGES, LakehouseContents, check_lakehouse
from tools.errors import ConfigError, LakehouseNotReadyError
from tools.platform import ChatPlatform


def built(root: Path, languages: list[str | None]) -> Lakehouse:
    """A lakehouse whose chat stages are marked done and whose documents table holds ``languages``."""
    for stage in CHAT_STAGES:
        marker = root / "_markers" / stage / "_SUCCESS"
        marker.parent.mkdir(parents=True)
        marker.write_text("{}", encoding="utf-8")
    write_deltalake(str(root / "documents"), pa.table({"doc_id": pa.array([f"d{i}" for i in range(len(languages))],
                                                                          pa.string()),
                                                      "language": pa.array(languages, pa.string())}))
    return Lakehouse.for_root(root)


def test_issue_12_missing_lakehouse_names_the_path_and_how_to_build_it(tmp_path: Path) -> None:
    missing = tmp_path / "out" / "x"
    with pytest.raises(LakehouseNotReadyError) as caught:
        check_lakehouse(Lakehouse.for_root(missing))
    assert str(caught.value) == (f"lakehouse {missing} does not exist; ingest a corpus into it first: "
                                 f"csillag ingest PATH… --lakehouse {missing}")
    assert caught.value.path == missing and caught.value.missing == list(CHAT_STAGES)


def test_issue_12_lakehouse_without_documents_says_so(tmp_path: Path) -> None:
    with pytest.raises(LakehouseNotReadyError, match=r"has no documents: every input was rejected"):
        check_lakehouse(built(tmp_path / "lake", []))


def test_issue_12_books_language_is_the_documents_majority(tmp_path: Path) -> None:
    contents = check_lakehouse(built(tmp_path / "lake", ["hu", "en", "hu", None, ""]))
    assert (contents.documents, contents.language) == (5, "hu")
    assert check_lakehouse(built(tmp_path / "tie", ["hu", "en"])).language == "en"  # a tie: the first code


def test_issue_38_books_language_is_the_commonest_one_questions_can_be_analysed_in(tmp_path: Path) -> None:
    # Italian has no retrieval analyser: the English documents decide, not the Italian majority.
    assert check_lakehouse(built(tmp_path / "lake", ["it", "it", "en"])).language == "en"
    assert check_lakehouse(built(tmp_path / "only", ["it"])).language == "it"  # the chat side then names it


def test_issue_12_from_settings_without_a_built_lakehouse_raises_instead_of_an_empty_platform(tmp_path: Path) -> None:
    with pytest.raises(LakehouseNotReadyError, match=r"holds no ingested corpus \(no stage done\)"):
        ChatPlatform.from_settings(load_settings(lakehouse={"root": tmp_path}))


def test_issue_12_domain_is_the_ingestion_tools_else_the_lakehouse_folders(tmp_path: Path) -> None:
    english = LakehouseContents(root=Lakehouse.for_root(tmp_path / "harbour"), documents=2, language="en")
    generic = DomainSettings.for_lakehouse(load_settings(ingestion={"tool": None}, ner={"language": None}), english)
    assert (generic.name, generic.title, generic.language) == ("harbour", "harbour", "en")
    # The documents' language wins over a Hungarian ner.language and over a known domain's own language.
    named = DomainSettings.for_lakehouse(load_settings(ner={"language": "hu"}), english, "egri_csillagok")
    assert (named.name, named.title, named.language) == ("egri_csillagok", "Egri csillagok", "en")
    hungarian = LakehouseContents(root=Lakehouse.for_root(tmp_path / "out"), documents=1, language="hu")
    egri = DomainSettings.for_lakehouse(load_settings(ingestion={"tool": "egri_csillagok_ner_ingestion"}), hungarian)
    assert (egri.name, egri.language, egri.ingestion_tool) == ("egri_csillagok", "hu", "egri_csillagok_ner_ingestion")


def test_issue_12_documents_without_language_fall_back_to_ner_language(tmp_path: Path) -> None:
    unknown = LakehouseContents(root=Lakehouse.for_root(tmp_path / "old"), documents=1, language=None)
    assert DomainSettings.for_lakehouse(load_settings(ner={"language": "de"}), unknown).language == "de"  # as before
    with pytest.raises(ConfigError, match=r"domain 'old' is not one of .* give its language \(ner.language\)"):
        DomainSettings.for_lakehouse(load_settings(ner={"language": None}), unknown)

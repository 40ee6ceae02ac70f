"""The NER ingestion tool's platform contract (R-ING-1, R-ING-4, R-NER-1, R-PLUG-1/2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from ingestion.domains.generic import GenericNERIngestionTool
from ingestion.tool import AbstractNERIngestionTool
from tests.conftest import SAMPLES
from tests.unit.ingestion.tables import read


def test_r_ing_4_chat_methods_are_stubs_returning_none() -> None:
    tool = GenericNERIngestionTool()
    assert tool.execute_with_result([], "Who is Margaret?", "en", [], None, None) is None


def test_r_ing_1_ingestion_tool_is_never_eligible_for_chat() -> None:
    from tools.request import ChatRequest

    assert GenericNERIngestionTool().is_eligible(ChatRequest(user_prompt="ingest everything")) is False


def test_r_plug_1_domain_tool_needs_no_constructor_arguments() -> None:
    with pytest.raises(TypeError, match="no-argument constructor"):

        class NeedsArgs(AbstractNERIngestionTool):  # noqa: F841 - defining it is the test
            name = "needs_args"

            def __init__(self, model: str) -> None:
                super().__init__()


def test_r_plug_2_settings_arrive_through_injection_and_init(tmp_path: Path) -> None:
    from settings.config import load_settings
    from tools.plugins import ToolContainer, ToolRegistry

    registry = ToolRegistry(entry_point_group=None)
    registry.register(GenericNERIngestionTool)
    settings = load_settings(lakehouse={"root": tmp_path / "injected"})
    tool = ToolContainer(registry, services=[settings]).inject(GenericNERIngestionTool())
    assert tool._require_settings() is settings


class _HarbourDomain(AbstractNERIngestionTool):
    """A domain that supplies only its domain part: a gazetteer pattern, labels and an alias table."""

    name = "harbour_test_ingestion"
    language = "en"
    spacy_model = "en_core_web_sm"
    entity_labels: ClassVar[tuple[str, ...]] = ("PERSON", "VESSEL")

    def entity_patterns(self) -> list[dict[str, Any]]:
        return [{"label": "VESSEL", "pattern": "Saint Piran", "id": "The Saint Piran"}]

    def alias_table(self) -> dict[str, list[str]]:
        return {"Captain Roderick Vance": ["Vance", "Roderick Vance", "Captain Vance", "the Captain"]}


@pytest.mark.spark
def test_r_ner_1_domain_subclass_supplies_only_the_domain_part(ingest: Any, tmp_path: Path) -> None:
    text = (SAMPLES / "en" / "harbour_notes.txt").read_text(encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.txt").write_text(
        text + "\nThe Saint Piran left at dawn. Captain Vance watched the Saint Piran from the pier.\n",
        encoding="utf-8",
    )
    result = ingest([corpus], tool_class=_HarbourDomain)
    assert result.status == "succeeded", result
    mentions = read(tmp_path / "lake", "mentions")
    assert set(mentions.label) <= {"PERSON", "VESSEL"}
    vessel = mentions[mentions.label == "VESSEL"]
    assert len(vessel) == 2 and set(vessel.ent_id) == {"The Saint Piran"}
    entities = read(tmp_path / "lake", "entities")
    vance = entities[entities.canonical_name == "Captain Roderick Vance"]
    assert len(vance) == 1
    assert {"Vance", "Captain Vance"} & set(vance.aliases.iloc[0])

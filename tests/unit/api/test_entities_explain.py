"""``GET /entities/{name}/explain``: an entity's resolution trace as JSON, recomputed from the served lakehouse's
mentions (real Delta tables written with delta-rs) by the real NER ingestion tool."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ingestion.domains.generic import GenericNERIngestionTool
from tests.unit.api.apitest_tools import make_registry
from tests.unit.api.conftest import AUTH
from tests.unit.ingestion.resolution.crafted import kutuzov_lakehouse


@pytest.fixture
def explaining(api_settings: Callable[..., Any], tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """A client over the app whose registry holds the NER ingestion tool; ``settings`` overrides go to
    ``load_settings``'s ``ingestion`` section."""
    from api.app import create_app

    clients: list[TestClient] = []

    def build(**ingestion: Any) -> TestClient:
        settings = api_settings()
        settings = settings.model_copy(update={"ingestion": settings.ingestion.model_copy(update=ingestion)})
        registry = make_registry()
        registry.register(GenericNERIngestionTool)
        client = TestClient(create_app(settings, registry=registry), raise_server_exceptions=False)
        clients.append(client.__enter__())
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


def test_explain_answers_the_trace_of_the_entity_a_form_names(explaining: Callable[..., TestClient],
                                                               tmp_path: Path) -> None:
    kutuzov_lakehouse(tmp_path / "data" / "lake")
    answer = explaining().get("/entities/count KUTUZOV/explain", headers=AUTH)
    assert answer.status_code == 200, answer.text
    [found] = answer.json()
    assert re.fullmatch(r"ent_[0-9a-f]{16}", found.pop("entity_id"))
    # the bare surname and the rarer title join the more mentioned man's title, which joins the one full name
    assert found == {
        "scope": "", "name": "Michael Ilarionovich Kutuzov", "label": "PERSON",
        "aliases": ["Count Kutuzov", "Kutuzov", "Michael Ilarionovich Kutuzov", "Prince Kutuzov"],
        "steps": [
            {"rule": "same_name_titles", "forms": ["Kutuzov"], "into": ["Prince Kutuzov"]},
            {"rule": "same_name_titles", "forms": ["Count Kutuzov"], "into": ["Prince Kutuzov"]},
            {"rule": "partial_names", "forms": ["Count Kutuzov", "Kutuzov", "Prince Kutuzov"],
             "into": ["Michael Ilarionovich Kutuzov"]},
        ],
    }


def test_explain_with_a_rule_switched_off_shows_the_other_path(explaining: Callable[..., TestClient],
                                                                tmp_path: Path) -> None:
    kutuzov_lakehouse(tmp_path / "data" / "lake")
    answer = explaining(disabled_resolution_rules=["same_name_titles"]).get("/entities/Kutuzov/explain",
                                                                            headers=AUTH)
    assert answer.status_code == 200, answer.text
    [found] = answer.json()
    assert found["name"] == "Michael Ilarionovich Kutuzov"
    assert "same_name_titles" not in {step["rule"] for step in found["steps"]}


def test_explain_problems_no_entity_no_mentions_a_wrong_rule_and_no_key(explaining: Callable[..., TestClient],
                                                                        tmp_path: Path) -> None:
    client = explaining()
    answer = client.get("/entities/Kutuzov/explain", headers=AUTH)
    assert answer.status_code == 409 and "has no mentions table" in answer.json()["detail"]
    kutuzov_lakehouse(tmp_path / "data" / "lake")
    answer = client.get("/entities/Bagration/explain", headers=AUTH)
    assert answer.status_code == 404 and answer.json()["detail"].startswith("'Bagration' names no entity of ")
    assert client.get("/entities/Kutuzov/explain").status_code == 401
    answer = explaining(disabled_resolution_rules=["nowhere"]).get("/entities/Kutuzov/explain", headers=AUTH)
    assert answer.status_code == 500 and "unknown resolution rule 'nowhere'" in answer.json()["detail"]

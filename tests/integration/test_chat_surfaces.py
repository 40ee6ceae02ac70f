"""Issue 12 items 1 and 5: every chat surface goes through ``ChatPlatform.from_settings`` and answers from the real
book tools — ``csillag ask`` and ``python -m tools.ask`` as subprocesses, the imported module, and the REST API as a
real uvicorn process over ``/chat`` (server-sent events) — while a missing or half-built lakehouse gives one line
naming the path and what is missing (exit 1; a 503 problem over HTTP), never "I found no information".

The demo lakehouse (``ingestion/samples/en``, the settings' defaults, as ``scripts/demo.sh`` builds it) and a
half-built one (stages documents and chunks only) are ingested once per module with the session's Spark. In the
sample, Margaret Hale spends the story with Ellen Pryor — rowed out by her, keeping the gale watch with her, taking
her hand (the_lighthouse_keepers.md) — so the demo question's answer names Ellen Pryor.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from tests.integration.api_server import ApiServer
from tests.unit.api.sse import parse_sse
from tests.unit.ingestion.tables import read

pytestmark = [pytest.mark.spark, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "ingestion" / "samples" / "en"
CSILLAG = Path(sys.executable).with_name("csillag")
QUESTION = "Who is Margaret Hale's closest companion?"
ANSWER = "Margaret Hale's closest companion is Ellen Pryor"
KEY = "chat-surfaces-key-3d1e"
NOT_DONE = "stages mentions, entities, cooccurrences, graph not done"


def ingest(spark: Any, lake: Path, stages: list[str] | None = None) -> Path:
    """The sample into ``lake`` with the default settings and tool (what ``csillag ingest`` does), in this process."""
    from jobs.common import DEFAULT_TOOL, build_tool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    settings = load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2})
    tool = build_tool(settings.ingestion.tool or DEFAULT_TOOL, settings)
    tool.set_spark_session(spark)
    result = tool.execute_ingestion(IngestionRequest(inputs=[str(SAMPLE)], stages=stages))
    assert result.status == "succeeded", result
    return lake


@pytest.fixture(scope="module")
def demo_lake(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest(spark, tmp_path_factory.mktemp("demo") / "demo-lakehouse")


@pytest.fixture(scope="module")
def half_lake(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest(spark, tmp_path_factory.mktemp("half") / "half-lakehouse", ["documents", "chunks"])


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without CSILLAG_* settings that could point the chat side elsewhere, plus ``extra``."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("CSILLAG_LAKEHOUSE_", "CSILLAG_NER_",
                                                                      "CSILLAG_INGESTION_", "CSILLAG_GRAPH_"))}
    return kept | extra


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), cwd=ROOT, env=clean_env(), capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    """Starts the production app (``api.app:create_app_from_env``) under uvicorn on a lakehouse; stops them after."""
    servers: list[ApiServer] = []

    def start(lake: Path) -> ApiServer:
        env = clean_env(CSILLAG_API_API_KEY=KEY, CSILLAG_API_STATE_DIR=str(tmp_path / "state"),
                        CSILLAG_LAKEHOUSE_ROOT=str(lake))
        server = ApiServer(env, tmp_path / "server.log", factory="api.app:create_app_from_env")
        servers.append(server.start(timeout=120))
        return server

    yield start
    for server in servers:
        server.stop()


def chat(server: ApiServer, prompt: str) -> httpx.Response:
    return httpx.post(f"{server.url}/chat", headers={"X-API-Key": KEY}, json={"prompt": prompt, "user_id": "t"},
                      timeout=120)


# -- (a) csillag ask, python -m tools.ask and the imported module on the demo lakehouse ---------------------------


def test_issue_12_csillag_ask_answers_the_demo_question_from_the_real_tools(demo_lake: Path) -> None:
    done = run(str(CSILLAG), "ask", QUESTION, "--lakehouse", str(demo_lake))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(ANSWER), done.stdout
    assert "Sources:" in done.stdout
    # English books, English analyser: no Hungarian index was built for an English question.
    assert not list((demo_lake / "_index").glob("bm25-hu-*"))


def test_issue_12_python_m_tools_ask_needs_no_domain_either(demo_lake: Path) -> None:
    done = run(sys.executable, "-m", "tools.ask", QUESTION, "--lakehouse", str(demo_lake), "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(ANSWER), done.stdout


def test_issue_12_imported_module_from_settings_loads_the_book(demo_lake: Path) -> None:
    from settings.config import load_settings
    from tools.platform import ChatPlatform
    from tools.request import ChatRequest

    platform = ChatPlatform.from_settings(load_settings(lakehouse={"root": demo_lake}))
    assert platform.book is not None
    # A generic domain named after the lakehouse, in its documents' language — no hard-coded default domain.
    assert (platform.book.domain.name, platform.book.domain.language) == ("demo-lakehouse", "en")
    assert set(read(demo_lake, "documents").language) == {"en"}
    response = asyncio.run(platform.handle(ChatRequest(QUESTION, user_id="t")))
    assert response.content.startswith(ANSWER), response.content


# -- (b) the REST API as a real uvicorn process --------------------------------------------------------------------


def test_issue_12_api_chat_answers_the_demo_question_over_sse(demo_lake: Path, api: Any) -> None:
    server = api(demo_lake)
    response = chat(server, QUESTION)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "final" and "delta" in kinds, events
    streamed = "".join(data["text"] for kind, data in events if kind == "delta")
    final = events[-1][1]["choices"][0]["message"]["content"]
    assert final.startswith(ANSWER) and streamed == final


# -- (e) missing and half-built lakehouses -------------------------------------------------------------------------


def test_issue_12_csillag_ask_on_a_missing_lakehouse_is_one_line_and_exit_1(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    done = run(str(CSILLAG), "ask", QUESTION, "--lakehouse", str(missing))
    assert done.returncode == 1
    assert done.stderr.strip() == (f"csillag: lakehouse {missing} does not exist; ingest a corpus into it first: "
                                   f"csillag ingest PATH… --lakehouse {missing}")
    assert done.stdout == ""


def test_issue_12_half_built_lakehouse_names_the_missing_stages(half_lake: Path) -> None:
    for command, prefix in ((str(CSILLAG), "csillag: "), (sys.executable, "csillag: ")):  # one command, one line
        args = ["ask"] if command == str(CSILLAG) else ["-m", "tools.ask", "--quiet"]
        done = run(command, *args, QUESTION, "--lakehouse", str(half_lake))
        assert done.returncode == 1, done
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith(f"{prefix}lakehouse {half_lake} is half-built: {NOT_DONE}"), lines
        assert lines[0].endswith(f"csillag ingest PATH… --lakehouse {half_lake}")
        assert "no information" not in done.stdout


def test_issue_12_api_chat_is_503_until_the_lakehouse_is_built_then_answers(spark: Any, half_lake: Path,
                                                                           tmp_path: Path, api: Any) -> None:
    lake = tmp_path / "building"
    shutil.copytree(half_lake, lake)
    server = api(lake)  # the API starts anyway: ingestion runs and tasks do not need the book
    refused = chat(server, QUESTION)
    assert refused.status_code == 503
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.json()["detail"].startswith(f"chat is unavailable: lakehouse {lake} is half-built: {NOT_DONE}")
    ingest(spark, lake)  # the rest of the stages; the running server picks the book up at the next turn
    events = parse_sse(chat(server, QUESTION).text)
    assert events[-1][0] == "final", events
    assert events[-1][1]["choices"][0]["message"]["content"].startswith(ANSWER)


# -- War and Peace: its main characters, in English, through both surfaces --------------------------------------


@pytest.fixture(scope="module")
def pierre(war_and_peace_run: SimpleNamespace) -> SimpleNamespace:
    """Pierre's profile as the tables give it: canonical name, mentions, and his most frequent companion."""
    lake = war_and_peace_run.lake
    entities = read(lake, "entities").set_index("entity_id")
    me = entities[entities.canonical_name == "Pierre Bezukhov"]
    assert len(me) == 1, me
    pairs = read(lake, "cooccurrences")
    mine = pairs[(pairs.src_id == me.index[0]) | (pairs.dst_id == me.index[0])].copy()
    mine["other"] = mine.src_id.where(mine.dst_id == me.index[0], mine.dst_id)
    mine = mine[mine.other.map(entities.label) == "PERSON"].sort_values("count", ascending=False)
    return SimpleNamespace(lake=lake, mentions=int(me.mention_count.iloc[0]),
                           companion=str(entities.canonical_name[mine.other.iloc[0]]))


def _check_pierre(answer: str, pierre: SimpleNamespace) -> None:
    # How the book introduces him first (the sentence where his name is followed by a description), then his card
    introduced, card = answer.splitlines()[:2]
    assert introduced.startswith("Pierre Bezukhov — “") and introduced.endswith("” [1]"), answer
    assert card.startswith(f"Pierre Bezukhov (PERSON) is mentioned {pierre.mentions} times in "), answer
    assert "Most often together with: " in answer and pierre.companion in answer, answer


@pytest.mark.corpus
def test_issue_12_war_and_peace_main_character_through_csillag_ask(pierre: SimpleNamespace) -> None:
    done = run(str(CSILLAG), "ask", "Who is Pierre Bezukhov?", "--lakehouse", str(pierre.lake))
    assert done.returncode == 0, done.stderr[-2000:]
    _check_pierre(done.stdout, pierre)


@pytest.mark.corpus
def test_issue_12_war_and_peace_main_character_over_api_chat(pierre: SimpleNamespace, api: Any) -> None:
    events = parse_sse(chat(api(pierre.lake), "Who is Pierre Bezukhov?").text)
    assert events[-1][0] == "final", events
    _check_pierre(events[-1][1]["choices"][0]["message"]["content"], pierre)

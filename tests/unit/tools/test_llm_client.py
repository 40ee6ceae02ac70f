from __future__ import annotations

import asyncio
import json
import socket

import pytest

from settings.chat import LlmSettings
from tests.unit.tools.llm_test_server import FakeLlm
from tools.contracts import ContextConsumerTool, OrchestratorActivatedTool
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult
from tools.errors import LlmError
from tools.llm.client import LlmClient
from tools.llm.router import LexicalRouter, LlmRouter, ToolCandidate
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
from tools.streaming import ResponseEmitter

SECRET = "SECRET-INTERNAL-4242"


def settings(base_url: str, **kw) -> LlmSettings:
    return LlmSettings(base_url=base_url, api_key="sk-test", model="test-model", retry_backoff_s=0, **kw)


def collect(agen):
    async def go():
        return [piece async for piece in agen]

    return asyncio.run(go())


def test_llm_client_chat_sends_model_key_and_messages():
    with FakeLlm(lambda body: "Dobó István.") as llm:
        client = LlmClient(settings(llm.base_url))
        answer = asyncio.run(client.chat([{"role": "user", "content": "Who defended Eger?"}]))
    assert answer == "Dobó István."
    body = llm.requests[0]
    assert (body["model"], body["stream"], body["messages"]) == (
        "test-model", False, [{"role": "user", "content": "Who defended Eger?"}])
    assert llm.headers[0]["Authorization"] == "Bearer sk-test"


def test_llm_client_retries_retryable_statuses_then_succeeds():
    with FakeLlm(lambda body: "ok") as llm:
        llm.statuses = [503, 429]
        answer = asyncio.run(LlmClient(settings(llm.base_url, max_retries=2)).chat([{"role": "user", "content": "x"}]))
    assert answer == "ok"
    assert len(llm.requests) == 3


def test_llm_client_gives_up_after_max_retries_naming_the_status():
    with FakeLlm(lambda body: "ok") as llm:
        llm.statuses = [500, 500, 500]
        with pytest.raises(LlmError, match="HTTP 500") as info:
            asyncio.run(LlmClient(settings(llm.base_url, max_retries=1)).chat([{"role": "user", "content": "x"}]))
    assert info.value.status_code == 500
    assert len(llm.requests) == 2


def test_llm_client_does_not_retry_a_bad_request():
    with FakeLlm(lambda body: "ok") as llm:
        llm.statuses = [400]
        with pytest.raises(LlmError, match="HTTP 400"):
            asyncio.run(LlmClient(settings(llm.base_url, max_retries=3)).chat([{"role": "user", "content": "x"}]))
    assert len(llm.requests) == 1


def test_llm_client_streams_content_deltas():
    with FakeLlm(lambda body: "Eger held in 1552.") as llm:
        client = LlmClient(settings(llm.base_url))
        pieces = collect(client.stream_chat([{"role": "user", "content": "x"}]))
    assert pieces == ["Eger ", "held ", "in ", "1552."]
    assert llm.requests[0]["stream"] is True


def test_llm_client_stream_retries_before_the_first_chunk():
    with FakeLlm(lambda body: "fine") as llm:
        llm.statuses = [502]
        client = LlmClient(settings(llm.base_url, max_retries=1))
        pieces = collect(client.stream_chat([{"role": "user", "content": "x"}]))
    assert pieces == ["fine"]


def test_llm_client_unreachable_endpoint_raises_llm_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = LlmClient(settings(f"http://127.0.0.1:{port}/v1", max_retries=1, timeout_s=2))
    with pytest.raises(LlmError, match="unreachable"):
        asyncio.run(client.chat([{"role": "user", "content": "x"}]))


def test_llm_client_needs_a_base_url():
    with pytest.raises(LlmError, match="base_url"):
        LlmClient(LlmSettings())


def test_llm_router_parses_names_and_falls_back_when_the_llm_fails():
    candidates = [ToolCandidate("siege", "about the siege of Eger"), ToolCandidate("weather", "weather forecast")]
    with FakeLlm(lambda body: 'Sure: ["siege", "ghost"]') as llm:
        router = LlmRouter(LlmClient(settings(llm.base_url)), LexicalRouter(0.2))
        assert asyncio.run(router.select("anything", candidates)) == ["siege"]
        # R-CHAT-1: the LLM decides from the executable instructions.
        sent = llm.requests[0]["messages"][1]["content"]
        assert "- siege: about the siege of Eger\n- weather: weather forecast" in sent
        llm.statuses = [500]
        router = LlmRouter(LlmClient(settings(llm.base_url, max_retries=0)), LexicalRouter(0.2))
        assert asyncio.run(router.select("what is the weather forecast", candidates)) == ["weather"]


class Producer(OrchestratorActivatedTool):
    name = "producer"
    instruction = "finds characters of the novel"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        docs = TextAnswer.as_set("Dobó István was captain of Eger castle in 1552.") | InternalContextDocument.as_set(
            json.dumps({"token": SECRET}))
        return ToolExecutionResult.as_guaranteed_context(self.name, docs)


class Rag(ContextConsumerTool):
    name = "rag"
    instruction = "retrieves passages"

    def get_priority(self) -> int:
        return 2147483647

    def execute_with_prior_context(self, *args):
        return ToolExecutionResult.as_optional_context(self.name, TextAnswer.as_set("A passage."))


def test_r_int_2_what_the_llm_is_sent_contains_no_internal_context():
    def reply(body):
        if "route" in body["messages"][0]["content"]:
            return '["producer"]'
        return "Dobó István defended Eger [1]."

    registry = ToolRegistry(entry_point_group=None)
    registry.register(Producer)
    registry.register(Rag)
    with FakeLlm(reply) as llm:
        platform = ChatPlatform(registry, llm_settings=settings(llm.base_url))
        emitter = ResponseEmitter()
        response = asyncio.run(platform.handle(ChatRequest("Who defended Eger?"), emitter))
    assert len(llm.requests) == 2  # routing, then the streamed answer
    assert llm.requests[1]["stream"] is True
    for body in llm.requests:
        assert SECRET not in json.dumps(body, ensure_ascii=False)
    assert "Dobó István was captain of Eger castle in 1552." in llm.requests[1]["messages"][1]["content"]
    assert response.content == "Dobó István defended Eger [1]."
    assert response.model == "test-model"
    deltas = [e.text for e in emitter.events if e.kind == "delta"]
    assert deltas == ["Dobó ", "István ", "defended ", "Eger ", "[1]."]
    assert emitter.events[-1].kind == "done"


def test_llm_composer_outage_falls_back_to_quoting_the_context():
    registry = ToolRegistry(entry_point_group=None)
    registry.register(Producer)
    with FakeLlm(lambda body: '["producer"]') as llm:
        llm.stream_status = 500  # routing works, the streamed answer fails
        platform = ChatPlatform(registry, llm_settings=settings(llm.base_url, max_retries=0))
        response = asyncio.run(platform.handle(ChatRequest("Who was captain of Eger castle?")))
    assert [body["stream"] for body in llm.requests] == [False, True]
    assert "> Dobó István was captain of Eger castle in 1552. [1]" in response.content
    assert SECRET not in response.content

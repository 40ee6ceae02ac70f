from __future__ import annotations

import asyncio
import threading

import pytest

from tools.streaming import CollectingCallback, OpenAIResponse, ResponseEmitter


def test_response_emitter_streams_events_from_threads_to_a_subscriber():
    emitter = ResponseEmitter()
    emitter.progress("searching", tool_name="graph")

    async def consume():
        received = []

        async def produce():
            await asyncio.sleep(0.01)
            worker = threading.Thread(target=lambda: [emitter.emit_text("Eger "), emitter.emit_text("held.")])
            worker.start()
            await asyncio.to_thread(worker.join)
            emitter.complete()

        task = asyncio.create_task(produce())
        async for event in emitter.subscribe():
            received.append((event.kind, event.text))
        await task
        return received

    assert asyncio.run(consume()) == [("progress", "searching"), ("delta", "Eger "), ("delta", "held."), ("done", "")]
    assert emitter.text == "Eger held."
    emitter.emit_text("ignored after completion")
    assert emitter.text == "Eger held."


def test_collecting_callback_first_outcome_wins_and_is_passed_on():
    class Downstream:
        def __init__(self):
            self.calls = []

        def on_success(self, response):
            self.calls.append(("ok", response.content))

        def on_error(self, error):
            self.calls.append(("error", str(error)))

    downstream = Downstream()
    callback = CollectingCallback(downstream)
    callback.on_success(OpenAIResponse("first"))
    callback.on_error(RuntimeError("late"))
    assert downstream.calls == [("ok", "first")]
    assert callback.result().content == "first"


def test_collecting_callback_raises_the_error():
    callback = CollectingCallback()
    with pytest.raises(RuntimeError, match="not finished"):
        callback.result()
    callback.on_error(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        callback.result()


def test_openai_response_has_the_chat_completion_shape():
    payload = OpenAIResponse("Eger.", sources=["rag: p1"]).to_dict()
    assert payload["object"] == "chat.completion"
    assert payload["choices"][0]["message"] == {"role": "assistant", "content": "Eger."}
    assert payload["csillag"]["sources"] == ["rag: p1"]

"""Streaming to the user while a request runs, and the final callback that ends it.

Platform types rendered here: ``IResponseEmitter`` and ``FluxSink<TextGenerationResponse>`` (one class,
:class:`ResponseEmitter`: tools stream progress messages and partial answer text through it), ``OpenAIResponseVO``
(:class:`OpenAIResponse`) and ``CallbackWithErrorHandler<OpenAIResponseVO, Exception>`` (:class:`FinalCallback`).

Sync tools run in worker threads, so the emitter is thread-safe: events are appended under a lock and, when an
asyncio consumer is attached, handed to its loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

logger = logging.getLogger(__name__)

EventKind = Literal["progress", "delta", "done"]


@dataclass(frozen=True, slots=True)
class TextGenerationResponse:
    """One streamed event: a progress note from a tool, a piece of the answer text, or the end of the stream."""

    kind: EventKind
    text: str = ""
    tool_name: str | None = None


class ResponseEmitter:
    """Where tools stream progress and partial text (platform IResponseEmitter / FluxSink<TextGenerationResponse>).

    Every event is kept (``events``) so a non-streaming caller can read the transcript; ``subscribe()`` gives an
    async iterator for a streaming caller (the REST API's server-sent events).
    """

    def __init__(self, sink: Callable[[TextGenerationResponse], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._events: list[TextGenerationResponse] = []
        self._sink = sink
        self._queue: asyncio.Queue[TextGenerationResponse] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def next(self, event: TextGenerationResponse) -> None:
        """Emit one event (FluxSink.next); ignored after ``complete()``."""
        with self._lock:
            if self._closed:
                return
            self._events.append(event)
            if event.kind == "done":
                self._closed = True
            queue, loop = self._queue, self._loop
        if self._sink is not None:
            self._sink(event)
        if queue is not None and loop is not None:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                queue.put_nowait(event)
            elif not loop.is_closed():
                loop.call_soon_threadsafe(queue.put_nowait, event)

    def progress(self, message: str, *, tool_name: str | None = None) -> None:
        """Tell the user what is happening (e.g. "searching the graph")."""
        self.next(TextGenerationResponse("progress", message, tool_name))

    def emit_text(self, delta: str, *, tool_name: str | None = None) -> None:
        """Stream a piece of the answer text."""
        self.next(TextGenerationResponse("delta", delta, tool_name))

    def complete(self) -> None:
        """End the stream (FluxSink.complete)."""
        self.next(TextGenerationResponse("done"))

    @property
    def events(self) -> list[TextGenerationResponse]:
        """A copy of every event emitted so far."""
        with self._lock:
            return list(self._events)

    @property
    def text(self) -> str:
        """The answer text streamed so far (the ``delta`` events joined)."""
        return "".join(e.text for e in self.events if e.kind == "delta")

    async def subscribe(self) -> AsyncIterator[TextGenerationResponse]:
        """Yield the events already emitted, then new ones until ``complete()``; call it inside the consumer's loop."""
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._queue = asyncio.Queue()
            backlog = list(self._events)
            closed = self._closed
        for event in backlog:
            yield event
        if closed:
            return
        while True:
            event = await self._queue.get()
            yield event
            if event.kind == "done":
                return


ProgressEmitter = ResponseEmitter
"""The platform's ``FluxSink<TextGenerationResponse>`` — the same object in csillag."""


@dataclass(slots=True)
class OpenAIResponse:
    """An OpenAI-style chat-completion response (platform OpenAIResponseVO), plus csillag's request outcome.

    ``sources`` lists where the quoted context came from; ``clarification`` is set when the turn is a question back
    to the user (``{"session_id": ..., "questions": [{"tool": ..., "question": ..., "options": [...]}]}``).
    """

    content: str
    model: str = "csillag-offline"
    id: str = field(default_factory=lambda: "chatcmpl-" + uuid.uuid4().hex[:24])
    created: int = field(default_factory=lambda: int(time.time()))
    finish_reason: str = "stop"
    sources: list[str] = field(default_factory=list)
    clarification: dict[str, Any] | None = None
    tools_run: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The chat-completions JSON shape, with csillag's fields under ``csillag``."""
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.content},
                    "finish_reason": self.finish_reason,
                }
            ],
            "csillag": {
                "sources": list(self.sources),
                "clarification": self.clarification,
                "tools_run": list(self.tools_run),
                "failures": dict(self.failures),
            },
        }


@runtime_checkable
class FinalCallback(Protocol):
    """Gets the final answer or the error of a request (platform CallbackWithErrorHandler<OpenAIResponseVO, Exception>).

    Exactly one of the two methods is called once per request.
    """

    def on_success(self, response: OpenAIResponse) -> None:
        """The request finished with an answer (or a clarification question)."""

    def on_error(self, error: BaseException) -> None:
        """The request failed and nothing could answer."""


class CollectingCallback:
    """A FinalCallback that remembers the outcome and can be awaited; the first call wins, later ones are ignored.

    The orchestrator hands tools this object too, so a tool that answers the user itself (calls ``on_success``)
    ends the request and the orchestrator does not compose a second answer.
    """

    def __init__(self, downstream: FinalCallback | None = None) -> None:
        self._lock = threading.Lock()
        self._downstream = downstream
        self.response: OpenAIResponse | None = None
        self.error: BaseException | None = None
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        """Whether the outcome is known."""
        return self._done.is_set()

    def _settle(self, response: OpenAIResponse | None, error: BaseException | None) -> bool:
        with self._lock:
            if self._done.is_set():
                logger.debug("final callback already settled; ignoring a second outcome")
                return False
            self.response, self.error = response, error
            self._done.set()
        return True

    def on_success(self, response: OpenAIResponse) -> None:
        """Record the answer and pass it on."""
        if self._settle(response, None) and self._downstream is not None:
            self._downstream.on_success(response)

    def on_error(self, error: BaseException) -> None:
        """Record the error and pass it on."""
        if self._settle(None, error) and self._downstream is not None:
            self._downstream.on_error(error)

    def result(self) -> OpenAIResponse:
        """The answer, or raise the recorded error."""
        if not self.done:
            raise RuntimeError("the request has not finished")
        if self.error is not None:
            raise self.error
        assert self.response is not None
        return self.response

"""The chat endpoint: one turn through ``ChatPlatform.handle``, streamed as server-sent events.

Events, each ``event: <name>`` with a JSON ``data`` line:

* ``progress`` — ``{"text", "tool"}``: what a tool is doing;
* ``delta`` — ``{"text"}``: a piece of the answer text;
* ``clarification`` — ``{"session_id", "questions": [{"tool", "question", "options"}]}``: the platform asks back;
  answer with another turn carrying ``session_id`` and ``answer`` (docs/orchestrator.md, R-CLAR-1);
* ``final`` — the chat-completion response (``OpenAIResponse.to_dict()``), always the last event on success;
* ``error`` — a problem document (``status``, ``detail``) when nothing could answer; the last event then.

Sessions belong to the ``user_id`` that opened them: an unknown, used or foreign session id ends in ``error``. The
API has one key, so its caller is one tenant whose ``user_id`` is trusted; the secret is the session id
(``tools.clarification``, "Trust model").

``ChatService`` holds the platform, built with ``ChatPlatform.from_settings`` (the one way in): at start-up, or — when
the lakehouse was not ready then — at the first turn after it became ready. Until then a turn is a 503 problem naming
the lakehouse and what is missing, never an empty answer; the rest of the API (ingestion runs, tasks) keeps serving.
A turn also checks, at most every ``api.chat_reload_check_s`` seconds, whether the lakehouse still publishes the run
the platform was built from (``DomainServices.is_current``: one small read of the publish manifest), and rebuilds the
platform when it does not — so a run that removes documents, or a lakehouse rebuilt from another corpus, is served
from the next turn on, never the text it replaced; open clarification sessions carry over. If the rebuild fails (the
lakehouse deleted, a half-built one), turns are 503 problems until it succeeds: the old book is no longer published.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from api.problems import ProblemError
from graph.errors import GraphStoreError
from settings.errors import ConfigError
from tools.errors import ClarificationError, NoOrchestratorError, ToolError, UnknownToolError
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
from tools.streaming import ResponseEmitter

logger = logging.getLogger(__name__)


class ChatTurn(BaseModel):
    """One chat turn: a new prompt, or the answer to a clarification question (``session_id`` + ``answer``)."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1, max_length=20_000)
    user_id: str = Field(default="anonymous", min_length=1, max_length=200)
    domain: str | None = Field(default=None, max_length=200)
    systems: list[str] = Field(default_factory=list, max_length=50)
    user_lang: str = Field(default="en", min_length=2, max_length=16)
    important_words: list[str] = Field(default_factory=list, max_length=100)
    session_id: str | None = Field(default=None, max_length=200, description="The clarification session to resume.")
    answer: str | dict[str, str] | None = Field(default=None, description="The answer; default: the prompt.")

    def to_request(self) -> ChatRequest:
        """The platform's request object."""
        return ChatRequest(
            user_prompt=self.prompt, user_id=self.user_id, domain=self.domain, systems=tuple(self.systems),
            user_lang=self.user_lang, important_words=tuple(self.important_words), session_id=self.session_id,
            answer=self.answer,
        )


class ChatService:
    """The API's chat platform, built from the settings once the lakehouse is ready (503 problems until then)."""

    def __init__(self, settings: Any, registry: ToolRegistry | None = None) -> None:
        self._settings = settings
        self._registry = registry  # given: the caller's tools, nothing loaded from the lakehouse (tests)
        self._platform: ChatPlatform | None = None
        self._unavailable = "not loaded yet"
        self._lock = asyncio.Lock()
        self._check_every = settings.api.chat_reload_check_s
        self._checked_at = time.monotonic()

    @property
    def loaded(self) -> ChatPlatform | None:
        """The platform if it is built, else None."""
        return self._platform

    def load(self) -> ChatPlatform | None:
        """Build the platform now (blocking: it reads the lakehouse), taking over the open clarification sessions of
        the one it replaces; None, with the reason logged, if it cannot be (then none is served)."""
        previous = self._platform
        self._checked_at = time.monotonic()
        try:
            self._platform = ChatPlatform.from_settings(
                self._settings, self._registry, sessions=previous.sessions if previous is not None else None
            )
        except (ToolError, GraphStoreError, ConfigError) as exc:
            self._platform = None
            self._unavailable = str(exc)
            logger.warning("chat is unavailable until this is fixed: %s", exc)
            return None
        return self._platform

    def _due(self) -> bool:
        return time.monotonic() - self._checked_at >= self._check_every

    def _refresh(self) -> None:
        """Build the platform if there is none; rebuild it if its book is no longer what the lakehouse publishes
        (checked at most every ``api.chat_reload_check_s``). Blocking; called under the lock."""
        if self._platform is None:
            self.load()
            return
        if not self._due():  # another turn checked while this one waited for the lock
            return
        self._checked_at = time.monotonic()
        book = self._platform.book
        if book is not None and not book.is_current():
            logger.info("%s published another run: reloading the chat platform", book.domain.lakehouse.uri())
            self.load()

    async def platform(self) -> ChatPlatform:
        """The platform, built now if the lakehouse has become ready since the last try, or rebuilt if it has
        published another run since the platform was built.

        Raises:
            ProblemError: 503 naming the lakehouse and what is missing (or why it cannot be read).
        """
        if self._platform is None or self._due():
            async with self._lock:  # one load or check at a time; the others wait for its outcome
                await asyncio.to_thread(self._refresh)
        if self._platform is None:
            raise ProblemError(503, f"chat is unavailable: {self._unavailable}", headers={"Retry-After": "60"})
        return self._platform


def sse(event: str, data: Any) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _error_status(error: BaseException) -> int:
    if isinstance(error, ClarificationError):
        return 404
    if isinstance(error, ToolError):
        return 422 if isinstance(error, NoOrchestratorError | UnknownToolError) else 502
    return 500


async def stream_turn(platform: ChatPlatform, turn: ChatTurn) -> AsyncIterator[str]:
    """Run the turn and yield its events as they happen, ending with ``final`` or ``error``."""
    emitter = ResponseEmitter()
    job = asyncio.create_task(platform.handle(turn.to_request(), emitter))
    job.add_done_callback(lambda _: emitter.complete())  # the stream ends even if handle() raised early
    try:
        async for event in emitter.subscribe():
            if event.kind == "progress":
                yield sse("progress", {"text": event.text, "tool": event.tool_name})
            elif event.kind == "delta":
                yield sse("delta", {"text": event.text})
        try:
            response = await job
        except Exception as exc:  # noqa: BLE001 - the platform's failure becomes the stream's error event
            status = _error_status(exc)
            if status == 500:
                logger.error("chat turn failed", exc_info=exc)
            detail = str(exc) if status != 500 else "internal error; see the server log"
            yield sse("error", {"type": "about:blank", "title": type(exc).__name__, "status": status, "detail": detail})
            return
        if response.clarification is not None:
            yield sse("clarification", response.clarification)
        yield sse("final", response.to_dict())
    finally:
        if not job.done():  # the client went away: stop the work
            job.cancel()

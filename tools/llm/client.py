"""An OpenAI-compatible chat-completions client: OpenAI, vLLM, Ollama and llama.cpp servers speak this protocol.

Retries with exponential backoff on connection errors, timeouts, 429 and 5xx; a streamed call is retried only
before its first chunk arrived (after that the user has already seen text).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypedDict

import httpx

from settings.chat import LlmSettings
from tools.errors import LlmError

logger = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class ChatMessage(TypedDict):
    """One chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""

    role: str
    content: str


class LlmClient:
    """Calls ``POST {base_url}/chat/completions``; built from ``LlmSettings`` (base URL, key, model, timeouts)."""

    def __init__(self, settings: LlmSettings, transport: httpx.AsyncBaseTransport | None = None) -> None:
        if not settings.base_url:
            raise LlmError("LlmClient needs settings.llm.base_url (e.g. http://127.0.0.1:8000/v1); none is set")
        self.settings = settings
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._transport = transport

    @property
    def model(self) -> str:
        """The model name sent with every request."""
        return self.settings.model

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = self.settings.api_key.get_secret_value()
        if key:
            headers["Authorization"] = "Bearer " + key
        return headers

    def _body(self, messages: Sequence[ChatMessage], stream: bool, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": list(messages),
            "temperature": self.settings.temperature,
            "stream": stream,
        }
        if self.settings.max_tokens:
            body["max_tokens"] = self.settings.max_tokens
        body.update(extra)
        return body

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self.settings.timeout_s, transport=self._transport)

    async def _backoff(self, attempt: int, reason: str) -> None:
        delay = self.settings.retry_backoff_s * (2**attempt)
        logger.warning("LLM call failed (%s); retry %d/%d in %.2fs", reason, attempt + 1, self.settings.max_retries,
                       delay)
        await asyncio.sleep(delay)

    async def chat(self, messages: Sequence[ChatMessage], **extra: Any) -> str:
        """One completion; returns the assistant message's content.

        Raises:
            LlmError: after ``max_retries`` retries, or on a non-retryable status or an unreadable body.
        """
        body = self._body(messages, stream=False, **extra)
        attempt = 0
        async with self._client() as client:
            while True:
                try:
                    response = await client.post(self._url, json=body, headers=self._headers())
                except httpx.TransportError as exc:  # connection refused, reset, timeouts
                    if attempt >= self.settings.max_retries:
                        raise LlmError(f"LLM endpoint {self._url} unreachable: {exc!r}") from exc
                    await self._backoff(attempt, repr(exc))
                    attempt += 1
                    continue
                if response.status_code in RETRY_STATUS and attempt < self.settings.max_retries:
                    await self._backoff(attempt, f"HTTP {response.status_code}")
                    attempt += 1
                    continue
                return self._content(response)

    def _content(self, response: httpx.Response) -> str:
        if response.status_code != 200:
            raise LlmError(
                f"LLM endpoint {self._url} answered HTTP {response.status_code}: {response.text[:300]}",
                status_code=response.status_code,
            )
        try:
            return str(response.json()["choices"][0]["message"]["content"] or "")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LlmError(f"LLM endpoint {self._url} sent an unreadable completion: {response.text[:300]}") from exc

    async def stream_chat(self, messages: Sequence[ChatMessage], **extra: Any) -> AsyncIterator[str]:
        """Stream a completion (server-sent events); yields the content deltas as they arrive.

        Raises:
            LlmError: as ``chat``; a failure after the first chunk is raised, not retried.
        """
        body = self._body(messages, stream=True, **extra)
        attempt = 0
        async with self._client() as client:
            while True:
                started = False
                try:
                    async with client.stream("POST", self._url, json=body, headers=self._headers()) as response:
                        if response.status_code != 200:
                            text = (await response.aread()).decode("utf-8", "replace")
                            if response.status_code in RETRY_STATUS and attempt < self.settings.max_retries:
                                await self._backoff(attempt, f"HTTP {response.status_code}")
                                attempt += 1
                                continue
                            raise LlmError(f"LLM endpoint {self._url} answered HTTP {response.status_code}: "
                                           f"{text[:300]}", status_code=response.status_code)
                        async for line in response.aiter_lines():
                            delta = self._delta(line)
                            if delta is None:
                                return
                            if delta:
                                started = True
                                yield delta
                        return
                except httpx.TransportError as exc:
                    if started or attempt >= self.settings.max_retries:
                        raise LlmError(f"LLM stream from {self._url} failed: {exc!r}") from exc
                    await self._backoff(attempt, repr(exc))
                    attempt += 1

    def _delta(self, line: str) -> str | None:
        """The content of one SSE line; '' for keep-alives and role-only chunks, None at ``[DONE]``."""
        line = line.strip()
        if not line.startswith("data:"):
            return ""
        payload = line[5:].strip()
        if payload == "[DONE]":
            return None
        try:
            choice = json.loads(payload)["choices"][0]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LlmError(f"LLM stream from {self._url} sent an unreadable chunk: {payload[:200]}") from exc
        return str((choice.get("delta") or {}).get("content") or "")

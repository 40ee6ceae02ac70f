"""Shared helpers of the tools tests: a platform over a private registry, and routers that need no wording."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from settings.chat import OrchestratorSettings
from tools.llm.router import ToolCandidate
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
from tools.streaming import OpenAIResponse, ResponseEmitter


class SelectAll:
    """Routes every candidate; records what it was offered."""

    def __init__(self) -> None:
        self.offered: list[list[str]] = []

    async def select(self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()):
        self.offered.append([c.name for c in candidates])
        return [c.name for c in candidates]


class SelectNone(SelectAll):
    async def select(self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()):
        self.offered.append([c.name for c in candidates])
        return []


def make_platform(*classes: type, router: Any = None, **settings: Any) -> ChatPlatform:
    registry = ToolRegistry(entry_point_group=None)
    for cls in classes:
        registry.register(cls)
    return ChatPlatform(registry, orchestrator_settings=OrchestratorSettings(**settings), router=router or SelectAll())


def ask(platform: ChatPlatform, prompt: str = "question", emitter: ResponseEmitter | None = None,
        **fields: Any) -> OpenAIResponse:
    return asyncio.run(platform.handle(ChatRequest(prompt, **fields), emitter))

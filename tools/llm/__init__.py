"""The LLM side of the chat pipeline: an OpenAI-compatible client, routers and answer composers.

With no endpoint configured (``settings.llm.base_url`` unset) everything runs offline: the lexical router and the
extractive composer need no model: they stem with retrieval's Snowball analysers.
"""

from __future__ import annotations

from tools.llm.client import ChatMessage, LlmClient
from tools.llm.composer import AnswerComposer, ComposedAnswer, ExtractiveComposer, LlmComposer
from tools.llm.router import EmbeddingRouter, LexicalRouter, LlmRouter, Router, ToolCandidate

__all__ = [
    "AnswerComposer",
    "ChatMessage",
    "ComposedAnswer",
    "EmbeddingRouter",
    "ExtractiveComposer",
    "LexicalRouter",
    "LlmClient",
    "LlmComposer",
    "LlmRouter",
    "Router",
    "ToolCandidate",
]

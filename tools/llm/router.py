"""Routing: which tools' executable instructions fit the user's prompt (R-CHAT-1).

``LexicalRouter`` is the deterministic offline default (stem overlap between prompt and instruction).
``LlmRouter`` asks the chat-completions endpoint and falls back to the lexical router when the endpoint fails or
answers something unreadable. Both only see the candidates they are given: eligibility (R-CHAT-2) is checked before.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tools.errors import LlmError
from tools.llm.client import ChatMessage, LlmClient
from tools.llm.text import overlap_score, stems

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToolCandidate:
    """A tool as routing sees it: its name and executable instruction."""

    name: str
    instruction: str


@runtime_checkable
class Router(Protocol):
    """Chooses the candidates that fit a prompt."""

    async def select(
        self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()
    ) -> list[str]:
        """Names of the chosen candidates, in the candidates' order."""
        ...


class LexicalRouter:
    """Offline router: a candidate is chosen when the stem overlap of prompt and instruction reaches ``min_score``.

    Important words count twice, so the platform's keyword extraction can steer routing.
    """

    def __init__(self, min_score: float = 0.15) -> None:
        self.min_score = min_score
        self._instruction_stems: dict[str, set[str]] = {}

    def scores(
        self, prompt: str, candidates: Sequence[ToolCandidate], important_words: Sequence[str] = ()
    ) -> dict[str, float]:
        """The score of every candidate (0..1)."""
        query = stems(prompt)
        boost = stems(" ".join(important_words))
        result: dict[str, float] = {}
        for candidate in candidates:
            target = self._instruction_stems.get(candidate.instruction)
            if target is None:
                target = self._instruction_stems[candidate.instruction] = stems(candidate.instruction)
            score = overlap_score(query | boost, target)
            if boost & target:
                score = min(1.0, score * 2)
            result[candidate.name] = score
        return result

    async def select(
        self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()
    ) -> list[str]:
        """Names of the candidates scoring at least ``min_score``."""
        scores = self.scores(prompt, candidates, important_words)
        return [c.name for c in candidates if scores[c.name] >= self.min_score]


class LlmRouter:
    """Routes with the LLM: it gets the numbered tools and answers a JSON list of tool names."""

    SYSTEM = (
        "You route a user's request to tools. Each tool has a name and an instruction describing when to use it. "
        'Answer ONLY with a JSON array of the names of the tools that should run, e.g. ["a", "b"], or [] if none fits.'
    )

    def __init__(self, client: LlmClient, fallback: Router | None = None) -> None:
        self.client = client
        self.fallback = fallback or LexicalRouter()

    async def select(
        self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()
    ) -> list[str]:
        """Names chosen by the LLM; the fallback router's choice when the LLM fails."""
        if not candidates:
            return []
        tools = "\n".join(f"- {c.name}: {c.instruction}" for c in candidates)
        messages: list[ChatMessage] = [
            {"role": "system", "content": self.SYSTEM},
            {"role": "user", "content": f"Tools:\n{tools}\n\nRequest: {prompt}"},
        ]
        try:
            answer = await self.client.chat(messages)
            chosen = self._parse(answer)
        except LlmError as exc:
            logger.warning("LLM routing failed (%s); using the offline router", exc)
            return await self.fallback.select(prompt, candidates, important_words=important_words)
        known = {c.name for c in candidates}
        unknown = chosen - known
        if unknown:
            logger.warning("LLM routing named unknown tools %s; ignored", sorted(unknown))
        return [c.name for c in candidates if c.name in chosen]

    @staticmethod
    def _parse(answer: str) -> set[str]:
        match = re.search(r"\[.*?\]", answer, re.DOTALL)
        if match is None:
            raise LlmError(f"routing answer holds no JSON array: {answer[:200]!r}")
        try:
            names = json.loads(match.group(0))
        except ValueError as exc:
            raise LlmError(f"routing answer is not a JSON array: {answer[:200]!r}") from exc
        return {str(n) for n in names}

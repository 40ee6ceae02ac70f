"""Routing: which tools' executable instructions fit the user's prompt (R-CHAT-1).

``LexicalRouter`` is the deterministic offline default (overlap of the Snowball stems of prompt and instruction);
``EmbeddingRouter`` adds embedding similarity when an embedding model is installed (``llm.embedding_model``).
``LlmRouter`` asks the chat-completions endpoint and falls back to the lexical router when the endpoint fails or
answers something unreadable. Both only see the candidates they are given: eligibility (R-CHAT-2) is checked before.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from tools.errors import ConfigError, LlmError
from tools.llm.client import ChatMessage, LlmClient
from tools.retrieval.analyzer import MultilingualStems, overlap_score

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

    Stems come from retrieval's analysers in each of ``languages`` (``MultilingualStems``); a candidate's score is
    its best over the languages. Important words count twice, so the platform's keyword extraction can steer routing.
    """

    def __init__(self, min_score: float = 0.15, languages: Sequence[str] = ("en", "hu")) -> None:
        self.min_score = min_score
        self._stems = MultilingualStems(languages)
        self._instruction_stems: dict[str, tuple[frozenset[str], ...]] = {}

    def scores(
        self, prompt: str, candidates: Sequence[ToolCandidate], important_words: Sequence[str] = ()
    ) -> dict[str, float]:
        """The score of every candidate (0..1)."""
        query = self._stems(prompt)
        boost = self._stems(" ".join(important_words))
        result: dict[str, float] = {}
        for candidate in candidates:
            targets = self._instruction_stems.get(candidate.instruction)
            if targets is None:
                targets = self._instruction_stems[candidate.instruction] = self._stems(candidate.instruction)
            best = 0.0
            for stems, boosted, target in zip(query, boost, targets, strict=True):
                score = overlap_score(stems | boosted, target)
                best = max(best, min(1.0, score * 2) if boosted & target else score)
            result[candidate.name] = best
        return result

    async def select(
        self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()
    ) -> list[str]:
        """Names of the candidates scoring at least ``min_score``."""
        scores = self.scores(prompt, candidates, important_words)
        return [c.name for c in candidates if scores[c.name] >= self.min_score]


Embed = Callable[[list[str]], Sequence[Sequence[float]]]
"""Texts → one vector per text (e.g. a sentence-transformers model's ``encode``)."""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class EmbeddingRouter:
    """Offline router by embedding similarity of prompt and instruction, combined with the lexical score.

    A candidate is chosen when its cosine similarity reaches ``min_similarity`` or its lexical score reaches the
    lexical router's threshold, so exact keyword hits are never lost. Instruction vectors are computed once.
    """

    def __init__(self, embed: Embed, min_similarity: float = 0.5, lexical: LexicalRouter | None = None) -> None:
        self.embed = embed
        self.min_similarity = min_similarity
        self.lexical = lexical or LexicalRouter()
        self._vectors: dict[str, Sequence[float]] = {}

    @classmethod
    def from_sentence_transformers(cls, model: str, **kwargs: Any) -> EmbeddingRouter:
        """Build on an installed sentence-transformers model (name or path).

        Raises:
            ConfigError: sentence-transformers is not installed (says what to install).
        """
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                f"llm.embedding_model={model!r} needs sentence-transformers: pip install sentence-transformers",
                field="llm.embedding_model",
            ) from exc
        encoder = SentenceTransformer(model)
        return cls(lambda texts: encoder.encode(texts).tolist(), **kwargs)

    async def select(
        self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words: Sequence[str] = ()
    ) -> list[str]:
        """Names of the candidates similar enough to the prompt, by embedding or by words."""
        if not candidates:
            return []
        missing = [c.instruction for c in candidates if c.instruction not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.embed(missing), strict=True):
                self._vectors[text] = vector
        query = self.embed([prompt])[0]
        lexical = self.lexical.scores(prompt, candidates, important_words)
        return [
            c.name
            for c in candidates
            if _cosine(query, self._vectors[c.instruction]) >= self.min_similarity
            or lexical[c.name] >= self.lexical.min_score
        ]


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

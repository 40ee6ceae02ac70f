"""Composing the final answer from the public contexts (internal documents are already stripped, R-INT-2).

``ExtractiveComposer`` (offline default) quotes the sentences that best match the prompt and cites their sources;
``LlmComposer`` asks the chat-completions endpoint and streams its answer into the response emitter.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from tools.documents import PromptAndContext, UniqueTextDocument
from tools.llm.client import ChatMessage, LlmClient
from tools.llm.text import sentences
from tools.retrieval.analyzer import MultilingualStems
from tools.streaming import ResponseEmitter

logger = logging.getLogger(__name__)

NOTHING_FOUND = {
    "en": "I found no information about this in the knowledge base.",
    "hu": "Erről nem találtam információt a tudásbázisban.",
}
INTRO = {"en": "From the sources:", "hu": "A források alapján:"}


@dataclass(frozen=True, slots=True)
class ComposedAnswer:
    """The final answer text, the sources it cites and the model that wrote it."""

    text: str
    sources: list[str] = field(default_factory=list)
    model: str = "csillag-extractive"


@runtime_checkable
class AnswerComposer(Protocol):
    """Writes the final answer from public contexts, streaming text into ``emitter``."""

    async def compose(
        self, prompt: str, contexts: Sequence[PromptAndContext], *, user_lang: str, emitter: ResponseEmitter
    ) -> ComposedAnswer:
        """Compose and stream the answer."""
        ...


def _source_label(context: PromptAndContext, doc: UniqueTextDocument) -> str:
    return f"{context.tool_name}: {doc.source}" if doc.source else context.tool_name


def numbered_sources(contexts: Sequence[PromptAndContext]) -> list[tuple[str, UniqueTextDocument]]:
    """Every public document with its source label, in context order, without repeats."""
    seen: set[UniqueTextDocument] = set()
    result: list[tuple[str, UniqueTextDocument]] = []
    for context in contexts:
        for doc in context.documents:
            if doc.is_internal or doc in seen:
                continue
            seen.add(doc)
            result.append((_source_label(context, doc), doc))
    return result


class ExtractiveComposer:
    """Quotes the ``max_quotes`` sentences that share most stems with the prompt, each cited as ``[n]``."""

    def __init__(self, max_quotes: int = 5) -> None:
        self.max_quotes = max_quotes
        self._stems = MultilingualStems()

    async def compose(
        self, prompt: str, contexts: Sequence[PromptAndContext], *, user_lang: str, emitter: ResponseEmitter
    ) -> ComposedAnswer:
        """Pick, quote and cite; with no context, say so in the user's language."""
        lang = user_lang if user_lang in NOTHING_FOUND else "en"
        docs = numbered_sources(contexts)
        if not docs:
            text = NOTHING_FOUND[lang]
            emitter.emit_text(text)
            return ComposedAnswer(text)
        query = self._stems(prompt)
        ranked: list[tuple[float, int, int, str]] = []  # (-score, doc index, sentence index, sentence)
        for d_index, (_, doc) in enumerate(docs):
            for s_index, sentence in enumerate(sentences(doc.text)):
                ranked.append((-self._stems.similarity(query, self._stems(sentence)), d_index, s_index, sentence))
        ranked.sort()
        chosen = sorted(ranked[: self.max_quotes], key=lambda r: (r[1], r[2]))
        cited = sorted({r[1] for r in chosen})
        number = {d_index: n + 1 for n, d_index in enumerate(cited)}
        lines = [INTRO[lang]]
        lines.extend(f"> {sentence} [{number[d_index]}]" for _, d_index, _, sentence in chosen)
        sources = [docs[d_index][0] for d_index in cited]
        lines.append("")
        lines.extend(f"[{n + 1}] {label}" for n, label in enumerate(sources))
        text = "\n".join(lines)
        for line in text.splitlines(keepends=True):
            emitter.emit_text(line)
        return ComposedAnswer(text, sources)


class LlmComposer:
    """Asks the LLM to answer from the numbered contexts, streaming the answer when ``stream`` is on."""

    SYSTEM = (
        "Answer the user's question using only the numbered context passages. Cite passages as [n]. If the context "
        "does not contain the answer, say so. Answer in the user's language ({lang})."
    )

    def __init__(self, client: LlmClient, *, stream: bool = True) -> None:
        self.client = client
        self.stream = stream

    def messages(self, prompt: str, contexts: Sequence[PromptAndContext], user_lang: str) -> list[ChatMessage]:
        """The chat messages sent for ``prompt`` with the public ``contexts``."""
        docs = numbered_sources(contexts)
        context_text = "\n\n".join(f"[{n + 1}] ({label}) {doc.text}" for n, (label, doc) in enumerate(docs))
        return [
            {"role": "system", "content": self.SYSTEM.format(lang=user_lang)},
            {"role": "user", "content": f"Context:\n{context_text or '(none)'}\n\nQuestion: {prompt}"},
        ]

    async def compose(
        self, prompt: str, contexts: Sequence[PromptAndContext], *, user_lang: str, emitter: ResponseEmitter
    ) -> ComposedAnswer:
        """Call the LLM (streamed or not) and return its answer with the cited sources' labels."""
        messages = self.messages(prompt, contexts, user_lang)
        sources = [label for label, _ in numbered_sources(contexts)]
        if not self.stream:
            text = await self.client.chat(messages)
            emitter.emit_text(text)
            return ComposedAnswer(text, sources, self.client.model)
        parts: list[str] = []
        async for delta in self.client.stream_chat(messages):
            parts.append(delta)
            emitter.emit_text(delta)
        return ComposedAnswer("".join(parts), sources, self.client.model)

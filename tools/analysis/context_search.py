"""``AbstractContextSearchTool``: passages for the entities earlier tools resolved, as optional context.

A ``ContextConsumerTool`` (R-CC-1..4) of priority 10: it reads the ``InternalContextDocument``s holding
``ResolvedEntity`` payloads that the entity tool left in the buffer (R-INT-1, R-INT-3), adds their names to the
question and searches the chunks. Its passages are *optional* context (cited TextAnswers): they feed an LLM composer
without making the RAG fallback unnecessary.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import ValidationError

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import ResolvedEntity, excerpt
from tools.analysis.rag import PASSAGE_CHARS
from tools.contracts import ContextConsumerTool, ToolContexts
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

PASSAGES = 3


def resolved_entities(contexts: ToolContexts) -> list[ResolvedEntity]:
    """Every ``ResolvedEntity`` in a context snapshot, in buffer order, without repeats; a missing key is normal."""
    found: dict[str, ResolvedEntity] = {}
    for key in sorted(contexts):
        for context in contexts[key]:
            for doc in context.documents:
                if not isinstance(doc, InternalContextDocument) or doc.source != "resolved_entity":
                    continue
                try:
                    entity = doc.to_model(ResolvedEntity)
                except ValidationError:
                    logger.warning("ignoring a malformed resolved entity in %s", key)
                    continue
                found.setdefault(entity.entity_id, entity)
    return list(found.values())


class AbstractContextSearchTool(AnalysisCollaborators, ContextConsumerTool, abstract=True):
    """Searches passages about what earlier tools resolved (priority 10). Wire ``set_retriever`` in ``init()``."""

    def get_priority(self) -> int:
        """10: after the entity, page and summary tools whose output it reads."""
        return 10

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Always suitable: passages never hurt an LLM composer, and the search costs milliseconds."""
        if self.inactive:
            return False
        return True

    def execute_with_prior_context(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        prior_tool_contexts: ToolContexts,
        response_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Search the question plus the resolved entities' names; optional, cited context."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        entities = resolved_entities(prior_tool_contexts)
        query = " ".join([user_prompt, *important_words, *(e.canonical_name for e in entities)])
        hits = self.retriever.search(query, k=PASSAGES)
        if not hits:
            return ToolExecutionResult.nothing(self.name)
        docs = [TextAnswer(excerpt(h.chunk.text, PASSAGE_CHARS), source=h.citation) for h in hits]
        return ToolExecutionResult.as_optional_context(self.name, docs)

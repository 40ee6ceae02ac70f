"""``AbstractRAGRetrievalTool``: BM25 retrieval over the chunks, the fallback of priority ``PRIORITY_MAX``.

R-PRIO-5: it runs last and only when no earlier tool produced usable context; it receives a snapshot without
internal documents (R-INT-2). Its passages are guaranteed context, cited by document, unit and chunk, from which the
composer (extractive offline, the LLM otherwise) writes the answer in the user's language.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import excerpt
from tools.contracts import PRIORITY_MAX, OrchestratorActivatedTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

PASSAGES = 5
PASSAGE_CHARS = 600


class AbstractRAGRetrievalTool(AnalysisCollaborators, OrchestratorActivatedTool, abstract=True):
    """Retrieval-augmented fallback over the chunk index (platform ``AbstractRAGRetrievalTool``; R-PRIO-5).

    Wire ``set_retriever`` in ``init()``.
    """

    passages: int = PASSAGES

    def get_priority(self) -> int:
        """``PRIORITY_MAX``: always last, only as the fallback."""
        return PRIORITY_MAX

    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """The best passages for the question (and its important words), as guaranteed, cited context."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        hits = self.retriever.search(" ".join([user_prompt, *important_words]), k=self.passages)
        if not hits:
            return ToolExecutionResult.nothing(self.name)
        docs = [TextAnswer(excerpt(h.chunk.text, PASSAGE_CHARS), source=h.citation) for h in hits]
        return ToolExecutionResult.as_guaranteed_context(self.name, docs)

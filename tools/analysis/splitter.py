"""``AbstractQuestionSplitter``: a question that asks two things is two steps of one plan (R-AC-1).

"Who is Natasha's mother and where does she live?" — an ``AgentCoordinator`` whose ``decompose`` returns one step per
part (``tools.analysis.question.split_question``), each for the question-answering tool, in order: the orchestrator
runs them one after the other under the task numbers ``1.1``, ``1.2`` …, so each step sees the earlier steps'
contexts in its snapshot (R-CC-1) — which is how "she" in the second part becomes the mother the first part found.
The answers come back in step order. A single question gives no steps: the tools of the priority groups answer it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import ClassVar

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.question import split_question
from tools.contracts import AgentCoordinator, SubTask, ToolContexts

logger = logging.getLogger(__name__)


class AbstractQuestionSplitter(AnalysisCollaborators, AgentCoordinator, abstract=True):
    """Splits a multi-part question into steps for ``answering_tool`` (priority 1)."""

    answering_tool: ClassVar[str] = "question_answering"

    def get_priority(self) -> int:
        """1: after clarification, before the answering tools' own groups."""
        return 1

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Suitable when the question asks two things or more (and the tool is wired to a book, if it can be)."""
        return not self.inactive and len(split_question(prompt, user_lang)) > 1

    def decompose(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        prior_tool_contexts: ToolContexts,
    ) -> Sequence[SubTask]:
        """One step per part, in order; none for a single question."""
        parts = split_question(user_prompt, user_lang)
        if len(parts) < 2:
            return ()
        logger.debug("question split into %d parts: %s", len(parts), parts)
        return tuple(SubTask(self.answering_tool, part) for part in parts)

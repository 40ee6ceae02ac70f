"""``AbstractSummaryTool``: what the book is about — its size, its main characters and their strongest ties.

An overview built from the graph alone (no LLM needed): the most mentioned persons, the strongest co-occurrences and
the number of units. A question about one chapter is the page tool's, so this tool steps aside when the question
names a chapter.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import phrase, with_sources
from tools.contracts import OrchestratorActivatedTool
from tools.documents import ToolExecutionResult
from tools.retrieval.units import parse_reference
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

SUMMARY_WORDS = ("summar", "overview", "about the book", "what is the book about", "main character", "plot",
                 "összefoglal", "miről szól", "áttekint", "főszereplő", "cselekmény")
MAIN_CHARACTERS = 5
STRONGEST = 3


class AbstractSummaryTool(AnalysisCollaborators, OrchestratorActivatedTool, abstract=True):
    """Summarises the domain's books from the graph (priority 5: after clarification and page analysis).

    Wire ``set_graph_store``, ``set_unit_catalog`` and ``set_domain_settings`` in ``init()``.
    """

    def get_priority(self) -> int:
        """5: after the priority-0 tools, before context search."""
        return 5

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Suitable for "summarise", "what is it about", "main characters" — unless a chapter is named."""
        if self.inactive:
            return False
        text = prompt.casefold()
        return parse_reference(prompt) is None and any(word in text for word in SUMMARY_WORDS)

    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """The overview, when the question asks for one."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        if not self.matches_prompt(user_prompt, user_lang):
            return ToolExecutionResult.nothing(self.name)
        lang = self.answer_language(user_lang)
        graph = self.graph
        people = graph.top_entities(by="mentions", label="PERSON", limit=MAIN_CHARACTERS) or graph.top_entities(
            by="mentions", limit=MAIN_CHARACTERS)
        title = self._domain_settings.title if self._domain_settings else self.get_domain() or ""
        units = [u for u in self.units.units if u.unit_kind == "chapter"] or self.units.units
        lines = [phrase(lang, "overview", title=title, units=len(units), entities=graph.stats().entities,
                        names=", ".join(f"{e.canonical_name} ({e.mention_count})" for e in people))]
        pairs = self.strongest_pairs(people)
        if pairs:
            lines.append(phrase(lang, "strongest", pairs=", ".join(
                f"{r.source.canonical_name} – {r.target.canonical_name} ({r.count})" for r in pairs)))
        return ToolExecutionResult.as_direct_answer(self.name, with_sources(lang, lines, []))

    def strongest_pairs(self, people: Sequence[Any]) -> list[Any]:
        """The main characters' ties by co-occurrence count (each pair once), strongest first."""
        seen: dict[frozenset[str], Any] = {}
        for person in people:
            for relation in self.graph.neighbours(person.entity_id, limit=max(1, self.graph.stats().entities)):
                if relation.target.label == person.label:
                    seen.setdefault(frozenset((relation.source.entity_id, relation.target.entity_id)), relation)
        ranked = sorted(seen.values(), key=lambda r: (-r.count, -r.weight, r.source.entity_id, r.target.entity_id))
        return ranked[:STRONGEST]

"""``AbstractSummaryTool``: what the book is about — its title, size, main characters and places, their strongest
ties, and a passage from each part of the book where most of them meet.

An overview built from the graph and the chunks alone (no LLM needed; with one, the same lines are its context). The
key passages are extractive: the book is cut into ``KEY_PASSAGES`` equal stretches and each gives the passage naming
the most of the main characters and places. A question about one chapter is the page tool's, so this tool steps
aside when the question names a chapter.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import NameGroups, excerpt, phrase, with_sources
from tools.analysis.question import asks_for_a_summary
from tools.contracts import OrchestratorActivatedTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.retrieval.units import parse_reference
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

SUMMARY_WORDS = ("summar", "overview", "about the book", "what is the book about", "main character", "plot",
                 "összefoglal", "miről szól", "áttekint", "főszereplő", "cselekmény")
MAIN_CHARACTERS = 5
MAIN_PLACES = 5
STRONGEST = 3
KEY_PASSAGES = 5
KEY_PASSAGE_CHARS = 500
PLACE_LABELS = ("GPE", "LOC", "FAC")


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
        if parse_reference(prompt) is not None:
            return False
        return any(word in text for word in SUMMARY_WORDS) or asks_for_a_summary(prompt, user_lang, self.book_title())

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
        places = [p for label in PLACE_LABELS for p in graph.top_entities(by="mentions", label=label,
                                                                          limit=MAIN_PLACES)]
        places = sorted(places, key=lambda e: -e.mention_count)[:MAIN_PLACES]
        units = [u for u in self.units.units if u.unit_kind == "chapter"] or self.units.units
        lines = [phrase(lang, "overview", title=self.book_title(), units=len(units), entities=graph.stats().entities,
                        names=", ".join(f"{e.canonical_name} ({e.mention_count})" for e in people))]
        if places:
            lines.append(phrase(lang, "places", names=", ".join(e.canonical_name for e in places)))
        pairs = self.strongest_pairs(people)
        if pairs:
            lines.append(phrase(lang, "strongest", pairs=", ".join(
                f"{r.source.canonical_name} – {r.target.canonical_name} ({r.count})" for r in pairs)))
        docs = self.key_passages([[e.canonical_name, *e.aliases] for e in [*people, *places]])
        if self.assistant is not None:
            return ToolExecutionResult.as_guaranteed_context(self.name, [TextAnswer("\n".join(lines)), *docs])
        return ToolExecutionResult.as_direct_answer(self.name, with_sources(lang, lines, docs), docs)

    def key_passages(self, names: list[list[str]]) -> list[TextAnswer]:
        """From each of ``KEY_PASSAGES`` equal stretches of the book, the passage naming the most of ``names`` (one
        group per entity; ties: the earlier passage), cited."""
        chunks = sorted(self.retriever.chunks, key=lambda c: (c.doc_id, c.start))
        if not chunks or not names:
            return []
        size = -(-len(chunks) // KEY_PASSAGES)
        groups = NameGroups(names)  # one pattern for the whole book: a long novel has thousands of chunks
        docs = []
        for first in range(0, len(chunks), size):
            stretch = chunks[first:first + size]
            best = max(stretch, key=lambda c: (len(groups.named_in(c.text)), -c.start))
            if groups.named_in(best.text):
                docs.append(TextAnswer(excerpt(best.text, KEY_PASSAGE_CHARS, names), source=best.citation))
        return docs

    def strongest_pairs(self, people: Sequence[Any]) -> list[Any]:
        """The main characters' ties by co-occurrence count (each pair once), strongest first."""
        seen: dict[frozenset[str], Any] = {}
        for person in people:
            for relation in self.graph.neighbours(person.entity_id, limit=max(1, self.graph.stats().entities)):
                if relation.target.label == person.label:
                    seen.setdefault(frozenset((relation.source.entity_id, relation.target.entity_id)), relation)
        ranked = sorted(seen.values(), key=lambda r: (-r.count, -r.weight, r.source.entity_id, r.target.entity_id))
        return ranked[:STRONGEST]

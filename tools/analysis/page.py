"""``AbstractPageAnalysisTool``: the unit the user points at — "chapter 12", "12. fejezet", "the chapter where the
light fails" — its people and passages.

Priority 0 (R-PRIO-2): a ``ClarifiableTool``, because chapter numbers restart in every part, so "chapter 3" of War
and Peace is fifteen chapters; the tool then asks which part is meant (R-CLAR-1), keeping the candidate units in the
question's ``state``. A chapter described by its events ("What happens in the chapter where Buck fights Spitz?") is
the unit of the passage that best matches the description. The answer lists who appears in the unit (resolved
mentions from ``mention_entities``), quotes its opening and the passages that best match the question, each cited by
document, unit and chunk.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import cite, excerpt, phrase, with_sources
from tools.analysis.question import asks_within_a_chapter
from tools.clarification import ClarificationSession
from tools.contracts import ClarifiableTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.retrieval.units import Unit, parse_reference, part_number, to_number
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

ENTITIES_LISTED = 8
PASSAGES = 2
# "the chapter where/in which/when …", "a fejezet, amelyben/ahol/amikor …": the rest describes the chapter's events
_DESCRIBED = re.compile(r"\b(chapter|part|fejezet\w*|rész\w*)\s*,?\s+(where|in which|when|that|amelyben|ahol|amikor)\s+"
                        r"(?P<events>.+)", re.IGNORECASE)


def described_unit(prompt: str) -> str | None:
    """The events that describe the chapter the question asks about, or None."""
    found = _DESCRIBED.search(prompt)
    return found.group("events").strip(" ?.!") if found else None


class AbstractPageAnalysisTool(AnalysisCollaborators, ClarifiableTool, abstract=True):
    """Analyses the unit a question points at (platform ``AbstractPageAnalysisTool``, priority 0; R-PRIO-2).

    Wire ``set_unit_catalog`` and ``set_retriever`` (required) and ``set_graph_store`` (entity names) in ``init()``.
    """

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Suitable when the question names a chapter (and asks for the chapter, not for something in it: see
        ``asks_within_a_chapter``) or describes one by its events."""
        if self.inactive:
            return False
        named = parse_reference(prompt) is not None and not asks_within_a_chapter(prompt, user_lang)
        return named or described_unit(prompt) is not None

    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Find the unit; ask when several parts have it; describe it. Nothing for a question asking for something
        in the chapter (the question answering tool answers it from the chapter's sentences)."""
        if self.inactive or asks_within_a_chapter(user_prompt, user_lang):
            return ToolExecutionResult.nothing(self.name)
        reference = parse_reference(user_prompt)
        lang = self.answer_language(user_lang)
        if reference is None:
            return self._described(user_prompt, lang)
        units = self.units.find(reference)
        if not units:
            return ToolExecutionResult.as_direct_answer(self.name, phrase(lang, "no_unit", chapter=reference.chapter))
        if len(units) > 1:
            labels = [u.label for u in units]
            question = phrase(lang, "which_unit", chapter=reference.chapter) + "\n" + "\n".join(
                f"{n}. {label}" for n, label in enumerate(labels, start=1))
            return ToolExecutionResult.as_clarification(
                self.name, question, options=labels,
                state={"unit_ids": [u.unit_id for u in units], "lang": lang, "prompt": user_prompt},
            )
        return self.describe(units[0], user_prompt, lang)

    def _described(self, prompt: str, lang: str) -> ToolExecutionResult:
        """The unit of the passage that best matches the events the question describes, described."""
        events = described_unit(prompt)
        hits = self.retriever.search(events, k=1) if events else []
        if not hits:
            return ToolExecutionResult.nothing(self.name)
        by_id = {u.unit_id: u for u in self.units.units}
        unit = by_id.get(hits[0].chunk.unit_id)
        return self.describe(unit, prompt, lang) if unit is not None else ToolExecutionResult.nothing(self.name)

    def execute_with_clarification(
        self,
        session: ClarificationSession,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Describe the unit the user chose (by its number in the list, its part's number, or its title)."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        by_id = {u.unit_id: u for u in self.units.units}
        units = [by_id[i] for i in session.state["unit_ids"] if i in by_id]
        chosen = choose_unit(session.answer, units)
        lang = session.state["lang"]
        if chosen is None:
            labels = [u.label for u in units]
            question = session.question
            return ToolExecutionResult.as_clarification(self.name, question, state=dict(session.state), options=labels)
        return self.describe(chosen, session.state["prompt"], lang)

    def describe(self, unit: Unit, prompt: str, lang: str) -> ToolExecutionResult:
        """Who appears in ``unit``, its opening and the passages matching the question, cited."""
        lines = [phrase(lang, "unit_head", unit=unit.label, chunks=len(unit.chunk_ids))]
        counts = self.units.entity_counts(unit)
        names = []
        for entity_id, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:ENTITIES_LISTED]:
            names.append(f"{self._entity_name(entity_id)} ({count})")
        lines.append(phrase(lang, "unit_entities", names=", ".join(names)) if names else phrase(lang, "unit_none"))
        retriever = self.retriever
        opening = retriever.get(unit.chunk_ids[0])
        lines.append(phrase(lang, "unit_opening", text=excerpt(opening.text, 200)))
        chunk_ids = [unit.chunk_ids[0]]
        query = " ".join([prompt, *(self._entity_name(e) for e, _ in counts.most_common(3))])
        chunk_ids += [h.chunk.chunk_id for h in retriever.search(query, k=PASSAGES + 1, unit_id=unit.unit_id)]
        chosen = list(dict.fromkeys(chunk_ids))[: PASSAGES + 1]
        docs = [TextAnswer(excerpt(retriever.get(c).text), source=cite(retriever, c)) for c in chosen]
        return ToolExecutionResult.as_direct_answer(self.name, with_sources(lang, lines, docs), docs)

    def _entity_name(self, entity_id: str) -> str:
        from graph.errors import EntityNotFoundError

        try:
            return str(self.graph.get_entity(entity_id).canonical_name)
        except EntityNotFoundError:  # an entity below the graph's thresholds: keep its id visible
            return entity_id


def choose_unit(answer: str, units: Sequence[Any]) -> Any | None:
    """The unit picked by list number ("2"), by part number ("book two", "második rész") or by label words."""
    text = answer.strip().rstrip(".").casefold()
    if text.isdigit() and 1 <= int(text) <= len(units):
        return units[int(text) - 1]
    tokens = re.findall(r"[^\W_]+", text)
    for token in tokens:
        if len(tokens) > 1 and len(token) == 1 and token.isalpha():
            continue  # "I mean book two": a lone letter in a sentence is a word, not the roman numeral one
        number = to_number(token)
        if number is None:
            continue
        fitting = [u for u in units if part_number(u.part_title) == number]
        if len(fitting) == 1:
            return fitting[0]
    fitting = [u for u in units if text and text in u.label.casefold()]
    return fitting[0] if len(fitting) == 1 else None

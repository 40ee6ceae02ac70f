"""``AbstractEntityAnalysisTool``: who is X, X's strongest relations, how X and Y are connected, X unit by unit.

A ``ClarifiableTool`` (priority 0, R-PRIO-2, R-CLAR-1): when a name in the question fits several entities equally
well ("Rostov", an ambiguous "Dobó") it asks which one, keeping the names it already resolved in the question's
``state`` — tools are singletons and must not remember requests in fields (R-CC-2). Its answer is a direct answer
for the user, with the passages that support it as cited ``TextAnswer``s; the resolved entities travel to later
tools as one ``InternalContextDocument`` each (R-INT-1), which the orchestrator never shows the user (R-INT-2).

"Closest companion" is the neighbour of the same label family met in the most co-occurrence windows (ties: the
stronger normalised weight, then the id) — what a reader means by it, rather than the weight, which favours rare
names seen once beside a main character.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from typing import Any

from graph.matching import AMBIGUITY_MARGIN, normalise
from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import (
    PASSAGE_CHARS,
    NameInQuestion,
    ResolvedEntity,
    cite,
    evidence,
    excerpt,
    find_names,
    phrase,
    window,
    with_sources,
)
from tools.analysis.description import describe
from tools.analysis.question import Kind, analyse
from tools.analysis.relations import answers_from_the_graph
from tools.clarification import ClarificationSession
from tools.contracts import ClarifiableTool
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult, UniqueTextDocument
from tools.retrieval.chunks import RetrievalError
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

# Words that start a word of the question (stems: "companion" finds "companions"); a trailing space asks for the
# whole word ("ally " must not find "actually", "relations " not "relationship").
INTENT_WORDS: dict[str, tuple[str, ...]] = {
    "timeline": ("unit by unit", "chapter by chapter", "through the book", "timeline", "over the book",
                 "fejezetről fejezetre", "egységről egységre", "idővonal", "végig a könyv"),
    "relations": ("companion", "closest", "friend", "relations ", "ally ", "allies ", "close to ",
                  "társ", "barát", "legközelebb", "kapcsolat", "legerősebb", "szövetséges"),
    "path": ("connect", "between", "link", "related to each other", "között", "összefügg", "összeköt", "kapcsol"),
}
_INTENT_PATTERNS = {
    intent: re.compile("|".join(r"\b" + re.escape(w.strip()) + (r"\b" if w.endswith(" ") else "") for w in words),
                       re.IGNORECASE)
    for intent, words in INTENT_WORDS.items()
}
PERSON_FAMILY = frozenset({"PERSON", "PER"})
# A surname in the plural ("the Rostovs"), labelled by the entities stage (ingestion.resolution.FAMILY_LABEL)
FAMILY = "FAMILY"
MEMBERS_LISTED = 6
MAX_HOPS = 4
EVIDENCE = 2
DESCRIBED_WITHIN = 30  # the first chunks mentioning X searched for the sentence that introduces X
COMPANIONS_LISTED = 5


def about_the_entity(prompt: str, user_lang: str) -> bool:
    """Whether the question asks about the entities it names (the card, companions, connection, timeline)."""
    if analyse(prompt, user_lang).kind is Kind.IDENTITY:
        return True
    return any(_INTENT_PATTERNS[intent].search(prompt) for intent in ("timeline", "relations", "path"))


def detect_intent(prompt: str, names: int) -> str:
    """``path`` (two names), ``timeline``, ``relations`` or ``profile``, from the question's words."""
    if names >= 2:
        return "path"
    for intent in ("timeline", "relations"):
        if _INTENT_PATTERNS[intent].search(prompt):
            return intent
    return "profile"


class AbstractEntityAnalysisTool(AnalysisCollaborators, ClarifiableTool, abstract=True):
    """Answers questions about the entities of the graph (platform ``AbstractEntityAnalysisTool``; R-REF-1).

    Wire ``set_graph_store`` (required), ``set_retriever`` (citations) and ``set_domain_settings`` (language,
    stemming of inflected names) in ``init()``.
    """

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Suitable when the question is about an entity of the graph itself — who X is, X's companions, how X and
        Y are connected, X through the book — not when it only names X ("Who does X marry?" asks for someone else:
        the question-answering tool's)."""
        if self.inactive or not self._about_the_entity(prompt, user_lang):
            return False
        return bool(find_names(self.graph, prompt, self.analyzer))

    def _about_the_entity(self, prompt: str, user_lang: str) -> bool:
        """``about_the_entity``, unless the relations tool answers it from the typed relations ("How are X and Y
        related?" is a question about two entities, and a kinship one)."""
        return about_the_entity(prompt, user_lang) and not answers_from_the_graph(
            self.graph, prompt, self.answer_language(user_lang), self.analyzer
        )

    # -- the platform entry points ---------------------------------------------------------------------------
    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Resolve the names of the question; ask when one is ambiguous; otherwise answer."""
        if self.inactive or not self._about_the_entity(user_prompt, user_lang):
            return ToolExecutionResult.nothing(self.name)
        names = find_names(self.graph, user_prompt, self.analyzer)
        if not names:
            return ToolExecutionResult.nothing(self.name)
        slots = [self._slot(n) for n in names[:2]]
        intent = detect_intent(user_prompt, len(slots))
        return self._continue(intent, slots, self.answer_language(user_lang))

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
        """Take the user's choice for the pending name, then ask about the next one or answer."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        state = dict(session.state)
        slots: list[dict[str, Any]] = [dict(s) for s in state["slots"]]
        pending = next(s for s in slots if s["entity_id"] is None)
        # An answer that fits no option leaves the slot open: the same question is asked again.
        pending["entity_id"] = choose_option(session.answer, pending["options"])
        return self._continue(state["intent"], slots, state["lang"])

    # -- steps -----------------------------------------------------------------------------------------------
    def _slot(self, name: NameInQuestion) -> dict[str, Any]:
        match = name.match
        # Offer the candidates as close as the ambiguity rule's margin, not every weaker name that passed.
        close = [c for c in match.candidates if c.score >= match.best.score - AMBIGUITY_MARGIN - 1e-9]
        options = [[c.entity_id, c.canonical_name] for c in close]
        # only an ambiguous name shows its options: look their books up only then
        return {"surface": name.surface, "entity_id": None if match.ambiguous else match.best.entity_id,
                "options": self._told_apart(options) if match.ambiguous else options}

    def _told_apart(self, options: list[list[str]]) -> list[list[str]]:
        """Options get their book's title when they share a name or come from different books: two novels' "Mary"
        with ``ingestion.entity_scope = "document"`` are "Mary — Harbour Notes" and "Mary — The
        Lighthouse Keepers"; "Mary Ashdown — The Mill House" too, since a reader asking for "Mary" may know the
        book rather than the surname. Options of one book with names of their own stay as they are."""
        shared = {name for name in (n for _, n in options) if sum(n == name for _, n in options) > 1}
        titles = {entity_id: self._book_of(entity_id) for entity_id, _ in options} if len(options) > 1 else {}
        several_books = len(set(titles.values()) - {""}) > 1
        if not shared and not several_books:
            return options
        told = []
        for entity_id, name in options:
            title = titles.get(entity_id, "")
            if (several_books or name in shared) and title:
                name = f"{name} — {title}"
            told.append([entity_id, name])
        return told

    def _book_of(self, entity_id: str) -> str:
        """The title of the document where the entity first appears ("" when unknown)."""
        chunk_id = self.graph.get_entity(entity_id).first_chunk_id
        if self._retriever is None or not chunk_id:
            return ""
        try:
            chunk = self._retriever.get(chunk_id)
        except RetrievalError:
            return ""
        return chunk.doc_title or chunk.doc_id

    def _continue(self, intent: str, slots: list[dict[str, Any]], lang: str) -> ToolExecutionResult:
        for slot in slots:
            if slot["entity_id"] is None:
                labels = [name for _, name in slot["options"]]
                question = phrase(lang, "which", query=slot["surface"])
                question += "\n" + "\n".join(f"{n}. {label}" for n, label in enumerate(labels, start=1))
                return ToolExecutionResult.as_clarification(
                    self.name, question, state={"intent": intent, "slots": slots, "lang": lang}, options=labels
                )
        entities = [self.graph.get_entity(s["entity_id"]) for s in slots]
        payload = [
            InternalContextDocument.from_model(
                ResolvedEntity(query=s["surface"], entity_id=e.entity_id, canonical_name=e.canonical_name,
                               label=e.label, aliases=list(e.aliases)),
                source="resolved_entity",
            )
            for s, e in zip(slots, entities, strict=True)
        ]
        if intent == "path" and len(entities) >= 2:
            lines, docs = self.connection(entities[0], entities[1], lang)
        elif intent == "relations":
            lines, docs = self.relations(entities[0], lang)
        elif intent == "timeline":
            lines, docs = self.timeline(entities[0], lang)
        else:
            lines, docs = self.profile(entities[0], lang)
        answer = with_sources(lang, lines, docs)
        documents: list[UniqueTextDocument] = [*docs, *payload]
        return ToolExecutionResult.as_direct_answer(self.name, answer, documents)

    # -- the four analyses (overridable) ---------------------------------------------------------------------
    def companions(self, entity: Any) -> list[Any]:
        """Neighbours by co-occurrence count (ties: weight, id); same label family first if there is any."""
        limit = max(1, self.graph.stats().entities)
        relations = self.graph.neighbours(entity.entity_id, limit=limit)
        # a family's company is people too ("the Rostovs" and Denisov), as is a person's
        family = PERSON_FAMILY if entity.label in PERSON_FAMILY | {FAMILY} else {entity.label}
        same = [r for r in relations if r.target.label in family]
        ranked = same or list(relations)
        return sorted(ranked, key=lambda r: (-r.count, -r.weight, r.target.entity_id))

    def relations(self, entity: Any, lang: str) -> tuple[list[str], list[TextAnswer]]:
        """The closest companion, the next ones, and passages where the first two meet."""
        ranked = self.companions(entity)
        if not ranked:
            return [phrase(lang, "no_relations", name=entity.canonical_name)], []
        top = ranked[0]
        lines = [phrase(lang, "closest", name=entity.canonical_name, other=top.target.canonical_name,
                        count=top.count, weight=top.weight)]
        rest = ranked[1:COMPANIONS_LISTED]
        if rest:
            listed = ", ".join(f"{r.target.canonical_name} ({r.count})" for r in rest)
            lines.append(phrase(lang, "others", names=listed))
        return lines, self._chunk_evidence(top.chunk_ids, names=[self._names(entity), self._names(top.target)])

    def connection(self, a: Any, b: Any, lang: str) -> tuple[list[str], list[TextAnswer]]:
        """The shortest path between two entities, with the passages of each hop."""
        path = self.graph.shortest_path(a.entity_id, b.entity_id, max_hops=MAX_HOPS)
        if path is None or not path.hops:
            return [phrase(lang, "no_path", a=a.canonical_name, b=b.canonical_name, hops=MAX_HOPS)], []
        if len(path.hops) == 1:
            hop = path.hops[0]
            line = phrase(lang, "path_direct", a=a.canonical_name, b=b.canonical_name, count=hop.count,
                          weight=hop.weight)
        else:
            via = " → ".join(e.canonical_name for e in path.entities)
            line = phrase(lang, "path_via", a=a.canonical_name, b=b.canonical_name, via=via, hops=len(path.hops))
        docs = [
            doc
            for hop in path.hops
            for doc in evidence(self._retriever, hop.passages[:EVIDENCE],
                                names=[self._names(self.graph.get_entity(i)) for i in (hop.source_id, hop.target_id)])
        ]
        return [line], docs

    def timeline(self, entity: Any, lang: str) -> tuple[list[str], list[TextAnswer]]:
        """The entity unit by unit: mentions and whom it meets there."""
        lines = [phrase(lang, "timeline_head", name=entity.canonical_name)]
        for unit in self.graph.timeline(entity.entity_id):
            title = " › ".join(p for p in (unit.part_title, unit.unit_title) if p)
            met = ", ".join(f"{c.canonical_name} ({c.count})" for c in unit.cooccurring[:3])
            lines.append("- " + phrase(lang, "timeline_row", unit=title, mentions=unit.mention_count,
                                       with_=phrase(lang, "with", names=met) if met else ""))
        return lines, []

    def profile(self, entity: Any, lang: str) -> tuple[list[str], list[TextAnswer]]:
        """Who X is: counts, first appearance, usual company, and the first passage."""
        units = self.graph.timeline(entity.entity_id)
        first = next((" › ".join(p for p in (u.part_title, u.unit_title) if p) for u in units), "?").rstrip(".")
        if self.graph.stats().documents > 1 and entity.doc_count == 1:  # one book of several: say which
            book = self._book_of(entity.entity_id)
            first = f"{book} › {first}" if book else first
        lines = [phrase(lang, "profile", name=entity.canonical_name, label=entity.label,
                        mentions=entity.mention_count, units=len(units), first=first)]
        if entity.label == FAMILY and (members := self.members(entity)):
            lines.append(phrase(lang, "members", names=", ".join(m.canonical_name for m in members)))
        elif entity.label in PERSON_FAMILY and (namesakes := self.namesakes(entity)):
            lines.append(phrase(lang, "namesakes", names=", ".join(n.canonical_name for n in namesakes)))
        company = self.companions(entity)[:3]
        if company:
            lines.append(phrase(lang, "companions_of", names=", ".join(r.target.canonical_name for r in company)))
        passages = self.graph.mentions(entity.entity_id, limit=DESCRIBED_WITHIN)
        docs = evidence(self._retriever, passages[:EVIDENCE], names=[self._names(entity)])
        described = describe(passages, self._names(entity), self.book_language())
        if described is None:
            return lines, docs
        # How the book introduces X answers "Who is X?": first, cited [1], its passage before the first mentions.
        passage = described.passage
        source = cite(self._retriever, passage.chunk_id, passage.unit_title)
        lines.insert(0, f"{entity.canonical_name} — “{described.quote}” [1]")
        introduced = TextAnswer(window(passage.text, described.sentence, PASSAGE_CHARS), source=source)
        return lines, [introduced, *[doc for doc in docs if doc.source != source]]

    def members(self, entity: Any) -> list[Any]:
        """The people of a family, most mentioned first: their surname is the family's name without its plural
        ending, allowing a feminine form ("Rostovs": Nicholas Rostov, Natasha Rostova; "Ceceyék": Cecey Éva)."""
        key = normalise(entity.canonical_name).split()
        if len(key) != 1:
            return []
        stem = key[0].removesuffix("ek") if key[0].endswith("ek") else key[0].removesuffix("s")
        if len(stem) < 3:
            return []
        people = self._people()

        def of_family(word: str) -> bool:
            shared = len(os.path.commonprefix([word, stem]))
            return shared >= len(stem) - 1 and len(word) - shared <= 3

        found = [p for p in people if len(words := normalise(p.canonical_name).split()) > 1
                 and (of_family(words[-1]) or of_family(words[0]))]
        return sorted(found, key=lambda p: (-p.mention_count, p.entity_id))[:MEMBERS_LISTED]

    def namesakes(self, entity: Any) -> list[Any]:
        """The people whose longer names hold a one-word name, most mentioned first: for a name the entities stage
        could not give to one of them ("Nicholas": Nicholas Rostov, Nicholas Andreevich Bolkonski; "Bolkonski", the
        old prince, beside Andrew Bolkonski), the answer says whom else the book calls so."""
        key = normalise(entity.canonical_name).split()
        if len(key) != 1:
            return []
        found = [p for p in self._people() if p.entity_id != entity.entity_id
                 and len(words := normalise(p.canonical_name).split()) > 1 and key[0] in words]
        return sorted(found, key=lambda p: (-p.mention_count, p.entity_id))[:MEMBERS_LISTED]

    def _people(self) -> list[Any]:
        limit = max(1, self.graph.stats().entities)
        return [p for label in sorted(PERSON_FAMILY) for p in self.graph.top_entities(by="mentions", label=label,
                                                                                         limit=limit)]

    def _names(self, entity: Any) -> list[str]:
        """The entity's canonical name and aliases (an ``EntityRef`` carries no aliases: read its node)."""
        node = entity if hasattr(entity, "aliases") else self.graph.get_entity(entity.entity_id)
        return [node.canonical_name, *node.aliases]

    def _chunk_evidence(self, chunk_ids: Sequence[str], names: Sequence[Sequence[str]] = ()) -> list[TextAnswer]:
        if self._retriever is None:
            return []
        return [TextAnswer(excerpt(self._retriever.get(c).text, names=names), source=cite(self._retriever, c))
                for c in chunk_ids[:EVIDENCE]]


def choose_option(answer: str, options: Sequence[Sequence[str]]) -> str | None:
    """The entity id the user picked: by number ("2"), by full name, or by the words of a name."""
    text = answer.strip().rstrip(".")
    if text.isdigit() and 1 <= int(text) <= len(options):
        return str(options[int(text) - 1][0])
    wanted = normalise(text)
    for entity_id, name in options:
        if normalise(name) == wanted:
            return str(entity_id)
    tokens = set(wanted.split())
    fitting = [entity_id for entity_id, name in options if tokens and tokens <= set(normalise(name).split())]
    return str(fitting[0]) if len(fitting) == 1 else None

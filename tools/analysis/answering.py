"""``AbstractQuestionAnsweringTool``: the answer to a reader's question, found in the book's sentences, with its
evidence — for every question that is not "Who is X?", a summary or a chapter's events (other tools answer those).

1. **Read the question** (``tools.analysis.question``): its kind and answer type (a person, place, time, age,
   duration or number; a reason or a manner), its content words, the entities it names (through the graph's
   aliases), the chapter it names.
2. **Retrieve**: BM25 over the chunks (of the named chapter when the question asks for something in one) with the
   content words and every name of the named entities, then re-rank the candidates' sentences by the question's
   words (weighted by their rarity in the book), the named entities present, the question's words it lacks that its
   neighbours hold, and — when the question asks for a span — whether the sentence holds one that the question does
   not already name.
3. **Answer**: the first line is the answer — the span found in the best sentence, then that sentence, cited
   ``[1]``; for why/how/what questions the sentence itself. A person or a number is chosen by the best sentences
   together (``vote``): each of the ``VOTERS`` best offers its span with its score (and every other person it
   names with ``OTHER_NAME_SHARE`` of it), and the line quotes the best sentence holding the winner. The passages
   around the best sentences follow as numbered, cited evidence. Nothing that scores: an honest "not found in the
   book".

"When do we first meet X?" keeps first appearances: the graph's first (or last) mention of X is the evidence.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import cite, cut, find_names, window, with_sources
from tools.analysis.entity import about_the_entity
from tools.analysis.lexicon import EntityLexicon
from tools.analysis.question import (
    Kind,
    Question,
    analyse,
    asks_for_a_summary,
    asks_within_a_chapter,
    split_question,
)
from tools.analysis.relations import answers_from_the_graph
from tools.contracts import ContextConsumerTool, ToolContexts
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult, UniqueTextDocument
from tools.llm.text import sentences
from tools.retrieval.chunks import Chunk, Hit
from tools.retrieval.units import parse_reference
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

CANDIDATE_CHUNKS = 40
# The evidence: a window around the best sentence of each of the EVIDENCE_PASSAGES best chunks, about the 6,000
# characters a reader (or an LLM's context) takes in. More chunks in shorter windows hold more answers than fewer
# chunks in longer windows, or than several windows of one chunk (docs/decisions/0027).
PASSAGE_CHARS = 430
EVIDENCE_PASSAGES = 12
ANSWER_SENTENCE_CHARS = 400
TYPE_WEIGHT = 4.0  # the sentence holds what the question asks for (a person, place, time or number)
NEIGHBOUR_WEIGHT = 0.35  # the question's words the sentence lacks, found in the sentences before and after
CHUNK_WEIGHT = 1.0  # the chunk's BM25 score, relative to the best chunk's
VOTERS = 10  # the best sentences whose spans are summed when a person or a number is asked (docs/decisions/0001)
# A person a voting sentence names after its first candidate gets this share of the sentence's score: the one who
# did it is often not the sentence's first name ("…, said Caddy, …"; docs/decisions/0019).
OTHER_NAME_SHARE = 0.5
VOTED_TYPES = frozenset({"person", "number"})  # a place or a time: the best sentence's own span measured better
ANSWERED_ELSEWHERE = frozenset({Kind.IDENTITY, Kind.SUMMARY, Kind.CHAPTER})

# A who-question asking for the doer ("Who adopted Jack?") or for whom the named one did it to ("Who does Anna
# marry?", "With whom does George fall in love?"): a name right after the auxiliary is the doer.
_ASKS_OBJECT = re.compile(r"^\W*(?:[a-zA-Z]+\s+)?(?i:who|whom)\s+(?i:does|did|do|will|would|can|could)\s+[A-Z]")
_ASKS_SUBJECT = re.compile(r"^\W*(?i:who)\s+(?!(?:does|did|do|will|would|is|was|are|were|has|had|can|could)\b)"
                           r"[a-z]+(?:s|ed)\b")

ANSWERED = "answered_span"  # the InternalContextDocument source of a person or place this tool answered
_PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|they|them|their|ő|őt|ők|neki|vele)\b", re.IGNORECASE)
_POSSESSIVE = frozenset({"his", "hers", "their"})  # "her" is read as the object: "Where did he meet her?"
# "there" as a place, not as in "there was" / "was there": no form of "to be" next to it.
_THERE = re.compile(r"\b(?<!is )(?<!was )(?<!are )(?<!were )(there|ott|oda|onnan)\b(?! (is|was|are|were|be)\b)",
                    re.IGNORECASE)
_CARRIED = {"person": _PRONOUN, "place": _THERE}  # the answer types a later step may refer back to

NOT_FOUND = {
    "en": "I found nothing in the book that answers this.",
    "hu": "Nem találtam a könyvben olyat, ami erre válaszolna.",
}
FIRST_MET = {"en": "{name} first appears here:", "hu": "{name} először itt szerepel:"}
LAST_SEEN = {"en": "{name} last appears here:", "hu": "{name} utoljára itt szerepel:"}


@dataclass(frozen=True)
class Scored:
    """A sentence of a candidate chunk, its score and what it holds of the answer type."""

    score: float
    chunk: Chunk
    index: int  # the sentence's position in the chunk
    text: str
    span: str  # the person, place, time or number it offers as the answer ("" when none or not asked)
    others: tuple[str, ...] = ()  # the other people it names that may answer (when a person is asked)


class AbstractQuestionAnsweringTool(AnalysisCollaborators, ContextConsumerTool, abstract=True):
    """Answers reader questions from the book's sentences (priority 5). Wire ``set_retriever`` and
    ``set_graph_store`` in ``init()``.

    A context consumer (R-CC-1) for one reason: as a step of a split question (``tools.analysis.splitter``) it reads
    the person an earlier step answered from the snapshot, and puts it where the later part says "he" or "she". Its
    own answer travels to such later steps as an ``InternalContextDocument`` (R-INT-1), never to the user.
    """

    def get_priority(self) -> int:
        """5: with the summary tool, after the entity and chapter tools (0)."""
        return 5

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Every question except "Who is X?", X's companions or connections, summaries and a chapter's events."""
        return not self.inactive and self._ours(prompt, user_lang)

    def _ours(self, prompt: str, user_lang: str) -> bool:
        if analyse(prompt, user_lang).kind in ANSWERED_ELSEWHERE or len(split_question(prompt, user_lang)) > 1:
            return False
        if asks_for_a_summary(prompt, user_lang, self.book_title()):
            return False
        if answers_from_the_graph(self.graph, prompt, self.answer_language(user_lang), self.analyzer):
            return False
        if parse_reference(prompt) is not None and not asks_within_a_chapter(prompt, user_lang):
            return False  # "Who appears in chapter 3?": the chapter's page answers
        return not (about_the_entity(prompt, user_lang) and find_names(self.graph, prompt, self.analyzer))

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
        """The answer line and its evidence, as a direct answer; nothing for questions other tools answer."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        if not self._ours(user_prompt, user_lang):
            return ToolExecutionResult.nothing(self.name)
        user_prompt = with_earlier_answer(user_prompt, prior_tool_contexts)
        question = analyse(user_prompt, user_lang)
        lang = self.answer_language(user_lang)
        names = self._named_entities(user_prompt)
        if question.kind in (Kind.FIRST_APPEARANCE, Kind.LAST_APPEARANCE) and names:
            return self._appearance(question, names[0], lang)
        ranked = self._rank(question, names, important_words)
        if not ranked or ranked[0].score <= 0:
            return ToolExecutionResult.as_direct_answer(self.name, NOT_FOUND.get(lang, NOT_FOUND["en"]))
        docs = self._evidence(ranked)
        best = vote(ranked, VOTERS) if question.answer_type in VOTED_TYPES else ranked[0]
        quote = cut(best.text, ANSWER_SENTENCE_CHARS)
        line = f"{best.span} — “{quote}” [1]" if best.span and question.asks_for_span else f"“{quote}” [1]"
        return self._answer(lang, line, docs, self._carried(question, names, best))

    def _answer(self, lang: str, line: str, docs: list[TextAnswer],
                carried: dict[str, str] | None = None) -> ToolExecutionResult:
        """Offline, the answer line and the evidence are the answer; with an LLM, the same passages are its
        context (cited), and it writes the answer. A person or place answered is kept for later steps (internal:
        ``{"person": "Victor Hale"}``)."""
        kept: list[UniqueTextDocument] = list(docs)
        if carried:
            kept.append(InternalContextDocument(json.dumps(carried), source=ANSWERED))
        if self.assistant is not None:
            return ToolExecutionResult.as_guaranteed_context(self.name, kept)
        return ToolExecutionResult.as_direct_answer(self.name, with_sources(lang, [line], docs), kept)

    def _carried(self, question: Question, names: list[tuple[str, list[str]]], best: Scored) -> dict[str, str]:
        """What a later part's "he" or "there" refers to: the person or place answered, else the person this part
        named ("Where did Victor Hale die and who visited him there?": "him" is Victor Hale)."""
        carried = {question.answer_type: best.span} if best.span and question.answer_type in _CARRIED else {}
        named_person = next((name for name, _ in names if self._lexicon().kinds.get(name) == "person"), "")
        if named_person and "person" not in carried:
            carried["person"] = named_person
        return carried

    # -- the question's entities ---------------------------------------------------------------------------------
    def _named_entities(self, prompt: str) -> list[tuple[str, list[str]]]:
        """``(canonical name, every name of it)`` for each entity the question names; an ambiguous name keeps its
        two best candidates (the passages decide)."""
        found: list[tuple[str, list[str]]] = []
        for name in find_names(self.graph, prompt, self.analyzer):
            candidates = name.match.candidates[:2] if name.match.ambiguous else [name.match.best]
            for candidate in candidates:
                node = self.graph.get_entity(candidate.entity_id)
                found.append((node.canonical_name, name_forms([node.canonical_name, *node.aliases, name.surface])))
        return found

    # -- ranking -------------------------------------------------------------------------------------------------
    def _rank(self, question: Question, names: list[tuple[str, list[str]]],
              important_words: Sequence[str]) -> list[Scored]:
        retriever = self.retriever
        analyzer = retriever.analyzer
        name_terms = [set(analyzer.terms(" ".join(forms[:6]))) for _, forms in names]
        named = set().union(*name_terms) if name_terms else set()
        asked = [t for t in analyzer.terms(" ".join([*question.content_words, *important_words])) if t not in named]
        # Each word once: a name repeated in its forms would outweigh the rare words that find the answer.
        words = dict.fromkeys([*question.content_words, *important_words, *(canonical for canonical, _ in names)])
        hits = self._search(" ".join(words), self._scope(question.text))
        if not hits:
            return []
        top = hits[0].score or 1.0
        weights = {t: retriever.index.idf(t) for t in set(asked) | named}
        asked_set = set(asked)
        # A named entity counts once, by its commonest name's rarity: the hero, named everywhere, says little.
        entity_weights = [(group, min(weights[t] for t in group)) for group in name_terms if group]
        lexicon = self._lexicon()
        excluded = {form.casefold() for _, forms in names for form in forms}
        said = frozenset(re.sub(r"['’]s$", "", w.casefold()) for w in re.findall(r"[^\W\d_][\w'’-]*", question.text))
        role = asked_role(question.text) if names else ""
        scored: list[Scored] = []
        for hit in hits:
            texts = sentences(hit.chunk.text)
            terms = [set(analyzer.terms(text)) for text in texts]
            for i, text in enumerate(texts):
                # fsum: exact in whatever order the set is iterated (the process's hash seed decides it), so that
                # sentences tie, and ties break, the same way in every process.
                own = math.fsum(weights[t] for t in terms[i] & asked_set)
                # The neighbours count for the question's words this sentence lacks: a passage that completes the
                # question ranks above one that only repeats the sentence's own words (docs/decisions/0027).
                near = {t for j in (i - 1, i + 1) if 0 <= j < len(texts) for t in terms[j] & asked_set}
                around = math.fsum(weights[t] for t in near - terms[i])
                present = math.fsum(weight for group, weight in entity_weights if group & terms[i])
                if question.answer_type == "person":
                    people = in_the_asked_role(lexicon, text, excluded, said, role)
                    span, others = (people[0], tuple(people[1:])) if people else ("", ())
                else:
                    span, others = lexicon.answer_span(text, question.answer_type, excluded, said), ()
                score = (own + NEIGHBOUR_WEIGHT * around + present
                         + (TYPE_WEIGHT if span else 0.0) + CHUNK_WEIGHT * hit.score / top)
                if own or present:
                    scored.append(Scored(score, hit.chunk, i, text, span, others))
        scored.sort(key=lambda s: (-s.score, len(s.text), s.chunk.chunk_index, s.index))  # ties: the tighter one
        return scored

    def _scope(self, prompt: str) -> frozenset[str]:
        """The units of the chapter a question names ("Who dies in chapter IV?"; chapter 3 of every part when the
        part is not said); empty when it names none or the book has no such chapter."""
        reference = parse_reference(prompt)
        if reference is None or self._units is None:
            return frozenset()
        return frozenset(unit.unit_id for unit in self._units.find(reference))

    def _search(self, query: str, scope: frozenset[str]) -> list[Hit]:
        """The best ``CANDIDATE_CHUNKS`` chunks for ``query``, within ``scope``'s units when that finds any, else in
        the whole book (a chapter named wrongly still gets an answer)."""
        if scope:
            scoped = [hit for hit in self.retriever.search(query, k=len(self.retriever.chunks))
                      if hit.chunk.unit_id in scope and hit.score > 0]
            if scoped:
                return scoped[:CANDIDATE_CHUNKS]
        return self.retriever.search(query, k=CANDIDATE_CHUNKS)

    def _lexicon(self) -> EntityLexicon:
        cached = getattr(self, "_lexicon_cache", None)
        if cached is None or cached[0] is not self.graph:
            cached = (self.graph, EntityLexicon.from_graph(self.graph))
            self._lexicon_cache = cached  # one per loaded book; the book is read-only
        return cached[1]

    # -- output --------------------------------------------------------------------------------------------------
    def _evidence(self, ranked: list[Scored]) -> list[TextAnswer]:
        """The passages around the best sentences, one per chunk, best first."""
        docs: list[TextAnswer] = []
        seen: set[str] = set()
        for scored in ranked:
            if scored.chunk.chunk_id in seen:
                continue
            seen.add(scored.chunk.chunk_id)
            docs.append(TextAnswer(window(scored.chunk.text, scored.text, PASSAGE_CHARS),
                                   source=scored.chunk.citation))
            if len(docs) == EVIDENCE_PASSAGES:
                break
        return docs

    def _appearance(self, question: Question, entity: tuple[str, list[str]], lang: str) -> ToolExecutionResult:
        name, forms = entity
        node = self.graph.find_entity(name).best
        found = self.graph.get_entity(node.entity_id) if node is not None else None
        chunk_id = None
        if found is not None:
            chunk_id = found.first_chunk_id if question.kind is Kind.FIRST_APPEARANCE else found.last_chunk_id
        if chunk_id is None:
            return ToolExecutionResult.as_direct_answer(self.name, NOT_FOUND.get(lang, NOT_FOUND["en"]))
        chunk = self.retriever.get(chunk_id)
        at = next((s for s in sentences(chunk.text) if any(f in s for f in forms)), chunk.text)
        head = (FIRST_MET if question.kind is Kind.FIRST_APPEARANCE else LAST_SEEN).get(lang, FIRST_MET["en"])
        docs = [TextAnswer(window(chunk.text, at, PASSAGE_CHARS), source=cite(self.retriever, chunk_id))]
        line = f"{head.format(name=name)} {chunk.citation} — “{cut(at, ANSWER_SENTENCE_CHARS)}” [1]"
        return self._answer(lang, line, docs)


def asked_role(text: str) -> str:
    """Which side of the entity a who-question names the answer is on: "subject" for "Who adopted Jack?" (someone did
    it to Jack: said before him, "Kala adopted Jack"), "object" for "Who does Anna marry?" / "With whom does George
    fall in love?" (Anna did it to someone: said after her, "Anna married Oswin"); "" for any other question."""
    if _ASKS_OBJECT.match(text):
        return "object"
    return "subject" if _ASKS_SUBJECT.match(text) else ""


def in_the_asked_role(lexicon: EntityLexicon, text: str, excluded: set[str], said: frozenset[str],
                      role: str) -> list[str]:
    """The people ``text`` names that may answer (``EntityLexicon.answer_names``), those on the ``role`` side of the
    question's own first name in ``text`` first (before it for "subject", after it for "object"): "Philip knew that
    Mildred had run away with Griffiths" answers "Who does Mildred run away with?" with Griffiths, not Philip."""
    found = lexicon.answer_names_at(text, "person", excluded, said)
    entity = next((at for at, name in lexicon.names_at(text, "person") if name.casefold() in excluded), None)
    if role and entity is not None:
        found = sorted(found, key=lambda named: (named[0] < entity) != (role == "subject"))  # stable: in order
    return list(dict.fromkeys(name for _, name in found))


def name_forms(forms: Sequence[str]) -> list[str]:
    """An entity's names without repeats, longest first, names of one length in alphabetical order: the first six
    make the entity's search terms, so they must be the same in every process (a set's order is not: it follows
    the process's hash seed, and the same question got another answer in another process)."""
    return sorted(set(forms), key=lambda form: (-len(form), form))


def vote(ranked: Sequence[Scored], voters: int = VOTERS) -> Scored:
    """The best-ranked sentence offering the span that the ``voters`` best sentences support most (their scores
    summed; a person a sentence names besides its span with ``OTHER_NAME_SHARE`` of its score): one sentence may
    name a bystander, several name the one who did it. ``ranked[0]`` when none offers a span."""
    support: dict[str, float] = {}
    for scored in ranked[:voters]:
        if scored.span:
            support[scored.span] = support.get(scored.span, 0.0) + scored.score
        for other in scored.others:
            support[other] = support.get(other, 0.0) + OTHER_NAME_SHARE * scored.score
    if not support:
        return ranked[0]
    winner = max(support, key=lambda span: support[span])  # ties: the first to reach it, the better ranked
    best = next(scored for scored in ranked if winner == scored.span or winner in scored.others)
    return replace(best, span=winner, others=())


def with_earlier_answer(prompt: str, prior: ToolContexts) -> str:
    """``prompt`` with its first personal pronoun ("he", "his", "ő" …) replaced by the person an earlier step of the
    same plan answered, and its first "there" ("ott") by the place; unchanged where there is none."""
    earlier: dict[str, str] = {}
    for key in sorted(prior):
        for context in prior[key]:
            for doc in context.documents:
                if isinstance(doc, InternalContextDocument) and doc.source == ANSWERED:
                    earlier.update(json.loads(doc.text))  # the latest step's answer of each type wins
    for answer_type, pattern in _CARRIED.items():
        found = pattern.search(prompt) if answer_type in earlier else None
        if found is None:
            continue
        name = earlier[answer_type]
        if answer_type == "person" and found.group(0).casefold() in _POSSESSIVE:
            name += "'s"
        elif answer_type == "place" and found.group(0).casefold() == "there":
            name = "at " + name  # "who lived there" -> "who lived at Lowick": the place's words, as a reader says it
        prompt = prompt[:found.start()] + name + prompt[found.end():]
    return prompt

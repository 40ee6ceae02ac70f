"""``AbstractRelationsTool``: kinship and speech questions answered from the graph's typed relations and quotations.

Four questions, read from their wording (``read_question``):

- "Who is X's mother?" / "Who is the wife of X?" / "Ki X felesége?": the people the graph holds as X's relation of
  that type (``GraphReader.relatives``); a word with a sex ("mother", not "parent") keeps those whose evidence sentence
  says it beside their name, and says so when the book only names a parent;
- "How are X and Y related?" / "What is X to Y?": the typed relations between them, with the sentence saying each;
- "Who said “…”?": the speaker of the quotation holding those words (``GraphReader.find_quotations``);
- "What does X say to Y?": X's quotations addressed to Y, in book order.

Each answer cites the passages it comes from. When the graph has no answer (no such relation, no known speaker, a
name it does not know or knows twice), the tool claims nothing and the question takes its usual path: the other
tools step aside only for a question this module answers (``answers_from_the_graph``, their one hook here).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.errors import GraphStoreError
from graph.kinship import INVERSE, Kin, kinship_words
from graph.results import EntityRef, Kinship, Passage
from tools.analysis.base import AnalysisCollaborators
from tools.analysis.common import cite, cut, find_names, window, with_sources
from tools.contracts import OrchestratorActivatedTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.llm.text import sentences
from tools.retrieval.analyzer import Analyzer
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

PASSAGE_CHARS = 500
LINE_CHARS = 300
MAX_LINES = 5  # relations between two people, or quotations, listed at most

_KIN_QUESTIONS = (
    re.compile(r"^\W*(?:who|whom)\s+(?:is|was|are|were)\s+(?:the\s+)?(?P<name>.+?)['’]s?\s+(?P<kin>[\w-]+)\W*$", re.I),
    re.compile(r"^\W*(?:who|whom)\s+(?:is|was|are|were)\s+(?:the|a)\s+(?P<kin>[\w-]+)\s+of\s+(?P<name>.+?)\W*$", re.I),
    re.compile(r"^\W*ki\s+(?:volt\s+|lesz\s+|lett\s+|az\s+|a\s+)?(?P<name>.+?)\s+(?P<kin>\w+)(?:\s+volt)?\W*$", re.I),
)
# "Who does X marry?", "Whom did X marry in the end?", "Who is X married to?": X's spouse, of either sex
_MARRY_QUESTIONS = (
    re.compile(r"^\W*(?:who|whom)\s+(?:does|did|will|would)\s+(?P<name>.+?)\s+(?:marry|wed)\b[^?]*\W*$", re.I),
    re.compile(r"^\W*(?:who|whom)\s+(?:is|was)\s+(?P<name>.+?)\s+married\s+to\W*$", re.I),
    re.compile(r"^\W*kihez\s+(?:megy|ment)\s+(?:férjhez\s+)?(?P<name>.+?)(?:\s+férjhez)?\W*$", re.I),
)
_RELATED_QUESTIONS = (
    re.compile(
        r"^\W*how\s+(?:is|are|was|were)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+related(?:\s+to each other)?\W*$", re.I
    ),
    re.compile(r"^\W*how\s+(?:is|was)\s+(?P<a>.+?)\s+related\s+to\s+(?P<b>.+?)\W*$", re.I),
    re.compile(r"^\W*what\s+(?:is|was)\s+(?P<a>.+?)\s+to\s+(?P<b>.+?)\W*$", re.I),
    re.compile(
        r"^\W*milyen\s+(?:rokonságban|viszonyban)\s+(?:áll|van|volt|állt)\s+(?P<a>.+?)\s+és\s+(?P<b>.+?)"
        r"(?:\s+egymással)?\W*$",
        re.I,
    ),
)
# "Who said “…”?": a verb of saying before the quoted words ("Who is “the little princess”?" asks something else)
_SAYING = (
    r"(?:say|says|said|tell|tells|told|ask|asks|asked|cry|cries|cried|shout|shouts|shouted|exclaim|exclaims|"
    r"exclaimed|reply|replies|replied|whisper|whispers|whispered|write|writes|wrote|mondta|mondja|mondott|"
    r"kiáltotta|kérdezte|felelte|írta)"
)
_SAID_QUESTION = re.compile(
    r"^\W*(?:who|whom|ki)\b[^\"“„«'‘]*?\b" + _SAYING + r"\b[^\"“„«'‘]*"
    r"(?:[\"“„«](?P<double>[^\"“”„«»]{3,})[\"”»]|(?<!\w)['‘](?P<single>.{3,}?)['’](?!\w))",
    re.I | re.S,
)
_SAY_TO_QUESTION = re.compile(
    r"^\W*what\s+(?:does|did|do)\s+(?P<a>.+?)\s+(?:say|tell|ask|reply|shout|whisper)\s+(?:to\s+)?(?P<b>.+?)\W*$", re.I
)
_POSSESSIVE = re.compile(r"['’]s?$")

LINES: dict[str, dict[str, str]] = {
    "en": {
        "kin": "{target}'s {word}: {names}",
        "kin_unsure": "The book names {target}'s {noun}: {names} (it does not say which is the {word})",
        "related": "{source} is {target}'s {word}",
        "inferred": " (inferred from two other relations)",
        "said": "{speaker} says it{to}: {text}",
        "to": " to {names}",
        "says_to": "What {speaker} says to {addressee}:",
    },
    "hu": {
        "kin": "{target} {word}: {names}",
        "kin_unsure": "A könyv szerint {target} rokona ({noun}): {names} (azt nem mondja, ki a {word})",
        "related": "{source} – {target}: {word}",
        "inferred": " (két másik kapcsolatból következik)",
        "said": "{speaker} mondja{to}: {text}",
        "to": " ({names} felé)",
        "says_to": "Amit {speaker} mond {addressee} felé:",
    },
}
SPOUSE = {"en": "spouse", "hu": "házastársa"}  # the word a marriage question asks for, as the answer names it
_NOUNS = {
    "uncle_aunt": "uncle or aunt",
    "nephew_niece": "nephew or niece",
    "in_law": "in-law",
    "lovers": "lover",
    "engaged": "betrothed",
}


@dataclass
class GraphAnswer:
    """An answer read from the graph: its lines (``[n]`` cites the n-th passage) and the passages with the sentence
    of each to show."""

    lines: list[str]
    passages: list[tuple[Passage, str]] = field(default_factory=list)

    def cite(self, passage: Passage, sentence: str) -> str:
        """`` [n]``: the number of ``passage`` among the answer's (added when new)."""
        known = [p.chunk_id for p, _ in self.passages]
        if passage.chunk_id not in known:
            self.passages.append((passage, sentence))
            known.append(passage.chunk_id)
        return f" [{known.index(passage.chunk_id) + 1}]"


def _line(lang: str, key: str, **values: str) -> str:
    return LINES.get(lang, LINES["en"])[key].format(**values)


def _noun(type_: str) -> str:
    return _NOUNS.get(type_, type_)


def _entity(graph: Any, text: str, analyzer: Analyzer | None) -> EntityRef | None:
    """The one entity ``text`` names (a possessive ending aside); None when unknown or ambiguous."""
    names = find_names(graph, _POSSESSIVE.sub("", text.strip()), analyzer)
    if len(names) != 1 or names[0].match.ambiguous:
        return None
    best = names[0].match.best
    return EntityRef(entity_id=best.entity_id, canonical_name=best.canonical_name, label=best.label)


_TITLE_END = re.compile(r"(?:^|\s)[A-Z][a-z]{0,3}\.$")  # "Mr.", "Mrs.", "St.", "Dr." end no sentence


_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|‘[^’]*’")


def _sentences(text: str) -> list[str]:
    """``text``'s sentences, a title's dot ("Mr. Hale") not taken for a sentence's end."""
    joined: list[str] = []
    for piece in sentences(text):
        if joined and _TITLE_END.search(joined[-1]):
            joined[-1] = f"{joined[-1]} {piece}"
        else:
            joined.append(piece)
    return joined


def _word_pattern(words: Sequence[str]) -> re.Pattern[str]:
    """Any of ``words`` as a whole word, case aside (the longest first); nothing at all for no words."""
    words = [word for word in words if word.strip()]
    if not words:
        return re.compile(r"(?!)")
    return re.compile(
        r"(?<!\w)(" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + r")(?!\w)", re.IGNORECASE
    )


def _names(graph: Any, entity: EntityRef) -> re.Pattern[str]:
    node = graph.get_entity(entity.entity_id)
    return _word_pattern([node.canonical_name, *node.aliases])


def _evidence(kinship: Kinship, graph: Any, words: dict[str, Kin]) -> tuple[Passage, str, set[str]] | None:
    """The passage and sentence that state ``kinship``: a sentence naming its source beside a word of its type, with
    the sexes those words say (``m``/``f``), else one naming both people ("Nicholas married Princess Mary"), which
    says no sex, else one naming its target beside such a word: the target calls the source so ("Papa, what is
    it?" asked Natasha); None when no passage has any."""
    of_type = {word: kin for word, kin in words.items() if kin.type == kinship.type}
    source, target = _names(graph, kinship.source), _names(graph, kinship.target)
    typed = _word_pattern(list(of_type)) if of_type else None
    both: tuple[Passage, str, set[str]] | None = None
    called: tuple[Passage, str, set[str]] | None = None
    for passage in kinship.passages:
        for sentence in _sentences(passage.text):
            found = typed.findall(sentence) if typed is not None else []
            sexes = {of_type[w.casefold()].sex for w in found} - {""}
            if found and source.search(sentence):
                return passage, sentence, sexes
            if both is None and source.search(sentence) and target.search(sentence):
                both = passage, sentence, set()
            if called is None and found and typed is not None and target.search(sentence):
                called = passage, sentence, _called_sexes(sentence, typed, of_type)
    return both or called


def _called_sexes(sentence: str, typed: re.Pattern[str], of_type: dict[str, Kin]) -> set[str]:
    """The sex the kinship words inside the sentence's quotations say (the call, not the narration around it:
    "“Papa!” cried Natasha, running to her mother"); none when they say both."""
    quoted = " ".join(_QUOTED.findall(sentence))
    sexes = {of_type[word.casefold()].sex for word in typed.findall(quoted)} - {""}
    return sexes if len(sexes) == 1 else set()


def _kin_answer(graph: Any, target: EntityRef, asked: str, kin: Kin, lang: str) -> GraphAnswer | None:
    """Who is the ``asked`` word ("mother") of ``target``: sure when the evidence says that sex, else only named as
    of the type when nothing says the other sex."""
    words = kinship_words(lang)
    answer = GraphAnswer([])
    sure: list[str] = []
    unsure: list[str] = []
    for kinship in graph.relatives(target.entity_id, types=[kin.type], limit=MAX_LINES):
        found = _evidence(kinship, graph, words)
        sexes = found[2] if found else set()
        if kin.sex and sexes and kin.sex not in sexes and INVERSE[kin.type] != kin.type:
            continue  # the evidence calls them the other one ("her father"); of a pair, the word may be the other's
        name = kinship.source.canonical_name + (_line(lang, "inferred") if kinship.count == 0 else "")
        if found:
            name += answer.cite(found[0], found[1])
        elif kinship.passages:
            name += answer.cite(kinship.passages[0], "")
        (sure if not kin.sex or kin.sex in sexes else unsure).append(name)
    if sure:
        answer.lines.append(_line(lang, "kin", target=target.canonical_name, word=asked, names="; ".join(sure)))
    elif unsure:
        answer.lines.append(
            _line(
                lang,
                "kin_unsure",
                target=target.canonical_name,
                noun=_noun(kin.type),
                word=asked,
                names="; ".join(unsure),
            )
        )
    return answer if answer.lines else None


def _related_answer(graph: Any, a: EntityRef, b: EntityRef, lang: str) -> GraphAnswer | None:
    """Every typed relation between ``a`` and ``b`` (a's to b, else b's to a), each with the sentence saying it."""
    rows = graph.relations_between(a.entity_id, b.entity_id) or graph.relations_between(b.entity_id, a.entity_id)
    words = kinship_words(lang)
    answer = GraphAnswer([])
    for kinship in rows[:MAX_LINES]:
        found = _evidence(kinship, graph, words)
        word = _noun(kinship.type)
        if found and INVERSE.get(kinship.type) != kinship.type:
            said = _word_pattern([w for w, kin in words.items() if kin.type == kinship.type]).search(found[1])
            word = said.group(1).casefold() if said else word  # the book's own word: "daughter" rather than "child"
        line = _line(
            lang, "related", source=kinship.source.canonical_name, target=kinship.target.canonical_name, word=word
        )
        line += _line(lang, "inferred") if kinship.count == 0 else ""
        if found:
            line += f" — “{cut(found[1], LINE_CHARS)}”" + answer.cite(found[0], found[1])
        elif kinship.passages:
            line += answer.cite(kinship.passages[0], "")
        answer.lines.append(line)
    return answer if answer.lines else None


def _said_answer(graph: Any, words: str, lang: str) -> GraphAnswer | None:
    """The speaker of the first quotation in book order holding ``words`` whose speaker the graph knows."""
    spoken = [q for q in graph.find_quotations(words, limit=MAX_LINES) if q.speaker is not None]
    if not spoken:
        return None
    quote = spoken[0]
    answer = GraphAnswer([])
    to = _line(lang, "to", names=", ".join(a.canonical_name for a in quote.addressees)) if quote.addressees else ""
    answer.lines.append(
        _line(lang, "said", speaker=quote.speaker.canonical_name, to=to, text=cut(quote.text, LINE_CHARS))
        + answer.cite(quote.passage, quote.text)
    )
    return answer


def _says_to_answer(graph: Any, speaker: EntityRef, addressee: EntityRef, lang: str) -> GraphAnswer | None:
    """``speaker``'s quotations addressed to ``addressee``, in book order."""
    quotes = graph.quotations(speaker_id=speaker.entity_id, addressee_id=addressee.entity_id, limit=MAX_LINES)
    if not quotes:
        return None
    answer = GraphAnswer([_line(lang, "says_to", speaker=speaker.canonical_name, addressee=addressee.canonical_name)])
    answer.lines += [f"- {cut(q.text, LINE_CHARS)}" + answer.cite(q.passage, q.text) for q in quotes]
    return answer


def read_question(graph: Any, prompt: str, lang: str, analyzer: Analyzer | None = None) -> GraphAnswer | None:
    """The graph's answer to ``prompt`` when it is one of the four questions (module docstring), else None."""
    lang = lang if lang in LINES else "en"
    said = _SAID_QUESTION.match(prompt)
    if said:
        return _said_answer(graph, said.group("double") or said.group("single"), lang)
    words = kinship_words(lang)
    asked_for = [(p.match(prompt), "") for p in _KIN_QUESTIONS] + [
        (p.match(prompt), "spouse") for p in _MARRY_QUESTIONS
    ]
    for found, fixed in asked_for:
        asked = fixed or (found.group("kin").casefold() if found else "")
        kin = Kin("spouse", "") if fixed else words.get(asked)
        target = _entity(graph, found.group("name"), analyzer) if found and kin else None
        if target is not None and kin is not None:
            return _kin_answer(graph, target, asked if not fixed else SPOUSE.get(lang, fixed), kin, lang)
    for pattern in (*_RELATED_QUESTIONS, _SAY_TO_QUESTION):
        found = pattern.match(prompt)
        pair = [_entity(graph, found.group(side), analyzer) for side in "ab"] if found else []
        a, b = pair if pair else (None, None)
        if a is not None and b is not None and a.entity_id != b.entity_id:
            if pattern is _SAY_TO_QUESTION:
                return _says_to_answer(graph, a, b, lang)
            return _related_answer(graph, a, b, lang)
    return None


def answers_from_the_graph(graph: Any, prompt: str, lang: str, analyzer: Analyzer | None = None) -> bool:
    """Whether the relations tool answers ``prompt`` (the other tools' hook: they then step aside)."""
    try:
        return read_question(graph, prompt, lang, analyzer) is not None
    except GraphStoreError as exc:  # a failing store must not sink the other tools' answer too
        logger.error("relations: reading %r from the graph failed: %s", prompt, exc)
        return False


class AbstractRelationsTool(AnalysisCollaborators, OrchestratorActivatedTool, abstract=True):
    """Answers kinship and speech questions from the graph (priority 0). Wire ``set_graph_store`` (required),
    ``set_retriever`` (citations) and ``set_domain_settings`` (language) in ``init()``."""

    def get_priority(self) -> int:
        """0: with the entity tool, before question answering (which steps aside for the questions answered here)."""
        return 0

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:
        """Suitable when the graph answers the question (``read_question``)."""
        return not self.inactive and answers_from_the_graph(self.graph, prompt, self._lang(user_lang), self.analyzer)

    def _lang(self, user_lang: str) -> str:
        """The answer's language, where its lines and kinship words exist (else English)."""
        lang = self.answer_language(user_lang)
        return lang if lang in LINES else "en"

    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """The answer lines and their cited passages; nothing when the graph does not answer."""
        if self.inactive:
            return ToolExecutionResult.nothing(self.name)
        lang = self._lang(user_lang)
        answer = read_question(self.graph, user_prompt, lang, self.analyzer)
        if answer is None:
            return ToolExecutionResult.nothing(self.name)
        docs = [
            TextAnswer(
                window(passage.text, sentence, PASSAGE_CHARS) if sentence else cut(passage.text, PASSAGE_CHARS),
                source=cite(self._retriever, passage.chunk_id, passage.unit_title),
            )
            for passage, sentence in answer.passages
        ]
        if self.assistant is not None:
            return ToolExecutionResult.as_guaranteed_context(self.name, [TextAnswer("\n".join(answer.lines)), *docs])
        return ToolExecutionResult.as_direct_answer(self.name, with_sources(lang, answer.lines, docs), docs)

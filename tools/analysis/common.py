"""What the analysis tools share: answer phrases in the user's language, names found in a question, citations.

Answers are written in the user's language (``user_lang`` from the platform): Hungarian and English phrases are
kept here side by side so a domain is a configuration, not a translation job. Names in a question are found by
trying its capitalised word runs against the graph (``GraphStore.find_entity``): first as written, then stemmed,
since a Hungarian question inflects them ("Gergelynek", "Dobóval").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tools.documents import TextAnswer
from tools.retrieval.analyzer import STOP_WORDS, Analyzer
from tools.retrieval.chunks import ChunkRetriever, RetrievalError

logger = logging.getLogger(__name__)

MIN_NAME_SCORE = 0.6  # graph.matching's prefix tier; its fuzzy tier (typos) stays below and is not trusted here
TOKEN_MATCH_SCORE = 0.8  # graph.matching: every query token is a token of the name
PREFIX_COVERAGE = 0.5  # a prefix match must cover more than half of the name token it starts
PASSAGE_CHARS = 320

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "profile": "{name} ({label}) is mentioned {mentions} times in {units} units, first in {first}.",
        "companions_of": "Most often together with: {names}.",
        "members": "A family; its members in the book: {names}.",
        "namesakes": "The name is also part of these names in the book: {names}.",
        "closest": "{name}'s closest companion is {other}: they appear together {count} times "
                   "(strength {weight:.2f}).",
        "others": "Next: {names}.",
        "no_relations": "{name} does not appear together with anyone in the graph.",
        "path_direct": "{a} and {b} are directly connected: they appear together {count} times "
                       "(strength {weight:.2f}).",
        "path_via": "{a} and {b} are connected through {via} ({hops} steps).",
        "no_path": "I found no connection between {a} and {b} within {hops} steps.",
        "timeline_head": "{name} through the book, unit by unit:",
        "timeline_row": "{unit}: {mentions} mentions{with_}",
        "with": "; with {names}",
        "which": "Which {query} do you mean?",
        "sources": "Sources:",
        "unit_head": "{unit}: {chunks} passages.",
        "unit_entities": "Who and what appears: {names}.",
        "unit_none": "No known character or place appears in it.",
        "unit_opening": "It begins: “{text}”",
        "which_unit": "Chapter {chapter} appears in several parts. Which one do you mean?",
        "no_unit": "I found no chapter {chapter}.",
        "overview": "{title}: {units} units, {entities} entities. Main characters: {names}.",
        "strongest": "Strongest relations: {pairs}.",
        "places": "Main places: {names}.",
    },
    "hu": {
        "profile": "{name} ({label}) {mentions} alkalommal szerepel {units} egységben; először itt: {first}.",
        "companions_of": "Leggyakrabban vele együtt: {names}.",
        "members": "Egy család; tagjai a könyvben: {names}.",
        "namesakes": "A név a könyv ezen neveiben is szerepel: {names}.",
        "closest": "{name} legközelebbi társa {other}: {count} alkalommal szerepelnek együtt "
                   "(erősség {weight:.2f}).",
        "others": "Utána: {names}.",
        "no_relations": "{name} senkivel sem szerepel együtt a gráfban.",
        "path_direct": "{a} és {b} közvetlen kapcsolatban állnak: {count} alkalommal szerepelnek együtt "
                       "(erősség {weight:.2f}).",
        "path_via": "{a} és {b} kapcsolata: {via} ({hops} lépés).",
        "no_path": "Nem találtam kapcsolatot {a} és {b} között {hops} lépésen belül.",
        "timeline_head": "{name} a könyvben, egységről egységre:",
        "timeline_row": "{unit}: {mentions} említés{with_}",
        "with": "; együtt: {names}",
        "which": "Több „{query}” is van. Melyikre gondolsz?",
        "sources": "Források:",
        "unit_head": "{unit}: {chunks} szakasz.",
        "unit_entities": "Szereplők és helyek: {names}.",
        "unit_none": "Ismert szereplő vagy hely nem fordul elő benne.",
        "unit_opening": "Így kezdődik: „{text}”",
        "which_unit": "A(z) {chapter}. fejezet több részben is szerepel. Melyikre gondolsz?",
        "no_unit": "Nem találtam {chapter}. fejezetet.",
        "overview": "{title}: {units} egység, {entities} entitás. Főszereplők: {names}.",
        "strongest": "A legerősebb kapcsolatok: {pairs}.",
        "places": "Fő helyszínek: {names}.",
    },
}


def phrase(lang: str, key: str, **values: Any) -> str:
    """The phrase ``key`` in ``lang`` (English when the language has no phrases), filled with ``values``; a sentence
    that starts with a name's lowercase particle starts with a capital ("De Langeron (PERSON) is mentioned …")."""
    table = PHRASES.get(lang, PHRASES["en"])
    text = table[key].format(**values)
    return text[:1].upper() + text[1:] if text[:1].islower() else text


class ResolvedEntity(BaseModel):
    """An entity a tool resolved from the question: the payload of the InternalContextDocument between tools."""

    query: str
    entity_id: str
    canonical_name: str
    label: str
    aliases: list[str] = []


@dataclass(frozen=True, slots=True)
class NameInQuestion:
    """A name found in a question: the words as written and the graph's ``EntityMatch`` for them."""

    surface: str
    match: Any  # graph.results.EntityMatch


_RUN = re.compile(r"[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)*")
_QUESTION_WORDS = frozenset(
    "who whom whose what which how where when why tell is are was show give chapter book part ki kit kinek kiről "
    "kivel mi mit miről mivel milyen hogyan hol mikor miért melyik hány mondd mutasd fejezet rész könyv és and or "
    "vagy".split()
)


def _capitalised_runs(text: str) -> list[str]:
    """Runs of consecutive capitalised words, minus leading question words ("Who", "Ki", "How"). A capitalised stop
    word inside a run is a name's particle and stays ("Baltus Van Tassel": "van" is a Hungarian stop word)."""
    runs: list[str] = []
    current: list[str] = []

    def close() -> None:
        while current and _is_stop(current[-1]):
            current.pop()
        if current:
            runs.append(" ".join(current))
        current.clear()

    for token in re.findall(r"[^\W\d_][\w'’-]*|\S", text):
        word = re.sub(r"['’]s$", "", token)
        if word[:1].isupper() and word.casefold() not in _QUESTION_WORDS and (current or not _is_stop(word)):
            current.append(word)
            continue
        close()
    close()
    return runs


def _is_stop(word: str) -> bool:
    folded = word.casefold()
    return any(folded in stop for stop in STOP_WORDS.values())


def find_names(graph: Any, question: str, analyzer: Analyzer | None = None) -> list[NameInQuestion]:
    """The entities a question names, in question order; words the graph does not know are skipped.

    Each capitalised run is read greedily from the left, longest known name first, so "Show Ellen" finds "Ellen"
    and "Dobó István" stays one name. A part beginning or ending with a particle is never looked up: "Brom Van Brunt",
    unknown as a whole, finds "Brom", not every "Van".
    """
    found: list[NameInQuestion] = []
    seen: set[str] = set()
    for run in _capitalised_runs(question):
        words = run.split()
        i = 0
        while i < len(words):
            for j in range(len(words), i, -1):
                if _is_stop(words[i]) or _is_stop(words[j - 1]):
                    continue  # a particle alone or at an edge ("Van" of "Brom Van Brunt") names no one
                match = _lookup(graph, " ".join(words[i:j]), analyzer)
                if match is not None:
                    if match.best.entity_id not in seen or match.ambiguous:
                        seen.add(match.best.entity_id)
                        found.append(NameInQuestion(" ".join(words[i:j]), match))
                    i = j
                    break
            else:
                i += 1
    return found


def _lookup(graph: Any, surface: str, analyzer: Analyzer | None) -> Any | None:
    """The graph's match for ``surface`` as written, else stemmed (inflected Hungarian names); None if weak."""
    from graph.errors import EntityNotFoundError

    tries = [surface]
    if analyzer is not None:
        stemmed = " ".join(analyzer.stem(w.casefold()) for w in surface.split())
        if stemmed.casefold() != surface.casefold() and not all(_is_stop(w) for w in stemmed.split()):
            tries.append(stemmed)
    for attempt in tries:
        try:
            match = graph.find_entity(attempt)
        except EntityNotFoundError:
            continue
        if match.best is not None and _trusted(match):
            return match
    return None


def _trusted(match: Any) -> bool:
    """Exact and whole-token matches are trusted; a prefix match only when the words cover most of the name's.

    "év" (stem of "Évának") → "Éva" passes (2 of 3 letters); "mi" → "Miklós" does not (2 of 6).
    """
    best = match.best
    if best.score >= TOKEN_MATCH_SCORE:
        return True
    if best.score < MIN_NAME_SCORE:
        return False
    from graph.matching import normalise

    key_tokens = best.matched_key.split()
    for token in normalise(match.query).split():
        prefixed = [k for k in key_tokens if k.startswith(token)]
        if not prefixed or len(token) / min(len(k) for k in prefixed) <= PREFIX_COVERAGE:
            return False
    return True


def excerpt(text: str, limit: int = PASSAGE_CHARS, names: Sequence[Sequence[str]] = ()) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters.

    ``names`` (one group of names per entity, e.g. each one's canonical name and aliases): the excerpt shows the part
    of a longer text where the most of those entities are named together, starting at that sentence, so that the
    evidence of "X's closest companion is Y" names both rather than whatever the chunk happens to begin with.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    start = _focus_start(text, limit, name_spans(text, names)) if names else 0
    flat = " ".join(text[start:].split())
    prefix = "… " if start > 0 else ""
    if len(flat) <= limit:
        return prefix + flat
    return prefix + flat[:limit].rsplit(" ", 1)[0] + " …"


def name_spans(text: str, names: Sequence[Sequence[str]]) -> list[tuple[int, int, int]]:
    """``(start, end, group)`` of every whole-word occurrence in ``text`` of a name of each group."""
    spans: list[tuple[int, int, int]] = []
    for group, group_names in enumerate(names):
        words = sorted({n.strip() for n in group_names if n and n.strip()}, key=len, reverse=True)
        if not words:
            continue
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)")
        spans.extend((m.start(), m.end(), group) for m in pattern.finditer(text))
    return sorted(spans)


class NameGroups:
    """Which groups of names (one group per entity) a text names, found in one pass: every name of every group in
    one pattern, longest first, so "Prince Andrew" names the group holding it and not a group holding only
    "Andrew". For scanning a whole book; ``name_spans`` gives the spans of one passage."""

    def __init__(self, names: Sequence[Sequence[str]]) -> None:
        self._groups: dict[str, set[int]] = {}
        for group, group_names in enumerate(names):
            for name in group_names:
                if name and name.strip():
                    self._groups.setdefault(name.strip(), set()).add(group)
        words = sorted(self._groups, key=len, reverse=True)
        self._pattern = (re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)")
                         if words else None)

    def named_in(self, text: str) -> set[int]:
        """The groups ``text`` names."""
        if self._pattern is None:
            return set()
        return {g for found in self._pattern.finditer(text) for g in self._groups[found.group(0)]}


def _focus_start(text: str, limit: int, spans: Sequence[tuple[int, int, int]]) -> int:
    """Where a ``limit``-character window holding the most groups (then the most names, then the earliest) starts,
    moved back to the start of its sentence when that costs less than a quarter of the window."""
    if not spans:
        return 0
    best: tuple[tuple[int, int, int], int] | None = None
    for first, _, _ in spans:
        inside = [s for s in spans if first <= s[0] and s[1] <= first + limit * 3 // 4]
        key = (len({g for *_, g in inside}), len(inside), -first)
        if best is None or key > best[0]:
            best = (key, first)
    assert best is not None
    first = best[1]
    floor = max(0, first - limit // 4)
    boundary = max(text.rfind(mark, floor, first) for mark in (". ", "! ", "? ", "\n", "\u201d "))
    if boundary >= 0:
        return boundary + 1
    return 0 if first <= limit // 4 else first


def cite(retriever: ChunkRetriever | None, chunk_id: str, fallback: str = "") -> str:
    """The citation of a chunk: from the retriever's catalogue when it knows the chunk, else ``fallback``."""
    if retriever is not None:
        try:
            return retriever.get(chunk_id).citation
        except RetrievalError:
            pass
    return " › ".join(p for p in (fallback, chunk_id) if p)


def evidence(retriever: ChunkRetriever | None, passages: Sequence[Any],
             names: Sequence[Sequence[str]] = ()) -> list[TextAnswer]:
    """Passages (``graph.results.Passage``) as cited TextAnswers for the user, each excerpt where ``names`` meet."""
    return [TextAnswer(excerpt(p.text, names=names), source=cite(retriever, p.chunk_id, p.unit_title))
            for p in passages]


def with_sources(lang: str, lines: Sequence[str], docs: Sequence[TextAnswer]) -> str:
    """Answer lines, the quoted evidence numbered ``[n]`` and the numbered source list."""
    out = list(lines)
    if docs:
        out.append("")
        out.extend(f"> {doc.text} [{n}]" for n, doc in enumerate(docs, start=1))
        out.append("")
        out.append(phrase(lang, "sources"))
        out.extend(f"[{n}] {doc.source}" for n, doc in enumerate(docs, start=1))
    return "\n".join(out)


def cut(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word before ``limit`` characters (" …" marks the cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + " …"


def window(text: str, sentence: str, limit: int) -> str:
    """About ``limit`` characters of ``text`` on one line, starting a little before ``sentence``."""
    flat = " ".join(text.split())
    at = flat.find(" ".join(sentence.split()))
    start = 0 if at < 0 else max(0, at - limit // 5)
    if start:
        boundary = max(flat.rfind(mark, 0, at) for mark in (". ", "! ", "? ", "” "))
        start = boundary + 2 if boundary >= start - limit // 5 and boundary >= 0 else start
    window = flat[start:]
    prefix = "… " if start else ""
    return prefix + (window if len(window) <= limit else window[:limit].rsplit(" ", 1)[0] + " …")



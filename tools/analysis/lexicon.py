"""``EntityLexicon``: the book's own names by kind (people, places), read once from its graph, and the answer spans
a sentence offers — a person, a place, a time or a number that the question did not already name.

The names come from the book's entity graph (what the pipeline found), never from a hand-made list; times and
numbers are recognised by their form.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

KINDS: dict[str, frozenset[str]] = {
    "person": frozenset({"PERSON", "PER"}),
    "place": frozenset({"GPE", "LOC", "FAC"}),
}
MAX_ENTITIES = 20_000
MAX_NAME_WORDS = 5

_TOKEN = re.compile(r"[^\W\d_][\w'’-]*\.?|\S")  # a word keeps a dot after it: "St. Petersburg", "Lowick."
_MONTHS = "january february march april june july august september october november december"  # "May": see _TIME
# Hungarian months take case endings ("májusában", "októberben").
_HU_MONTHS = "január február március április május június július augusztus szeptember október november december"
_NUMBER_WORDS = (  # not "one" nor "egy": pronoun and article far more often than a count
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand dozen "
    "két kettő három négy öt hat hét nyolc kilenc tíz húsz harminc negyven ötven száz ezer"
)
_TIME = re.compile(
    r"\b(1[0-9]{3}|20[0-9]{2})\b|\b(" + "|".join(_MONTHS.split()) + r")\b|\b(" + "|".join(_HU_MONTHS.split())
    + r")\w*|\b(in|of|early|late) may\b|\bmay \d|"
    r"\b(spring|summer|autumn|winter|morning|evening|night|noon|midnight|dawn|dusk|christmas|easter|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|tavasz\w*|nyár\w*|ősz\w*|tél\w*|reggel\w*|"
    r"este|éjjel|éjszaka|hajnal\w*|karácsony\w*|húsvét\w*)\b|"
    r"\b(\d+|" + "|".join(_NUMBER_WORDS.split()) + r")\s+(years?|months?|weeks?|days?|hours?|centur(y|ies)|"
    r"év\w*|hónap\w*|hét|hete\w*|nap\w*|óra\w*)\b|"
    r"\b(?!(?:a|the|this|that|every|half)\b)(\w+)\s+centur(y|ies)\b",  # "the eighteenth century", not "a century"
    re.IGNORECASE,
)
# A count said in digits or words, "twenty-four" included.
_COUNT = r"(?:\d+|(?:" + "|".join(_NUMBER_WORDS.split()) + r")(?:-(?:one|two|three|four|five|six|seven|eight|nine))?)"
_UNIT = r"(?:years?|months?|weeks?|days?|hours?|év\w*|hónap\w*|hét|hete\w*|nap\w*|óra\w*)"
# A length of time: "thirty years", "three days", "húsz évig".
_DURATION = re.compile(r"\b" + _COUNT + r"(?:-|\s+)" + _UNIT + r"\b", re.IGNORECASE)
# An age: "nine years old", "a ten-year-old", "aged twenty", "at the age of nine" — said as an age; a bare "twenty
# years" is a length of time, not how old someone is.
_AGE = re.compile(
    r"\b" + _COUNT + r"(?:-|\s+)(?:years?|months?)(?:-|\s+)old\b|\b(?:aged|age of)\s+" + _COUNT + r"\b",
    re.IGNORECASE,
)
# A time said more exactly is the better answer: a year before a month or a feast, before a number of days or years,
# before a season or a part of the day ("One evening in 1805" answers "When?" with 1805).
_TIME_RANKS = (
    re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b"),
    re.compile(r"\b(" + "|".join([*_MONTHS.split(), *_HU_MONTHS.split()]) + r"|christmas|easter|karácsony|húsvét)"
               r"|\bmay \d", re.IGNORECASE),
    re.compile(r"\b(" + _COUNT + r"|\w+(st|nd|rd|th))\s+(years?|months?|weeks?|days?|centur(y|ies)|év\w*|hónap\w*)\b",
               re.IGNORECASE),
)
# What a reason or a manner is said with; the sentence, not the words, is the answer.
_REASON = re.compile(r"\b(because|since|for fear|so that|in order to|owing to|due to|on account of|as a result|"
                     r"therefore|mert|miatt|ezért|azért)\b", re.IGNORECASE)
_MANNER = re.compile(r"\bby (\w+ing|means of)\b|\bwith the help of\b|\bthrough\b|\búgy, hogy\b|\bazzal, hogy\b|"
                     r"\bsegítségével\b", re.IGNORECASE)
# Words said before a name that do not tell who it is: "Mr. Pyncheon" is no answer to a question about the Pyncheons.
_TITLES = frozenset(
    "mr mrs miss ms dr sir lady lord madam madame mme monsieur mademoiselle master mistress uncle aunt father mother "
    "brother sister captain colonel general major count countess prince princess king queen duke duchess baron "
    "baroness saint st old young little úr úrnak asszony kisasszony néni bácsi".split()
)
_NUMBER = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS.split()) + r")\b", re.IGNORECASE)


@dataclass
class EntityLexicon:
    """Every name of the book's people and places: a written form → its kind (``person`` or ``place``) and the
    entity's canonical name."""

    kinds: dict[str, str] = field(default_factory=dict)
    canonical: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_graph(cls, graph: Any) -> EntityLexicon:
        """The lexicon of a loaded book (``graph.store.GraphReader``): its entities' canonical names and aliases."""
        lexicon = cls()
        try:
            nodes = graph.top_entities(by="mentions", limit=MAX_ENTITIES)
        except Exception as exc:  # noqa: BLE001 - answers without name spans are still answers
            logger.warning("no entity lexicon for answer spans: %s", exc)
            return lexicon
        for node in nodes:
            kind = next((k for k, labels in KINDS.items() if node.label in labels), None)
            if kind is not None:
                lexicon.add(kind, [node.canonical_name, *node.aliases], node.canonical_name)
        return lexicon

    def add(self, kind: str, forms: Iterable[str], canonical: str = "") -> None:
        """Record ``forms`` as names of ``kind`` (the first entity recorded for a form wins: the more mentioned)."""
        for form in forms:
            key = " ".join(form.split())
            if key and key[:1].isupper() and key not in self.kinds:
                self.kinds[key] = kind
                self.canonical[key] = canonical or key

    def names(self, text: str, kind: str) -> list[str]:
        """The names of ``kind`` in ``text``, in order, each the longest known run of capitalised words."""
        return [name for _, name in self.names_at(text, kind)]

    def names_at(self, text: str, kind: str) -> list[tuple[int, str]]:
        """``names`` with the offset in ``text`` where each is written."""
        tokens = list(_TOKEN.finditer(text))
        found: list[tuple[int, str]] = []
        i = 0
        while i < len(tokens):
            if not tokens[i].group(0)[:1].isupper():
                i += 1
                continue
            for j in range(min(len(tokens), i + MAX_NAME_WORDS), i, -1):
                written = " ".join(t.group(0) for t in tokens[i:j])
                name = next((c for c in (written, written.rstrip(".")) if self.kinds.get(c) == kind), None)
                if name is not None:
                    found.append((tokens[i].start(), name))
                    i = j
                    break
            else:
                i += 1
        return found

    def answer_span(self, text: str, answer_type: str, excluded: set[str],
                    asked: frozenset[str] = frozenset()) -> str:
        """What ``text`` offers for ``answer_type`` (person, place, time, number, age, duration) on one line,
        skipping the question's own names (``excluded``, case-folded) and a name whose every word but its titles the
        question says (``asked``: the question's words, case-folded); "" when it offers nothing."""
        if answer_type in KINDS:
            names = self.answer_names(text, answer_type, excluded, asked)
            return names[0] if names else ""
        if answer_type == "time":
            return _most_exact_time(text)
        pattern = {"number": _NUMBER, "age": _AGE, "duration": _DURATION, "reason": _REASON,
                   "manner": _MANNER}.get(answer_type)
        found = pattern.search(text) if pattern is not None else None
        return " ".join(found.group(0).split()) if found else ""

    def answer_names(self, text: str, kind: str, excluded: set[str], asked: frozenset[str] = frozenset()) -> list[str]:
        """Every person or place (``kind``) ``text`` names that may answer, canonical, in order, without repeats:
        the question's own names left out as in ``answer_span``."""
        return list(dict.fromkeys(name for _, name in self.answer_names_at(text, kind, excluded, asked)))

    def answer_names_at(self, text: str, kind: str, excluded: set[str],
                        asked: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
        """``answer_names`` with the offset of each mention (repeats kept)."""
        return [(at, self.canonical.get(n, n)) for at, n in self.names_at(text, kind)
                if n.casefold() not in excluded and not _said_in(n, asked)]


def _most_exact_time(text: str) -> str:
    """The time ``text`` says most exactly (``_TIME_RANKS``: a year or a date, then a month or a feast, then a span
    of days or years), else the first time it says at all (a season, a part of the day); "" when none."""
    times = [found for found in _TIME.finditer(text)]
    for rank in _TIME_RANKS:
        exact = next((found for found in times if rank.search(found.group(0))), None)
        if exact is not None:
            return " ".join(exact.group(0).split())
    return " ".join(times[0].group(0).split()) if times else ""


def _said_in(name: str, asked: frozenset[str]) -> bool:
    """Whether every word of ``name`` but its titles is among the question's words ("Mr. Pyncheon" in "Who cursed
    the Pyncheon family?"): the question's subject, not its answer."""
    if not asked:
        return False
    words = [w.casefold().rstrip(".") for w in name.split()]
    told = [w for w in words if w not in _TITLES]
    return bool(told) and all(w in asked for w in told)

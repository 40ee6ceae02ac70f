"""How the book introduces someone: the first sentence where one of an entity's names is followed by an apposition
("Manuel, one of the gardener's helpers, …"; "Katrina Van Tassel, the daughter and only child of a substantial Dutch
farmer") or a copula with a description ("Anna Keller was the miller's daughter").

The entity card answers "Who is X?" with it first: what a reader asks is what X is in the story, which counts of
mentions do not say. Only the sentence is shown, with its citation; nothing is paraphrased. A name followed by a
comma and a verb or a pronoun ("Holgrave, that you should …" in dialogue, "Tulkinghorn, who had risen …") is no
description, so the words that may open one are few: an article, a possessive, "one of", "as" with a noun.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tools.llm.text import sentences

MAX_DESCRIPTION_CHARS = 160
# What may open a description after "NAME, " (apposition) or "NAME was / is " (copula), per language.
_OPENERS = {
    "en": r"(?:(?:the|a|an|his|her|their|its|our|one of)\b|as (?!(?:he|she|it|they|i|we|you|if|though|soon|well|"
          r"usual|always|before|ever|much|long)\b)[a-z])",
    "hu": r"(?:a|az|egy)\b",
}
_COPULAS = {"en": r"(?:was|is|had been|became)", "hu": r"(?!)"}  # a Hungarian copula ends the clause: not read


@dataclass(frozen=True)
class Description:
    """The sentence that describes an entity and the passage it is in."""

    sentence: str
    passage: Any  # graph.results.Passage
    start: int = 0  # where the name begins in the sentence

    @property
    def quote(self) -> str:
        """The sentence on one line; a long one from the name on ("…Katrina Van Tassel, the daughter …"), cut at a
        word near ``MAX_DESCRIPTION_CHARS`` after it: the answer line quotes the description, not the whole period."""
        text = " ".join(self.sentence.split())
        if len(text) <= MAX_DESCRIPTION_CHARS:
            return text
        head = " ".join(self.sentence[:self.start].split())
        text = text[len(head):].lstrip()
        lead = "…" if head else ""
        if len(text) <= MAX_DESCRIPTION_CHARS:
            return lead + text
        return lead + text[:MAX_DESCRIPTION_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def describing_pattern(forms: Iterable[str], language: str) -> re.Pattern[str] | None:
    """The pattern of "FORM, <description>" or "FORM was <description>" for the entity's written ``forms``."""
    names = sorted({f for f in forms if len(f) > 1}, key=len, reverse=True)
    if not names:
        return None
    opener = _OPENERS.get(language, _OPENERS["en"])
    copula = _COPULAS.get(language, _COPULAS["en"])
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?:,\s+|\s+{copula}\s+)(?={opener})")


def describe(passages: Sequence[Any], forms: Iterable[str], language: str) -> Description | None:
    """The first sentence of ``passages`` (book order) that describes the entity of ``forms``; None when none does.

    A sentence opening a quotation's reply ("NAME, the …" said to NAME) is still kept: in a novel's narration an
    apposition after a name is the common way to introduce a character, and dialogue rarely addresses someone with
    an article.
    """
    pattern = describing_pattern(forms, language)
    if pattern is None:
        return None
    for passage in passages:
        for sentence in sentences(passage.text):
            found = pattern.search(sentence.strip())
            if found and len(sentence) <= 4 * MAX_DESCRIPTION_CHARS:
                return Description(sentence.strip(), passage, found.start())
    return None

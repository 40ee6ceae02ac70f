"""Who a said-clause says speaks: the subject of a verb of saying next to a quotation, found by word order alone.

A name, a pronoun or a description ("the old man") right beside the verb; else "one" or "another" right after it
("said another": someone, no one named); else, in a clause before the quotation, the subject opening it; else the
nearest name that is no object (not after "to", not a possessive), a pronoun two words off, a description.
Descriptions are a determiner and a few words that stop at punctuation, at an adverb and at a verb in the past.
Word lists are ``ingestion.quotes.speech``'s language resources.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Sequence

from ingestion.quotes.speech import (
    DESCRIPTION_STOPS,
    DETERMINERS,
    INDEFINITE_SUBJECTS,
    OBJECT_MARKERS,
    SPOKEN_TO_ENDINGS,
    SUBJECT_PRONOUNS,
    is_speech_verb,
)

logger = logging.getLogger(__name__)

__all__ = ["subject"]

Span = tuple[int, int]
Word = tuple[int, int, str]  # start, end, the word as written
# Between a verb of saying and the one saying it: adverbs and "one of", never a preposition ("answered in a voice").
NOT_BEFORE_SPEAKER = (OBJECT_MARKERS - {"of"}) | {"in", "by", "and", "but", "or"}
# A description opening a clause: its determiner and at most two words ("His sister looked up": "His sister").
OPENING_DESCRIPTION_WORDS = 3


def subject(
    text: str, words: Sequence[Word], position: int, names: Sequence[Span], name_starts: Sequence[int]
) -> tuple[str, Span]:
    """Who a said-clause says speaks, as ``(kind, span)``: a name, pronoun or description right beside the verb
    (a name after "to" or possessive is not one: "said he to Temple", "at Dick's coat"); else the subject opening
    the clause when it comes before the verb ("The old lady felt his shirt, and said:"); else the nearest name, a
    pronoun two words off, a description; else ``("dropped", verb)``, the subject Hungarian leaves out."""
    named = _named_subject(text, words, position, names, name_starts)
    beside = [*words[max(position - 2, 0) : position], *words[position + 1 : position + 3]]
    pronoun = next(((w[0], w[1]) for w in beside if w[2].casefold() in SUBJECT_PRONOUNS), None)
    description = _description(text, words, position)
    adjacent = {w[0] for w in words[max(position - 1, 0) : position + 2]}
    if named is not None and named[0] <= 1:
        return "name", named[1]
    if pronoun is not None and pronoun[0] in adjacent:
        return "pronoun", pronoun
    if description is not None and (
        description[0] in adjacent or position > 0 and description[1] == words[position - 1][1]
    ):
        return "description", description
    if position + 1 < len(words) and words[position + 1][2].casefold() in INDEFINITE_SUBJECTS:
        return "description", words[position + 1][:2]  # "said another": someone, not the latest name
    opening = _opening_subject(text, words, position, names, name_starts)
    if opening is not None:
        return opening
    if named is not None:
        return "name", named[1]
    if pronoun is not None:
        return "pronoun", pronoun
    if description is not None:
        return "description", description
    return "dropped", words[position][:2]


def _opening_subject(
    text: str, words: Sequence[Word], position: int, names: Sequence[Span], name_starts: Sequence[int]
) -> tuple[str, Span] | None:
    """The name, pronoun or description opening a clause whose verb of saying comes later in it."""
    if position == 0:
        return None
    first = words[0]
    at = bisect.bisect_left(name_starts, first[0])
    possessive = at < len(names) and text.startswith(("'s", "’s"), names[at][1])
    if at < len(names) and names[at][0] == first[0] and not possessive:
        return "name", names[at]
    if first[2].casefold() in SUBJECT_PRONOUNS:
        return "pronoun", (first[0], first[1])
    found = _description_from(text, words, 0, min(position, OPENING_DESCRIPTION_WORDS))
    return ("description", found) if found is not None else None


def _named_subject(
    text: str, words: Sequence[Word], verb: int, names: Sequence[Span], name_starts: Sequence[int]
) -> tuple[int, Span] | None:
    """The name of the clause nearest its verb that can be its subject, with its distance in words."""
    lo, hi = words[0][0], words[-1][1]
    found = []
    for i in range(bisect.bisect_left(name_starts, lo), bisect.bisect_left(name_starts, hi)):
        start, end = names[i]
        inside = [k for k, w in enumerate(words) if start <= w[0] < end]
        if end > hi or not inside:
            continue
        before = words[inside[0] - 1][2].casefold() if inside[0] > 0 else ""
        if before in OBJECT_MARKERS or text.startswith(("'s", "’s"), end):
            continue
        found.append((min(abs(k - verb) for k in inside), (start, end)))
    return min(found) if found else None


def _description(text: str, words: Sequence[Word], verb: int) -> Span | None:
    """A determiner and up to three words with no punctuation but a hyphen between them, after the verb ("said the
    parson, smacking his leg": "the parson"; "cried one of the women", but not "answered in a trembling voice") or
    ending right before it, perhaps with adverbs between ("the old man slowly said"). It ends before an adverb ("the
    doctor carelessly"), a verb in the past ("the lady reached") and another determiner ("the man a little
    impatiently"); not a Hungarian noun in the dative, the one
    spoken to ("mondja a fiúnak")."""
    for first in range(verb + 1, min(verb + 4, len(words))):
        if words[first][2].casefold() in DETERMINERS:
            return _description_from(text, words, first, min(first + 4, len(words)))
        if words[first][2].casefold() in NOT_BEFORE_SPEAKER:
            break
    for first in range(max(verb - 4, 0), verb):
        found = _description_from(text, words, first, verb)
        if found is None:
            continue
        last = next(k for k in range(first, verb) if words[k][1] >= found[1])
        between = words[last + 1 : verb]
        if found[1] == words[last][1] and all(w[2].endswith("ly") for w in between):
            return found
    return None


def _description_from(text: str, words: Sequence[Word], first: int, last: int) -> Span | None:
    """The description that ``words[first]`` opens, within ``words[first:last]`` (``_description``), or None."""
    if first >= last or words[first][2].casefold() not in DETERMINERS:
        return None
    body = [words[first]]
    for following in words[first + 1 : last]:
        joined = text[body[-1][1] : following[0]].strip() in ("", "-")
        lower = following[2].casefold()
        verb_like = lower.endswith("ly") or (len(body) > 1 and lower.endswith("ed"))  # "the wounded man" is one
        stop = lower in DESCRIPTION_STOPS or lower in DETERMINERS  # "said the man a little impatiently"
        if not joined or stop or is_speech_verb(following[2]) or verb_like:
            break
        body.append(following)
    if len(body) < 2 or body[-1][2].casefold().endswith(SPOKEN_TO_ENDINGS):
        return None
    return body[0][0], body[-1][1]

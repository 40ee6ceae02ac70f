"""Kinship said to someone's face: a quotation that calls its addressee "Mamma", "Father" or "my dear wife" makes the
addressee that kin of its speaker ("Papa, what are you doing?" asked Natasha: her father is the one she speaks to).

Each side is read from the ``quotes`` stage: the speaker when a speech verb gave it (explicit or anaphoric, not
turn-taking); the addressee the one person the quotation names as such, else the other side of the conversation,
the speaker of the nearest quotation before it and after it (within ``TURN_REACH`` characters of each other) when
both are the same person. Both are often wrong once, rarely the same way twice: a speaker's calls by one kinship
meaning go to the addressee most of them find (``MIN_CALLS`` and more than half), or to no one. Evidence against a
call: a kinship word of the other sex than the addressee, an addressee whose family names share none with the
speaker's, two people who call each other so, a call inside a quotation the speaker quotes, a word the book writes
as a name ("Uncle"). Words said to anyone ("my child", "my friend", a religious "brother" or "sister") are no
vocatives here; spouse and child words count only after "my" ("my dear wife").
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from graph.kinship import PLURALS, Kin, kinship_words
from ingestion.relations.sentences import PersonMention
from ingestion.relations.speech import SpokenQuote, in_quotation
from ingestion.relations.statements import ChunkLookup, RelationMention

logger = logging.getLogger(__name__)

VOCATIVE = 0.5  # the speaker and the addressee are both read from the conversation, each right well under always
TURN_REACH = 1500  # characters between two quotations of one conversation
SPEAKER_TOLD = frozenset({"explicit", "anaphoric"})
MIN_CALLS = 2  # calls by one word to one addressee before the word is read as their kinship
# Called by the word alone ("Mamma!") or after "my" ("my dear papa"); "uncle" and "aunt" are also what children
# call their elders' friends, but a book names them so rarely that the word stays.
_BARE_TYPES = frozenset({"parent", "grandparent", "uncle_aunt"})
_MY_TYPES = _BARE_TYPES | {"spouse", "child"}
_NOT_SAID_TO_KIN = frozenset({"child", "parent"})  # "my child" to a stranger; "Parent!" is no call
_MY = r"my\s+(?:(?:dear|dearest|darling|own|good|poor|beloved|sweet)\s+){0,2}"
_LEAD = r"(?:(?:oh|o|ah|why|well|yes|no|dear|dearest|good-by|goodbye|good\s+night|and|but|please)\W+){0,2}"
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_CALL_ENDS = r"\s*(?=[,!?.;:—–]|-|$)"


@dataclass(frozen=True)
class _People:
    """What the vocatives read of the document's people: sexes, the words written as names, family names."""

    sexes: dict[str, str]
    written: frozenset[str]
    family_names: dict[str, set[str]]


def _alternatives(words: Sequence[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


def _vocative_regexes(words: dict[str, Kin]) -> tuple[re.Pattern[str], ...]:
    singular = {word: kin for word, kin in words.items() if word not in PLURALS and word not in _NOT_SAID_TO_KIN}
    bare = [word for word, kin in singular.items() if kin.type in _BARE_TYPES]
    mine = [word for word, kin in singular.items() if kin.type in _MY_TYPES]
    called = rf"(?:(?:{_MY})?(?P<bare>{_alternatives(bare)})|{_MY}(?P<mine>{_alternatives(mine)}))(?![\w'’-])"
    at_start = rf"^[\W_]*{_LEAD}{called}{_CALL_ENDS}"
    after_a_pause = rf"[,;!?.]\s+(?:dear\s+)?{called}{_CALL_ENDS}"
    return re.compile(rf"(?i){at_start}"), re.compile(rf"(?i){after_a_pause}")


_VOCATIVES = {"en": _vocative_regexes(kinship_words("en"))}


def _other_side(quotes: Sequence[SpokenQuote], index: int, step: int) -> str | None:
    """The first speaker other than quotation ``index``'s in direction ``step`` (-1 or 1), as long as no two
    quotations on the way lie more than ``TURN_REACH`` characters apart."""
    speaker, position = quotes[index].speaker_id, index
    while 0 <= position + step < len(quotes):
        here, there = quotes[position], quotes[position + step]
        if (there.start - here.end if step > 0 else here.start - there.end) > TURN_REACH:
            return None
        position += step
        if quotes[position].speaker_id and quotes[position].speaker_id != speaker:
            return quotes[position].speaker_id
    return None


def _addressee(quotes: Sequence[SpokenQuote], index: int) -> str | None:
    """Whom quotation ``index`` speaks to: its one named addressee, else its conversation's other side."""
    quote = quotes[index]
    named = set(quote.addressee_ids) - {quote.speaker_id}
    if named:
        return named.pop() if len(named) == 1 else None
    before, after = _other_side(quotes, index, -1), _other_side(quotes, index, 1)
    return before if before == after else None


def family_names(text: str, mentions: Sequence[PersonMention]) -> dict[str, set[str]]:
    """The last words of each entity's names of two words or more ("Jo March", "Mrs. March"), casefolded, but for
    words the entity goes by alone more often: those are given names ("Miss Meg", and "Meg" far more often)."""
    last: dict[str, Counter[str]] = defaultdict(Counter)
    alone: dict[str, Counter[str]] = defaultdict(Counter)
    for mention in mentions:
        words = _NAME_WORD.findall(text[mention.start : mention.end])
        if len(words) >= 2 and words[-1][0].isupper():
            last[mention.entity_id][words[-1].casefold()] += 1
        elif len(words) == 1:
            alone[mention.entity_id][words[0].casefold()] += 1
    return {
        entity: {word for word, count in found.items() if count >= alone[entity][word]}
        for entity, found in last.items()
    }


def same_family_name(a: str, b: str) -> bool:
    """Whether two family names are one, allowing a feminine ending ("Rostov", "Rostova"; "Bolkonski",
    "Bolkonskaya")."""
    shared = len(os.path.commonprefix([a, b]))
    return shared == min(len(a), len(b)) or shared >= max(4, min(len(a), len(b)) - 2)


def _kin_by_name(names: dict[str, set[str]], a: str, b: str) -> bool:
    """Whether nothing in the two entities' family names says they are of two families: a kinship vocative is
    weak evidence, and a "Mamma" said to a woman of another name is most often said to someone else."""
    first, second = names.get(a, set()), names.get(b, set())
    return not first or not second or any(same_family_name(x, y) for x in first for y in second)


def _calls(
    text: str, quotes: Sequence[SpokenQuote], document: _People, language: str
) -> dict[tuple[str, Kin], list[tuple[str, int, int]]]:
    """Each speaker's kinship calls by the word's meaning: (speaker, kin) -> [(addressee, start, end)]. A call
    inside a quotation the speaker quotes ('What for, Daddy?' he asked) is another's; a word the book writes as a
    person's name ("Uncle", a character's by-name) is that person's name; an addressee of another family name than
    the speaker's is not taken."""
    words = kinship_words(language)
    calls: dict[tuple[str, Kin], list[tuple[str, int, int]]] = defaultdict(list)
    for index, quote in enumerate(quotes):
        speaker = quote.speaker_id
        if speaker is None or quote.attribution not in SPEAKER_TOLD:
            continue
        body = text[quote.start : quote.end]
        for match in (hit for regex in _VOCATIVES.get(language, ()) for hit in regex.finditer(body)):
            word = (match.group("bare") or match.group("mine")).casefold()
            addressee = _addressee(quotes, index)
            if addressee is None or word in document.written or in_quotation(body[1 : match.start()]):
                continue
            kin, sex = words[word], document.sexes.get(addressee, "")
            if addressee == speaker or (kin.sex and sex and sex != kin.sex):
                continue
            if _kin_by_name(document.family_names, addressee, speaker):
                calls[(speaker, kin)].append((addressee, quote.start + match.start(), quote.start + match.end()))
    return calls


def vocative_statements(
    text: str,
    quotes: Sequence[SpokenQuote],
    sexes: dict[str, str],
    mentions: Sequence[PersonMention],
    language: str = "en",
) -> list[RelationMention]:
    """One statement "addressee is the KIN of speaker" per kinship vocative in ``quotes`` (sorted by start) whose
    addressee is the one most of the speaker's calls by that word go to (at least ``MIN_CALLS`` and more than
    half): a mother is one person, the turn-taking that finds her is often wrong once, rarely the same way twice."""
    people = _People(
        sexes,
        frozenset(text[mention.start : mention.end].strip().casefold() for mention in mentions),
        family_names(text, mentions),
    )
    chosen: list[tuple[str, str, Kin, list[tuple[str, int, int]]]] = []
    for (speaker, kin), called in _calls(text, quotes, people, language).items():
        (addressee, votes), *_ = Counter(entity for entity, _, _ in called).most_common(1)
        if votes >= MIN_CALLS and 2 * votes > len(called):
            chosen.append((addressee, speaker, kin, [call for call in called if call[0] == addressee]))
    pairs = {(addressee, speaker) for addressee, speaker, _, _ in chosen}
    chunks = ChunkLookup(mentions)
    return [
        RelationMention(addressee, kin.type, speaker, start, end, chunks.at(start), "vocative", VOCATIVE)
        for addressee, speaker, kin, calls in chosen
        # two people who call each other "Mamma" say nothing of which is the other's mother
        if (speaker, addressee) not in pairs
        for _, start, end in calls
    ]

"""Kinship descriptions of a person named elsewhere: "her father", "his wife", "Natasha's mother" linked to the one
member of the possessor's family whom the word can describe.

Novels name a relative once and describe them ever after ("her father came in"), so the two names of a tie are
seldom in one sentence. The people near a description are no guide to whom it describes (on LitBank's coreference,
the nearest or most mentioned person of the word's sex around "her father" is the right one 0.2-0.3 of the time: the
text says "her father" because he is not being named). What does tell is the family: a father, a son, a brother, a
wife carry the possessor's family name. A description is linked when exactly one other person of the document shares
the possessor's family name (the last word of its longest names), is of the word's sex, and whose titles allow the
tie — "Mrs." is a married woman (a wife, a mother, a grandmother in her husband's family; never a daughter or a
sister there), "Miss" an unmarried one (a daughter, a sister or a granddaughter; never a wife or a mother); a
possessor called "Mrs." has a husband and children of her name, one called "Miss" parents and siblings of it; a
person written with a kinship title ("Aunt March") holds only that title's tie. Ties the family name cannot tell
(cousins, in-laws, uncles, engagements) are not read. Of several fitting members, the one named within
``NEAR_SENTENCES`` of the description is taken, if only one is. A pair's descriptions must agree (``agreed``).

The possessor: a name with "'s" before the word, or "his"/"her" resolved as the patterns resolve a pronoun
(``antecedents``: the one fitting person before it in its sentence, else the sentence before confirmed by its link),
or "my" in a quotation whose speaker a speech verb tells. A description followed by a name ("her father, Mr. Hale")
is left to the patterns, which read the name.
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from graph.kinship import INVERSE, KIN_TITLES, PLURALS, Kin, kinship_words
from ingestion.relations.antecedents import PREVIOUS, antecedent
from ingestion.relations.sentences import PersonMention, Sentence, sentence_spans, template
from ingestion.relations.statements import ChunkLookup, RelationMention
from ingestion.relations.vocatives import family_names, same_family_name

logger = logging.getLogger(__name__)

DESCRIPTION = 0.5  # the family is the text's; that no other of its members is meant is a guess
# Statements of one tie between two people before they are believed (2, measured without NEAR_SENTENCES: 114 gold
# ties instead of 118 on the dev novels, 0.913 precision by reading instead of 0.895).
MIN_DESCRIPTIONS = 1
# "his"/"her" taken as their pronoun link says, unconfirmed (measurement only: +2 gold ties, 91 more rows unread)
LINK_ALONE = False
# Several fitting members: the one of them named within this many sentences of the description (0: none chosen).
# Three, set before measuring: +4 gold ties on the dev novels, 29 of the 34 new rows right by reading.
NEAR_SENTENCES = 3
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# The ties a shared family name can tell, and those a married or an unmarried woman can hold in that family: as the
# person described ("Mrs. X" is the wife, the mother or the grandmother of an X; "Miss X" the daughter, the sister or
# the granddaughter) and as the possessor ("Mrs. X"'s husband and children are Xs, "Miss X"'s parents and siblings).
BY_FAMILY_NAME = frozenset({"parent", "child", "sibling", "spouse", "grandparent", "grandchild"})
MARRIED_DESCRIBED = frozenset({"spouse", "parent", "grandparent"})
UNMARRIED_DESCRIBED = frozenset({"child", "sibling", "grandchild"})
MARRIED_POSSESSOR = frozenset({"spouse", "child", "grandchild"})
UNMARRIED_POSSESSOR = frozenset({"parent", "sibling", "grandparent"})
_MARRIED = re.compile(r"(?:Mrs|Mme|Madame|Mistress)\b")
_UNMARRIED = re.compile(r"(?:Miss|Mlle|Mademoiselle)\b")
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_NAME_WORDS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# Modifiers that keep a kinship noun's meaning ("her eldest brother", "his late wife").
_MODIFIERS = (
    r"(?:(?:eldest|elder|oldest|older|youngest|younger|only|little|beloved|dear|own|late|poor|dead|sick|old|young|"
    r"dearest|darling|good|kind|invalid|widowed|lawful)\s+){0,2}"
)


@dataclass(frozen=True)
class Families:
    """Each person's family names, sex, marriage and kinship titles as the document's names say it."""

    names: dict[str, set[str]]
    sexes: dict[str, str]
    married: frozenset[str]
    unmarried: frozenset[str]
    # the relation types of the kinship titles a person is written with ("Aunt March": uncle_aunt)
    titled: dict[str, set[str]] = field(default_factory=dict)
    cache: dict[tuple[str, Kin], list[str]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, text: str, mentions: Sequence[PersonMention], sexes: dict[str, str]) -> Families:
        """Read from the document's person mentions: a woman is married (unmarried) when some of her names carry
        "Mrs." ("Miss") and none the other title."""
        titles: dict[str, Counter[str]] = defaultdict(Counter)
        titled: dict[str, set[str]] = defaultdict(set)
        words = kinship_words("en")
        for mention in mentions:
            written = text[mention.start : mention.end]
            titles[mention.entity_id]["mrs"] += bool(_MARRIED.match(written))
            titles[mention.entity_id]["miss"] += bool(_UNMARRIED.match(written))
            first = _FIRST_WORD.match(written)
            if first and first.group().casefold() in KIN_TITLES["en"]:
                titled[mention.entity_id].add(words[first.group().casefold()].type)
        married = frozenset(e for e, t in titles.items() if t["mrs"] and not t["miss"])
        unmarried = frozenset(e for e, t in titles.items() if t["miss"] and not t["mrs"])
        return cls(_surnames(text, mentions), sexes, married, unmarried, dict(titled))

    def _fits(self, entity: str, type_: str, married: frozenset[str], unmarried: frozenset[str]) -> bool:
        """Whether ``entity``'s titles let it hold ``type_`` (as the one described, or as the possessor)."""
        if entity in self.married:
            return type_ in married
        if entity in self.unmarried:
            return type_ in unmarried
        return True

    def described(self, possessor: str, kin: Kin, near: Callable[[], set[str]] | None = None) -> str | None:
        """The one person ``kin`` of ``possessor`` can be by the family names, sexes and titles, or None. A person
        written with a kinship title ("Aunt March") is described only by that title's word ("her aunt"). ``near``:
        the people named around the description, which choose among several fitting members when one of them is."""
        if kin.type not in BY_FAMILY_NAME or not kin.sex or not self.names.get(possessor) or possessor in self.titled:
            return None  # "Aunt March"'s own parents and siblings are the family's elders, rarely in its story
        if not self._fits(possessor, kin.type, MARRIED_POSSESSOR, UNMARRIED_POSSESSOR):
            return None
        found = self._members(possessor, kin)
        if len(found) > 1 and near is not None:
            found = sorted(set(found) & near())
        if len(found) != 1 or self.titled.get(found[0], {kin.type}) != {kin.type}:
            return None
        return found[0]

    def _members(self, possessor: str, kin: Kin) -> list[str]:
        """The people of ``possessor``'s family name whose sex and titles fit ``kin`` (read once per pair: a novel
        says "her father" of one person many times)."""
        key = (possessor, kin)
        if key not in self.cache:
            self.cache[key] = [
                entity
                for entity, names in self.names.items()
                if entity != possessor
                and self.sexes.get(entity) == kin.sex
                and self._fits(entity, kin.type, MARRIED_DESCRIBED, UNMARRIED_DESCRIBED)
                and any(same_family_name(a, b) for a in names for b in self.names[possessor])
            ]
        return self.cache[key]


def _surnames(text: str, mentions: Sequence[PersonMention]) -> dict[str, set[str]]:
    """Each entity's family names (``vocatives.family_names``) that end one of its longest names: "Vasili Dmitrich"
    ends in a patronymic, "Vasili Dmitrich Denisov" in the family name."""
    longest: dict[str, tuple[int, set[str]]] = {}
    for mention in mentions:
        words = _NAME_WORDS.findall(text[mention.start : mention.end])
        size, last = longest.get(mention.entity_id, (0, set()))
        if len(words) > size:
            longest[mention.entity_id] = (len(words), {words[-1].casefold()})
        elif words and len(words) == size:
            last.add(words[-1].casefold())
    return {
        entity: {name for name in found if len(name) > 1 and name in longest[entity][1]}
        for entity, found in family_names(text, mentions).items()
    }


def description_regex(words: dict[str, Kin]) -> re.Pattern[str]:
    """A kinship description in a text: a possessor ("'s" after a name, "his", "her", "my"), up to two modifiers and
    a singular kinship noun."""
    kin = "|".join(re.escape(word) for word in sorted(set(words) - PLURALS, key=len, reverse=True))
    possessor = r"(?:(?P<owner>['’]s)|\b(?P<pron>his|her)|\b(?P<my>my))"
    # the lookahead lets the scan skip, at no cost, the positions no possessor starts at (half the time of a novel)
    return re.compile(rf"(?=[hHmM'’]){possessor}\s+{_MODIFIERS}(?P<kin>{kin})(?![\w'’-])", re.IGNORECASE)


_NAME_AFTER = re.compile(r"\s*,?\s*")


class _Text:
    """The document's sentences and person mentions, templated on demand (``sentences``) around a description."""

    def __init__(
        self, text: str, mentions: Sequence[PersonMention], titles: frozenset[str], spans: list[tuple[int, int]]
    ) -> None:
        self.text = text
        self.mentions = sorted(mentions, key=lambda mention: (mention.start, -mention.end))
        self.mention_starts = [mention.start for mention in self.mentions]
        self.by_end = {mention.end: mention for mention in self.mentions}
        self.spans = spans
        self.starts = [span[0] for span in self.spans]
        self.titles = titles

    def sentence(self, index: int) -> Sentence:
        start, end = self.spans[index]
        inside: list[PersonMention] = []
        for mention in self.mentions[bisect.bisect_left(self.mention_starts, start) :]:
            if mention.start >= end:
                break
            if not inside or mention.start >= inside[-1].end:
                inside.append(mention)
        return template(self.text, start, max([end] + [m.end for m in inside]), inside, self.titles)

    def named_after(self, offset: int) -> bool:
        """Whether a name follows ``offset`` (past a comma): "her father, Mr. Hale" is the patterns'."""
        after = _NAME_AFTER.match(self.text, offset)
        at = bisect.bisect_left(self.mention_starts, after.end() if after else offset)
        return at < len(self.mentions) and self.mentions[at].start == (after.end() if after else offset)

    def named_around(self, offset: int, reach: int) -> set[str]:
        """The people named within ``reach`` sentences of ``offset``."""
        index = bisect.bisect_right(self.starts, offset) - 1
        start = self.spans[max(0, index - reach)][0]
        end = self.spans[min(len(self.spans) - 1, index + reach)][1]
        first = bisect.bisect_left(self.mention_starts, start)
        return {m.entity_id for m in self.mentions[first : bisect.bisect_left(self.mention_starts, end)]}

    def owner(self, match: re.Match[str]) -> PersonMention | None:
        """The name a "'s" ends, written with it or without."""
        return self.by_end.get(match.start("owner")) or self.by_end.get(match.end("owner"))


def _possessor(
    match: re.Match[str],
    document: _Text,
    families: Families,
    pronouns: Mapping[int, str],
    speaker_at: Callable[[int], str | None],
) -> tuple[str | None, str]:
    """The possessor's entity and the pattern name saying how it was found."""
    if match.group("owner") is not None:
        owner = document.owner(match)
        return (owner.entity_id if owner else None), "description"
    if match.group("my") is not None:
        return speaker_at(match.start()), "description_my"
    index = bisect.bisect_right(document.starts, match.start()) - 1
    sentence = document.sentence(index)
    previous = None
    if index > 0 and not _PARAGRAPH_BREAK.search(document.text, document.spans[index - 1][0], sentence.start):
        previous = document.sentence(index - 1)
        previous = previous if previous.mentions else None
    if match.start("pron") not in sentence.offsets:  # the word is inside a name the NER read ("Her Grace")
        return None, ""
    at = sentence.offsets.index(match.start("pron"))
    linked = pronouns.get(match.start("pron"))
    if LINK_ALONE:
        return linked, "description_link"
    found = antecedent(sentence, at, None, families.sexes, match.group("pron"), previous, linked)
    if found is None:
        return None, ""
    return found.entity_id, "description" + (f"+{PREVIOUS}" if found.reach == PREVIOUS else "")


def description_statements(
    text: str,
    mentions: Sequence[PersonMention],
    words: dict[str, Kin],
    families: Families,
    pronouns: Mapping[int, str],
    speaker_at: Callable[[int], str | None],
    titles: frozenset[str] = frozenset(),
    spans: list[tuple[int, int]] | None = None,
) -> list[RelationMention]:
    """The ties the kinship descriptions of ``text`` state (module docstring): "src is the TYPE of dst" with src the
    person described and dst the possessor. ``spans``: the text's ``sentence_spans`` when read already."""
    document = _Text(text, mentions, titles, list(sentence_spans(text)) if spans is None else spans)
    chunks = ChunkLookup(mentions)
    found = []
    for match in description_regex(words).finditer(text):
        kin = words[match.group("kin").casefold()]
        if kin.type not in BY_FAMILY_NAME or not kin.sex or document.named_after(match.end()):
            continue
        possessor, pattern = _possessor(match, document, families, pronouns, speaker_at)
        around = functools.partial(document.named_around, match.start(), NEAR_SENTENCES) if NEAR_SENTENCES else None
        described = families.described(possessor, kin, around) if possessor else None
        if possessor is None or described is None:
            continue
        owner = document.owner(match) if match.group("owner") is not None else None
        start = owner.start if owner is not None else match.start()
        found.append(
            RelationMention(described, kin.type, possessor, start, match.end(), chunks.at(start), pattern, DESCRIPTION)
        )
    return found


def _tie(row: RelationMention) -> tuple[str, str, str]:
    """A statement as one direction of its tie, the same for a statement and its inverse."""
    inverse = INVERSE[row.type]
    return min((row.src_id, row.type, row.dst_id), (row.dst_id, inverse or row.type, row.src_id))


def agreed(described: Sequence[RelationMention], stated: Sequence[RelationMention]) -> list[RelationMention]:
    """The statements of ``described`` whose pair of people all its descriptions relate by one tie, at least
    ``MIN_DESCRIPTIONS`` times, and the other sources (``stated``) relate by no other: a description whose
    possessor was misread names the wrong member of the right family ("his father" of the father himself gives the
    son), and the family rarely misleads twice the same way."""
    ties: dict[frozenset[str], Counter[tuple[str, str, str]]] = defaultdict(Counter)
    for row in described:
        ties[frozenset((row.src_id, row.dst_id))][_tie(row)] += 1
    for row in stated:
        pair = frozenset((row.src_id, row.dst_id))
        if pair in ties:
            ties[pair][_tie(row)] += 0  # another source's tie: one more the pair would be said to hold
    return [
        row
        for row in described
        if len(ties[frozenset((row.src_id, row.dst_id))]) == 1
        and ties[frozenset((row.src_id, row.dst_id))][_tie(row)] >= MIN_DESCRIPTIONS
    ]

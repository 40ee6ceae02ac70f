"""What a name says beyond its words: the gender its titles imply, which given names are variants, where it is said.

General language knowledge only, never a list of a book's characters:

- *Gendered titles* (English and the French/German/Italian ones English novels use): "Monsieur Gillenormand" and
  "Mademoiselle Gillenormand" are two people, and so are "Mrs. Bennet" and "Miss Bennet" (a married and an unmarried
  woman), while "Princess Mary" and "Countess Mary" may be one (a woman's rank changes when she marries, her sex does
  not). Ranks without a sex ("General", "Captain", "Dr.") say nothing here.
- *Pronouns*: the "he" and "she" words just after a name's mentions, summed over the book, tell a reader a
  character's sex when no title does ("Margaret … she"); ``pronoun_gender`` reads them only when they clearly agree.
- *Where a name is said*: "in Tilsit", "went to Olmutz" say a place, "said Natasha" someone (``said_somewhere``):
  a book's own sentences outvote a NER that takes foreign place names for people; "thank God", "good Lord" a deity
  invoked, not a character (``invoked``).
- *Given-name variants*: English hypocorisms ("Lizzy" for Elizabeth, "Tom" for Thomas) from the ``nicknames``
  package (a hand-curated list of English names and their nicknames, Apache-2.0), loaded once, lazily. Without the
  package the resolver simply does without them.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from ingestion.name_labels import MOTION_VERBS, SPEECH_VERBS

logger = logging.getLogger(__name__)

__all__ = [
    "CONTEXT_WINDOW",
    "FEMALE",
    "LOCATIVE_BEFORE",
    "OATH_AFTER",
    "OATH_BEFORE",
    "PLACE_HEADS",
    "MALE",
    "MARRIED",
    "NAMED_ALSO",
    "NAMED_ALSO_GAP",
    "NOBLE_RANKS_OF_MEN",
    "PRONOUN_CLAUSE",
    "POSSESSIVE",
    "POSSESSIVE_AFTER",
    "PRONOUN_WORDS",
    "RANKS_BEFORE_SURNAME",
    "SPOKEN_AFTER",
    "SPOKEN_BEFORE",
    "SURNAME_TITLES",
    "UNMARRIED",
    "VESSEL_BEFORE",
    "VESSEL_LABEL",
    "a_vessel",
    "common_given_name_sex",
    "gender_of_titles",
    "genders_compatible",
    "given_name_variant",
    "invoked",
    "nickname_partners",
    "noble_ranks",
    "pronoun_gender",
    "rank_conflict",
    "PERSON_LABELS",
    "said_somewhere",
    "specificity",
    "spelling_variants",
    "title_gender",
]

MALE, FEMALE, MARRIED, UNMARRIED = "m", "f", "fm", "fu"  # FEMALE: a woman, married or not
# The NER labels of people: English models say PERSON, Hungarian ones PER (the resolver makes them one family).
PERSON_LABELS = frozenset({"PERSON", "PER"})
# Casefolded, without dots. "M." is French "Monsieur" before a name (an initial elsewhere never stands first alone).
_GENDER_OF_TITLE: dict[str, str] = {
    **dict.fromkeys(
        "mr m mister monsieur messire sir lord prince count duke archduke baron marquis marquess earl viscount vicomte "
        "comte king emperor tsar tsarevich father brother uncle herr mynheer signor senor master monseigneur "
        "monsignor abbe abbé messrs grandpa grandfather goodman".split(),
        MALE,
    ),
    # Hungarian, written after the name ("Dobó uram", "Éva asszony"): ranks such as kapitány or deák say no sex
    **dict.fromkeys(
        "úr ur uram úrfi bácsi király herceg gróf császár szultán bég basa pasa aga pap barát".split(), MALE
    ),
    **dict.fromkeys("asszony asszonyom kisasszony néni királyné hercegnő grófnő".split(), FEMALE),
    **dict.fromkeys("mrs missus mme madame frau signora senora mesdames mmes widow".split(), MARRIED),
    **dict.fromkeys("miss mlle mademoiselle fraulein fräulein signorina senorita mesdemoiselles".split(), UNMARRIED),
    **dict.fromkeys(
        "ms madam lady dame princess countess duchess archduchess baroness marchioness viscountess queen empress "
        "tsarina tsaritsa mother sister aunt granny grandma grandmother goody mistress".split(),
        FEMALE,
    ),
}
_SPECIFICITY = {"": 0, FEMALE: 1, MALE: 2, MARRIED: 2, UNMARRIED: 2}
# Forms of address written before a surname ("Mr. Bennet", "Madame Magloire"); a rank such as Prince or Count goes
# before a given name as often ("Prince Andrew").
SURNAME_TITLES = frozenset(
    "mr m mister monsieur herr mynheer signor senor mrs missus mme madame frau signora senora miss mlle mademoiselle "
    "fraulein fräulein signorina senorita ms".split()
)
# English ranks, offices and trades written before a surname and never before a given name alone: "Colonel
# Fitzwilliam" (Darcy's cousin) is not "Fitzwilliam Darcy", "Captain Wentworth" no Wentworth's given name. Ranks of
# nobility (Prince, Count, Sir, Lady) go before given names ("Prince Andrew", "Sir William"), so they are not here.
RANKS_BEFORE_SURNAME = frozenset(
    "colonel captain major general lieutenant sergeant corporal private admiral commodore ensign cadet adjutant "
    "marshal doctor dr professor judge squire parson vicar rector curate farmer sheriff governor senator inspector "
    "superintendent detective alderman archdeacon".split()
)
# The kind of calling a rank or office before a surname names: one man rises through the military ranks ("Captain"
# to "Colonel") but is not both a colonel and a judge; a son holds another office than his father ("Colonel
# Pyncheon", the founder, and "Judge Pyncheon", his descendant). Two kinds, each said again and again with one
# surname, are two men (``rules.grouping.offices_apart``).
_OFFICE_KINDS = {
    **dict.fromkeys("colonel captain major general lieutenant sergeant corporal private admiral commodore ensign "
                    "cadet adjutant marshal".split(), "military"),
    **dict.fromkeys("parson vicar rector curate archdeacon".split(), "clergy"),
    **dict.fromkeys("inspector superintendent detective".split(), "police"),
    "dr": "doctor",
}


def offices(titles: Iterable[str]) -> set[str]:
    """The kinds of calling (``_OFFICE_KINDS``; other ranks before a surname are their own kind) of casefolded
    titles without dots: ``{"military"}`` for "captain" and "colonel", ``{"military", "judge"}`` for both."""
    return {_OFFICE_KINDS.get(title, title) for title in titles if title in RANKS_BEFORE_SURNAME}


# A sovereign is not called by a lesser title: "Emperor Alexander" and "Prince Alexander" are two people.
SOVEREIGN_TITLES = frozenset("emperor empress tsar tsarina tsaritsa king queen sultan kaiser".split())


# A man's rank of nobility is his for life (by inheritance; a rise in rank is rare in a novel's time), so two ranks
# before one given name, each said again and again, are two men: "Prince Nicholas" (the old prince Bolkonski) and
# "Count Nicholas" (Rostov). Variants of one rank count as one ("comte" is "count"). A woman's rank changes when she
# marries ("Princess Mary" is "Countess Mary" later), so hers are not here; nor "Lord", said of several ranks.
NOBLE_RANKS_OF_MEN: dict[str, str] = {
    "prince": "prince", "count": "count", "comte": "count", "duke": "duke", "archduke": "archduke",
    "baron": "baron", "marquis": "marquis", "marquess": "marquis", "earl": "earl", "viscount": "viscount",
    "vicomte": "viscount", "herceg": "prince", "gróf": "count",
}  # fmt: skip


def noble_ranks(titles: Iterable[str]) -> set[str]:
    """The men's ranks of nobility among casefolded titles without dots, each by one name: {"count"} for "comte"."""
    return {NOBLE_RANKS_OF_MEN[title] for title in titles if title in NOBLE_RANKS_OF_MEN}


# An English "Miss" is a woman of no title, unmarried: a "Lady" (or another titled woman) of the same name is her
# mother or another woman ("Miss de Bourgh" is Lady Catherine de Bourgh's daughter, "Miss Lucas" Lady Lucas's).
TITLED_WOMEN = frozenset("lady dame countess duchess princess baroness marchioness viscountess".split())


def rank_conflict(a: Iterable[str], b: Iterable[str]) -> bool:
    """Whether two sets of titles (casefolded, without dots) cannot be one person's: a sovereign's and a lesser
    rank's; an English Miss's and a titled woman's."""
    a, b = set(a), set(b)
    if (a & SOVEREIGN_TITLES and b - SOVEREIGN_TITLES) or (b & SOVEREIGN_TITLES and a - SOVEREIGN_TITLES):
        return True
    return bool(("miss" in a - b and b & TITLED_WOMEN - a) or ("miss" in b - a and a & TITLED_WOMEN - b))


def title_gender(title: str) -> str:
    """The gender a casefolded title implies (``m``, ``f``, ``fm``, ``fu``), or ``""`` when it implies none."""
    return _GENDER_OF_TITLE.get(title.replace(".", ""), "")


def gender_of_titles(titles: Iterable[str]) -> str:
    """The most specific gender the titles imply; ``""`` when none does, or when they contradict each other."""
    genders = {title_gender(title) for title in titles} - {""}
    if not genders:
        return ""
    if not all(genders_compatible(a, b) for a in genders for b in genders):
        return ""  # "Madame Monsieur" is NER noise, not evidence
    return max(genders, key=lambda gender: (_SPECIFICITY[gender], gender))


def genders_compatible(a: str, b: str) -> bool:
    """Whether one person can carry both genders: unknown fits all, a woman fits Mrs and Miss, Mrs never fits Miss."""
    if not a or not b or a == b:
        return True
    return FEMALE in (a, b) and MALE not in (a, b)


def specificity(gender: str) -> int:
    """0 unknown, 1 a woman, 2 a man / a married / an unmarried woman: what a less specific name may attach to."""
    return _SPECIFICITY[gender]


# English personal pronouns by sex, and how far after a mention they are looked for (characters of the chunk):
# "Margaret looked up; she …" — mostly about the person just named, over many mentions.
PRONOUN_PATTERNS = {"he": r"(?i)\b(he|him|his|himself)\b", "she": r"(?i)\b(she|her|hers|herself)\b"}
PRONOUN_WINDOW = 60
# ... and only up to the end of the mention's sentence (a Java and Python regex for the window's start): after a full
# stop the next sentence's pronoun is as often someone else's ("… to Charlotte Temple. He soon found means to
# ingratiate himself with her") — on LitBank's openings, cutting there keeps every right join and drops six wrong ones.
# And up to a quotation mark: after a name said in speech comes the speaker's tag ('"You have changed so, Andrusha,"
# she added'), whose pronoun is the speaker's — it had made Andrusha (Prince Andrew) a woman.
PRONOUN_CLAUSE = r'^[^.!?"“”]*'
# English pronoun words, which are never part of a name: a form holding one ("God Himself", "Thou Napoleon") is the
# NER's glue, not the most informative name of its entity. "I" is left out: it is also a Roman numeral
# ("Alexander I").
PRONOUN_WORDS = frozenset(
    "me myself you your yourself thou thee thy he him his himself she her hers herself it its itself we us our "
    "ourselves they them their themselves".split()
)
MIN_PRONOUNS = 3  # fewer say nothing
PRONOUN_MARGIN = 2  # one sex's pronouns must outnumber the other's this many times

# Where a name stands says what it names. "in Tilsit", "near Fili", "went to Olmutz", "was at Otradnoe": the name is a
# place, which a statistical NER labels a person when the name is foreign to it; "said Natasha", "Natasha replied":
# someone. Read in the CONTEXT_WINDOW characters before and after each mention (Java and Python regexes: the
# entities stage counts them in Spark and in the driver). "at" counts only after being, staying or arriving: after a
# look, a blow or a smile it is aimed at someone ("glanced down at Vereshchagin", "tore at Vereshchagin"); and
# "in Anna Pavlovna's" is her house: a possessive name (the mention's end or what follows it) never counts. The
# nouns of a place's people, parts and distances before "of" or "from" say a place too ("the rector of Crampsford",
# "the inhabitants of Crampsford", "three miles from Battersby"); "the daughter of", "a letter from" say nothing.
CONTEXT_WINDOW = 40
LOCATIVE_BEFORE = (
    r"(?i)(?:\b(?:in|near|into|through|beyond|outside|inside)|\b(?:"
    + "|".join(sorted(MOTION_VERBS))
    + r")\s+(?:to|from|towards|toward)|\b(?:is|was|were|be|been|being|are|am|stay\w*|remain\w*|arriv\w*|liv\w*|"
    r"stopp\w*|halt\w*|encamp\w*|station\w*|battle|victory|defeat)\s+at|\b(?:inhabitants|neighbourhood|neighborhood|"
    r"outskirts|direction|parish|rector|vicar|curate|mayor|streets|miles)\s+(?:of|from))\s+$"
)
POSSESSIVE = r"['’]s?$"  # at the end of the mention as written ("Anna Pavlovna's", a span the NER drew)
POSSESSIVE_AFTER = r"^['’]s\b"
SPOKEN_BEFORE = r"(?i)\b(?:" + "|".join(sorted(SPEECH_VERBS)) + r")\s*$"
SPOKEN_AFTER = r"(?i)^\s*,?\s*(?:" + "|".join(sorted(SPEECH_VERBS)) + r")\b"
# A name invoked in oaths is a deity's, not a character's: "thank God", "my God", "God knows", "God bless you", "for
# Christ's sake", "good Lord" (English formulas; a vocative "Natasha!" or "oh, Natasha" is no oath, and "by" is left
# out: "by God" is an oath, "by Madame de Genlis" an author); and the formulas of worship a novel's narrator uses of
# a deity: "the glory of God", "the grace of our Lord", "in the name of God", "May God guide you", "God's will",
# "God-fearing" ("our" alone is left out: "our Order", "our Natasha").
OATH_BEFORE = (
    r"(?i)(?:\b(?:my|thy|oh|o|good|great|almighty|heavenly|merciful|thank|please|may|pray|prayed|praying|"
    r"praise|worship|serve)|\b(?:glory|grace|wrath|mercy|kingdom|fear|sight|presence|blessing|goodness|providence|"
    r"lamb|resurrection|ascension)\s+of(?:\s+our)?|\bin\s+the\s+name\s+of)\s+$"
)
OATH_AFTER = (
    r"(?i)^(?:\s+(?:knows|bless|blesses|grant|grants|forbid|forbids|forgive|willing|damn|save|preserve|help|"
    r"have\s+mercy|be\s+thanked|be\s+praised|speed)\b|['’]s\s+(?:sake|will|glory|grace|mercy|help|name|truth|"
    r"blessing|providence)\b|-fearing)"
)
# ... in a quarter of its mentions at least, and five times: in War and Peace "God" is in 89 of its 210 PERSON mentions,
# no person's name of ten mentions or more in more than 1 of 10; a minor character's "my Ellen" or "oh Ellen" twice or
# thrice must not make her a deity, and a deity sworn by less often is no one's answer (``invoked``).
INVOKED_SHARE = 4
INVOKED_MIN = 5


# The last word of an English place's name says what kind of place it is: "Chesney Wold", "Crampsford Rectory", "Mill
# Pond Bank", "Cook's Court", "Tarry Town" (``rules.forms.place_words``). Language knowledge like the titles: the
# head nouns of streets, buildings, estates and landscape features in English place names, none a given name.
PLACE_HEADS = frozenset(
    "street lane road square row terrace crescent place court yard alley gardens fields walk parade "
    "hall house manor abbey castle palace tower towers lodge grange rectory vicarage parsonage cottage farm inn "
    "tavern hotel church chapel cathedral college school hospital prison gaol workhouse market wharf dock docks "
    "quay bridge gate heights gables mill town city village borough hamlet "
    "hill hills heath common green park wood woods forest moor moors wold wolds vale valley dale downs bank pond "
    "lake river creek bay island cove cliff cliffs mountain mountains marsh marshes".split()
)


# Two names of one sentence that the words between them say are one person's: a pseudonym or alias ("Abel Magwitch,
# otherwise Provis", "Mr. Weevle, otherwise Jobling", "Umbopa, alias Ignosi"), a name others give ("poor Jo, whom he
# called Toughey", "Octavius Guy, otherwise Gooseberry") or a maiden and a married name ("Mrs. McMull (formerly Miss
# Swartz)", "Rebecca Crawley, nee Sharp", "Miss Ada Clare, now Mrs. Richard Carstone"). Read over the words
# between the two names (NAMED_ALSO_GAP characters at most), a bar, and the second name as written, so that a title
# must belong to the second name: "now" and "late" say a marriage only before a woman's title ("Meg, now Jo …" says
# nothing). English; a Java and Python regex, like those above. Not "or rather" ("Lucilla, or rather Tom"): a
# correction of which person is meant. ``rules.stated.stated_names`` joins them.
NAMED_ALSO_GAP = 40
NAMED_ALSO = (
    r"(?i)^\s*(?:,|\(|--|—|–)?\s*(?:"
    r"(?:(?:otherwise|alias|n[eé]e|formerly|nicknamed|surnamed)"
    r"|(?:otherwise|also|better|commonly|generally|popularly|sometimes)\s+(?:known\s+as|called|named)"
    r"|known\s+as|(?:who\s+)?call(?:ed|s)\s+(?:himself|herself)"
    r"|whom\s+(?:he|she|they|we|i|everybody|everyone|people)\s+(?:called|call|named|nicknamed))\s*\|"
    r"|(?:now|late)\s+\|(?:Mrs|Miss|Lady|Madame|Mme)\b)"
)


# A name said after a vessel's kind ("the schooner Marianne", "the whaler Pequod", "aboard the brig Pilgrim") names a
# ship, not the person or the place a NER takes it for (``a_vessel``; LitBank's VEH). English: the kinds of vessel
# novels name ships by, after an article or a possessive (a Java and Python regex, like those above).
VESSEL_BEFORE = (
    r"(?i)\b(?:the|a|an|his|her|their|our|my|that|this)\s+(?:schooner|ship|brig|brigantine|barque|sloop|cutter|"
    r"frigate|corvette|steamer|steamship|steam-ship|yacht|whaler|whale-ship|whaleship|galleon|lugger|ketch|clipper|"
    r"vessel|boat|man-of-war|privateer|smack|trawler|liner|gunboat|barge|yawl|barkentine|barquentine|cruiser)\s+$"
)
# ... twice at least, and in a tenth of its mentions: a character a ship is named after keeps her name
# ("the Rachel" beside a Rachel said a hundred times). A ship is then one, whatever its labels.
VESSEL_MIN = 2
VESSEL_SHARE = 10
VESSEL_LABEL = "VEH"


def a_vessel(vessel: int, mentions: int) -> bool:
    """Whether a name's mentions say it is a ship's: ``vessel`` of them stand after a vessel's kind
    (``VESSEL_BEFORE``)."""
    return vessel >= VESSEL_MIN and VESSEL_SHARE * vessel >= mentions


def invoked(sworn: int, mentions: int) -> bool:
    """Whether a name's mentions say it is a deity's: ``sworn`` of them stand in an oath (``OATH_BEFORE``,
    ``OATH_AFTER``)."""
    return sworn >= INVOKED_MIN and INVOKED_SHARE * sworn >= mentions


# A name said somewhere in this many of its mentions (at least LOCATED_MIN) and more often somewhere than speaking
# is a place, whatever the NER said (``said_somewhere``).
LOCATED_SHARE = 5
LOCATED_MIN = 3


def said_somewhere(located: int, spoken: int, mentions: int) -> bool:
    """Whether a name's mentions say it is a place: ``located`` of them stand where a place does (``LOCATIVE_BEFORE``,
    not possessive), ``spoken`` beside a speech verb (``SPOKEN_BEFORE``, ``SPOKEN_AFTER``)."""
    return located >= LOCATED_MIN and LOCATED_SHARE * located >= mentions and located > spoken


def pronoun_gender(he: int, she: int) -> str:
    """``m`` or ``f`` when the pronouns after a name's mentions clearly agree, else ``""``."""
    if he + she < MIN_PRONOUNS:
        return ""
    if he >= PRONOUN_MARGIN * she:
        return MALE
    if she >= PRONOUN_MARGIN * he:
        return FEMALE
    return ""


@lru_cache(maxsize=1)
def _common_given_name_sexes() -> dict[str, str]:
    from importlib import resources

    try:
        text = resources.files("ingestion").joinpath("data", "given_name_sexes.tsv").read_text(encoding="utf-8")
    except OSError as exc:  # an install without the package data: resolution works, with fewer joins
        logger.warning("the given-name table is missing (%s); names the book says nothing of have no sex", exc)
        return {}
    return dict(line.split("\t") for line in text.splitlines() if line and not line.startswith("#"))


def common_given_name_sex(name: str) -> str:
    """``m`` or ``f`` for a casefolded given name that 95 % of its many bearers counted in the nomquamgender dataset
    share ("edward", "charlotte"; ingestion/data/README.md), else ``""`` ("jean", "sasha", a name it lacks). The
    resolver asks it only where the book says nothing of the name's sex: the book's titles and pronouns come first
    (a name the table calls a woman's is a man's where the pronouns after it say so). Petya, a Russian boy's name, is
    91 % women's in the dataset's counts: under the share, so not in the table."""
    return _common_given_name_sexes().get(name, "")


@lru_cache(maxsize=1)
def _nickname_pairs() -> frozenset[tuple[str, str]]:
    try:
        from nicknames import NickNamer
    except ImportError:  # optional: resolution works without it, with fewer merges
        logger.info("the nicknames package is not installed; given-name variants are not used")
        return frozenset()
    lookup = NickNamer().nickname_lookup
    return frozenset((name, nick) for name, nicks in lookup.items() for nick in nicks if name != nick)


# Hungarian diminutive endings (unaccented, as in match keys): Gergő, Jancsi, Évica, Vicuska, Katika, Ferkó …
_HU_PET_ENDINGS = (
    "o", "i", "ka", "ke", "ko", "ci", "csi", "cska", "cske", "us", "uska", "ica", "ika", "ike", "ca", "ce",
)


def hungarian_pet_name(a: str, b: str) -> bool:
    """Whether one of two match-keyed given names is a Hungarian pet form of the other ("gergo", "gergely").

    Word formation, not a list: the pet form is the name's first four letters or more ("gerg"), or for a short
    name its stem without the final vowel ("ev" of "eva"), followed by a diminutive ending ("-ő", "-ica"). Shorter
    stems are not trusted: "Mari" is not "Márton" (the accents are gone from match keys).
    """
    for pet, name in ((a, b), (b, a)):
        stems = [name[:k] for k in range(4, len(name) + 1)]
        if name[-1:] in "aeiou" and len(name) >= 3:
            stems.append(name[:-1])
        if any(pet.startswith(stem) and pet[len(stem):] in _HU_PET_ENDINGS for stem in stems):
            return True
    return False


@lru_cache(maxsize=1)
def _nickname_partners() -> dict[str, frozenset[str]]:
    partners: dict[str, set[str]] = {}
    for a, b in _nickname_pairs():
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    return {name: frozenset(others) for name, others in partners.items()}


def nickname_partners(name: str) -> frozenset[str]:
    """The casefolded given names the nickname table pairs with ``name`` ("elizabeth" → "lizzy", "beth", …): the
    only English names ``given_name_variant`` can relate to it, so resolution looks them up instead of trying every
    name of a book."""
    return _nickname_partners().get(name, frozenset())


def given_name_variant(a: str, b: str, language: str = "en") -> bool:
    """Whether two different casefolded given names are a name and one of its nicknames ("elizabeth", "lizzy"; in
    Hungarian also by word formation, ``hungarian_pet_name``)."""
    if a == b:
        return False
    pairs = _nickname_pairs()
    return (a, b) in pairs or (b, a) in pairs or (language == "hu" and hungarian_pet_name(a, b))


# A spelling variant adds one vowel inside a long name ("Buonaparte" beside "Bonaparte"); at either end, or in short
# names, one vowel makes another name or another form of one ("Rostova" is Rostov's wife, "Anna" is not "Ann").
_VARIANT_MIN_LENGTH = 6
_VOWELS = frozenset("aeiouy")


def spelling_variants(words: Counter[str]) -> dict[str, str]:
    """Name words written two ways, each rarer spelling mapped to the usual one: {"buonaparte": "bonaparte"}.

    ``words`` counts a book's casefolded person-name words by mentions. Two words are one name spelt two ways when
    the longer is the shorter (of ``_VARIANT_MIN_LENGTH`` letters or more) with one vowel more, inserted after the
    first letter and before the last two — the way transliterations and older spellings differ. A word takes the
    usual spelling only when the book writes it less often; of equal counts, neither changes.
    """
    variants: dict[str, str] = {}
    for longer, n in words.items():
        if len(longer) <= _VARIANT_MIN_LENGTH:
            continue
        for i in range(1, len(longer) - 2):
            if longer[i] not in _VOWELS:
                continue
            shorter = longer[:i] + longer[i + 1 :]
            m = words.get(shorter, 0)
            if m and m != n:
                rare, usual = (longer, shorter) if n < m else (shorter, longer)
                variants[rare] = usual
    return variants

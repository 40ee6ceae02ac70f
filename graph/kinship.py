"""Kinship and social words, the language resource of typed relations: each word names a relation type and, where
the word says it, the sex of the person it describes ("daughter": a ``child``, a woman).

A relation row reads "src is the TYPE of dst": "Mary, the daughter of John" gives (Mary, ``child``, John), whose
inverse (John, ``parent``, Mary) the aggregation adds (``INVERSE``). Symmetric types are their own inverse.

In ``graph``, the bottom layer, because both sides read it: the ingestion side's relation patterns
(``ingestion.relations``) and the chat side, which reads "Who is X's mother?" as a ``parent`` of X who is a woman.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)

FAMILY_TYPES = frozenset(
    "parent child sibling spouse grandparent grandchild cousin uncle_aunt nephew_niece in_law".split()
)
ROMANCE_TYPES = frozenset("engaged lovers suitor".split())
SOCIAL_TYPES = frozenset("friend enemy employer servant colleague".split())
RELATION_TYPES = FAMILY_TYPES | ROMANCE_TYPES | SOCIAL_TYPES

# The type the other person holds towards src: (src, parent, dst) is (dst, child, src). A suitor's beloved has no
# word of her own, so "suitor" has no inverse row.
INVERSE: dict[str, str | None] = {
    "parent": "child", "child": "parent", "grandparent": "grandchild", "grandchild": "grandparent",
    "uncle_aunt": "nephew_niece", "nephew_niece": "uncle_aunt", "employer": "servant", "servant": "employer",
    "sibling": "sibling", "spouse": "spouse", "cousin": "cousin", "in_law": "in_law", "engaged": "engaged",
    "lovers": "lovers", "friend": "friend", "enemy": "enemy", "colleague": "colleague", "suitor": None,
}  # fmt: skip


@dataclass(frozen=True)
class Kin:
    """What a kinship word says of the person it describes: the relation ``type`` and ``sex`` (``m``, ``f`` or
    ``""``)."""

    type: str
    sex: str


def _words(type_: str, male: str, female: str = "", either: str = "") -> dict[str, Kin]:
    return {
        **{word: Kin(type_, "m") for word in male.split()},
        **{word: Kin(type_, "f") for word in female.split()},
        **{word: Kin(type_, "") for word in either.split()},
    }


# Singular English nouns, casefolded. "Mistress" and "master" are left out: each names a lover, an employer and a
# teacher by turns. "Friend" and "enemy" are said of everyone in passing ("my friend"), but "X, the friend of Y" and
# "Y's friend X" are still statements about the two.
ENGLISH: dict[str, Kin] = {
    **_words("parent", "father papa pa daddy", "mother mamma mama ma mummy mommy", "parent"),
    **_words("child", "son", "daughter", "child"),
    **_words("sibling", "brother half-brother", "sister half-sister", "sibling twin"),
    **_words("spouse", "husband", "wife", "spouse"),
    **_words("grandparent", "grandfather grandpapa grandpa", "grandmother grandmamma grandma granny"),
    **_words("grandchild", "grandson", "granddaughter", "grandchild"),
    **_words("cousin", "", "", "cousin"),
    **_words("uncle_aunt", "uncle", "aunt"),
    **_words("nephew_niece", "nephew", "niece"),
    **_words(
        "in_law",
        "father-in-law son-in-law brother-in-law",
        "mother-in-law daughter-in-law sister-in-law",
    ),
    **_words("engaged", "fiancé fiance bridegroom", "fiancée fiancee bride", "betrothed"),
    **_words("lovers", "", "", "lover"),
    **_words("suitor", "", "", "suitor admirer"),
    **_words("friend", "", "", "friend"),
    **_words("enemy", "", "", "enemy"),
    **_words("employer", "", "", "employer"),
    **_words("servant", "valet footman butler", "maid", "servant"),
    **_words("colleague", "", "", "colleague"),
}

# Hungarian kinship nouns in the third person possessive ("Cecey lánya": Cecey's daughter), the form that follows the
# possessor's name.
HUNGARIAN: dict[str, Kin] = {
    **_words("parent", "apja atyja", "anyja édesanyja", "szülője"),
    **_words("child", "fia", "lánya leánya", "gyermeke gyereke"),
    **_words("sibling", "bátyja öccse fivére", "nővére húga", "testvére"),
    **_words("spouse", "férje", "felesége neje", "hitvese"),
    **_words("grandparent", "nagyapja", "nagyanyja"),
    **_words("grandchild", "", "", "unokája"),
    **_words("cousin", "", "", "unokatestvére"),
    **_words("uncle_aunt", "nagybátyja", "nagynénje"),
    **_words("nephew_niece", "unokaöccse", "unokahúga"),
    **_words("in_law", "apósa sógora veje", "anyósa sógornője menye"),
    **_words("engaged", "vőlegénye", "menyasszonya", "jegyese"),
    **_words("lovers", "", "", "szeretője"),
    **_words("friend", "", "", "barátja"),
    **_words("enemy", "", "", "ellensége"),
    **_words("servant", "", "", "szolgája inasa"),
    **_words("employer", "", "", "gazdája"),
}

# Hungarian kinship nouns with a case ending ("Cecey lányát", "Gergely feleségének"): the possessive's last vowel
# lengthens before the ending, whose vowel follows the word's.
_CASE_ENDINGS = {"a": "t nak val hoz ról tól ra ban ba nál ért", "e": "t nek vel hez ről től re ben be nél ért"}
_LONG_VOWEL = {"a": "á", "e": "é"}
HUNGARIAN.update(
    {
        word[:-1] + _LONG_VOWEL[word[-1]] + ending: kin
        for word, kin in list(HUNGARIAN.items())
        if word[-1] in _LONG_VOWEL
        for ending in _CASE_ENDINGS[word[-1]].split()
    }
)

# "great-uncle", "great-grandmother": one generation further, the same type for the patterns' purpose.
_GREAT = ("uncle_aunt", "nephew_niece", "grandparent", "grandchild")
ENGLISH.update({f"great-{word}": kin for word, kin in ENGLISH.items() if kin.type in _GREAT})
ENGLISH.update({f"great-great-{word[6:]}": kin for word, kin in list(ENGLISH.items()) if word.startswith("great-")})

# English plurals, for a kinship noun before a list of names ("her sisters, Meg and Amy").
ENGLISH_PLURALS: dict[str, Kin] = {
    **_words("parent", "", "", "parents"),
    **_words("child", "sons", "daughters", "children"),
    **_words("sibling", "brothers", "sisters", "siblings"),
    **_words("cousin", "", "", "cousins"),
    **_words("nephew_niece", "nephews", "nieces"),
    **_words("grandchild", "grandsons", "granddaughters", "grandchildren"),
    **_words("friend", "", "", "friends"),
}

# Kinship words said to anyone in speech ("my friend", "my child" to a stranger): "my" + one of them is no evidence.
FORMS_OF_ADDRESS: dict[str, frozenset[str]] = {"en": frozenset({"friend", "child"}), "hu": frozenset()}

KINSHIP_WORDS: dict[str, dict[str, Kin]] = {"en": {**ENGLISH, **ENGLISH_PLURALS}, "hu": HUNGARIAN}
PLURALS = frozenset(ENGLISH_PLURALS)

# Kinship words written as a title before a name ("Aunt Fanny", "Uncle Sydney", "Cousin Ada"): the sentence
# template keeps them outside the name, so "his Aunt Fanny" reads as "his aunt" and a name. "Father", "Brother" and
# "Sister" are left out: before a name they are as often a priest's, a monk's or a nun's.
KIN_TITLES: dict[str, frozenset[str]] = {
    "en": frozenset(
        word
        for word in ENGLISH
        if ENGLISH[word].type in ("uncle_aunt", "grandparent", "cousin") and not word.startswith("great-great")
    ),
    "hu": frozenset(),
}


def kinship_words(language: str) -> dict[str, Kin]:
    """The kinship words of ``language`` (``en`` or ``hu``); raises ``ValueError`` naming the supported ones."""
    try:
        return KINSHIP_WORDS[language]
    except KeyError:
        raise ValueError(f"no kinship words for language {language!r}; supported: {sorted(KINSHIP_WORDS)}") from None

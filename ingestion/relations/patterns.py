"""The sentence patterns that state a relation, as regexes over a sentence template (``sentences.py``: each person
mention is ``@P<i>@``).

Every pattern captures ``src`` (a mention's index), ``psrc`` (a pronoun, "he", "she" or a possessive one, whose
antecedent is src: ``antecedents.py``) or ``list`` (a list of mentions, each a src), and either ``dst`` (a mention's
index), ``pron`` (a possessive pronoun whose antecedent is dst), ``my`` (dst is the speaker of the quotation it
stands in) or ``your`` (dst is the one person that quotation speaks to); ``me`` ("I am", "vagyok") makes src the
told speaker of the quotation it stands in; and the relation either as ``kin`` (a kinship word, ``kinship.py``) or
as a ``married`` / ``engaged`` group. The relation reads "src is the TYPE of dst".
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from graph.kinship import FAMILY_TYPES, KIN_TITLES, PLURALS, kinship_words

logger = logging.getLogger(__name__)

NAMED = 0.9  # both people named, the relation said outright ("Mary, the daughter of John Smith")
NAMED_AFTER = 0.8  # a possessive and a name after it ("Natasha's brother Nicholas"): a list can break it
PRONOUN = 0.6  # one side a pronoun resolved to the one fitting person of the sentence


@dataclass(frozen=True)
class Pattern:
    """A named regex over sentence templates and the confidence of one match."""

    name: str
    regex: re.Pattern[str]
    confidence: float
    # an event ("X married Y") a condition, a wish or a plan before it voids; a kinship noun phrase ("his sister
    # Amy") stays true in any clause, a copula ("X was Y's wife") only when it matched (group ``cop``)
    event: bool = False


def _person(group: str) -> str:
    return rf"@P(?P<{group}>\d+)@"


_POSSESSIVE = r"['’]s"
_NOT_POSSESSIVE = r"(?!['’]|@)"  # "Y's friend X's house" is about the house
_ENGLISH_COPULA = r"(?:was|is|had\s+been|has\s+been|became|becomes)"
_ENGLISH_DETERMINER = r"(?:the|a|an)"
# Modifiers that keep a kinship noun's meaning ("his eldest daughter"); an open slot would let "the man of" in.
_ENGLISH_MODIFIERS = (
    r"(?:(?:eldest|elder|oldest|older|youngest|younger|only|second|third|little|beloved|dear|own|late|poor|"
    r"favourite|favorite|twin|adopted|natural|first|future|intended|affianced|devoted|faithful|old|young|new|"
    r"real|lawful|wedded|dearest|darling)\s+){0,2}"
)
_ADVERBS = r"(?:(?:secretly|privately|quietly|formally|publicly|already|lately|recently|since|now|just)\s+)?"
# The relations a speaker's "I am X's KIN" is read for.
SPOKEN_OF_ONESELF = FAMILY_TYPES | {"engaged"}
# Words that make the clause before a match a condition, a wish or a plan, not a fact.
HYPOTHETICAL = {
    "en": re.compile(
        r"(?i)\b(?:if|unless|whether|suppose|supposing|lest|wish\w*|hope\w*|perhaps|propos\w*|project\w*|"
        r"possib\w*|intend\w*|contemplat\w*|plan\w*|prospect|idea|would|should|might|could|rumou?r\w*|"
        r"pretend\w*|imagin\w*|dream\w*|report\w*|gossip\w*|believ\w*|suspect\w*|suppos\w*)\b"
    ),
    "hu": re.compile(r"(?i)(?<!\w)(?:ha|hogyha|bárcsak|talán|volna)(?!\w)"),
}
# A name set off by a comma after a kinship word ("her brother, Pierre") is its apposition only when the apposition
# closes after it: punctuation, "and", "of", a relative pronoun. "her brother, Pierre noticed" starts a new clause; "his
# wife, Vogel the dancing master" and "her husband, Mortemart, the delightful Prince Hippolyte" are lists; "his wife,
# Miss Clare?" calls out to someone.
APPOSITION_CLOSES = re.compile(r"""\s*(?:[,.;:)"”’'—–-]|$)|\s+(?:and|who|whom|whose|which|of)\b""")
LIST_GOES_ON = re.compile(r"\s*,\s*(?:the\s+(?:\w+\s+){0,3})?@P\d+@")
CALLED_OUT = re.compile(r"\s*[?!]")
# How far back a clause runs: a semicolon, a colon or a dash ends the one before.
CLAUSE_START = re.compile(r"[;:—–]|--")


def _kin_group(words: frozenset[str]) -> str:
    ordered = sorted(words, key=len, reverse=True)
    return r"(?P<kin>" + "|".join(re.escape(word) for word in ordered) + r")(?![\w'’-])"


# A speech verb next to a name outside the quotation: the speaker, who "my" in the quotation is.
SPEECH_VERBS = (
    r"(?:said|says|cried|cries|asked|asks|replied|replies|answered|answers|added|adds|exclaimed|exclaims|returned|"
    r"returns|continued|continues|pursued|pursues|observed|observes|whispered|whispers|called|calls|shouted|"
    r"repeated|remarked|murmured|rejoined|retorted|went\s+on|began|begins)"
)


def _english() -> tuple[Pattern, ...]:
    meanings = kinship_words("en")
    words = frozenset(meanings)
    kin, kins, modifiers = _kin_group(words - PLURALS), _kin_group(PLURALS), _ENGLISH_MODIFIERS
    # what a speaker says of themself: kinship, not "I am an admirer of Montesquieu"
    family = _kin_group(frozenset(word for word in words - PLURALS if meanings[word].type in SPOKEN_OF_ONESELF))
    titles = "|".join(sorted(KIN_TITLES["en"]))
    src = rf"(?:(?:old|young|little|poor|dear|{titles})\s+)?{_person('src')}"  # "her father, old Aleck Minafer"
    names = r"(?P<list>@P\d+@(?:\s*,\s*@P\d+@)*\s*,?\s+and\s+@P\d+@)"  # "her sisters, Meg and Amy"
    # an apposition, a copula, or both in a relative clause ("Hindley, that was Hareton's father")
    copula = rf"(?P<cop>{_ENGLISH_COPULA})\s+"
    link = rf"(?:\s*,\s*(?:(?:who|that)\s+(?={_ENGLISH_COPULA}\s))?|\s+(?={_ENGLISH_COPULA}\s))(?:{copula})?"
    then = r"(?:\s*,?\s+|\s+(?:was|is)\s+(?:(?:a|an|the)\s+)?)"  # "Y's cousin, X", "Y's cousin was X"
    married = r"(?P<married>married|wedded)"
    engaged = r"(?P<engaged>engaged|betrothed|affianced)"
    union = r"(?:(?P<married>marriage|wedding)|(?P<engaged>engagement|betrothal))"
    wed = rf"{_ADVERBS}(?:{married}|{engaged})"  # "was secretly married", "were engaged"
    src_, dst_ = _person("src"), _person("dst")
    were = r"(?:were|had\s+been|have\s+been|are|got)"
    relative = r"(?:(?:who|that)\s+(?:was|is|had\s+been)\s+)?"
    possessor = r"(?:(?P<pron>his|her)|(?P<your>your))"  # "your": the one person the quotation speaks to
    he = r"\b(?P<psrc>he|she)"  # a pronoun as src: its antecedent is found as a possessive's is
    i_am = r"\b(?P<me>I)\s+(?P<cop>am)\s+"  # src: the speaker of the quotation it stands in
    has_married = rf"\s+(?:had\s+|has\s+)?{_ADVERBS}(?P<married>married|wedded|wed)\s+{dst_}"
    was_married = rf"\s+(?:was|had\s+been|has\s+been|is|became|got)\s+{wed}\s+to\s+{dst_}"
    patterns = [
        ("kin_of", rf"{src_}{link}{_ENGLISH_DETERMINER}\s+{modifiers}{kin}\s+of\s+{dst_}", NAMED),
        ("named_possessive", rf"{src_}{link}{dst_}{_POSSESSIVE}\s+{modifiers}{kin}", NAMED),
        ("pronoun_kin_of", rf"{he}\s+{copula}{_ENGLISH_DETERMINER}\s+{modifiers}{kin}\s+of\s+{dst_}", PRONOUN),
        ("pronoun_named_possessive", rf"{he}\s+{copula}{dst_}{_POSSESSIVE}\s+{modifiers}{kin}", PRONOUN),
        ("pronoun_possessive", rf"{_person('src')}{link}(?P<pron>his|her)\s+{modifiers}{kin}", PRONOUN),
        ("possessive_then_name", rf"(?<!\bof\s){dst_}{_POSSESSIVE}\s+{modifiers}{kin}{then}{src}", NAMED_AFTER),
        ("pronoun_then_name", rf"\b{possessor}\s+{modifiers}{kin}\s*,?\s+{src}", PRONOUN),
        ("possessive_then_names", rf"{_person('dst')}{_POSSESSIVE}\s+{modifiers}{kins}\s*,?\s+{names}", NAMED_AFTER),
        ("pronoun_then_names", rf"\b{possessor}\s+{modifiers}{kins}\s*,?\s+{names}", PRONOUN),
        ("speaker_then_name", rf"\b(?P<my>my)\s+{modifiers}{kin}\s*,?\s+{src}", PRONOUN),
        ("name_then_speaker", rf"{src_}(?:\s*,\s*|\s+(?P<cop>is|was)\s+)(?P<my>my)\s+{modifiers}{kin}", PRONOUN),
        ("speaker_is_possessive", rf"{i_am}{dst_}{_POSSESSIVE}\s+{modifiers}{family}", PRONOUN),
        ("speaker_is_kin_of", rf"{i_am}{_ENGLISH_DETERMINER}\s+{modifiers}{family}\s+of\s+{dst_}", PRONOUN),
        ("married", rf"{src_}{has_married}", NAMED),
        ("married_to", rf"{src_}{was_married}", NAMED),
        ("pronoun_married", rf"{he}{has_married}", PRONOUN),
        ("pronoun_married_to", rf"{he}{was_married}", PRONOUN),
        ("married_to_apposition", rf"{src_}\s*,\s*{relative}{wed}\s+to\s+{dst_}", NAMED),  # "Lise, married to Andrew"
        ("were_married", rf"(?<!\bboth\s){src_}\s+and\s+{dst_}\s+{were}\s+{wed}\b", NAMED),
        ("union_of", rf"\b{union}\s+(?:of|between)\s+{_person('src')}\s+(?:and|with|to)\s+{_person('dst')}", NAMED),
        ("possessive_union", rf"{_person('src')}{_POSSESSIVE}\s+{union}\s+(?:to|with)\s+{_person('dst')}", NAMED),
        ("pronoun_union", rf"\b(?P<psrc>his|her)\s+{union}\s+(?:to|with)\s+{dst_}", PRONOUN),  # "her marriage with X"
    ]  # fmt: skip
    events = {"married", "married_to", "married_to_apposition", "were_married", "union_of", "possessive_union"}
    events |= {"pronoun_married", "pronoun_married_to", "pronoun_union"}
    return tuple(
        Pattern(name, re.compile(regex + _NOT_POSSESSIVE, re.IGNORECASE), confidence, name in events)
        for name, regex, confidence in patterns
    )


# Titles written after a Hungarian name ("Cecey Péter úr leánya") and modifiers before a kinship noun ("Dobó kis fia").
_HUNGARIAN_TITLES = r"(?:\s+(?:úr|uram|urunk|bácsi|néni|asszony|asszonyom|deák|vitéz))?"
_HUNGARIAN_MODIFIERS = (
    r"(?:(?:kis|kicsi|öreg|ifjú|fiatal|szép|szegény|egyetlen|drága|kedves|édes|idősebb|legidősebb|ifjabb|kisebbik|"
    r"nagyobbik|legkisebb|legnagyobb|első|második|elhunyt|boldogult|jövendőbeli|leendő)\s+){0,2}"
)


def _hungarian() -> tuple[Pattern, ...]:
    kin = _kin_group(frozenset(kinship_words("hu")))
    # "Cecey lánya", "Ceceynek a lánya", "Cecey Péter úr kis leánya"
    possessor = rf"{_person('dst')}{_HUNGARIAN_TITLES}(?:\s+az?)?\s+{_HUNGARIAN_MODIFIERS}{kin}"
    patterns = [
        ("apposition", rf"{_person('src')}\s*,\s*(?:az?\s+)?{possessor}", NAMED),
        ("possessive_then_name", rf"{possessor}\s*,\s*{_person('src')}", NAMED_AFTER),
        ("married", rf"{_person('src')}\s+(?P<married>feleségül)\s+(?:vette|veszi)\s+{_person('dst')}", NAMED),
        # "Én Bornemissza Gergelynek a felesége vagyok": the quotation's speaker is dst's wife
        ("speaker_is_possessive", rf"{possessor}\s+(?P<cop>(?P<me>vagyok))", PRONOUN),
    ]
    return tuple(
        Pattern(name, re.compile(regex + r"(?!@)", re.IGNORECASE), confidence, name == "married")
        for name, regex, confidence in patterns
    )


PATTERNS: dict[str, tuple[Pattern, ...]] = {"en": _english(), "hu": _hungarian()}


def patterns_for(language: str) -> tuple[Pattern, ...]:
    """The relation patterns of ``language`` (``en`` or ``hu``); raises ``ValueError`` naming the supported ones."""
    try:
        return PATTERNS[language]
    except KeyError:
        raise ValueError(f"no relation patterns for language {language!r}; supported: {sorted(PATTERNS)}") from None

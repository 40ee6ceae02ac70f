"""Language resources for speaker attribution: verbs of saying, subject pronouns, words that open a description.

General vocabulary of English and Hungarian (the reference domain), never a book's characters. Hungarian verbs are
matched by stem, since a stem takes many endings ("mond": mondja, mondta, mondotta, mondá).
"""

from __future__ import annotations

import re

__all__ = [
    "DESCRIPTION_STOPS",
    "DETERMINERS",
    "FEMALE_NOUNS",
    "HU_SPEECH_STEMS",
    "INDEFINITE_SUBJECTS",
    "MALE_NOUNS",
    "OBJECT_MARKERS",
    "POLITE_ADDRESS",
    "SPEECH_VERBS",
    "SPOKEN_TO_ENDINGS",
    "SUBJECT_PRONOUNS",
    "is_speech_verb",
]

SPEECH_VERBS = frozenset(
    """said says say saying asked asks replied replies reply answered answers answer cried cries exclaimed exclaims
    whispered whispers murmured murmurs shouted shouts continued continues added adds began begins remarked observed
    returned rejoined repeated interrupted muttered mutters called laughed sighed declared demanded inquired enquired
    responded retorted explained insisted suggested protested screamed yelled groaned stammered sobbed pleaded urged
    concluded agreed admitted whimpered growled snapped resumed ventured persisted echoed faltered gasped hissed roared
    bawled drawled stuttered commented mused announced warned ordered commanded interposed spoke sang grumbled
    grunted chuckled moaned wailed panted breathed mumbled blurted lisped sneered scoffed shrieked squeaked called
    went put broke told tells remonstrated assented objected cautioned entreated implored begged thundered stated
    asserted queried pursued challenged bellowed ejaculated teased jeered conceded confessed croaked quavered""".split()
)
# "went on", "put in", "broke in": the particle follows; "went", "put", "broke" alone are rarely attribution verbs,
# but next to a quotation they are.
HU_SPEECH_STEMS = tuple(
    """mond kérd felel kiált kiabál szól válaszol folytat súg suttog hebeg rebeg rivall ordít sóhajt dörmög dünnyög
    morog mormog motyog sikolt ismétel nevet kérlel biztat parancsol dadog zokog nyög harsog üvölt sipít sziszeg
    ujjong jegyez""".split()
)
# Hungarian forms that begin like a verb of saying and are not one ("mondat" a sentence)
HU_STEM_MAX_ENDING = 6
HU_NOT_SPEECH = frozenset("mondat mondatot mondatban mondás szólás szólam".split())
SUBJECT_PRONOUNS = {"he": "m", "she": "f", "i": "", "ő": "", "én": ""}
DETERMINERS = frozenset("the a an his her my our their this that its your az a egy".split())
# A description after a determiner ends before these words or any punctuation ("said the man with the basket").
DESCRIPTION_STOPS = frozenset(
    """of with in to at from on by for and but or who whom whose which that as when while after before into upon
    again then now quietly softly""".split()
)
# A name right after these words is spoken to or of, not the one speaking ("said he to Temple", "turned to Simon").
OBJECT_MARKERS = frozenset("to at of with for from upon on toward towards into".split())
# Someone among several, right after a verb of saying ("said another"): a speaker of its own, not the latest name.
INDEFINITE_SUBJECTS = frozenset({"one", "another"})
# Forms of address said to anyone: "…, sir" calls no one by name ("Sir John" is not who answers).
POLITE_ADDRESS = frozenset("sir madam madame monsieur mademoiselle signor signora signorina herr frau mister".split())
# The sex English nouns for people carry (titles and kin words are ``ingestion.names.title_gender``'s): what a
# description's head says of the one it describes ("the young man … she cried" is not him).
MALE_NOUNS = frozenset("man men boy lad gentleman fellow son husband chap youth bachelor nephew grandson".split())
FEMALE_NOUNS = frozenset(
    "woman women girl lass wife daughter maid maiden niece granddaughter widow nurse governess landlady".split()
)
# Hungarian case endings of the one spoken to (dative, allative): "mondja a fiúnak", "szólt a leányhoz".
SPOKEN_TO_ENDINGS = ("nak", "nek", "hoz", "hez", "höz")
# A stem and at most HU_STEM_MAX_ENDING characters of ending, in one pattern (a loop over the stems is slow).
_HU_SPEECH_FORM = re.compile(rf"(?:{'|'.join(HU_SPEECH_STEMS)}).{{0,{HU_STEM_MAX_ENDING}}}", re.DOTALL)
WORD = re.compile(r"\w+(?:['’]\w+)*")


def is_speech_verb(word: str) -> bool:
    """Whether a word (as written) is a verb of saying in English or Hungarian."""
    lower = word.casefold()
    if lower in SPEECH_VERBS:
        return True
    if lower in HU_NOT_SPEECH:
        return False
    # lower case only: a capital word that starts like a stem is a name or English ("Monday")
    return word[:1].islower() and _HU_SPEECH_FORM.fullmatch(lower) is not None

"""What resolution needs to know of a language: where its given name stands, which words open NER spans, and which
of the rules its writing supports — one small record per language instead of branches through the rules."""

from __future__ import annotations

from dataclasses import dataclass

from ingestion.normalize import check_language


@dataclass(frozen=True, slots=True)
class Language:
    """How a language writes names, as the rules read it.

    ``given`` is where the given name stands in a full name ("Pierre Bezukhov": 0; Hungarian "Cecey Éva": -1); the
    surname stands at ``-1 - given``. The flags say which rules the language's writing gives evidence for.
    """

    code: str
    given: int
    # Capitalised at the start of a sentence, these open many NER spans ("Beside Kutuzov", "Tell Denisov").
    function_words: frozenset[str]
    # The endings of a surname in the plural: the family ("the Rostovs"; Hungarian "Ceceyék", accent-folded).
    plural_endings: tuple[str, ...]
    # Names are capitalised, so a form without a capital is a word, and the lowercase words before a name describe
    # it ("poor Jemima"); Hungarian writes peoples in lowercase ("a törökök").
    capitalised_names: bool = False
    # Case suffixes follow a name ("Gergelynek"): they are stripped where the stem is attested.
    case_suffixes: bool = False
    # The context patterns (``names.said_somewhere``, ``names.a_vessel``, ``names.invoked``) and the articles
    # (``article_usage``) are written for this language.
    context_patterns: bool = False
    # Foreign names are transliterated two ways ("Buonaparte", "Bonaparte"), and a surname's feminine form ("Rostova")
    # stands beside its masculine one.
    transliterated: bool = False
    # English titles: a married woman by her husband's name ("Mrs. John Dashwood"), a title before a surname alone
    # for the head of the family ("Mr. Knightley"), a rank before a surname ("Colonel Fitzwilliam"), a family by its
    # plural; and a list of given names' usual sex.
    english_titles: bool = False
    # Given names shared by many of a book's families ("István": Dobó, Mekcsey, Zoltay …): a lone one is not joined
    # by the chapters it is said in, and pet forms are made by word formation (``names.hungarian_pet_name``).
    shared_given_names: bool = False


LANGUAGES = {
    "en": Language(
        code="en",
        given=0,
        function_words=frozenset(
            "a an and as at before behind beside between but by for from here if in near of oh on or so sometimes "
            "suddenly tell send then there though to when where while with yes no ah voila".split()
        ),
        plural_endings=("s", "es"),
        capitalised_names=True,
        context_patterns=True,
        transliterated=True,
        english_titles=True,
    ),
    "hu": Language(
        code="hu",
        given=-1,
        function_words=frozenset("és de hogy ha mert már még is sem nem igen".split()),
        plural_endings=("ek",),
        case_suffixes=True,
        shared_given_names=True,
    ),
}


def language_of(code: str) -> Language:
    """The record of a supported language code; ``ValueError`` naming the valid ones otherwise."""
    return LANGUAGES[check_language(code)]

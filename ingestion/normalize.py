"""Name normalisation for entity resolution: cleaning, match keys, titles and Hungarian case suffixes.

Two strings are kept apart on purpose: the *display* form (accents and capitals kept, used for canonical names)
and the *match key* (casefolded and accent-folded, used only to decide whether two mentions are the same name).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Iterable

logger = logging.getLogger(__name__)

SUPPORTED_LANGUAGES = ("en", "hu")

_POSSESSIVE = re.compile(r"(?:['’]s|['’])$", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")
_LEADING_ARTICLES = {"en": ("the",), "hu": ("a", "az")}

# Honorifics and ranks, compared against casefolded tokens with dots removed. Multi-word titles ("old prince",
# "grand duke") need no entry: each word is stripped on its own.
EN_TITLES = frozenset(
    "prince princess count countess old little young mr mrs miss ms dr sir lady lord general captain colonel major "
    "lieutenant sergeant cadet private corporal ensign adjutant uncle aunt madame mademoiselle mlle mme monsieur "
    "tsar tsarevich emperor empress king queen father brother grand duke duchess archduke baron baroness marshal "
    "abbe vicomte comte herr mynheer frau fraulein doctor m mister madam dame mother sister signor signora signorina "
    "master mistress reverend rev professor judge squire monseigneur marquis marquess earl viscount "
    "messrs mesdames mmes mesdemoiselles farmer parson vicar rector curate deacon nurse granny grandma grandmother "
    "grandpa grandfather widow cousin goody goodman sheriff governor senator inspector superintendent detective "
    "alderman archdeacon".split()
)
# "ur" is the stem "úr" shortens to before a suffix (urat, urak).
HU_TITLES = frozenset(
    "úr ur uram úrfi bácsi néni pap kapitány vitéz király királyné basa pasa bég aga szultán deák diák "
    "hadnagy főhadnagy zászlós asszony asszonyom kisasszony barát gróf herceg püspök császár öreg ifjú ifjabb "
    "nagyságos tekintetes".split()
)
_TITLES = {"en": EN_TITLES, "hu": HU_TITLES}
# Title words that also describe places or things ("Old Town", "Grand Canal", "öreg vár"): no evidence of a person.
WEAK_TITLES = frozenset({"old", "little", "young", "grand", "öreg", "ifjú", "ifjabb"})

# Hungarian inflection of a name's last token: stem + [possessive] + [case suffix]. Only one case suffix can
# follow a possessive, never the other way round, so "Ceceyné" (Cecey's wife) is not read as "Cecey" + n + é.
_HU_CASE_SUFFIXES = tuple(
    "nak nek val vel ba be ban ben ból ből hoz hez höz nál nél tól től ra re ról ről ért ig "
    "t ot et öt at n on en ön".split()
)
_HU_POSSESSIVES = tuple("é éi m am em om öm d ad ed od öd ja je".split())
# -val/-vel after a consonant becomes a copy of that consonant + al/el: István+val → Istvánnal,
# Gergely+vel → Gergellyel (modern) or Gergelylyel (1909 orthography doubles the whole digraph).
_HU_ASSIMILATED = ("al", "el")
_HU_DIGRAPHS = ("dzs", "cs", "dz", "gy", "ly", "ny", "sz", "ty", "zs")
_HU_VOWELS = frozenset("aáeéiíoóöőuúüű")
_MIN_STEM = 2


def fold_accents(text: str) -> str:
    """Remove combining marks after NFKD decomposition ("Dobó" → "Dobo"); used for match keys only."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def check_language(language: str) -> str:
    """Return the language code if supported, else raise ``ValueError`` naming the valid options."""
    if language not in SUPPORTED_LANGUAGES:
        raise ValueError(f"unsupported language {language!r}; valid options: {', '.join(SUPPORTED_LANGUAGES)}")
    return language


def clean_surface(text: str, language: str = "en") -> str:
    """Display form of a mention: NFC, collapsed whitespace, no surrounding punctuation, possessive or article.

    >>> clean_surface("  the  Prince Andrew's, ")
    'Prince Andrew'
    """
    text = _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()
    previous = None
    while text and text != previous:
        previous = text
        text = _strip_punctuation(_POSSESSIVE.sub("", text))
        first, _, rest = text.partition(" ")
        if rest and first.casefold() in _LEADING_ARTICLES.get(language, ()):
            text = rest
    return text


def _strip_punctuation(text: str) -> str:
    start, end = 0, len(text)
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return text[start:end].strip()


def match_key(text: str) -> str:
    """Casefolded, accent-folded key of an already cleaned name ("Dobó István" → "dobo istvan")."""
    return fold_accents(text.casefold())


def is_title(token: str, language: str) -> bool:
    """Whether a casefolded token is an honorific or rank in the language ("Mr." and "mr" both count)."""
    return token.replace(".", "") in _TITLES[language]


def split_titles(tokens: list[str], language: str) -> tuple[list[str], list[str]]:
    """Split casefolded tokens into (titles, name tokens), stripping titles at both ends.

    English titles precede the name ("Old Prince Bolkonski"; a trailing one describes, as in "the Russian
    Emperor"), Hungarian ones mostly follow it ("Dobó kapitány", "Cecey uram") but may precede it ("vitéz
    Gergely"). A form made only of titles ("the old prince") keeps all its tokens as its name, since there is
    nothing else to identify it by.
    """
    start, end = 0, len(tokens)
    while start < end and is_title(tokens[start], language):
        start += 1
    while language == "hu" and end > start and is_title(tokens[end - 1], language):
        end -= 1
    if start == end:
        return [], list(tokens)
    return tokens[:start] + tokens[end:], tokens[start:end]


# Kinship titles that also personify places and things ("Mother Moscow", "Father Thames", "Mother Russia"): a name
# under one of them is not thereby a person's.
FIGURATIVE_TITLES = frozenset({"mother", "father", "sister", "brother", "uncle", "aunt"})


def has_person_title(tokens: list[str], language: str) -> bool:
    """Whether casefolded tokens are a name with a person's title ("Lieutenant Telyanin", "Dobó kapitány"); a weak
    or figurative title alone ("Old Town", "Mother Moscow") does not count."""
    titles, _ = split_titles(tokens, language)
    return any(title.replace(".", "") not in WEAK_TITLES | FIGURATIVE_TITLES for title in titles)


def _restore_lengthening(base: str) -> list[str]:
    # A final a/e lengthens before a suffix: Vicuska → Vicuskát, Bornemissza → Bornemisszának.
    if base.endswith("á"):
        return [base, base[:-1] + "a"]
    if base.endswith("é"):
        return [base, base[:-1] + "e"]
    return [base]


def _undouble(base: str) -> str | None:
    """Undo the consonant copy of an assimilated -val/-vel, or None if the base ends in no doubled consonant."""
    for digraph in _HU_DIGRAPHS:
        if base.endswith(digraph + digraph):
            return base[: -len(digraph)]
        if len(digraph) > 1 and base.endswith(digraph[0] + digraph):
            return base[: -len(digraph) - 1] + digraph
    if len(base) >= 2 and base[-1] == base[-2] and base[-1] not in _HU_VOWELS:
        return base[:-1]
    return None


def _strip_one(token: str, suffixes: Iterable[str], assimilated: bool) -> set[str]:
    stems: set[str] = set()
    for suffix in suffixes:
        if token.endswith(suffix) and len(token) - len(suffix) >= _MIN_STEM:
            stems.update(_restore_lengthening(token[: -len(suffix)]))
    if assimilated:
        for suffix in _HU_ASSIMILATED:
            if token.endswith(suffix):
                base = _undouble(token[: -len(suffix)])
                if base is not None and len(base) >= _MIN_STEM:
                    stems.add(base)
    return stems


def hu_stem_candidates(token: str) -> set[str]:
    """All stems a casefolded Hungarian token could have under (possessive +) case suffix; excludes the token."""
    after_case = _strip_one(token, _HU_CASE_SUFFIXES, assimilated=True)
    candidates = set(after_case)
    for base in {token} | after_case:
        candidates |= _strip_one(base, _HU_POSSESSIVES, assimilated=False)
    candidates.discard(token)
    return candidates


def hu_stem(token: str, is_attested: Callable[[str], bool]) -> str:
    """Strip Hungarian suffixes from a casefolded token only when the resulting stem is attested.

    Attestation (the stem occurs elsewhere uninflected, or in the alias table) is what keeps real names intact:
    "Egerbe" → "eger" only because "Eger" was seen. Among several attested stems the shortest wins, because an
    attested form can itself be inflected ("Egerben" could be "Egerbe" + n); ties go to lexical order.
    """
    attested = sorted((stem for stem in hu_stem_candidates(token) if is_attested(stem)), key=lambda s: (len(s), s))
    return attested[0] if attested else token


def hu_postposed_title(word: str) -> str | None:
    """The nominative of a Hungarian title written after a name, inflected or not ("uramnak" → "uram", "urat" →
    "úr", "bégnek" → "bég"), or None when the word is not one (or is only descriptive: "öreg", "ifjú").

    The longest title among the stems wins: "uram" (*my lord*) is a title of its own, not "úr" + possessive.
    """
    if not word[:1].islower():  # written after a name, a title is lowercase ("Dobó uram"); "Dobó Uram" is not one
        return None
    low = word.casefold()
    stems = (
        [low]
        if low in HU_TITLES
        else sorted((stem for stem in hu_stem_candidates(low) if stem in HU_TITLES), key=lambda s: (-len(s), s))
    )
    if not stems or stems[0] in WEAK_TITLES:
        return None
    return "úr" if stems[0] == "ur" else stems[0]


def restore_case(original: str, stem: str) -> str:
    """Carry the capitalisation of the display token over to its (casefolded) stem: ("Gergelynek", "gergely")."""
    if original[:1].isupper():
        return stem[:1].upper() + stem[1:]
    return stem


# Russian surnames in English transliteration: a man's ending and a woman's ("Rostov", "Rostova")
SURNAME_ENDINGS = (("ov", "ova"), ("ev", "eva"), ("in", "ina"), ("ski", "skaya"), ("skoy", "skaya"))


# A Russian patronymic in English transliteration, the name after the given name: "Vasili Sergeevich", "Anna
# Pavlovna". Only the full literary endings: colloquial ones ("Dmitrich") and the "-ich" of surnames such as
# "Aldrich" or "Dietrich" would make a surname read as a patronymic.
PATRONYMIC_ENDINGS = ("ovich", "evich", "ovna", "evna", "ichna")


def is_patronymic(word: str) -> bool:
    """Whether a casefolded name word has a patronymic's ending ("sergeevich", "pavlovna")."""
    return len(word) > 6 and word.endswith(PATRONYMIC_ENDINGS)


def surname_variants(surname: str) -> set[str]:
    """Other forms of a Russian surname (in English transliteration) that name other members of its family.

    "rostov" → {"rostovs", "rostova"}; "bolkonski" → {"bolkonskis", "bolkonskaya"}. Seeing any of them means a
    bare surname is shared by several people, so it must not attach to one of them.
    """
    variants = {surname + "s"}
    for masculine, feminine in SURNAME_ENDINGS:
        if surname.endswith(masculine):
            variants.add(surname[: -len(masculine)] + feminine)
        if surname.endswith(feminine):
            variants.add(surname[: -len(feminine)] + masculine)
    variants.discard(surname)
    return variants

"""The records resolution reads and writes: the surface forms the Spark job aggregates, each form as parsed, the
groups of forms sharing a name key, the resolved entities; and how a form's text is read (cleaned, described,
addressed, cased)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ingestion.alias_table import AliasEntry
from ingestion.names import PRONOUN_WORDS, title_gender
from ingestion.normalize import clean_surface, is_title, match_key
from ingestion.resolution.language import Language

# The label of a surname in the plural ("the Rostovs", "the Bennets"): a family, several people, not a character.
FAMILY_LABEL = "FAMILY"
# The label of a name invoked in oaths ("thank God", "good Lord", "for Christ's sake"; ``names.invoked``): a deity,
# not a character of the story.
DEITY_LABEL = "DEITY"

_FAMILIES = {"PERSON": "PERSON", "PER": "PERSON", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "ORG": "ORG"}
# A partial name attaches only to a full name seen at least this often (or listed in the alias table), so
# one-off NER noise such as "Beside Kutuzov" never captures "Kutuzov".
MIN_ANCHOR_SUPPORT = 2
# A first name fitting several entities joins the one with this many times the mentions of the next ("Andrew":
# Prince Andrew, not the Andrew Kaysarov of one chapter); below it the name stays apart.
DOMINANCE = 3
# A title carried by this share of a name's mentions is a rank the person holds (``rank_conflict``)
RANK_SHARE = 0.1
# A one-word "name" said after an article in most of at least this many mentions is a common noun
# (``rules.forms.common_nouns``)
ARTICLED_MIN = 3
# How often a name said alone makes a one-off full name that contains it its introduction (``credible``).
INTRODUCED = 3
# A lone name that fits several full names of like mass joins the one said in the same chapters as it: when the lone
# name's mentions in that one's chapters number DOMINANCE times those in any other's, and at least NEAR
# ("Kutuzov", 521 times, said 40 times in the chapters of "Michael Ilarionovich Kutuzov" and twice in those of
# "Paul Ivanovich Kutuzov"; "Holmes" beside "Sherlock Holmes" and "Mycroft Holmes").
NEAR = 5
# A one-word name no full name holds is another form of a given name when both start with these letters ("Andre",
# "Andrusha" and "Andrew"; "Platoche" and "Platon"): how pet and foreign forms of a name are made
# (``rules.joins.other_forms_of_given_names``). Three letters would make the battle of "Borodino" a form of "Boris".
FORM_STEM = 4
# A "name" opening with one of these is a form of address ("Your Highness", "His Excellency"), not a person's name.
POSSESSIVES = frozenset({"my", "your", "his", "her", "our", "their", "thy"})
# The nouns of honorific address ("Your Serene Highness", "His Majesty") and the adjectives they take: a form made of
# them, or of a possessive and titles ("My Lord", "Your Grace"), addresses a rank, whoever holds it (``addressed``).
# "Grace" and "Honor" are given names too: only after a possessive are they an address.
_HONORIFICS = frozenset("highness majesty excellency lordship ladyship eminence holiness".split())
_ADDRESSED_AFTER_POSSESSIVE = _HONORIFICS | frozenset("grace honour honor worship reverence".split())
_HONORIFIC_ADJECTIVES = frozenset("serene imperial royal most gracious illustrious".split())
_NAME_PARTICLES = frozenset(
    {"de", "d'", "da", "di", "del", "della", "du", "la", "le", "van", "von", "der", "den", "zu"}
)


@dataclass(frozen=True, slots=True)
class SurfaceForm:
    """A distinct surface text with its NER label and mention count, as aggregated by the Spark job."""

    text: str
    label: str
    count: int
    first_pos: int = 0
    # The other names said in one sentence with it: (keyed text, sentences shared) — ``rules.apart.said_together``
    cooccurring: tuple[tuple[str, int], ...] = ()
    # Pronouns just after its mentions (``ingestion.names.PRONOUNS``): "he"/"him"/"his"… and "she"/"her"…
    he: int = 0
    she: int = 0
    # Where its mentions stand: (unit id, mentions there) — the chapters a name is said in (``NEAR``)
    units: tuple[tuple[str, int], ...] = ()
    # Its mentions said where a place is ("in Tilsit") and beside a speech verb ("said Natasha"):
    # ``names.said_somewhere``
    located: int = 0
    spoken: int = 0
    sworn: int = 0  # ... and in an oath ("thank God"): ``names.invoked``
    vessel: int = 0  # ... and after a vessel's kind ("the schooner Marianne"): ``names.a_vessel``
    # The other names the text says are its bearer's too ("Abel Magwitch, otherwise Provis"): (keyed text, sentences
    # saying so) — ``rules.stated.stated_names``
    stated: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ResolvedEntity:
    """A canonical entity: stable id, most informative name, majority label and every surface form merged."""

    entity_id: str
    canonical_name: str
    label: str
    aliases: tuple[str, ...]


def label_family(label: str) -> str:
    """Group NER labels that name the same kind of thing: PERSON/PER, GPE/LOC/FAC, ORG; others stand alone."""
    return _FAMILIES.get(label.upper(), label.upper())


def entity_id_for(family: str, canonical_name: str, scope: str = "") -> str:
    """Stable id from the label family and the canonical name's match key only (never input order).

    ``scope`` (a document id, with ``ingestion.entity_scope = "document"``) makes the same name in two documents two
    entities; empty, the id is the corpus-wide one it always was.
    """
    key = f"{family}\x1f{match_key(canonical_name)}" + (f"\x1f{scope}" if scope else "")
    return "ent_" + hashlib.sha1(key.encode()).hexdigest()[:16]


@dataclass(slots=True)
class Form:
    """One surface text as the rules read it: its labels' mentions, its cleaned words and what its titles say."""

    text: str
    labels: Counter[str]
    display: str  # cleaned, Hungarian-stemmed, accents kept
    tokens: list[str]  # casefolded display tokens
    language: Language
    family: str = ""
    name_tokens: tuple[str, ...] = ()
    title_only: bool = False
    titles: tuple[str, ...] = ()  # casefolded, without dots
    gender: str = ""  # what the titles imply (``ingestion.names``)
    pronouns: Counter[str] = field(default_factory=Counter)  # "he"/"she" just after its mentions
    units: Counter[str] = field(default_factory=Counter)  # mentions per unit (chapter)
    context: Counter[str] = field(default_factory=Counter)  # "located", "spoken", "sworn", "vessel" (``SurfaceForm``)
    together: Counter[str] = field(default_factory=Counter)  # other surface text -> sentences said together
    stated: Counter[str] = field(default_factory=Counter)  # other surface text -> sentences saying it is one person

    @property
    def count(self) -> int:
        """Its mentions over all labels."""
        return sum(self.labels.values())


@dataclass(slots=True)
class Group:
    """A candidate entity: forms sharing one name key, or forms the alias table sends to one entry."""

    family: str
    name_tokens: tuple[str, ...]
    forms: list[Form] = field(default_factory=list)
    entry: AliasEntry | None = None
    title_only: bool = False
    gender: str = ""

    @property
    def count(self) -> int:
        """Its forms' mentions."""
        return sum(form.count for form in self.forms)

    @property
    def texts(self) -> tuple[str, ...]:
        """Its forms' surface texts, sorted: how the trace names it."""
        return tuple(sorted(form.text for form in self.forms))


def parse(text: str, labels: Counter[str], language: Language, sentence_openers: Iterable[str] = ()) -> Form:
    """The form of a surface text: cleaned, its descriptions and a glued sentence opener dropped."""
    display = strip_descriptions(clean_surface(text, language.code), language)
    words = display.split()
    if words and words[0] in sentence_openers:
        # a lone word capitalised only where it starts a sentence is no name at all ("Bother!", "Thither")
        display = " ".join(words[1:])
    return Form(text=text, labels=labels, display=display, tokens=display.casefold().split(), language=language)


def addressed(tokens: list[str]) -> bool:
    """Whether casefolded English tokens are a form of address or pronouns, not a name: honorific nouns with their
    adjectives ("Serene Highness", "Majesty"), a possessive before titles or honorifics ("My Lord", "Your Grace"), or
    pronoun words alone ("Thou")."""
    words = [token.replace(".", "") for token in tokens]
    if not words:
        return False
    if all(word in PRONOUN_WORDS for word in words):
        return True
    if words[0] in POSSESSIVES and len(words) > 1:
        return all(word in _ADDRESSED_AFTER_POSSESSIVE | _HONORIFIC_ADJECTIVES or is_title(word, "en")
                   for word in words[1:])
    return bool(_HONORIFICS & set(words)) and all(word in _HONORIFICS | _HONORIFIC_ADJECTIVES for word in words)


def strip_descriptions(display: str, language: Language) -> str:
    """Drop the lowercase words before a name ("poor Jemima", "this Hester Prynne"), bar particles and the gendered
    titles just before the name ("her aunt Shaw" → "aunt Shaw"); in a language that capitalises names."""
    if not language.capitalised_names:
        return display
    words = display.split()
    if not words:
        return display
    start = 0
    while start < len(words) - 1 and words[start][:1].islower() and words[start] not in _NAME_PARTICLES:
        start += 1
    if not words[start][:1].isupper():
        return display
    # a title said in lowercase stays ("her aunt Shaw", "the widow Douglas"): it tells the person's sex
    while start > 0 and title_gender(words[start - 1]):
        start -= 1
    return " ".join(words[start:])


def properly_cased(name: str) -> bool:
    """No word in capitals throughout (bar initials and Roman numerals of one letter), and some capital."""
    words = name.split()
    return any(word[:1].isupper() for word in words) and not any(
        sum(ch.isalpha() for ch in word) > 1 and word.isupper() for word in words
    )


def name_display(form: Form) -> str:
    """The words of the form's display that are its name, without its titles ("Prince Andrew" → "Andrew")."""
    if form.title_only or len(form.name_tokens) == len(form.tokens):
        return form.display
    display_tokens = form.display.split()
    folded = [match_key(token) for token in form.tokens]
    for start in range(len(folded) - len(form.name_tokens) + 1):
        if tuple(folded[start : start + len(form.name_tokens)]) == form.name_tokens:
            return " ".join(display_tokens[start : start + len(form.name_tokens)])
    return form.display


def written_like_name(form: Form, places: set[str]) -> bool:
    """Every word capitalised (bar particles, "von Toll"), none a function word, title or known place.

    NER spans such as "Bagration to Rostov", "Beside Kutuzov", "Alexander Prince Vasili" or "Moscow Pierre"
    glue a name to something else; they must neither capture a partial name nor be attached to one.
    """
    words = name_display(form).split()
    if len(words) > 1 and not properly_cased(" ".join(words)):
        return False  # "CHAPTER XI Anatole Kuragin": a heading glued to a name
    folded = [word.casefold() for word in words]
    if not all(word[:1].isupper() or low in _NAME_PARTICLES for word, low in zip(words, folded, strict=True)):
        return False
    if any(low in form.language.function_words for low in folded):
        return False
    if len(words) > 1 and any(match_key(low) in places for low in folded):
        return False
    return not any(is_title(low, form.language.code) for low in folded[1:])


def name_like(group: Group, places: set[str]) -> bool:
    """Whether some form of the group is written like a person's name (see ``written_like_name``)."""
    return group.entry is not None or any(written_like_name(form, places) for form in group.forms)

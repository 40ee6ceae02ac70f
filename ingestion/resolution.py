"""Entity resolution: decide which NER surface forms name the same entity, and give each entity a stable id.

Runs on the driver over the (small) list of distinct surface forms the Spark job aggregated. Order of evidence:
the domain alias table first (``ingestion.alias_table``, re-exported here), then exact name keys (case, accents,
possessives, titles, Hungarian suffixes) kept apart by the sex their titles give (``ingestion.names``: "Monsieur X",
"Mademoiselle X"), then attachment of partial names (a first name, a surname, a name without its surname, an
English nickname) to the one full name they can belong to — or, for a first name, to the one its title or a
dominant share of mentions points to. Anything ambiguous stays its own entity: a missed merge costs recall, a wrong
one precision, and the graph built on top suffers more from the latter.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field

from ingestion.alias_table import AliasEntry, AliasTable, AliasTableError
from ingestion.names import (
    FEMALE,
    MALE,
    MARRIED,
    PRONOUN_WORDS,
    RANKS_BEFORE_SURNAME,
    SURNAME_TITLES,
    VESSEL_LABEL,
    a_vessel,
    common_given_name_sex,
    gender_of_titles,
    genders_compatible,
    given_name_variant,
    invoked,
    nickname_partners,
    noble_ranks,
    pronoun_gender,
    rank_conflict,
    said_somewhere,
    specificity,
    spelling_variants,
    title_gender,
)
from ingestion.normalize import (
    SURNAME_ENDINGS,
    WEAK_TITLES,
    check_language,
    clean_surface,
    has_person_title,
    hu_stem,
    is_patronymic,
    is_title,
    match_key,
    restore_case,
    split_titles,
    surname_variants,
)

logger = logging.getLogger(__name__)

__all__ = [
    "AliasEntry",
    "AliasTable",
    "AliasTableError",
    "DEITY_LABEL",
    "FAMILY_LABEL",
    "ResolvedEntity",
    "SurfaceForm",
    "article_candidates",
    "entity_id_for",
    "label_family",
    "resolve_entities",
]

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
# (``_common_nouns_set_apart``)
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
# (``_other_forms_of_given_names``). Three letters would make the battle of "Borodino" a form of "Boris".
FORM_STEM = 4
# Capitalised at the start of a sentence, these open many NER spans ("Beside Kutuzov", "Tell Denisov").
_FUNCTION_WORDS = {
    "en": frozenset(
        "a an and as at before behind beside between but by for from here if in near of oh on or so sometimes "
        "suddenly tell send then there though to when where while with yes no ah voila".split()
    ),
    "hu": frozenset("és de hogy ha mert már még is sem nem igen".split()),
}
# A "name" opening with one of these is a form of address ("Your Highness", "His Excellency"), not a person's name.
_POSSESSIVES = frozenset({"my", "your", "his", "her", "our", "their", "thy"})
# The nouns of honorific address ("Your Serene Highness", "His Majesty") and the adjectives they take: a form made of
# them, or of a possessive and titles ("My Lord", "Your Grace"), addresses a rank, whoever holds it (``_addressed``).
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
    cooccurring: frozenset[str] = frozenset()
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
class _Form:
    text: str
    labels: Counter[str]
    display: str  # cleaned, Hungarian-stemmed, accents kept
    tokens: list[str]  # casefolded display tokens
    language: str
    family: str = ""
    name_tokens: tuple[str, ...] = ()
    title_only: bool = False
    titles: tuple[str, ...] = ()  # casefolded, without dots
    gender: str = ""  # what the titles imply (``ingestion.names``); English only
    pronouns: Counter[str] = field(default_factory=Counter)  # "he"/"she" just after its mentions
    units: Counter[str] = field(default_factory=Counter)  # mentions per unit (chapter)
    context: Counter[str] = field(default_factory=Counter)  # "located", "spoken", "sworn", "vessel" (``SurfaceForm``)

    @property
    def count(self) -> int:
        return sum(self.labels.values())


@dataclass(slots=True)
class _Group:
    """A candidate entity: forms sharing one name key, or forms the alias table sends to one entry."""

    family: str
    name_tokens: tuple[str, ...]
    forms: list[_Form] = field(default_factory=list)
    entry: AliasEntry | None = None
    title_only: bool = False
    gender: str = ""

    @property
    def count(self) -> int:
        return sum(form.count for form in self.forms)


def resolve_entities(
    forms: Iterable[SurfaceForm],
    *,
    language: str,
    alias_table: AliasTable | None = None,
    min_count: int = 1,
    sentence_openers: Collection[str] = frozenset(),
    scope: str = "",
    article_usage: Mapping[str, tuple[int, int]] | None = None,
) -> tuple[list[ResolvedEntity], dict[tuple[str, str], str]]:
    """Resolve surface forms into canonical entities.

    Returns the entities (sorted by id) and the mapping (surface text, label) -> entity_id for every input form
    kept. A surface text is kept when its mentions over all labels number at least ``min_count``, something
    is left of it after cleaning and, in English, it has a capital letter. The result depends only on the set of
    forms, never on their order.

    ``sentence_openers`` are words the corpus capitalises only where a sentence starts and otherwise writes in
    lowercase (``sentence_openers``): the first word of a name that is one of them was glued on by the NER
    ("Ránézett Gergely", *he looked at him, Gergely*) and is dropped; a form that is only such a word is no name.
    ``scope`` goes into every id (``entity_id_for``): the forms are one document's, resolved apart from the others'.
    ``article_usage`` (English): for the ``article_candidates`` words, their occurrences in the corpus and those just
    after an article; a one-word "name" mostly written "the X" is a common noun (``_common_nouns_set_apart``).
    """
    check_language(language)
    table = alias_table or AliasTable(())
    by_text: dict[str, Counter[str]] = defaultdict(Counter)
    pronouns: dict[str, Counter[str]] = defaultdict(Counter)
    units: dict[str, Counter[str]] = defaultdict(Counter)
    context: dict[str, Counter[str]] = defaultdict(Counter)
    for form in forms:
        by_text[form.text][form.label] += form.count
        pronouns[form.text].update(he=form.he, she=form.she)
        units[form.text].update(dict(form.units))
        context[form.text].update(located=form.located, spoken=form.spoken, sworn=form.sworn, vessel=form.vessel)
    parsed = [_parse(text, labels, language, sentence_openers) for text, labels in sorted(by_text.items())]
    for item in parsed:
        item.pronouns = pronouns[item.text]
        item.units = units[item.text]
        item.context = context[item.text]
    # An English name is written with a capital: a form without one is a word the NER took for a name ("one", "mon
    # cher", the game of "boston"); and an address or a pronoun is no one's name ("Serene Highness", "Thou").
    # Hungarian writes peoples in lowercase ("a törökök"): there the NER's word stands.
    parsed = [form for form in parsed
              if form.display and (language != "en" or not (form.text.islower() or _addressed(form.tokens)))]
    if language == "hu":
        _stem_hungarian(parsed, table)
    _vote_families(parsed, language, article_usage or {})
    kept = [form for form in parsed if form.count >= min_count]
    for item in kept:
        titles, names = split_titles(item.tokens, language) if item.family == "PERSON" else ([], item.tokens)
        item.name_tokens = tuple(match_key(token) for token in names)
        item.title_only = item.family == "PERSON" and all(is_title(token, language) for token in item.tokens)
        item.titles = tuple(title.replace(".", "") for title in titles)
        # Namesakes are told apart by the sex their titles give ("Monsieur X" / "Mademoiselle X"; in Hungarian,
        # written after the name, "Cecey uram" / "Éva asszony"), and the sex is what lets a bare surname join.
        item.gender = gender_of_titles(item.titles) if not item.title_only else ""
    if language == "en":
        _respell(kept)
    families = _family_names(kept)
    if language == "en" and article_usage:
        kept = _common_nouns_set_apart(kept, families, table, article_usage)
    groups = _group(kept, table, language)
    roots = _attach_partial_names(groups, parsed, language)
    return _build(groups, roots, families, scope)


def article_candidates(forms: Iterable[SurfaceForm], language: str) -> set[str]:
    """The one-word names the NER called a person somewhere: the words whose use with an article the corpus is
    asked about (``article_usage``; English only)."""
    if language != "en":
        return set()
    out = set()
    for form in forms:
        words = _strip_descriptions(clean_surface(form.text, language), language).split()
        if len(words) == 1 and words[0][:1].isupper() and label_family(form.label) == "PERSON":
            out.add(words[0])
    return out


def _common_nouns_set_apart(
    forms: list[_Form], families: set[str], table: AliasTable, usage: Mapping[str, tuple[int, int]]
) -> list[_Form]:
    """One-word "people" the book mostly writes after an article are common nouns, ranks or groups, not characters:
    "the Frenchman", "a Cossack", "the Tsar", "the Kremlin", "the Guards" (``usage``: word → its occurrences and
    those just after "a", "an" or "the", all over the corpus). Each takes the label family its other NER labels give
    ("Kremlin", also tagged a place) or is no entity at all; a family ("the Rostovs") and a name the alias table
    lists stay as they are. Needs ``ARTICLED_MIN`` occurrences: a few say nothing."""
    out = []
    for form in forms:
        seen, articled = usage.get(form.display, (0, 0))
        if (
            form.family == "PERSON"
            and len(form.tokens) == 1
            and seen >= ARTICLED_MIN
            and 2 * articled > seen
            and form.name_tokens[0] not in families
            and table.lookup(match_key(" ".join(form.tokens))) is None
        ):
            others = Counter[str]()
            for label, n in form.labels.items():
                if label_family(label) != "PERSON":
                    others[label_family(label)] += n
            if not others:
                logger.debug("%r is written after an article %d of %d times: no name", form.display, articled, seen)
                continue
            form.family = min(others, key=lambda family: (-others[family], family))
            form.title_only, form.titles, form.gender = False, (), ""
            form.name_tokens = tuple(match_key(token) for token in form.tokens)
        out.append(form)
    return out


def opener_candidates(forms: Iterable[SurfaceForm], language: str) -> set[str]:
    """The capitalised first words of the forms: the words whose casing the corpus is asked about."""
    out = set()
    for form in forms:
        words = _strip_descriptions(clean_surface(form.text, language), language).split()
        if words and words[0][:1].isupper():
            out.add(words[0])
    return out


def _parse(text: str, labels: Counter[str], language: str, sentence_openers: Collection[str] = ()) -> _Form:
    display = _strip_descriptions(clean_surface(text, language), language)
    words = display.split()
    if words and words[0] in sentence_openers:
        # a lone word capitalised only where it starts a sentence is no name at all ("Bother!", "Thither")
        display = " ".join(words[1:])
    return _Form(text=text, labels=labels, display=display, tokens=display.casefold().split(), language=language)


def _addressed(tokens: list[str]) -> bool:
    """Whether casefolded English tokens are a form of address or pronouns, not a name: honorific nouns with their
    adjectives ("Serene Highness", "Majesty"), a possessive before titles or honorifics ("My Lord", "Your Grace"), or
    pronoun words alone ("Thou")."""
    words = [token.replace(".", "") for token in tokens]
    if not words:
        return False
    if all(word in PRONOUN_WORDS for word in words):
        return True
    if words[0] in _POSSESSIVES and len(words) > 1:
        return all(word in _ADDRESSED_AFTER_POSSESSIVE | _HONORIFIC_ADJECTIVES or is_title(word, "en")
                   for word in words[1:])
    return bool(_HONORIFICS & set(words)) and all(word in _HONORIFICS | _HONORIFIC_ADJECTIVES for word in words)


def _strip_descriptions(display: str, language: str) -> str:
    """Drop the lowercase words before an English name ("poor Jemima", "this Hester Prynne"), bar particles and the
    gendered titles just before the name ("her aunt Shaw" → "aunt Shaw")."""
    if language != "en":
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


def _respell(forms: list[_Form]) -> None:
    """Key a person's name written two ways by its usual spelling ("Monsieur Buonaparte", 27 times, is keyed as
    "Bonaparte", 80): resolution then treats the rare spelling as the name it is (``names.spelling_variants``)."""
    words: Counter[str] = Counter()
    for form in forms:
        if form.family == "PERSON":
            for word in form.name_tokens:
                words[word] += form.count
    variants = spelling_variants(words)
    if not variants:
        return
    for form in forms:
        if form.family == "PERSON" and any(word in variants for word in form.name_tokens):
            form.name_tokens = tuple(variants.get(word, word) for word in form.name_tokens)


def _stem_hungarian(forms: list[_Form], table: AliasTable) -> None:
    """Strip case suffixes from each form's last token where the stem is attested (see ``hu_stem``)."""
    keys = {" ".join(form.tokens) for form in forms} | table.casefolded_keys()
    tokens = {token for key in keys for token in key.split()}
    for form in forms:
        head, last = form.tokens[:-1], form.tokens[-1]

        def attested(stem: str, head: list[str] = head) -> bool:
            return " ".join([*head, stem]) in keys or stem in tokens or is_title(stem, "hu")

        stem = hu_stem(last, attested)
        if stem != last:
            display_tokens = form.display.split()
            display_tokens[-1] = restore_case(display_tokens[-1], stem)
            form.display = " ".join(display_tokens)
            form.tokens = [*head, stem]


def _vote_families(forms: list[_Form], language: str, usage: Mapping[str, tuple[int, int]]) -> None:
    """Give every form the majority label family of all forms sharing its key (NER labels are noisy).

    Two pieces of evidence outweigh the vote, because the small models tag main characters as places or
    organisations by the hundred: a name seen with a person's title ("Lieutenant Telyanin") is a person's name,
    and so is a lone word that opens or closes a recurring full person name ("Natasha" in "Natasha Rostova").
    Against it, in English, a name the book mostly says where a place is, not as a speaker ("in Tilsit", "went to
    Olmutz"; ``names.said_somewhere``) is a place's, whatever most of its labels say: the NER takes foreign place
    names for people. Last, in English, a name said after a vessel's kind ("the schooner Marianne";
    ``names.a_vessel``) is a ship's, whatever its labels and the people of its name ("Marianne Dashwood") — not a
    form with a person's title ("Miss Marianne"), nor a one-word name the corpus never writes after an article
    (``usage``, where it was asked: ``article_usage``): a ship is "the Marianne", while "the boat Jim built" puts a
    vessel's kind before a person.
    """
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    context: dict[str, Counter[str]] = defaultdict(Counter)
    titled: set[str] = set()
    for form in forms:
        key = match_key(" ".join(form.tokens))
        for label, count in form.labels.items():
            votes[key][label_family(label)] += count
        context[key].update(form.context)
        if has_person_title(form.tokens, language):
            titled.add(_name_key(form.tokens, language))
    for form in forms:
        key = match_key(" ".join(form.tokens))
        tally = votes[key]
        form.family = min(tally, key=lambda family: (-tally[family], family))
        if (
            language == "en"
            and form.family == "PERSON"
            and said_somewhere(context[key]["located"], context[key]["spoken"], sum(tally.values()))
        ):
            form.family = "LOC"
        if _name_key(form.tokens, language) in titled:
            form.family = "PERSON"
    places = _places(forms)
    name_words: set[str] = set()
    for form in forms:
        words = split_titles(form.tokens, language)[1]
        if form.family == "PERSON" and len(words) > 1 and form.count >= MIN_ANCHOR_SUPPORT:
            display = form.display.split()[-len(words) :]
            if all(word[:1].isupper() for word in display) and not set(words) & (places | _FUNCTION_WORDS[language]):
                name_words.update((words[0], words[-1]))
    for form in forms:
        if len(form.tokens) == 1 and form.tokens[0] in name_words:
            form.family = "PERSON"
        key = match_key(" ".join(form.tokens))
        seen, articled = usage.get(form.display, (0, 1))  # a word not asked about is not held against
        if (
            language == "en"
            and a_vessel(context[key]["vessel"], sum(votes[key].values()))
            and not has_person_title(form.tokens, language)
            and (articled or not seen)
        ):
            form.family = VESSEL_LABEL


def _places(forms: list[_Form]) -> set[str]:
    """One-word place names seen at least twice: a person's name does not contain them ("Moscow Pierre").

    Seen twice *as a place*, and more often as a place than as a person: one GPE label of "Mikhaylovna" beside one
    PERSON label must not make "Anna Mikhaylovna" a place-glued span.
    """
    # Nor a word that recurs in a person's full name at least half as often as it is a place: many surnames are
    # place names (Hungarian ones by origin: "Cecey" from Cece), and the NER tags the lone surname as a place
    # ("Bornemissza" beside "Bornemissza Gergely"); "Moscow Pierre", twice beside Moscow's hundreds, stays glued.
    in_full_names: Counter[str] = Counter()
    for form in forms:
        if form.family == "PERSON" and len(form.tokens) > 1:
            for token in set(form.tokens):
                in_full_names[token] += form.count
    places = set()
    for form in forms:
        if form.family == "LOC" and len(form.tokens) == 1:
            as_place = sum(n for label, n in form.labels.items() if label_family(label) == "LOC")
            as_person = sum(n for label, n in form.labels.items() if label_family(label) == "PERSON")
            named = in_full_names[form.tokens[0]]
            if named >= MIN_ANCHOR_SUPPORT and 2 * named >= as_place:
                continue
            if as_place >= 2 and as_place > as_person:
                places.add(form.tokens[0])
    return places


def _name_key(tokens: list[str], language: str) -> str:
    return match_key(" ".join(split_titles(tokens, language)[1]))


def _group(forms: list[_Form], table: AliasTable, language: str) -> list[_Group]:
    groups: dict[tuple[str, ...], _Group] = {}
    for form in forms:
        entry = table.lookup(match_key(" ".join(form.tokens))) or table.lookup(" ".join(form.name_tokens))
        if entry is not None:
            key: tuple[str, ...] = ("table", entry.canonical)
            if key not in groups:
                canonical = clean_surface(entry.canonical, language).casefold().split()
                _, names = split_titles(canonical, language)
                family = label_family(entry.label) if entry.label else ""
                groups[key] = _Group(family, tuple(match_key(token) for token in names), entry=entry)
        else:
            # a man's two ranks of nobility may be two men ("Prince Nicholas", "Count Nicholas"): two groups, which
            # ``_attach_partial_names`` joins unless each rank is said again and again (``ranks_apart``)
            ranks = " ".join(sorted(noble_ranks(form.titles))) if form.gender == MALE else ""
            key = ("form", form.family, form.gender, ranks, *form.name_tokens)
            if key not in groups:
                groups[key] = _Group(form.family, form.name_tokens, title_only=form.title_only, gender=form.gender)
        groups[key].forms.append(form)
    for group in groups.values():
        if not group.family:
            tally = Counter[str]()
            for form in group.forms:
                tally[form.family] += form.count
            group.family = min(tally, key=lambda family: (-tally[family], family))
    return [groups[key] for key in sorted(groups)]


def _attach_partial_names(groups: list[_Group], forms: list[_Form], language: str) -> list[int]:
    """Attach partial person names to the one credible entity they can belong to; returns each group's root.

    Longer names are settled first, so "Anna Pavlovna" joins "Anna Pavlovna Scherer" before "Anna" looks for a
    home (and finds two: Anna Pavlovna and Anna Mikhaylovna, so it stays apart). A name attaches to the full names
    it is part of (a first name, a surname, a name without its surname; a nickname of the first name), and to the
    same name with a more specific title ("Andrew" to "Prince Andrew"), never across sexes ("Mademoiselle X" and
    "Monsieur X" stay two). Among several homes, those sharing the name's title win ("Prince Andrew" joins "Prince
    Andrew Bolkonski", not "Andrew Kaysarov"); a first name still fitting several joins the dominant one (``DOMINANCE``
    times the mentions of the next), while a bare surname joins only a single home: the family members sharing it
    are mentioned by surname in proportions no count predicts (the given name is the first word in English, the
    last in Hungarian: "Cecey Éva"). Alias table entries are never moved.
    """
    parent = list(range(len(groups)))
    gathered = [[i] for i in range(len(groups))]  # the groups gathered under each root
    support = [MIN_ANCHOR_SUPPORT if group.entry is not None else group.count for group in groups]
    mass = [group.count for group in groups]  # mentions gathered under each root, for dominance
    # mentions per unit gathered under each root: in which chapters a name is said (``nearest``)
    where = [sum((form.units for form in group.forms), Counter[str]()) for group in groups]
    genders = [{group.gender} - {""} for group in groups]
    titles = [{t for form in group.forms for t in form.titles if t not in WEAK_TITLES} for group in groups]
    # how often each title is used with the name: the title a book mostly gives a name is the one that picks its
    # bearer ("Princess Mary", 484 times, is "Princess Mary Bolkonskaya" though she is "Countess Mary" later too)
    title_mass: list[Counter[str]] = [Counter() for _ in groups]
    for i, group in enumerate(groups):
        for form in group.forms:
            title_mass[i].update({t: form.count for t in form.titles if t not in WEAK_TITLES})
    # the sex the pronouns after a name's own mentions give ("Kutuzov … he"), where no title says it
    said_sex = [
        pronoun_gender(sum(f.pronouns["he"] for f in group.forms), sum(f.pronouns["she"] for f in group.forms))
        for group in groups
    ]

    def root(index: int) -> int:
        while parent[index] != index:
            index = parent[index]
        return index

    places = _places(forms)
    shared_surnames = _shared_surnames(forms) if language == "en" else set()
    people = [
        i
        for i, group in enumerate(groups)
        if group.family == "PERSON" and not group.title_only and _name_like(group, places)
    ]
    owners: dict[str, set[int]] = defaultdict(set)
    for i in people:
        for word in groups[i].name_tokens:
            owners[word].add(i)

    openers = {
        groups[i].name_tokens[0] for i in people if len(groups[i].name_tokens) > 1 and support[i] >= MIN_ANCHOR_SUPPORT
    }

    def credible(other: int, part: tuple[str, ...]) -> bool:
        # Containment in a longer name ("Michael Ilarionovich" in "Michael Ilarionovich Kutuzov") is evidence
        # enough. A lone first name or surname needs a full name that recurs, or whose other words are names
        # seen elsewhere ("Anatole Kuragin", once, but Kuragin is known), not NER noise ("Beside Kutuzov").
        if len(part) > 1 or support[root(other)] >= MIN_ANCHOR_SUPPORT:
            return True
        if titles[other] and part[0] != groups[other].name_tokens[given]:
            # a title says a one-off is a person's name, enough for a surname ("Dr. Mortimer": "Dr. James
            # Mortimer"); a given name fits too many one-offs ("Comte Pierre Besouhoff", once, in a letter)
            return True
        words = groups[other].name_tokens
        # a one-off whose surname is a given name of recurring full names is two names glued ("Natasha Pierre";
        # in Hungarian order "Jancsi, Gergely" read as "Jancsi Gergely")
        if words[-1 - given] in given_names:
            return False
        if all(owners[word] - {other} for word in words if word not in part):
            return True
        # an introduction: the one full name that holds a name, said once, then the name alone again and again
        # ("Carl Linstrum", then "Carl" five times); a name said alone once or twice, or found in several one-off
        # full names ("Pierre" in letters and NER glue), is no such evidence
        fuller = [i for i in owners[part[0]] if len(groups[i].name_tokens) > 1]
        return fuller == [other] and lone_mentions[part[0]] >= INTRODUCED

    given = -1 if language == "hu" else 0  # where the given name stands: "Pierre Bezukhov", "Cecey Éva"
    # Each word's usual role, by the mentions of the recurring full names that have it as given name or surname:
    # "Gergely" is a given name ("Bornemissza Gergely", 22) though NER also glued "Gergely Dobó" (2).
    roles: dict[str, Counter[int]] = defaultdict(Counter)
    for i in people:
        words = groups[i].name_tokens
        if len(words) > 1 and support[i] >= MIN_ANCHOR_SUPPORT:
            roles[words[given]][given] += support[i]
            roles[words[-1 - given]][-1 - given] += support[i]
    given_names = {word for word, tally in roles.items() if tally[given] >= tally[-1 - given]}
    surnames = set(roles) - given_names
    # The sex of given names, from their titled uses in the book: a titled name of several words ("Miss Charlotte
    # Temple"), or a titled lone word that opens recurring full names ("Monsieur Pierre"). An English married
    # woman's title before a given name names her by her husband's ("Mrs. John Dashwood", "Mrs. Joe"): it says
    # nothing of that name's sex, nor do the pronouns after it.
    def husbands_name(index: int) -> bool:
        return language == "en" and groups[index].gender == MARRIED

    given_genders: dict[str, set[str]] = defaultdict(set)
    for i in people:
        words = groups[i].name_tokens
        if groups[i].gender and (len(words) > 1 or words[0] in openers) and not husbands_name(i):
            given_genders[words[given]].add(groups[i].gender)
    # ... and from the pronouns after the name's mentions, summed over the forms that start with it ("Margaret …
    # she", "Margaret Hale … her"): what a reader infers when no title says it.
    said: dict[str, Counter[str]] = defaultdict(Counter)
    for i in people:
        if husbands_name(i):
            continue
        for form in groups[i].forms:
            said[groups[i].name_tokens[given]].update(form.pronouns)
    for word, tally in said.items():
        sex = pronoun_gender(tally["he"], tally["she"])
        if sex:
            given_genders[word].add(sex)
    # ... and where the book says nothing, from the name's bearers in the world ("Edward Casaubon", five mentions
    # with few pronouns after them, is a man, so "Mr. Casaubon" is his; "Henrietta Watkin" is "Miss Watkin"). English
    # given names of recurring full names only: Hungarian ones are settled by the book's own evidence.
    if language == "en":
        for word in given_names:
            if not given_genders.get(word) and (sex := common_given_name_sex(word)):
                given_genders[word].add(sex)

    # Hungarian given names are shared by more of a book's people ("István": Dobó, Mekcsey, Zoltay …), so a lone
    # one joins a dominant full name only when the others are one-offs of families the book hardly names.
    lone_mentions: Counter[str] = Counter()
    for i in people:
        if len(groups[i].name_tokens) == 1:
            lone_mentions[groups[i].name_tokens[0]] += groups[i].count

    def surname_of(home: int) -> str:
        words = groups[home].name_tokens
        return words[-1 - given] if len(words) > 1 else ""

    def established(home: int, beside: int) -> bool:
        """Whether ``home`` is a person of another family than ``beside`` whom the book names more than once."""
        surname = surname_of(home)
        # "Bornemissza Gergő" beside "Bornemissza Gergely", or beside a lone "Gergely": maybe the same person
        if not surname_of(beside) or surname == surname_of(beside):
            return False
        return support[home] >= MIN_ANCHOR_SUPPORT or lone_mentions[surname] >= MIN_ANCHOR_SUPPORT

    def fits(index: int, other: int) -> str:
        """How ``other`` can hold ``index``: "given" (the name, its given name, a nickname), "family", "maybe" (a
        full name that fits but whose sex is unknown) or "" (it cannot)."""
        part, full, group = groups[index].name_tokens, groups[other].name_tokens, groups[index]
        if other == index or not genders_compatible(group.gender, groups[other].gender):
            return ""
        if ranks_apart(index, other):
            return ""  # "Emperor Alexander" is not "Prince Alexander Golitsyn"
        if part == full:  # "Captain Eldridge" is not "Miss Eldridge": a title must not contradict the home's
            more_specific = specificity(groups[other].gender) > specificity(group.gender)
            fitting = _rank_fits(titles[index], groups[other].gender, titles[root(other)])
            return "given" if more_specific and fitting else ""
        if len(full) > max(len(part), 1) and _is_partial(part, full, shared_surnames) and credible(other, part):
            if part[given] == full[given]:
                if len(part) == 1 and language == "en" and titles[index] and titles[index] <= RANKS_BEFORE_SURNAME:
                    return ""  # "Colonel Fitzwilliam" names a surname, not Fitzwilliam Darcy's given name
                return "given"
            # "Mr. Temple" is not "Charlotte Temple": a titled surname joins a full name only if that one is
            # known to be of the same sex (by a title of its own, of a name attached to it, or of its given name
            # elsewhere in the book: "Monsieur Pierre" makes "Pierre Bezukhov" a man).
            # Of unknown sex it still makes the surname ambiguous ("maybe"): it just cannot receive it.
            known = genders[root(other)] | given_genders.get(full[given], set())
            if not group.gender:
                return "family"
            if not known:
                return "maybe"
            return "family" if _compatible_sets({group.gender}, known) else ""
        # A nickname names the bearer of the full given name ("Tommy": Thomas Beresford). A lone name and a lone
        # variant are one person only when one of them is rare beside the other ("Josephine", twice, beside "Jo");
        # two names both in common use are two people ("Mary" and "Aunt Polly").
        if len(part) == 1 and given_name_variant(part[0], full[given], language) and credible(other, part):
            if len(full) > 1 or DOMINANCE * min(mass[index], mass[root(other)]) <= max(mass[index], mass[root(other)]):
                return "given"
        return ""

    def union(index: int, home: int) -> None:
        parent[index] = home
        gathered[home].extend(gathered[index])
        mass[home] += mass[index]
        where[home] += where[index]
        genders[home] |= genders[index]
        titles[home] |= titles[index]
        title_mass[home] += title_mass[index]

    last_words = {match_key(form.tokens[-1]) for form in forms if form.tokens}

    def nearest(index: int, homes: list[int]) -> int | None:
        """The home in whose chapters the lone name ``index`` is said ``DOMINANCE`` times as often as in any other
        home's (and at least ``NEAR`` times), else None: where the text keeps a name, there is its bearer."""
        said_near = sorted(((sum(where[index][unit] for unit in where[home]), home) for home in homes), reverse=True)
        best, runner_up = said_near[0][0], said_near[1][0]
        return said_near[0][1] if best >= NEAR and best >= DOMINANCE * runner_up else None

    def elsewhere(index: int, home: int) -> bool:
        """Whether the lone name ``index`` belongs to another person than its only home: the home is a full name the
        book repeats, yet never in a chapter where the name, ``DOMINANCE`` times as frequent, is said ("Princess
        Drubetskaya", 6 mentions in Book One, is not "Julie Drubetskaya", twice, married at the end; "Emperor Paul"
        is not "Paul Ivanovich Kutuzov"). A full name said once may introduce the name anywhere; without units (a
        list of names, not a book) nothing is known of chapters."""
        if not where[index] or not where[home] or support[home] < MIN_ANCHOR_SUPPORT:
            return False
        return mass[index] >= DOMINANCE * mass[home] and not where[index].keys() & where[home].keys()

    def usual_titles(index: int) -> set[str]:
        """The titles carried by ``RANK_SHARE`` or more of a group's mentions ("Emperor Alexander", 34 of 130): a
        rank held once ("General Bonaparte" among 79 "Bonaparte") says nothing against a later one ("Emperor
        Napoleon")."""
        home = root(index)
        return {title for title, n in title_mass[home].items() if n >= RANK_SHARE * mass[home]}

    def held_ranks(index: int) -> set[str]:
        """The men's ranks of nobility (``names.noble_ranks``) said ``INTRODUCED`` times or more with a group's name:
        a rank said once or twice ("Count Kutuzov", once, before he is made a prince) says nothing of another."""
        return noble_ranks(title for title, n in title_mass[root(index)].items() if n >= INTRODUCED)

    def ranks_apart(a: int, b: int) -> bool:
        """Whether two groups' titles cannot be one person's: a sovereign's and a lesser rank's, a Miss's and a titled
        woman's (``names.rank_conflict``), two men's ranks of nobility ("Prince Nicholas", "Count Nicholas")."""
        if rank_conflict(usual_titles(a), usual_titles(b)):
            return True
        ranks_a, ranks_b = held_ranks(a), held_ranks(b)
        return bool(ranks_a and ranks_b and ranks_a.isdisjoint(ranks_b))

    def sexes(index: int) -> set[str]:
        """What is known of a group's sex: its titles'; for a full name its given name's in the book (titles and
        pronouns, ``given_genders``) and its surname's form where the book has both ("Rostova" beside "Rostov");
        for a lone word the pronouns after its own mentions (a full name's few mentions say too little)."""
        words = groups[index].name_tokens
        if len(words) == 1:
            return genders[root(index)] | ({said_sex[index]} - {""})
        by_form = _surname_sex(words[-1 - given], last_words) if language == "en" else ""  # transliterated Russian
        return genders[root(index)] | given_genders.get(words[given], set()) | ({by_form} - {""})

    def named_apart(index: int, home: int) -> bool:
        """Whether the book gives ``home``, again and again, the form of address the surname ``index`` carries with a
        given name: "Mr. John Knightley" beside "Mr. Knightley" (his elder brother), "Miss Elizabeth Bennet" beside
        "Miss Bennet" (Jane, the eldest), "Mrs. John Dashwood" beside "Mrs. Dashwood" (her mother-in-law). The title
        before a surname alone names the head of the family or its eldest daughter; the others get their given names
        too, so a full name said ``INTRODUCED`` times or more with a title of that sex is not the titled surname's
        bearer when the surname has other bearers. English."""
        if language != "en":
            return False
        sex = {title_gender(title) for title in titles[index] & SURNAME_TITLES} - {""}
        if len(sex) != 1:
            return False
        said = sum(
            form.count
            for member in gathered[home]
            if len(groups[member].name_tokens) > 1
            for form in groups[member].forms
            if {title_gender(title) for title in SURNAME_TITLES.intersection(form.titles)} == sex
        )
        return said >= INTRODUCED

    def surname_of_the_other_sex(index: int, home: int) -> bool:
        """Whether ``index``, a surname said alone, is by its pronouns of the other sex than ``home``'s titles:
        "Peggotty … she" (David Copperfield's nurse) is not "Mr. Peggotty", her brother. A given name said alone is
        called out to as often as it is spoken of ("Mary!" he said), so its pronouns are not read so."""
        words = groups[index].name_tokens
        return len(words) == 1 and words[0] in surnames and not _compatible_sets(sexes(index), {groups[home].gender})

    def his_wifes_name(index: int, home: int) -> bool:
        """Whether ``home`` names a married woman by the name ``index`` — a man, by the book's pronouns or his given
        name's titles — bears: "Mrs. Joe" is Joe's wife, "Mrs. John Dashwood" John Dashwood's, "Madame St. Aubert"
        the wife of St. Aubert (he). English: a married woman takes her husband's surname, and in the novels of the
        period his given name too."""
        return husbands_name(home) and not husbands_name(index) and MALE in sexes(index)

    def one_person(homes: list[int]) -> bool:
        """Whether full names that share a given name can all be one person's: one surname at most, one patronymic
        at most ("Vasili Kuragin", "Vasili Sergeevich"), their sexes and ranks not in conflict. Two surnames, or two
        patronymics, are two people ("Nicholas Rostov", "Nicholas Andreevich Bolkonski")."""
        given_names, patronymics, surnames = set(), set(), set()
        for home in homes:
            for member in gathered[home]:
                words = groups[member].name_tokens
                if len(words) < 2:
                    continue
                given_names.add(words[0])
                patronymics.update(word for word in words[1:] if is_patronymic(word))
                if not is_patronymic(words[-1]):
                    surnames.add(words[-1])
        if len(given_names) != 1 or len(patronymics) > 1 or len(surnames) > 1 or not patronymics:
            return False
        return all(
            _compatible_sets(sexes(a), sexes(b)) and not ranks_apart(a, b)
            for a in homes
            for b in homes
            if a < b
        )

    # One name under titles of one sex is one person ("Princess Mary", "Countess Mary", "Mary"): join them before
    # any full name is looked for, so that the bare name weighs with its titled forms.
    same_name: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in people:
        if groups[i].entry is None:
            same_name[groups[i].name_tokens].append(i)
    for members in same_name.values():
        specific = [i for i in members if groups[i].gender]
        if len(members) < 2 or not specific:
            continue
        if not all(genders_compatible(groups[a].gender, groups[b].gender) for a in specific for b in specific):
            continue  # namesakes ("Monsieur X", "Mademoiselle X"): settled one by one below
        if any(ranks_apart(a, b) for a in specific for b in specific):
            continue  # "Emperor Alexander" and "Prince Alexander", "Prince Nicholas" and "Count Nicholas": below too
        home = max(specific, key=lambda i: (specificity(groups[i].gender), groups[i].count, -i))
        for i in members:
            if (
                i != home
                and _rank_fits(titles[i], groups[home].gender, titles[home])
                and not his_wifes_name(i, home)
                and not surname_of_the_other_sex(i, home)
            ):
                union(i, home)
                # one name, so its untitled mentions say it recurs: a full name said 20 times and once with a
                # title ("Bornemissza Gergely úrnál", the home) is no one-off that a lone given name may not join
                support[home] += support[i]

    # Two full names of one family whose given names are forms of one name are one person ("Natalie Rostova" beside
    # "Natasha Rostova", "Vasili Dmitrich Denisov" beside "Vaska Denisov"): a known nickname pair, or a shared start
    # of three letters when both are known to be of one sex ("Henry" and "Henrietta" are not). The rarer joins.
    families: dict[str, list[int]] = defaultdict(list)
    for i in people:
        words = groups[i].name_tokens
        if len(words) > 1 and groups[i].entry is None and parent[i] == i:
            families[words[-1 - given]].append(i)
    for members in families.values():
        members.sort(key=lambda i: (-mass[i], i))
        for position, rarer in enumerate(members):
            for home in members[:position]:
                if (
                    parent[rarer] != rarer
                    or root(home) == rarer
                    or not _given_name_forms(
                        groups[rarer].name_tokens, groups[home].name_tokens, given, language, sexes(rarer), sexes(home)
                    )
                ):
                    continue
                union(rarer, root(home))
                break

    # Where ``fits`` can say yes: a full name sharing a word with the name (the name itself, its given name or
    # surname), or whose given name is a variant of a one-word name (its nickname table partners; in Hungarian a
    # pet form keeps the name's first two letters). Looking these up, rather than trying every person of the book,
    # keeps resolution near linear: 9,253 forms of 8× War and Peace took minutes the other way.
    by_given: dict[str, set[int]] = defaultdict(set)
    by_prefix: dict[str, set[int]] = defaultdict(set)
    for i in people:
        if groups[i].name_tokens:
            by_given[groups[i].name_tokens[given]].add(i)
            by_prefix[groups[i].name_tokens[given][:2]].add(i)

    def candidates(tokens: tuple[str, ...]) -> set[int]:
        found = set().union(*(owners.get(word, set()) for word in tokens))
        if len(tokens) == 1:
            for partner in nickname_partners(tokens[0]):
                found |= by_given.get(partner, set())
            if language == "hu":
                found |= by_prefix.get(tokens[0][:2], set())
        return found

    # Longest first; then the most specific title; then the rarest, so that the many small partial names
    # ("Bonaparte") have gathered under their full names before a frequent first name ("Napoleon") weighs them.
    order = sorted(
        people, key=lambda i: (-len(groups[i].name_tokens), -specificity(groups[i].gender), groups[i].count, i)
    )
    for index in order:
        tokens = groups[index].name_tokens
        if groups[index].entry is not None or not tokens or parent[index] != index:
            continue
        kinds = {other: fits(index, other) for other in sorted(candidates(tokens))}
        matches = [other for other, kind in kinds.items() if kind]
        if len(tokens) == 1:
            position = -1 - given if tokens[0] in surnames else given
            matches = _in_usual_role(tokens[0], matches, groups, lambda i: support[root(i)], position)
        # what is known of the name's sex: its titles'; for a surname said alone, what its pronouns say, against
        # all that is known of each candidate's ("Bingley … he" is not "Miss Bingley"; "Peggotty … she" is Clara
        # Peggotty, not Ham). A given name said alone is called out to as often as it is spoken of ("Mary!" he
        # said), so its pronouns are left to the rules that weigh them.
        surname_alone = len(tokens) == 1 and tokens[0] in surnames
        own = sexes(index) if surname_alone else genders[index]
        homes = sorted(
            {root(other) for other in matches}
            - {index}
            - {home for home in {root(other) for other in matches}
               if not _compatible_sets(own, sexes(home) if surname_alone else genders[home])
               or his_wifes_name(index, home)}
        )
        if len(homes) > 1 and len(tokens) == 1 and not any(kinds[other] == "given" for other in matches):
            homes = [home for home in homes if not named_apart(index, home)]
        if len(homes) > 1 and title_mass[index]:
            # The homes bearing the name's titles ("Prince Andrew" → "Prince Andrew Bolkonski"), else the title the
            # book mostly gives it ("Princess Mary", 484 times, beside "Countess Mary" → "Princess Mary
            # Bolkonskaya") — but only for a name that mostly goes by a title: "Prince Nicholas", 10 of 580
            # "Nicholas", does not make every Nicholas the prince.
            usual = max(title_mass[index], key=lambda title: (title_mass[index][title], title))
            if 2 * title_mass[index][usual] >= mass[index]:
                titled = [home for home in homes if titles[index] <= titles[home]]
                homes = titled or [home for home in homes if usual in titles[home]] or homes
        given_only = all(kinds[other] == "given" for other in matches if root(other) in homes)
        ranked = sorted(homes, key=lambda home: -mass[home])
        if len(homes) > 1 and given_only and language != "hu" and one_person(homes):
            # "Prince Vasili" fits "Prince Vasili Kuragin" and "Prince Vasili Sergeevich": one man's name with his
            # surname and with his patronymic, not two rivals for it
            for other in ranked[1:]:
                union(other, ranked[0])
            homes = ranked[:1]
        elif len(homes) > 1 and given_only:
            if mass[ranked[0]] >= DOMINANCE * mass[ranked[1]] and not (
                language == "hu" and any(established(home, ranked[0]) for home in ranked[1:])
            ):
                homes = ranked[:1]
            elif len(tokens) == 1 and language != "hu" and (near := nearest(index, homes)) is not None:
                # of like mass, the one the name is said beside; Hungarian given names are shared by too many
                # of a book's families for that ("István": Dobó, Mekcsey, Zoltay … in the same chapters)
                homes = [near]
        elif len(homes) > 1 and len(tokens) == 1:
            # Among one-off full names a bare surname fits, the one whose given name the book's recurring full names
            # use is a name; the others were glued by the NER ("Mekcsey Cece", "Nono Mekcsey" beside "Mekcsey
            # István", each once)
            named = [home for home in homes if groups[home].name_tokens[given] in given_names]
            if len(named) == 1 and all(support[home] < MIN_ANCHOR_SUPPORT for home in homes if home != named[0]):
                homes = named
        if len(homes) > 1 and len(tokens) == 1 and not given_only:
            # A bare surname of a known sex ("Kutuzov … he") joins the one full name of that sex that dominates the
            # others; of unknown sex ("Bennet": the father and his daughters) it stays apart, and a surname seen in
            # the plural ("the Rostovs") never gets here (``_is_partial``).
            sex = sexes(index)
            top = sexes(ranked[0])
            if sex and top and _compatible_sets(sex, top) and mass[ranked[0]] >= DOMINANCE * mass[ranked[1]]:
                homes = ranked[:1]
            elif sex and language != "hu" and (near := nearest(index, homes)) is not None:
                # none dominates by mentions: the one of that sex whose chapters the surname is said in
                # ("Kutuzov … he", said in Michael Ilarionovich Kutuzov's chapters)
                if sexes(near) and _compatible_sets(sex, sexes(near)):
                    homes = [near]
        if len(homes) == 1 and len(tokens) == 1 and elsewhere(index, homes[0]):
            homes = []
        if len(homes) == 1 and any(kinds[other] != "maybe" for other in matches if root(other) == homes[0]):
            home = homes[0]
            union(index, home)
            if len(tokens) > 1:  # a lone word lends no support: "Kiev" must not make "Kiev Pierre" a full name
                support[home] += support[index]
        elif homes:
            names = [" ".join(groups[home].name_tokens) for home in homes]
            logger.debug("name %r fits %d entities %s; kept apart", " ".join(tokens), len(homes), names)

    def named_without_surname(home: int) -> bool:
        """Whether the book names a person by given name and patronymic, never with a surname ("Anna Mikhaylovna",
        "Princess Anna Mikhaylovna")."""
        full = [groups[member].name_tokens for member in gathered[home] if len(groups[member].name_tokens) > 1]
        return bool(full) and all(is_patronymic(words[-1]) for words in full)

    def titled_surname_of_the_unnamed(index: int) -> int | None:
        """The person a titled surname such as "Princess Drubetskaya" names when its bearers by full name are all said
        elsewhere ("Julie Drubetskaya", twice, at the end; ``elsewhere``): the one person of that title and sex whom
        the book names by given name and patronymic only, and in whose chapters most of the surname's mentions stand
        — ``NEAR`` times at least and ``DOMINANCE`` times as often as in any other such person's. A Russian novel
        names a woman "Anna Mikhaylovna", and her surname goes with her title alone."""
        words = groups[index].name_tokens
        if len(words) != 1 or not groups[index].gender or words[0] not in surnames:
            return None
        if not all(elsewhere(index, root(other)) for other in owners[words[0]] if len(groups[other].name_tokens) > 1):
            return None
        unnamed = [
            home
            for home in people
            if parent[home] == home
            and home != index
            and titles[index] <= titles[home]
            and named_without_surname(home)
            and _compatible_sets(sexes(index), sexes(home))
        ]
        said_near = sorted(((sum(where[index][unit] for unit in where[home]), home) for home in unnamed), reverse=True)
        best, home = said_near[0] if said_near else (0, -1)
        runner_up = said_near[1][0] if len(said_near) > 1 else 0
        return home if best >= NEAR and best >= DOMINANCE * runner_up and 2 * best > mass[index] else None

    if language != "hu":  # Hungarian pet names have their rule (``names.hungarian_pet_name``), in ``fits``
        for index in people:
            if parent[index] == index and groups[index].entry is None:
                bearer = titled_surname_of_the_unnamed(index)
                if bearer is not None:
                    union(index, bearer)
        _other_forms_of_given_names(groups, people, given, given_names, surnames, candidates, parent, root, union,
                                    mass, where, sexes)
    return [root(i) for i in range(len(groups))]


def _other_forms_of_given_names(
    groups: list[_Group],
    people: list[int],
    given: int,
    given_names: set[str],
    surnames: set[str],
    candidates: Callable[[tuple[str, ...]], set[int]],
    parent: list[int],
    root: Callable[[int], int],
    union: Callable[[int, int], None],
    mass: list[int],
    where: list[Counter[str]],
    sexes: Callable[[int], set[str]],
) -> None:
    """Join a one-word name that no other name holds to the person whose given name it is another form of: "Andre"
    (the French form) and "Andrusha" (a Russian pet form) to Prince Andrew, "Platoche" to Platon Karataev.

    Pet and foreign forms keep the start of the name and change its end, and no nickname list has a novel's many
    languages; so the name must share its first ``FORM_STEM`` letters with the given name of recurring full names,
    and the word-likeness is checked against the book itself: the name is said twice or more, is no given name or
    surname of the book's recurring full names ("Guardsman" beside "Horse Guards" is no name) nor a given name with a
    suffix (a surname or patronymic made of it: "Johnson", "Borisov", "Vasilich"), the bearers of that given name
    are of one person by ``DOMINANCE`` times the mentions, the name is rarer than that person by as much (a pet form
    is the exception, not the rule), of no other sex, and most of its mentions stand in the chapters where that
    person is named — where a name's other form is used, its bearer is. Without chapters (a list of names, not a
    book) nothing joins.
    """
    by_stem: dict[str, set[int]] = defaultdict(set)
    for i in people:
        word = groups[i].name_tokens[given]
        if word in given_names and len(word) >= FORM_STEM:
            by_stem[word[:FORM_STEM]].add(i)
    for index in people:
        tokens = groups[index].name_tokens
        if (
            len(tokens) != 1
            or parent[index] != index
            or groups[index].entry is not None
            or mass[index] < MIN_ANCHOR_SUPPORT
            or tokens[0] in given_names | surnames
            or candidates(tokens) - {index}
        ):
            continue
        bearers = by_stem.get(tokens[0][:FORM_STEM], set())
        if any(tokens[0].startswith(groups[i].name_tokens[given]) for i in bearers):
            continue  # the whole name and a suffix: a surname or patronymic made of it ("Johnson", "Borisov")
        homes = sorted({root(i) for i in bearers} - {index}, key=lambda h: (-mass[h], h))
        if not homes or (len(homes) > 1 and mass[homes[0]] < DOMINANCE * mass[homes[1]]):
            continue
        home = homes[0]
        inside = sum(where[index][unit] for unit in where[home])
        if (
            DOMINANCE * mass[index] <= mass[home]
            and 2 * inside > mass[index]
            and _compatible_sets(sexes(index), sexes(home))
        ):
            union(index, home)


def _given_name_forms(
    a: tuple[str, ...], b: tuple[str, ...], given: int, language: str, sex_a: set[str], sex_b: set[str]
) -> bool:
    """Whether two full names of one surname differ only in the form of the given name ("Natalie Rostova",
    "Natasha Rostova"; "Vaska Denisov", "Vasili Dmitrich Denisov"): the other words of one are among the other's,
    the given names are a known nickname pair (any sex known or not, but not contradictory), or they share their
    first three letters and both names are known to be of one sex."""
    first, second = a[given], b[given]
    if first == second or not _compatible_sets(sex_a, sex_b):
        return False
    rest_a, rest_b = set(a) - {first}, set(b) - {second}
    if not (rest_a <= rest_b or rest_b <= rest_a):
        return False
    if given_name_variant(first, second, language):
        return True
    shared = len(os.path.commonprefix([first, second]))
    return shared >= 3 and bool(sex_a) and bool(sex_b)


def _surname_sex(surname: str, last_words: set[str]) -> str:
    """The sex a Russian surname's form gives when the book also has the other form ("rostova" is a woman's beside
    "rostov", "rostov" a man's beside "rostova"); "" otherwise."""
    for masculine, feminine in SURNAME_ENDINGS:
        if surname.endswith(feminine) and surname[: -len(feminine)] + masculine in last_words:
            return FEMALE
        if surname.endswith(masculine) and surname[: -len(masculine)] + feminine in last_words:
            return MALE
    return ""


def _rank_fits(ranks: set[str], gender: str, home_titles: set[str]) -> bool:
    """Whether a name with these sexless titles may be the same person as one with ``gender``: a rank a woman
    rarely held in the novels of the period ("Captain Eldridge", "General Shaw") is not "Miss Eldridge" or "Mrs.
    Shaw", unless she is given it too; beside a man's title it is no objection ("General Kutuzov", "Prince
    Kutuzov")."""
    return gender == MALE or ranks <= home_titles


def _compatible_sets(a: set[str], b: set[str]) -> bool:
    return all(genders_compatible(x, y) for x in a for y in b)


def _in_usual_role(
    word: str, matches: list[int], groups: list[_Group], weight: Callable[[int], int], position: int
) -> list[int]:
    """Prefer the full names that have ``word`` at ``position`` (its usual role), when a recurring one does.

    NER glues names together ("Kiev Pierre", "Natasha Pierre"; "Gergely Dobó" from "Gergely, Dobó"), so a word
    that is usually a given name ("Pierre" in "Pierre Bezukhov"; "Gergely" in "Bornemissza Gergely", Hungarian
    order) or usually a surname ("Dobó" in "Dobó István") is read in that role, and the spans that put it elsewhere
    are not taken as evidence of ambiguity.
    """
    usual = [i for i in matches if groups[i].name_tokens[position] == word]
    if any(weight(i) >= MIN_ANCHOR_SUPPORT for i in usual):
        return usual
    return matches


def _name_like(group: _Group, places: set[str]) -> bool:
    """Whether some form of the group is written like a person's name (see ``_written_like_name``)."""
    return group.entry is not None or any(_written_like_name(form, places) for form in group.forms)


def _written_like_name(form: _Form, places: set[str]) -> bool:
    """Every word capitalised (bar particles, "von Toll"), none a function word, title or known place.

    NER spans such as "Bagration to Rostov", "Beside Kutuzov", "Alexander Prince Vasili" or "Moscow Pierre"
    glue a name to something else; they must neither capture a partial name nor be attached to one.
    """
    words = _name_display(form).split()
    if len(words) > 1 and not _properly_cased(" ".join(words)):
        return False  # "CHAPTER XI Anatole Kuragin": a heading glued to a name
    folded = [word.casefold() for word in words]
    if not all(word[:1].isupper() or low in _NAME_PARTICLES for word, low in zip(words, folded, strict=True)):
        return False
    if any(low in _FUNCTION_WORDS[form.language] for low in folded):
        return False
    if len(words) > 1 and any(match_key(low) in places for low in folded):
        return False
    return not any(is_title(low, form.language) for low in folded[1:])


def _is_partial(part: tuple[str, ...], full: tuple[str, ...], shared_surnames: set[str]) -> bool:
    """Whether ``part`` can be a shorter way of writing ``full`` (shares its first or last name, in order)."""
    if len(part) == 1:
        return full[0] == part[0] or (full[-1] == part[0] and part[0] not in shared_surnames)
    if part[0] != full[0] and part[-1] != full[-1]:
        return False
    remaining = iter(full)
    return all(token in remaining for token in part)


def _shared_surnames(forms: list[_Form]) -> set[str]:
    """Surnames whose plural was seen ("the Rostovs"): a family, several people a bare surname may mean.

    The other-gender form ("Countess Rostova") is not such evidence: it is another word, and the women of the
    family do not make a bare masculine surname ambiguous among the men.
    """
    last_words = {match_key(form.tokens[-1]) for form in forms}
    return {word for word in last_words if (surname_variants(word) & last_words) & {word + "s"}}


def _build(
    groups: list[_Group], roots: list[int], families: set[str], scope: str = ""
) -> tuple[list[ResolvedEntity], dict[tuple[str, str], str]]:
    members: dict[int, list[_Group]] = defaultdict(list)
    for index, root in enumerate(roots):
        members[root].append(groups[index])
    entities: dict[str, ResolvedEntity] = {}
    mapping: dict[tuple[str, str], str] = {}
    plain = {root: _plain_name(groups[root], merged) for root, merged in members.items()}
    # Namesakes apart by their titles alone ("Mr Pontifex", "Mrs Pontifex") would get one name, so one id: a
    # gendered entity whose plain name another entity of its family shares is named with its title.
    sharing = Counter((groups[root].family, match_key(name)) for root, name in plain.items())
    for root, merged in members.items():
        forms = [form for group in merged for form in group.forms]
        anchor = groups[root]
        canonical = plain[root]
        if anchor.entry is None and sharing[(anchor.family, match_key(canonical))] > 1:
            canonical = _titled_name(forms) or canonical
        labels = Counter[str]()
        for form in forms:
            labels.update({label: n for label, n in form.labels.items() if label_family(label) == anchor.family})
        label = anchor.entry.label if anchor.entry is not None and anchor.entry.label else None
        label = label or (min(labels, key=lambda lab: (-labels[lab], lab)) if labels else anchor.family)
        if anchor.entry is None and anchor.family == "PERSON" and match_key(canonical) in families:
            label = FAMILY_LABEL
        elif (
            anchor.entry is None
            and anchor.family == "PERSON"
            and forms[0].language == "en"
            and not any(SURNAME_TITLES.intersection(form.titles) for form in forms)  # "Madame X" is someone
            and invoked(sum(form.context["sworn"] for form in forms), sum(form.count for form in forms))
        ):
            label = DEITY_LABEL
        entity_id = entity_id_for(anchor.family, canonical, scope)
        aliases = {form.text for form in forms}
        if entity_id in entities:  # two groups chose the same canonical name: they are one entity
            aliases |= set(entities[entity_id].aliases)
        entities[entity_id] = ResolvedEntity(entity_id, canonical, label, tuple(sorted(aliases)))
        for form in forms:
            for form_label in form.labels:
                mapping[(form.text, form_label)] = entity_id
    return [entities[key] for key in sorted(entities)], mapping


def _family_names(forms: list[_Form]) -> set[str]:
    """One-word person names that are a surname in the plural: "Rostovs", "Bennets", "Joneses"; Hungarian "Ceceyék".

    The surname is the last word (Hungarian: the first) of the full person names the book writes, or a name written
    with a title ("Mr. Bennet"), more often than it is their given name: "the two Marys", or "Williams" beside
    "William Dobbin", is a given name, not a family.
    """
    hungarian = any(form.language == "hu" for form in forms)
    last, first = (0, -1) if hungarian else (-1, 0)  # Hungarian writes the surname first: "Cecey Péter"
    as_surname: Counter[str] = Counter()
    as_given: Counter[str] = Counter()
    for form in forms:
        tokens = form.name_tokens
        if form.family != "PERSON" or form.title_only or not tokens or tokens[0] in _POSSESSIVES:
            continue  # "Your Highness" is no name
        if len(tokens) > 1:
            as_surname[tokens[last]] += form.count
            as_given[tokens[first]] += form.count
        elif SURNAME_TITLES.intersection(form.titles):
            as_surname[tokens[0]] += form.count
    # by mentions, so that one glued "Rostov to Ilyin" does not make Rostov a given name
    surnames = {word for word, n in as_surname.items() if n > as_given[word]}
    # and the other-gender form of a Russian surname: "the Karagins" beside "Julie Karagina"
    stems = surnames if hungarian else surnames | {v for word in surnames for v in surname_variants(word)}
    endings = ("ek",) if hungarian else ("s", "es")  # "ék", accent-folded like every name token
    plurals = {stem + ending for stem in stems for ending in endings}
    # said twice at least: a one-off "Highnesses" beside "Serene Highness" is not worth a family
    one_word = Counter[str]()
    for form in forms:
        if form.family == "PERSON" and len(form.name_tokens) == 1:
            one_word[form.name_tokens[0]] += form.count
    return {word for word, n in one_word.items() if n >= MIN_ANCHOR_SUPPORT and word in plurals} - surnames


def _plain_name(anchor: _Group, merged: list[_Group]) -> str:
    """The alias table's canonical name, else the most informative name of the merged forms."""
    if anchor.entry is not None:
        return anchor.entry.canonical
    return _canonical_name([form for group in merged for form in group.forms])


def _titled_name(forms: list[_Form]) -> str | None:
    """The most frequent properly cased form with a gendered title ("Monsieur St. Aubert"), if there is one."""
    titled = [form for form in forms if form.gender and _properly_cased(form.display)]
    if not titled:
        return None
    return max(titled, key=lambda form: (len(form.name_tokens), form.count, form.display)).display


def _canonical_name(forms: list[_Form]) -> str:
    """Most informative properly cased name: written like a name, then most name tokens, most mentions, lexical.

    An all-caps form ("PIERRE", from a heading or a shouted line) never names an entity that has another form;
    an entity seen only in capitals gets its name in title case.
    """
    counts: Counter[str] = Counter()
    lengths: dict[str, int] = {}
    for form in forms:
        name = _name_display(form)
        counts[name] += form.count
        lengths[name] = len(form.name_tokens)
    proper = [name for name in counts if _properly_cased(name)]
    # a one-off that is a recurring full name with a word in front was glued by the NER ("Jelentkezzél Bornemissza
    # Gergely", *report, B. G.*): it is not the most informative name ("Roderick Vance" beside "Vance" is)
    glued = {
        name
        for name in proper
        if counts[name] == 1 and name.count(" ") >= 2 and counts[name.split(" ", 1)[1]] >= MIN_ANCHOR_SUPPORT
    }
    proper = [name for name in proper if name not in glued or len(glued) == len(proper)]
    # a pronoun is no part of a name ("God Himself", once, beside "God" 210 times): such a form names the entity
    # only when every form has one
    pronouned = {name for name in proper if any(word.casefold() in PRONOUN_WORDS for word in name.split())}
    proper = [name for name in proper if name not in pronouned or len(pronouned) == len(proper)]
    if not proper:
        return min(counts, key=lambda name: (-lengths[name], -counts[name], name)).title()
    return min(proper, key=lambda name: (-lengths[name], -counts[name], name))


def _properly_cased(name: str) -> bool:
    """No word in capitals throughout (bar initials and Roman numerals of one letter), and some capital."""
    words = name.split()
    return any(word[:1].isupper() for word in words) and not any(
        sum(ch.isalpha() for ch in word) > 1 and word.isupper() for word in words
    )


def _name_display(form: _Form) -> str:
    if form.title_only or len(form.name_tokens) == len(form.tokens):
        return form.display
    display_tokens = form.display.split()
    folded = [match_key(token) for token in form.tokens]
    for start in range(len(folded) - len(form.name_tokens) + 1):
        if tuple(folded[start : start + len(form.name_tokens)]) == form.name_tokens:
            return " ".join(display_tokens[start : start + len(form.name_tokens)])
    return form.display

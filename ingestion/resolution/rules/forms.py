"""The rules on single forms, before any are joined: which forms are names at all, how a name is keyed, and which
kind of thing (person, place, organisation, vessel) it names. Each reads the forms' own evidence — their words, the
NER's labels over every form of one key, the contexts counted around their mentions — and changes the forms in place
or drops them."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping

from ingestion.alias_table import AliasTable
from ingestion.names import (
    PLACE_HEADS,
    VESSEL_LABEL,
    a_vessel,
    common_given_name_sex,
    said_somewhere,
    spelling_variants,
)
from ingestion.normalize import has_person_title, hu_stem, is_title, match_key, restore_case, split_titles
from ingestion.resolution.forms import (
    ARTICLED_MIN,
    DOMINANCE,
    MIN_ANCHOR_SUPPORT,
    Form,
    addressed,
    label_family,
)
from ingestion.resolution.language import Language

logger = logging.getLogger(__name__)


def not_a_name(forms: list[Form], language: Language) -> list[Form]:
    """Keeps out forms that are no one's name: a word without a capital in a language that capitalises names ("one",
    "mon cher", the game of "boston"), a form of address or pronouns ("Serene Highness", "My Lord", "Thou").

    Evidence: the form's own words. Hungarian writes peoples in lowercase ("a törökök"): there the NER's word stands.
    """
    if not language.capitalised_names:
        return forms
    return [form for form in forms if not (form.text.islower() or addressed(form.tokens))]


# Words for a parent as children say them ("Papa", "Ma"), and the two that are also titles ("Father Brown", "Mother
# Hubbard") when said alone.
PARENT_WORDS = frozenset("papa pa pappa mamma mama ma mum mummy mammy mommy daddy dad maman".split())
PARENT_TITLES = frozenset({"mother", "father"})


def parents_by_role(forms: list[Form], language: Language) -> list[Form]:
    """Keeps out a word for a parent said as a name: "Papa", "Mamma", "Ma", "Mum", "Chere Mamma", "Mother" alone.
    Every child of a book has one, so it names no one in particular (which parent is meant is the pronouns' and
    the quotations' question, not the names'); a name after it ("Ma Joad", "Mother Hubbard") or a pet form of the
    book's own ("Marmee") stays a name.

    Evidence: the form's words: a parent word (``PARENT_WORDS``) last, after one word at most ("Dear Papa"), or a
    parent title alone. English.
    """
    if not language.english_titles:
        return forms
    return [form for form in forms if not _a_parent(form.tokens)]


def _a_parent(tokens: list[str]) -> bool:
    words = [token.strip(".,!?") for token in tokens]
    return (bool(words) and len(words) <= 2 and words[-1] in PARENT_WORDS) or words in ([w] for w in PARENT_TITLES)


def hungarian_suffixes(forms: list[Form], table: AliasTable) -> None:
    """Keys a name said with a case suffix as the name: "Gergelynek", "Gergelyt" → "Gergely" (``hu_stem``).

    Evidence: the stem is attested — a form, a word of a form or of the alias table, or a title.
    """
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


def vote_families(forms: list[Form], language: Language, usage: Mapping[str, tuple[int, int]],
                  disabled: Collection[str] = ()) -> None:
    """Give every form the majority label family of all forms sharing its key (NER labels are noisy), then let the
    label rules that outweigh the vote have their say, in this order: ``said_where_a_place_is``, ``place_words``,
    ``titled_is_a_person``, ``name_words_are_people``, ``vessels``."""
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    context: dict[str, Counter[str]] = defaultdict(Counter)
    for form in forms:
        key = match_key(" ".join(form.tokens))
        for label, count in form.labels.items():
            votes[key][label_family(label)] += count
        context[key].update(form.context)
    for form in forms:
        tally = votes[match_key(" ".join(form.tokens))]
        form.family = min(tally, key=lambda family: (-tally[family], family))
    if "said_where_a_place_is" not in disabled:
        said_where_a_place_is(forms, language, votes, context)
    if "place_words" not in disabled:
        place_words(forms, language)
    if "titled_is_a_person" not in disabled:
        titled_is_a_person(forms, language, votes, context)
    if "name_words_are_people" not in disabled:
        name_words_are_people(forms, language)
    if "vessels" not in disabled:
        vessels(forms, language, usage, votes, context)


def said_where_a_place_is(forms: list[Form], language: Language, votes: Mapping[str, Counter[str]],
                          context: Mapping[str, Counter[str]]) -> None:
    """Makes a place of a "person" the book mostly says where a place is, not as a speaker: "in Tilsit", "went to
    Olmutz" (the NER takes foreign place names for people).

    Evidence: the contexts of all the key's mentions (``names.said_somewhere``: "located" against "spoken").
    """
    if not language.context_patterns:
        return
    for form in forms:
        if form.family == "PERSON" and _located(form, votes, context):
            form.family = "LOC"


def _located(form: Form, votes: Mapping[str, Counter[str]], context: Mapping[str, Counter[str]]) -> int:
    """The mentions of the form's key said where a place is, when they make it a place (``names.said_somewhere``),
    else 0."""
    key = match_key(" ".join(form.tokens))
    located, spoken = context.get(key, Counter())["located"], context.get(key, Counter())["spoken"]
    return located if said_somewhere(located, spoken, sum(votes.get(key, Counter()).values())) else 0


def place_words(forms: list[Form], language: Language) -> None:
    """Makes a place of a "person" whose name ends in a word for a kind of place: "Chesney Wold", "Crampsford
    Rectory", "Mill Pond Bank" (the NER takes a house or a street named after a family for a person).

    Evidence: the form's last word, capitalised, is a place's head noun (``names.PLACE_HEADS``; English). A person
    keeps the name: a form with a person's title, one opening with a common given name ("John Hall"), and one whose
    last word the book titles as a surname or says alone as a person's name ("Mr. Wood" makes "Peter Wood" someone,
    "Dale" said alone "Milt Dale").
    """
    if not language.english_titles:
        return
    surnames = {form.tokens[-1] for form in forms if has_person_title(form.tokens, language.code)} | {
        form.tokens[0] for form in forms if form.family == "PERSON" and len(form.tokens) == 1
    }
    for form in forms:
        words = form.display.split()
        if (
            form.family == "PERSON"
            and len(words) > 1
            and words[-1][:1].isupper()
            and form.tokens[-1] in PLACE_HEADS
            and form.tokens[-1] not in surnames
            and not common_given_name_sex(form.tokens[0])
            and not has_person_title(form.tokens, language.code)
        ):
            form.family = "LOC"


def titled_is_a_person(forms: list[Form], language: Language, votes: Mapping[str, Counter[str]] | None = None,
                       context: Mapping[str, Counter[str]] | None = None) -> None:
    """Makes a person of every form of a name seen with a person's title anywhere: "Lieutenant Telyanin" makes
    "Telyanin", tagged a place by the NER, a person.

    Evidence: a title of a person before or after the name (``normalize.has_person_title``) in any form, and its
    mentions: a name said where a place is (``votes`` and ``context``, as ``said_where_a_place_is`` reads them)
    ``DOMINANCE`` times as often as it is titled stays a place — "at Battersby", "to Battersby" eighteen times
    outweigh one daydreamed "Lord Battersby".
    """
    titled: Counter[str] = Counter()
    for form in forms:
        if has_person_title(form.tokens, language.code):
            titled[name_key(form.tokens, language)] += form.count
    for form in forms:
        key = name_key(form.tokens, language)
        if key not in titled:
            continue
        located = _located(form, votes or {}, context or {}) if language.context_patterns else 0
        if form.family == "LOC" and located >= DOMINANCE * titled[key]:
            continue
        form.family = "PERSON"


def name_words_are_people(forms: list[Form], language: Language) -> None:
    """Makes a person of a lone word that opens or closes a recurring full person name: "Natasha" of "Natasha
    Rostova", whatever its own labels (the small models tag main characters as places by the hundred).

    Evidence: the full names of people said twice or more, written like names, none of their words a function word
    or a known place (``places``).
    """
    places_seen = places(forms)
    name_words: set[str] = set()
    for form in forms:
        words = split_titles(form.tokens, language.code)[1]
        if form.family == "PERSON" and len(words) > 1 and form.count >= MIN_ANCHOR_SUPPORT:
            display = form.display.split()[-len(words) :]
            if all(word[:1].isupper() for word in display) and not set(words) & (
                places_seen | language.function_words
            ):
                name_words.update((words[0], words[-1]))
    for form in forms:
        if len(form.tokens) == 1 and form.tokens[0] in name_words:
            form.family = "PERSON"


def vessels(forms: list[Form], language: Language, usage: Mapping[str, tuple[int, int]],
            votes: Mapping[str, Counter[str]], context: Mapping[str, Counter[str]]) -> None:
    """Makes a ship of a name said after a vessel's kind: "the schooner Marianne" (``names.a_vessel``), whatever its
    labels and the people of its name ("Marianne Dashwood").

    Evidence: the vessel contexts of all the key's mentions (``names.a_vessel``). Keeps a person: a form with a
    person's title ("Miss Marianne"), and a one-word name the corpus never writes after an article (``usage``, where
    it was asked): a ship is "the Marianne", while "the boat Jim built" puts a vessel's kind before a person.
    """
    if not language.context_patterns:
        return
    for form in forms:
        key = match_key(" ".join(form.tokens))
        seen, articled = usage.get(form.display, (0, 1))  # a word not asked about is not held against
        if (
            a_vessel(context[key]["vessel"], sum(votes[key].values()))
            and not has_person_title(form.tokens, language.code)
            and (articled or not seen)
        ):
            form.family = VESSEL_LABEL


def places(forms: list[Form]) -> set[str]:
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
    out = set()
    for form in forms:
        if form.family == "LOC" and len(form.tokens) == 1:
            as_place = sum(n for label, n in form.labels.items() if label_family(label) == "LOC")
            as_person = sum(n for label, n in form.labels.items() if label_family(label) == "PERSON")
            named = in_full_names[form.tokens[0]]
            if named >= MIN_ANCHOR_SUPPORT and 2 * named >= as_place:
                continue
            if as_place >= 2 and as_place > as_person:
                out.add(form.tokens[0])
    return out


def name_key(tokens: list[str], language: Language) -> str:
    """The match key of a form's words without its titles."""
    return match_key(" ".join(split_titles(tokens, language.code)[1]))


def respell(forms: list[Form]) -> None:
    """Keys a person's name written two ways by its usual spelling: "Monsieur Buonaparte", 27 times, is keyed as
    "Bonaparte", 80 (``names.spelling_variants``); resolution then treats the rare spelling as the name it is.

    Evidence: the mentions of each word over the person forms.
    """
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


def common_nouns(
    forms: list[Form], families: set[str], table: AliasTable, usage: Mapping[str, tuple[int, int]]
) -> list[Form]:
    """One-word "people" the book mostly writes after an article are common nouns, ranks or groups, not characters:
    "the Frenchman", "a Cossack", "the Tsar", "the Kremlin", "the Guards".

    Evidence: ``usage``, word → its occurrences and those just after "a", "an" or "the", all over the corpus. Each
    such form takes the label family its other NER labels give ("Kremlin", also tagged a place) or is no entity at
    all; a family ("the Rostovs") and a name the alias table lists stay as they are. Needs ``ARTICLED_MIN``
    occurrences: a few say nothing.
    """
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

"""The rules that name and label the entities once joined: the canonical name, namesakes named by their titles, a
surname in the plural labelled a family, a name invoked in oaths labelled a deity; and the entity id."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection

from ingestion.names import PRONOUN_WORDS, SURNAME_TITLES, invoked, offices
from ingestion.normalize import match_key, surname_variants
from ingestion.resolution.evidence import Book, TraceStep
from ingestion.resolution.forms import (
    DEITY_LABEL,
    FAMILY_LABEL,
    MIN_ANCHOR_SUPPORT,
    POSSESSIVES,
    Form,
    Group,
    ResolvedEntity,
    entity_id_for,
    label_family,
    name_display,
    properly_cased,
)


def families(forms: list[Form]) -> set[str]:
    """Labels a family, not a character: a one-word person name that is a surname in the plural ("Rostovs",
    "Bennets", "Joneses"; Hungarian "Ceceyék").

    Evidence: the surname is the last word (Hungarian: the first) of the full person names the book writes, or a
    name written with a title ("Mr. Bennet"), more often than it is their given name: "the two Marys", or "Williams"
    beside "William Dobbin", is a given name, not a family. Said twice at least. Returns the family words.
    """
    if not forms:
        return set()
    language = forms[0].language
    first, last = language.given, -1 - language.given
    as_surname: Counter[str] = Counter()
    as_given: Counter[str] = Counter()
    for form in forms:
        tokens = form.name_tokens
        if form.family != "PERSON" or form.title_only or not tokens or tokens[0] in POSSESSIVES:
            continue  # "Your Highness" is no name
        if len(tokens) > 1:
            as_surname[tokens[last]] += form.count
            as_given[tokens[first]] += form.count
        elif SURNAME_TITLES.intersection(form.titles):
            as_surname[tokens[0]] += form.count
    # by mentions, so that one glued "Rostov to Ilyin" does not make Rostov a given name
    surnames = {word for word, n in as_surname.items() if n > as_given[word]}
    # and the other-gender form of a Russian surname: "the Karagins" beside "Julie Karagina"
    stems = surnames | {v for word in surnames for v in surname_variants(word)} if language.transliterated else surnames
    plurals = {stem + ending for stem in stems for ending in language.plural_endings}
    # said twice at least: a one-off "Highnesses" beside "Serene Highness" is not worth a family
    one_word = Counter[str]()
    for form in forms:
        if form.family == "PERSON" and len(form.name_tokens) == 1:
            one_word[form.name_tokens[0]] += form.count
    return {word for word, n in one_word.items() if n >= MIN_ANCHOR_SUPPORT and word in plurals} - surnames


def deities(forms: list[Form]) -> bool:
    """Labels a deity, not a character: a person name mostly invoked in oaths ("thank God", "good Lord", "for
    Christ's sake"; ``names.invoked``), never with a surname's title ("Madame X" is someone).

    Evidence: the oath contexts counted around the entity's mentions.
    """
    return (
        forms[0].language.context_patterns
        and not any(SURNAME_TITLES.intersection(form.titles) for form in forms)
        and invoked(sum(form.context["sworn"] for form in forms), sum(form.count for form in forms))
    )


def build(
    book: Book, family_words: set[str], scope: str = "", disabled: Collection[str] = ()
) -> tuple[list[ResolvedEntity], dict[tuple[str, str], str]]:
    """The entities of the joined groups, their names, labels and ids, and (text, label) -> id for every form."""
    groups = book.groups
    members: dict[int, list[Group]] = defaultdict(list)
    for index in range(len(groups)):
        members[book.root(index)].append(groups[index])
    entities: dict[str, ResolvedEntity] = {}
    mapping: dict[tuple[str, str], str] = {}
    plain = {root: _plain_name(groups[root], merged) for root, merged in members.items()}
    # Namesakes apart by their titles alone ("Mr Pontifex", "Mrs Pontifex"; "Colonel Pyncheon", "Judge Pyncheon") would
    # get one name, so one id: an entity whose plain name another entity of its family shares is named with its title.
    sharing = Counter((groups[root].family, match_key(name)) for root, name in plain.items())
    for root, merged in members.items():
        forms = [form for group in merged for form in group.forms]
        anchor = groups[root]
        canonical = plain[root]
        if anchor.entry is None and sharing[(anchor.family, match_key(canonical))] > 1:
            canonical = titled_name(forms) or canonical
        label = _label(anchor, forms, canonical, family_words, disabled)
        if label in (FAMILY_LABEL, DEITY_LABEL) and anchor.entry is None:
            book.trace.append(TraceStep("families" if label == FAMILY_LABEL else "deities", anchor.texts))
        entity_id = entity_id_for(anchor.family, canonical, scope)
        aliases = {form.text for form in forms}
        if entity_id in entities:  # two groups chose the same canonical name: they are one entity
            earlier = tuple(sorted(entities[entity_id].aliases))
            book.trace.append(TraceStep("same_canonical_name", anchor.texts, earlier))
            aliases |= set(entities[entity_id].aliases)
        entities[entity_id] = ResolvedEntity(entity_id, canonical, label, tuple(sorted(aliases)))
        for form in forms:
            for form_label in form.labels:
                mapping[(form.text, form_label)] = entity_id
    return [entities[key] for key in sorted(entities)], mapping


def _label(anchor: Group, forms: list[Form], canonical: str, family_words: set[str],
           disabled: Collection[str]) -> str:
    """The alias table's label, else the majority label of the family; relabelled by ``families`` and ``deities``."""
    labels = Counter[str]()
    for form in forms:
        labels.update({label: n for label, n in form.labels.items() if label_family(label) == anchor.family})
    label = anchor.entry.label if anchor.entry is not None and anchor.entry.label else None
    label = label or (min(labels, key=lambda lab: (-labels[lab], lab)) if labels else anchor.family)
    if (
        anchor.entry is None
        and anchor.family == "PERSON"
        and "families" not in disabled
        and match_key(canonical) in family_words
    ):
        return FAMILY_LABEL
    if anchor.entry is None and anchor.family == "PERSON" and "deities" not in disabled and deities(forms):
        return DEITY_LABEL
    return label


def _plain_name(anchor: Group, merged: list[Group]) -> str:
    """The alias table's canonical name, else the most informative name of the merged forms."""
    if anchor.entry is not None:
        return anchor.entry.canonical
    return canonical_name([form for group in merged for form in group.forms])


def titled_name(forms: list[Form]) -> str | None:
    """The most frequent properly cased form with a gendered title ("Monsieur St. Aubert"), else with a rank or an
    office ("Colonel Pyncheon" beside "Judge Pyncheon", ``names.offices``), if there is one."""
    cased = [form for form in forms if properly_cased(form.display)]
    titled = [form for form in cased if form.gender] or [form for form in cased if offices(form.titles)]
    if not titled:
        return None
    return max(titled, key=lambda form: (len(form.name_tokens), form.count, form.display)).display


def canonical_name(forms: list[Form]) -> str:
    """Most informative properly cased name: written like a name, then most name tokens, most mentions, lexical.

    An all-caps form ("PIERRE", from a heading or a shouted line) never names an entity that has another form;
    an entity seen only in capitals gets its name in title case.
    """
    counts: Counter[str] = Counter()
    lengths: dict[str, int] = {}
    for form in forms:
        name = name_display(form)
        counts[name] += form.count
        lengths[name] = len(form.name_tokens)
    proper = [name for name in counts if properly_cased(name)]
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

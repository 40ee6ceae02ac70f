"""The resolver: the rules composed in one documented order (``RULES``), each switchable off by its name.

The order: the rules on single forms (which are names, how each is keyed and labelled), the groups of one key (the
alias table first), the joins (one name under titles of one sex, forms of one given name in a family, partial names
with their narrowing steps, a titled surname of a family's one member of its sex, a family's office to the member
named in full under it, a titled surname of a person named without it, other forms of given names, a title before
an initial, the names the book says are one person's, a partial name whose homes those made one) — asking the rules
that keep apart before each join — and last the names and labels of the entities. Two readings of the evidence (the
other spellings of diminutives, a Miss before a given name) shape what the joins see. ``resolve_traced`` also
returns, per entity, which rule joined which forms.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from ingestion.alias_table import AliasTable
from ingestion.names import gender_of_titles
from ingestion.normalize import clean_surface, is_title, match_key, split_titles
from ingestion.resolution.evidence import Book, TraceStep, shared_surnames, unmarried_when_so_called, usual_sex
from ingestion.resolution.forms import Form, Group, ResolvedEntity, SurfaceForm, label_family, parse, strip_descriptions
from ingestion.resolution.language import Language, language_of
from ingestion.resolution.rules import apart, grouping, joins, naming, nicknames, partial, stated
from ingestion.resolution.rules import forms as form_rules


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rule: its ``kind`` (what it decides) and the function that holds it (its docstring says what it joins
    or keeps apart, its evidence and an example)."""

    name: str
    kind: str
    unit: Callable[..., object]

    @property
    def doc(self) -> str:
        """The first paragraph of the rule's docstring."""
        return (self.unit.__doc__ or "").strip().split("\n\n")[0]


# Every rule, in the order the resolver applies it; the keep-apart rules are asked by the joins, in any order.
RULES: tuple[Rule, ...] = (
    Rule("not_a_name", "form", form_rules.not_a_name),
    Rule("parents_by_role", "form", form_rules.parents_by_role),
    Rule("hungarian_suffixes", "form", form_rules.hungarian_suffixes),
    Rule("said_where_a_place_is", "label", form_rules.said_where_a_place_is),
    Rule("place_words", "label", form_rules.place_words),
    Rule("titled_is_a_person", "label", form_rules.titled_is_a_person),
    Rule("name_words_are_people", "label", form_rules.name_words_are_people),
    Rule("vessels", "label", form_rules.vessels),
    Rule("respell", "form", form_rules.respell),
    Rule("common_nouns", "label", form_rules.common_nouns),
    Rule("alias_table", "group", grouping.alias_table),
    Rule("noble_ranks_apart", "group", grouping.noble_ranks_apart),
    Rule("offices_apart", "group", grouping.offices_apart),
    Rule("same_name_titles", "join", joins.same_name_titles),
    Rule("given_name_forms", "join", joins.given_name_forms),
    Rule("partial_names", "join", partial.partial_names),
    Rule("usual_role", "partial_names step", partial.usual_role),
    Rule("usual_title", "partial_names step", partial.usual_title),
    Rule("one_person", "partial_names step", partial.one_person),
    Rule("dominant_given_name", "partial_names step", partial.dominant_given_name),
    Rule("given_name_near", "partial_names step", partial.given_name_near),
    Rule("named_one_off", "partial_names step", partial.named_one_off),
    Rule("dominant_surname", "partial_names step", partial.dominant_surname),
    Rule("surname_near", "partial_names step", partial.surname_near),
    Rule("titled_family_member", "join", joins.titled_family_member),
    Rule("family_head", "evidence", joins.family_head),
    Rule("office_holder", "join", joins.office_holder),
    Rule("titled_surname_of_the_unnamed", "join", joins.titled_surname_of_the_unnamed),
    Rule("other_forms_of_given_names", "join", joins.other_forms_of_given_names),
    Rule("initialled_names", "join", joins.initialled_names),
    Rule("stated_names", "join", stated.stated_names),
    Rule("stated_homes", "join", stated.stated_homes),
    Rule("ranks_apart", "keep apart", apart.ranks_apart),
    Rule("rank_fits", "keep apart", apart.rank_fits),
    Rule("surname_of_the_other_sex", "keep apart", apart.surname_of_the_other_sex),
    Rule("given_name_of_the_other_sex", "keep apart", apart.given_name_of_the_other_sex),
    Rule("his_wifes_name", "keep apart", apart.his_wifes_name),
    Rule("named_apart", "keep apart", apart.named_apart),
    Rule("elsewhere", "keep apart", apart.elsewhere),
    Rule("established", "keep apart", apart.established),
    Rule("shared_surnames", "keep apart", shared_surnames),
    Rule("kin_titles_apart", "keep apart", apart.kin_titles_apart),
    Rule("nickname_chains", "keep apart", apart.nickname_chains),
    Rule("nickname_of_a_one_off", "keep apart", apart.nickname_of_a_one_off),
    Rule("said_together", "keep apart", apart.said_together),
    Rule("diminutive_spellings", "evidence", nicknames.diminutive_spellings),
    Rule("clipped_given_names", "evidence", nicknames.clipped_given_names),
    Rule("unmarried_when_so_called", "evidence", unmarried_when_so_called),
    Rule("usual_sex", "evidence", usual_sex),
    Rule("families", "label", naming.families),
    Rule("deities", "label", naming.deities),
)
RULE_NAMES = frozenset(rule.name for rule in RULES)
# The joins after the first groups, in order.
_JOINS = (
    ("same_name_titles", joins.same_name_titles),
    ("given_name_forms", joins.given_name_forms),
    ("partial_names", partial.partial_names),
    ("titled_family_member", joins.titled_family_member),
    ("office_holder", joins.office_holder),
    ("titled_surname_of_the_unnamed", joins.titled_surname_of_the_unnamed),
    ("other_forms_of_given_names", joins.other_forms_of_given_names),
    ("initialled_names", joins.initialled_names),
    ("stated_names", stated.stated_names),
    ("stated_homes", stated.stated_homes),
)


class UnknownRuleError(ValueError):
    """Raised when a rule to switch off is not one of the resolver's; the message lists the valid names."""


def check_rules(names: Iterable[str]) -> frozenset[str]:
    """The rule names, checked: ``UnknownRuleError`` naming the first unknown one and listing the valid ones."""
    out = frozenset(names)
    unknown = sorted(out - RULE_NAMES)
    if unknown:
        raise UnknownRuleError(f"unknown resolution rule {unknown[0]!r}; valid rules: {', '.join(sorted(RULE_NAMES))}")
    return out


@dataclass(frozen=True, slots=True)
class Resolution:
    """The entities (sorted by id), (surface text, label) -> entity id for every form kept, and per entity id the
    trace of the rules that made it (in the order they ran)."""

    entities: list[ResolvedEntity]
    mapping: dict[tuple[str, str], str]
    traces: dict[str, tuple[TraceStep, ...]]


def resolve_entities(
    forms: Iterable[SurfaceForm],
    *,
    language: str,
    alias_table: AliasTable | None = None,
    min_count: int = 1,
    sentence_openers: Collection[str] = frozenset(),
    scope: str = "",
    article_usage: Mapping[str, tuple[int, int]] | None = None,
    disabled_rules: Collection[str] = (),
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
    after an article; a one-word "name" mostly written "the X" is a common noun (``rules.forms.common_nouns``).
    ``disabled_rules`` are names of ``RULES`` switched off (``UnknownRuleError`` for another name).
    """
    result = resolve_traced(
        forms, language=language, alias_table=alias_table, min_count=min_count, sentence_openers=sentence_openers,
        scope=scope, article_usage=article_usage, disabled_rules=disabled_rules,
    )
    return result.entities, result.mapping


def resolve_traced(
    forms: Iterable[SurfaceForm],
    *,
    language: str,
    alias_table: AliasTable | None = None,
    min_count: int = 1,
    sentence_openers: Collection[str] = frozenset(),
    scope: str = "",
    article_usage: Mapping[str, tuple[int, int]] | None = None,
    disabled_rules: Collection[str] = (),
) -> Resolution:
    """``resolve_entities``, with the trace of each entity (``Resolution``)."""
    book = prepare(forms, language=language, alias_table=alias_table, min_count=min_count,
                   sentence_openers=sentence_openers, article_usage=article_usage, disabled_rules=disabled_rules)
    for name, join in _JOINS:
        if book.on(name):
            join(book)
    entities, mapping = naming.build(book, book.family_words, scope, book.disabled)
    return Resolution(entities, mapping, _traces(book.trace, mapping))


def prepare(
    forms: Iterable[SurfaceForm],
    *,
    language: str,
    alias_table: AliasTable | None = None,
    min_count: int = 1,
    sentence_openers: Collection[str] = frozenset(),
    article_usage: Mapping[str, tuple[int, int]] | None = None,
    disabled_rules: Collection[str] = (),
) -> Book:
    """The rules on single forms and the first groups, applied: the ``Book`` the joining rules read, before any
    join (``resolve_entities`` for the arguments). A joining rule can be run on it alone."""
    lang = language_of(language)
    off = check_rules(disabled_rules)
    table = alias_table or AliasTable(())
    parsed = _parsed(forms, lang, sentence_openers, table, off)
    form_rules.vote_families(parsed, lang, article_usage or {}, off)
    kept = [form for form in parsed if form.count >= min_count]
    for item in kept:
        _key(item, lang)
    if lang.transliterated and "respell" not in off:
        form_rules.respell(kept)
    family_words = naming.families(kept)
    if lang.context_patterns and article_usage and "common_nouns" not in off:
        kept = form_rules.common_nouns(kept, family_words, table, article_usage)
    groups = grouping.group_forms(kept, table, lang, off)
    book = Book.of(groups, parsed, lang, off)
    book.family_words = family_words
    book.trace.extend(_grouped(groups))
    return book


def _parsed(
    surface_forms: Iterable[SurfaceForm], language: Language, sentence_openers: Collection[str], table: AliasTable,
    off: Collection[str],
) -> list[Form]:
    """One form per surface text, its labels' mentions and its evidence summed; those with nothing left after
    cleaning, and those ``not_a_name``, left out; Hungarian case suffixes stripped (``hungarian_suffixes``)."""
    by_text: dict[str, Counter[str]] = defaultdict(Counter)
    pronouns: dict[str, Counter[str]] = defaultdict(Counter)
    units: dict[str, Counter[str]] = defaultdict(Counter)
    context: dict[str, Counter[str]] = defaultdict(Counter)
    together: dict[str, Counter[str]] = defaultdict(Counter)
    stated: dict[str, Counter[str]] = defaultdict(Counter)
    for form in surface_forms:
        by_text[form.text][form.label] += form.count
        pronouns[form.text].update(he=form.he, she=form.she)
        units[form.text].update(dict(form.units))
        context[form.text].update(located=form.located, spoken=form.spoken, sworn=form.sworn, vessel=form.vessel)
        together[form.text].update(dict(form.cooccurring))
        stated[form.text].update(dict(form.stated))
    parsed = [parse(text, labels, language, sentence_openers) for text, labels in sorted(by_text.items())]
    for item in parsed:
        item.pronouns, item.units, item.context = pronouns[item.text], units[item.text], context[item.text]
        item.together, item.stated = together[item.text], stated[item.text]
    parsed = [form for form in parsed if form.display]
    if "not_a_name" not in off:
        parsed = form_rules.not_a_name(parsed, language)
    if "parents_by_role" not in off:
        parsed = form_rules.parents_by_role(parsed, language)
    if language.case_suffixes and "hungarian_suffixes" not in off:
        form_rules.hungarian_suffixes(parsed, table)
    return parsed


def _key(form: Form, language: Language) -> None:
    """A form's name key: its words without titles, and the sex its titles give. Namesakes are told apart by it
    ("Monsieur X" / "Mademoiselle X"; in Hungarian, written after the name, "Cecey uram" / "Éva asszony"), and the
    sex is what lets a bare surname join."""
    person = form.family == "PERSON"
    titles, names = split_titles(form.tokens, language.code) if person else ([], form.tokens)
    form.name_tokens = tuple(match_key(token) for token in names)
    form.title_only = person and all(is_title(token, language.code) for token in form.tokens)
    form.titles = tuple(title.replace(".", "") for title in titles)
    form.gender = gender_of_titles(form.titles) if not form.title_only else ""


def _grouped(groups: list[Group]) -> list[TraceStep]:
    """The first joins: the forms each group holds, by the alias table or by one name key."""
    return [
        TraceStep("alias_table" if group.entry is not None else "name_key", group.texts)
        for group in groups
        if len(group.forms) > 1
    ]


def _traces(trace: list[TraceStep], mapping: Mapping[tuple[str, str], str]) -> dict[str, tuple[TraceStep, ...]]:
    """The steps of the trace per entity id: each step belongs to the entity its forms ended in."""
    entity_of = {text: entity_id for (text, _), entity_id in mapping.items()}
    out: dict[str, list[TraceStep]] = defaultdict(list)
    for step in trace:
        if step.forms and step.forms[0] in entity_of:
            out[entity_of[step.forms[0]]].append(step)
    return {entity_id: tuple(steps) for entity_id, steps in out.items()}


def trace_of(name: str, resolution: Resolution) -> tuple[ResolvedEntity, tuple[TraceStep, ...]] | None:
    """The entity a name names and the trace of the rules that made it: the entity whose canonical name has the
    name's match key, else the first (by id) holding it as an alias; None when none does."""
    key = match_key(name)
    by_name = [entity for entity in resolution.entities if match_key(entity.canonical_name) == key]
    by_alias = [entity for entity in resolution.entities if key in {match_key(alias) for alias in entity.aliases}]
    if not by_name and not by_alias:
        return None
    found = (by_name or by_alias)[0]
    return found, resolution.traces.get(found.entity_id, ())


def article_candidates(forms: Iterable[SurfaceForm], language: str) -> set[str]:
    """The one-word names the NER called a person somewhere: the words whose use with an article the corpus is
    asked about (``article_usage``; English only)."""
    lang = language_of(language)
    if not lang.context_patterns:
        return set()
    out = set()
    for form in forms:
        words = strip_descriptions(clean_surface(form.text, language), lang).split()
        if len(words) == 1 and words[0][:1].isupper() and label_family(form.label) == "PERSON":
            out.add(words[0])
    return out


def opener_candidates(forms: Iterable[SurfaceForm], language: str) -> set[str]:
    """The capitalised first words of the forms: the words whose casing the corpus is asked about."""
    lang = language_of(language)
    out = set()
    for form in forms:
        words = strip_descriptions(clean_surface(form.text, language), lang).split()
        if words and words[0][:1].isupper():
            out.add(words[0])
    return out

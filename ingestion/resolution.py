"""Entity resolution: decide which NER surface forms name the same entity, and give each entity a stable id.

Runs on the driver over the (small) list of distinct surface forms the Spark job aggregated. Order of evidence:
the domain alias table first, then exact name keys (case, accents, possessives, titles, Hungarian suffixes),
then attachment of partial names (a first name, a surname, a name without its surname) to the one full name
they can belong to. Anything ambiguous stays its own entity: a missed merge costs recall, a wrong one precision,
and the graph built on top suffers more from the latter.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingestion.errors import IngestionError
from ingestion.normalize import (
    check_language,
    clean_surface,
    has_person_title,
    hu_stem,
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
    "ResolvedEntity",
    "SurfaceForm",
    "entity_id_for",
    "label_family",
    "resolve_entities",
]

_FAMILIES = {"PERSON": "PERSON", "PER": "PERSON", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "ORG": "ORG"}
# A partial name attaches only to a full name seen at least this often (or listed in the alias table), so
# one-off NER noise such as "Beside Kutuzov" never captures "Kutuzov".
MIN_ANCHOR_SUPPORT = 2
# Capitalised at the start of a sentence, these open many NER spans ("Beside Kutuzov", "Tell Denisov").
_FUNCTION_WORDS = {
    "en": frozenset(
        "a an and as at before behind beside between but by for from here if in near of oh on or so sometimes "
        "suddenly tell send then there though to when where while with yes no ah voila".split()
    ),
    "hu": frozenset("és de hogy ha mert már még is sem nem igen".split()),
}
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


def entity_id_for(family: str, canonical_name: str) -> str:
    """Stable id from the label family and the canonical name's match key only (never input order)."""
    digest = hashlib.sha1(f"{family}\x1f{match_key(canonical_name)}".encode()).hexdigest()
    return "ent_" + digest[:16]


class AliasTableError(IngestionError, ValueError):
    """Raised when an alias table mapping or file is malformed or of an unknown format."""


@dataclass(frozen=True, slots=True)
class AliasEntry:
    """One domain entity: its canonical name, the other names it goes by, and optionally its NER label."""

    canonical: str
    aliases: tuple[str, ...]
    label: str | None = None


class AliasTable:
    """The domain's alias table: canonical name -> aliases (+ optional label), applied before any heuristic.

    Lookups use match keys, so case, accents, possessives and surrounding punctuation do not matter. An alias
    listed under two canonical names is ambiguous: it is dropped (with a warning) and left to the heuristics.
    Matching ignores the NER label of a mention, because NER mislabels characters as places or organisations
    far more often than a domain table lists a person's name that is also a place.
    """

    _FORMATS = (".json", ".yaml", ".yml", ".tsv")

    def __init__(self, entries: Iterable[AliasEntry]) -> None:
        self._entries = tuple(sorted(entries, key=lambda entry: entry.canonical))
        index: dict[str, AliasEntry | None] = {}
        for entry in self._entries:
            for name in (entry.canonical, *entry.aliases):
                key = match_key(clean_surface(name))
                if index.get(key, entry) is not entry:
                    logger.warning("alias %r is listed under several canonical names; ignoring it", name)
                    index[key] = None
                elif key:
                    index[key] = entry
        self._index = {key: entry for key, entry in index.items() if entry is not None}
        self._casefolded = frozenset(
            clean_surface(name).casefold() for entry in self._entries for name in (entry.canonical, *entry.aliases)
        )

    @property
    def entries(self) -> tuple[AliasEntry, ...]:
        """All entries, sorted by canonical name."""
        return self._entries

    def lookup(self, key: str) -> AliasEntry | None:
        """The entry whose canonical name or alias has this match key, if exactly one has."""
        return self._index.get(key)

    def casefolded_keys(self) -> frozenset[str]:
        """Every name in the table, cleaned and casefolded but with accents kept (stems are checked against it)."""
        return self._casefolded

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> AliasTable:
        """Build from ``{canonical: [alias, ...]}`` or ``{canonical: {"aliases": [...], "label": "PERSON"}}``."""
        entries = []
        for canonical, value in mapping.items():
            label = None
            if isinstance(value, Mapping):
                label, value = value.get("label"), value.get("aliases", [])
            if isinstance(value, str) or not isinstance(value, list | tuple):
                raise AliasTableError(
                    f"aliases of {canonical!r} must be a list of strings or a mapping with 'aliases' (a list) and "
                    f"an optional 'label', got {value!r}"
                )
            if not all(isinstance(alias, str) for alias in value) or not isinstance(label, str | None):
                raise AliasTableError(f"aliases and label of {canonical!r} must be strings, got {value!r}, {label!r}")
            entries.append(AliasEntry(str(canonical), tuple(value), label))
        return cls(entries)

    @classmethod
    def from_file(cls, path: str | Path) -> AliasTable:
        """Load a JSON or YAML mapping (as ``from_mapping``) or a TSV of ``canonical<TAB>alias[<TAB>label]`` rows.

        In TSV an alias cell may hold several aliases separated by ``|``; blank lines and ``#`` comments are
        skipped; rows sharing a canonical name accumulate.
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in cls._FORMATS:
            raise AliasTableError(f"alias table {str(path)!r} has unknown format {suffix!r}; valid: {cls._FORMATS}")
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise AliasTableError(f"cannot read alias table {str(path)!r}: {exc.strerror or exc}") from exc
        if suffix == ".tsv":
            return cls.from_mapping(_parse_tsv(text, path))
        if suffix == ".json":
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise AliasTableError(f"alias table {str(path)!r} is not valid JSON: {exc}") from exc
        else:
            import yaml  # only YAML tables need it

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise AliasTableError(f"alias table {str(path)!r} is not valid YAML: {exc}") from exc
        if not isinstance(data, Mapping):
            raise AliasTableError(f"alias table {str(path)!r} must hold a mapping, got {type(data).__name__}")
        return cls.from_mapping(data)


def _parse_tsv(text: str, path: Path) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) not in (2, 3) or not cells[0]:
            raise AliasTableError(
                f"{str(path)!r} line {number}: expected 'canonical<TAB>alias[<TAB>label]', got {line!r}"
            )
        entry = table.setdefault(cells[0], {"aliases": [], "label": None})
        entry["aliases"].extend(alias.strip() for alias in cells[1].split("|") if alias.strip())
        if len(cells) == 3 and cells[2]:
            entry["label"] = cells[2]
    return table


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

    @property
    def count(self) -> int:
        return sum(form.count for form in self.forms)


def resolve_entities(
    forms: Iterable[SurfaceForm], *, language: str, alias_table: AliasTable | None = None, min_count: int = 1
) -> tuple[list[ResolvedEntity], dict[tuple[str, str], str]]:
    """Resolve surface forms into canonical entities.

    Returns the entities (sorted by id) and the mapping (surface text, label) -> entity_id for every input form
    kept. A surface text is kept when its mentions over all labels number at least ``min_count`` and something
    is left of it after cleaning. The result depends only on the set of forms, never on their order.
    """
    check_language(language)
    table = alias_table or AliasTable(())
    by_text: dict[str, Counter[str]] = defaultdict(Counter)
    for form in forms:
        by_text[form.text][form.label] += form.count
    parsed = [_parse(text, labels, language) for text, labels in sorted(by_text.items())]
    parsed = [form for form in parsed if form.display]
    if language == "hu":
        _stem_hungarian(parsed, table)
    _vote_families(parsed, language)
    kept = [form for form in parsed if form.count >= min_count]
    for item in kept:
        names = split_titles(item.tokens, language)[1] if item.family == "PERSON" else item.tokens
        item.name_tokens = tuple(match_key(token) for token in names)
        item.title_only = item.family == "PERSON" and all(is_title(token, language) for token in item.tokens)
    groups = _group(kept, table, language)
    roots = _attach_partial_names(groups, parsed, language)
    return _build(groups, roots)


def _parse(text: str, labels: Counter[str], language: str) -> _Form:
    display = clean_surface(text, language)
    return _Form(text=text, labels=labels, display=display, tokens=display.casefold().split(), language=language)


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


def _vote_families(forms: list[_Form], language: str) -> None:
    """Give every form the majority label family of all forms sharing its key (NER labels are noisy).

    Two pieces of evidence outweigh the vote, because the small models tag main characters as places or
    organisations by the hundred: a name seen with a person's title ("Lieutenant Telyanin") is a person's name,
    and so is a lone word that opens or closes a recurring full person name ("Natasha" in "Natasha Rostova").
    """
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    titled: set[str] = set()
    for form in forms:
        for label, count in form.labels.items():
            votes[match_key(" ".join(form.tokens))][label_family(label)] += count
        if has_person_title(form.tokens, language):
            titled.add(_name_key(form.tokens, language))
    for form in forms:
        tally = votes[match_key(" ".join(form.tokens))]
        form.family = min(tally, key=lambda family: (-tally[family], family))
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


def _places(forms: list[_Form]) -> set[str]:
    """One-word place names seen at least twice: a person's name does not contain them ("Moscow Pierre")."""
    return {form.tokens[0] for form in forms if form.family == "LOC" and len(form.tokens) == 1 and form.count >= 2}


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
            key = ("form", form.family, *form.name_tokens)
            if key not in groups:
                groups[key] = _Group(form.family, form.name_tokens, title_only=form.title_only)
        groups[key].forms.append(form)
    for group in groups.values():
        if not group.family:
            tally = Counter[str]()
            for form in group.forms:
                tally[form.family] += form.count
            group.family = min(tally, key=lambda family: (-tally[family], family))
    return [groups[key] for key in sorted(groups)]


def _attach_partial_names(groups: list[_Group], forms: list[_Form], language: str) -> list[int]:
    """Attach partial person names to the unique credible full name they can belong to; returns each root.

    Longer names are settled first, so "Anna Pavlovna" joins "Anna Pavlovna Scherer" before "Anna" looks for a
    home (and finds two: Anna Pavlovna and Anna Mikhaylovna, so it stays apart). Alias table entries are never
    moved: the domain has already decided what they are.
    """
    parent = list(range(len(groups)))
    support = [MIN_ANCHOR_SUPPORT if group.entry is not None else group.count for group in groups]

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
        words = groups[other].name_tokens
        # a one-off ending in a word that opens recurring full names is two names glued ("Natasha Pierre")
        return words[-1] not in openers and all(owners[word] - {other} for word in words if word not in part)

    order = sorted(people, key=lambda i: (-len(groups[i].name_tokens), groups[i].name_tokens))
    for index in order:
        tokens = groups[index].name_tokens
        if groups[index].entry is not None or not tokens:
            continue
        matches = [
            other
            for other in people
            if len(groups[other].name_tokens) > max(len(tokens), 1)
            and _is_partial(tokens, groups[other].name_tokens, shared_surnames)
            and credible(other, tokens)
        ]
        if len(tokens) == 1:
            matches = _in_usual_role(tokens[0], matches, groups, lambda i: support[root(i)])
        homes = sorted({root(other) for other in matches})
        if len(homes) == 1:
            parent[index] = homes[0]
            if len(tokens) > 1:  # a lone word lends no support: "Kiev" must not make "Kiev Pierre" a full name
                support[homes[0]] += support[index]
        elif homes:
            names = [" ".join(groups[home].name_tokens) for home in homes]
            logger.debug("name %r fits %d entities %s; kept apart", " ".join(tokens), len(homes), names)
    return [root(i) for i in range(len(groups))]


def _in_usual_role(word: str, matches: list[int], groups: list[_Group], weight: Callable[[int], int]) -> list[int]:
    """Prefer the full names that ``word`` opens, when a recurring one does.

    NER glues the word before a name onto it far more often than the word after ("Kiev Pierre", "Natasha
    Pierre"), so a word that opens a recurring full name ("Pierre Bezukhov") is read as a first name (in
    Hungarian order, a surname), and the spans it closes are not taken as evidence of ambiguity.
    """
    first = [i for i in matches if groups[i].name_tokens[0] == word]
    if any(weight(i) >= MIN_ANCHOR_SUPPORT for i in first):
        return first
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
    """Surnames whose plural or other-gender form was seen ("Rostovs", "Countess Rostova"): several people."""
    last_words = {match_key(form.tokens[-1]) for form in forms}
    return {word for word in last_words if surname_variants(word) & last_words}


def _build(groups: list[_Group], roots: list[int]) -> tuple[list[ResolvedEntity], dict[tuple[str, str], str]]:
    members: dict[int, list[_Group]] = defaultdict(list)
    for index, root in enumerate(roots):
        members[root].append(groups[index])
    entities: dict[str, ResolvedEntity] = {}
    mapping: dict[tuple[str, str], str] = {}
    for root, merged in members.items():
        forms = [form for group in merged for form in group.forms]
        anchor = groups[root]
        canonical = anchor.entry.canonical if anchor.entry is not None else _canonical_name(forms)
        labels = Counter[str]()
        for form in forms:
            labels.update({label: n for label, n in form.labels.items() if label_family(label) == anchor.family})
        label = anchor.entry.label if anchor.entry is not None and anchor.entry.label else None
        label = label or (min(labels, key=lambda lab: (-labels[lab], lab)) if labels else anchor.family)
        entity_id = entity_id_for(anchor.family, canonical)
        aliases = {form.text for form in forms}
        if entity_id in entities:  # two groups chose the same canonical name: they are one entity
            aliases |= set(entities[entity_id].aliases)
        entities[entity_id] = ResolvedEntity(entity_id, canonical, label, tuple(sorted(aliases)))
        for form in forms:
            for form_label in form.labels:
                mapping[(form.text, form_label)] = entity_id
    return [entities[key] for key in sorted(entities)], mapping


def _canonical_name(forms: list[_Form]) -> str:
    """Most informative name: most name tokens, then most mentions, then lexical order of the display name."""
    counts: Counter[str] = Counter()
    lengths: dict[str, int] = {}
    for form in forms:
        name = _name_display(form)
        counts[name] += form.count
        lengths[name] = len(form.name_tokens)
    return min(counts, key=lambda name: (-lengths[name], -counts[name], name))


def _name_display(form: _Form) -> str:
    if form.title_only or len(form.name_tokens) == len(form.tokens):
        return form.display
    display_tokens = form.display.split()
    folded = [match_key(token) for token in form.tokens]
    for start in range(len(folded) - len(form.name_tokens) + 1):
        if tuple(folded[start : start + len(form.name_tokens)]) == form.name_tokens:
            return " ".join(display_tokens[start : start + len(form.name_tokens)])
    return form.display

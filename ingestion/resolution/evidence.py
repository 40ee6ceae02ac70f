"""The evidence the joining rules read: per group of forms (``Node``: its mentions, chapters, titles, sexes, and what
has been gathered under it), per word of the book's names (``Words``: given name or surname, its sex, the full names
holding it), and the whole book (``Book``: the groups, the people among them, the joins made so far and their trace).

Built once from the groups (``Book.of``) before any rule runs; a join (``Book.union``) merges the joined node's
evidence into its new root's and records the rule that made it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from ingestion.names import (
    FEMALE,
    MALE,
    MARRIED,
    UNMARRIED,
    common_given_name_sex,
    genders_compatible,
    noble_ranks,
    offices,
    pronoun_gender,
)
from ingestion.normalize import SURNAME_ENDINGS, WEAK_TITLES, match_key, surname_variants
from ingestion.resolution.forms import INTRODUCED, MIN_ANCHOR_SUPPORT, RANK_SHARE, Form, Group, name_like
from ingestion.resolution.language import Language
from ingestion.resolution.rules.forms import places
from ingestion.resolution.rules.nicknames import spelled_partners, spelled_variant


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One decision of resolution: ``rule`` joined the forms ``forms`` into the entity holding ``into`` (empty for a
    group formed by one rule, or a label given)."""

    rule: str
    forms: tuple[str, ...]
    into: tuple[str, ...] = ()


@dataclass(slots=True)
class Node:
    """A group of forms, and at a root the evidence of all the groups gathered under it."""

    group: Group
    parent: int
    gathered: list[int]
    support: int  # the mentions that make it a home for partial names (``MIN_ANCHOR_SUPPORT``)
    mass: int  # the mentions gathered under it, for dominance
    where: Counter[str]  # mentions per unit (chapter): where the name is said
    genders: set[str]  # the sexes its titles give
    gender_mass: Counter[str]  # the mentions under each of those sexes' titles (``usual_sex``)
    titles: set[str]  # its titles, bar the weak ones
    # how often each title is used with the name: the title a book mostly gives a name is the one that picks its
    # bearer ("Princess Mary", 484 times, is "Princess Mary Bolkonskaya" though she is "Countess Mary" later too)
    title_mass: Counter[str]
    said_sex: str  # the sex the pronouns after its own mentions give ("Kutuzov … he")

    @classmethod
    def of(cls, index: int, group: Group) -> Node:
        """The evidence of one group, alone."""
        title_mass: Counter[str] = Counter()
        for form in group.forms:
            title_mass.update({t: form.count for t in form.titles if t not in WEAK_TITLES})
        return cls(
            group=group,
            parent=index,
            gathered=[index],
            support=MIN_ANCHOR_SUPPORT if group.entry is not None else group.count,
            mass=group.count,
            where=sum((form.units for form in group.forms), Counter[str]()),
            genders={group.gender} - {""},
            gender_mass=Counter({group.gender: group.count}) if group.gender else Counter(),
            titles={t for form in group.forms for t in form.titles if t not in WEAK_TITLES},
            title_mass=title_mass,
            said_sex=pronoun_gender(sum(f.pronouns["he"] for f in group.forms),
                                    sum(f.pronouns["she"] for f in group.forms)),
        )


@dataclass(slots=True)
class Words:
    """What the book says of the words of its people's names."""

    places: set[str]  # one-word places (``rules.forms.places``): no word of a person's name
    shared_surnames: set[str]  # surnames seen in the plural ("the Rostovs"): a bare one may mean several people
    owners: dict[str, set[int]]  # word -> the people whose name holds it
    openers: set[str]  # the first words of recurring full names
    given_names: set[str]  # the words recurring full names mostly have as given name
    surnames: set[str]  # ... and as surname
    given_genders: dict[str, set[str]]  # given name -> its sexes, by titles, pronouns and the usual sex of the name
    lone_mentions: Counter[str]  # a word's mentions said alone
    last_words: set[str]  # the last word of every form
    by_given: dict[str, set[int]] = field(default_factory=dict)  # given name -> the people who have it
    by_prefix: dict[str, set[int]] = field(default_factory=dict)  # its first two letters -> the people


@dataclass(slots=True)
class Book:
    """Every group of a book's forms with its evidence, the people among them, and the joins made so far."""

    groups: list[Group]
    nodes: list[Node]
    people: list[int]  # the person groups written like names
    words: Words
    language: Language
    disabled: frozenset[str] = frozenset()
    trace: list[TraceStep] = field(default_factory=list)
    family_words: set[str] = field(default_factory=set)  # surnames in the plural (``rules.naming.families``)
    # surface text -> the other surface texts said in one sentence with it, and in how many sentences
    together: dict[str, Counter[str]] = field(default_factory=dict)
    # surface text -> the other surface texts the book says are its bearer's too, and in how many sentences
    stated: dict[str, Counter[str]] = field(default_factory=dict)
    by_text: dict[str, Form] = field(default_factory=dict)  # surface text -> its form, for the evidence between forms
    # a partial name ``partial_names`` left between several homes -> those homes, and the full names among its
    # matches that can receive it (not "maybe"), for ``rules.stated.stated_homes``
    undecided: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)

    @classmethod
    def of(cls, groups: list[Group], forms: list[Form], language: Language,
           disabled: Collection[str] = ()) -> Book:
        """The evidence of ``groups``; ``forms`` are all the book's forms (those below the minimum count too)."""
        nodes = [Node.of(i, group) for i, group in enumerate(groups)]
        seen_places = places(forms)
        people = [
            i
            for i, group in enumerate(groups)
            if group.family == "PERSON" and not group.title_only and name_like(group, seen_places)
        ]
        shared = shared_surnames(forms) if language.english_titles and "shared_surnames" not in disabled else set()
        words = _words(groups, nodes, people, forms, language)
        words.places, words.shared_surnames = seen_places, shared
        if "unmarried_when_so_called" not in disabled:
            unmarried_when_so_called(groups, nodes, people, words)
        together = {form.text: form.together for form in forms if form.together}
        stated = {form.text: form.stated for form in forms if form.stated}
        by_text = {form.text: form for group in groups for form in group.forms}
        return cls(groups, nodes, people, words, language, frozenset(disabled), together=together, stated=stated,
                   by_text=by_text)

    def on(self, rule: str) -> bool:
        """Whether ``rule`` is switched on."""
        return rule not in self.disabled

    @property
    def given(self) -> int:
        """Where the given name stands in a full name (``Language.given``)."""
        return self.language.given

    def root(self, index: int) -> int:
        """The group ``index`` has been gathered under (itself when not joined)."""
        while self.nodes[index].parent != index:
            index = self.nodes[index].parent
        return index

    def union(self, index: int, home: int, rule: str) -> None:
        """Gather the root ``index`` under the root ``home``, by ``rule``: its evidence is the home's from now on."""
        joined, into = self.nodes[index], self.nodes[home]
        self.trace.append(TraceStep(rule, _texts(self, joined.gathered), self.groups[home].texts))
        joined.parent = home
        into.gathered.extend(joined.gathered)
        into.mass += joined.mass
        into.where += joined.where
        into.genders |= joined.genders
        into.gender_mass += joined.gender_mass
        into.titles |= joined.titles
        into.title_mass += joined.title_mass

    def surname_of(self, index: int) -> str:
        """The surname of a full name; "" for a lone word."""
        words = self.groups[index].name_tokens
        return words[-1 - self.given] if len(words) > 1 else ""

    def husbands_name(self, index: int) -> bool:
        """Whether the group is a married woman's title before a name, which names her by her husband's ("Mrs. John
        Dashwood", "Mrs. Joe"): the name says nothing of her sex."""
        return self.language.english_titles and self.groups[index].gender == MARRIED

    def genders(self, index: int) -> set[str]:
        """The sexes the titles gathered under the group ``index`` give (``usual_sex``: those said often enough)."""
        node = self.nodes[index]
        return usual_sex(node) if self.on("usual_sex") else node.genders

    def sexes(self, index: int) -> set[str]:
        """What is known of a group's sex: its titles'; for a full name its given name's in the book (titles and
        pronouns, ``Words.given_genders``) and its surname's form where the book has both ("Rostova" beside
        "Rostov"); for a lone word the pronouns after its own mentions (a full name's few mentions say too little)."""
        words = self.groups[index].name_tokens
        genders = self.genders(self.root(index))
        if len(words) == 1:
            return genders | ({self.nodes[index].said_sex} - {""})
        # transliterated Russian
        by_form = surname_sex(words[-1 - self.given], self.words.last_words) if self.language.transliterated else ""
        # a wife named by her husband's name ("Mrs. Bayham Badger") has his given name, whose sex is not hers
        given = set() if self.husbands_name(index) else self.words.given_genders.get(words[self.given], set())
        return genders | given | ({by_form} - {""})

    def usual_titles(self, index: int) -> set[str]:
        """The titles carried by ``RANK_SHARE`` or more of a group's mentions ("Emperor Alexander", 34 of 130): a rank
        held once ("General Bonaparte" among 79 "Bonaparte") says nothing against a later one ("Emperor Napoleon")."""
        home = self.nodes[self.root(index)]
        return {title for title, n in home.title_mass.items() if n >= RANK_SHARE * home.mass}

    def held_ranks(self, index: int) -> set[str]:
        """The men's ranks of nobility (``names.noble_ranks``) said ``INTRODUCED`` times or more with a group's name:
        a rank said once or twice ("Count Kutuzov", once, before he is made a prince) says nothing of another."""
        return noble_ranks(title for title, n in self.nodes[self.root(index)].title_mass.items() if n >= INTRODUCED)

    def held_offices(self, index: int) -> set[str]:
        """The kinds of rank or office before a surname (``names.offices``) said ``INTRODUCED`` times or more with a
        group's name: "Colonel Pyncheon" 28 times is a colonel's, whatever else the family is called."""
        return offices(title for title, n in self.nodes[self.root(index)].title_mass.items() if n >= INTRODUCED)

    def variant(self, a: str, b: str) -> bool:
        """Whether two casefolded given names are a name and one of its pet forms: the nickname table's pairs, and in
        English their other spellings (``rules.nicknames``; the rule ``diminutive_spellings``)."""
        return spelled_variant(a, b, self.language.code, self.on("diminutive_spellings"))

    def candidates(self, tokens: tuple[str, ...]) -> set[int]:
        """The people a name can belong to: those sharing a word with it, or whose given name is a variant of a
        one-word name (its nickname table partners; in Hungarian a pet form keeps the name's first two letters).
        Looking these up, rather than trying every person of the book, keeps resolution near linear: 9,253 forms
        of 8× War and Peace took minutes the other way."""
        found = set().union(*(self.words.owners.get(word, set()) for word in tokens))
        if len(tokens) == 1:
            for partner in spelled_partners(tokens[0], self.language.code, self.on("diminutive_spellings")):
                found |= self.words.by_given.get(partner, set())
            if self.language.shared_given_names:
                found |= self.words.by_prefix.get(tokens[0][:2], set())
        return found


def unmarried_when_so_called(groups: list[Group], nodes: list[Node], people: list[int], words: Words) -> None:
    """Reads a Miss before a given name ("Miss Nelly", "Miss Isabel") as a woman's title, not an unmarried woman's:
    it says she was unmarried when so called, and a novel's girls marry ("Miss Meg" is "Mrs. Brooke" later) or are
    called Mrs. by courtesy (the housekeeper "Miss Nelly", "Mrs. Dean"), so it does not keep her off a "Mrs." with her
    surname. A Miss before a surname ("Miss Bennet", the eldest daughter) stays unmarried beside "Mrs. Bennet".

    Evidence: the title (Miss) and the word's usual role over the recurring full names (``Words.given_names``). The
    sex the book gives the given name itself keeps the Miss: a full name of that given name stays off "Mrs." with
    its surname ("Miss Amy" is not her mother "Mrs. March" through "Amy March").
    """
    for i in people:
        name = groups[i].name_tokens
        if groups[i].gender == UNMARRIED and len(name) == 1 and name[0] in words.given_names:
            nodes[i].genders = {FEMALE}
            nodes[i].gender_mass = Counter({FEMALE: nodes[i].mass})


def usual_sex(node: Node) -> set[str]:
    """Reads a person's sex from the titles said again, not from a title said once among many mentions: a "Mrs.
    Price" said once, gathered under "Fanny Price" (24 mentions), does not make her a married woman whom the "Miss
    Price" said 39 times cannot be. A one-off title can be a slip, another woman of the name or the NER's; what the
    book calls a person again is her title. Returns those sexes.

    Evidence: the mentions under each sex's titles (``Node.gender_mass``): ``MIN_ANCHOR_SUPPORT`` at least, or
    ``RANK_SHARE`` of all the mentions gathered (a title said once of a name said once counts); with the rule off,
    every sex any title gave. "Prince Kutuzov", 40 of 489, keeps him a man.
    """
    return {sex for sex in node.genders
            if node.gender_mass[sex] >= min(MIN_ANCHOR_SUPPORT, RANK_SHARE * node.mass)}


def _texts(book: Book, members: list[int]) -> tuple[str, ...]:
    return tuple(sorted(text for member in members for text in book.groups[member].texts))


def _words(groups: list[Group], nodes: list[Node], people: list[int], forms: list[Form],
           language: Language) -> Words:
    """The book's name words (``Words``), before any join."""
    given = language.given
    owners: dict[str, set[int]] = defaultdict(set)
    by_given: dict[str, set[int]] = defaultdict(set)
    by_prefix: dict[str, set[int]] = defaultdict(set)
    lone_mentions: Counter[str] = Counter()
    for i in people:
        for word in groups[i].name_tokens:
            owners[word].add(i)
        if groups[i].name_tokens:
            by_given[groups[i].name_tokens[given]].add(i)
            by_prefix[groups[i].name_tokens[given][:2]].add(i)
        if len(groups[i].name_tokens) == 1:
            lone_mentions[groups[i].name_tokens[0]] += groups[i].count
    recurring = [i for i in people if len(groups[i].name_tokens) > 1 and nodes[i].support >= MIN_ANCHOR_SUPPORT]
    openers = {groups[i].name_tokens[0] for i in recurring}
    # Each word's usual role, by the mentions of the recurring full names that have it as given name or surname:
    # "Gergely" is a given name ("Bornemissza Gergely", 22) though NER also glued "Gergely Dobó" (2).
    roles: dict[str, Counter[int]] = defaultdict(Counter)
    for i in recurring:
        words = groups[i].name_tokens
        roles[words[given]][given] += nodes[i].support
        roles[words[-1 - given]][-1 - given] += nodes[i].support
    given_names = {word for word, tally in roles.items() if tally[given] >= tally[-1 - given]}
    return Words(
        places=set(), shared_surnames=set(), owners=owners, openers=openers, given_names=given_names,
        surnames=set(roles) - given_names,
        given_genders=_given_genders(groups, people, openers, given_names, language),
        lone_mentions=lone_mentions, last_words={match_key(form.tokens[-1]) for form in forms if form.tokens},
        by_given=by_given, by_prefix=by_prefix,
    )


def _given_genders(groups: list[Group], people: list[int], openers: set[str], given_names: set[str],
                   language: Language) -> dict[str, set[str]]:
    """The sex of given names, from their titled uses in the book: a titled name of several words ("Miss Charlotte
    Temple"), or a titled lone word that opens recurring full names ("Monsieur Pierre"); from the pronouns after the
    name's mentions, summed over the forms that start with it ("Margaret … she", "Margaret Hale … her"); and where
    the book says nothing, in English, from the name's bearers in the world ("Edward Casaubon", five mentions with
    few pronouns after them, is a man, so "Mr. Casaubon" is his). An English married woman's title before a given
    name names her by her husband's ("Mrs. John Dashwood", "Mrs. Joe"): it says nothing of that name's sex, nor do
    the pronouns after it."""
    given = language.given

    def husbands_name(index: int) -> bool:
        return language.english_titles and groups[index].gender == MARRIED

    given_genders: dict[str, set[str]] = defaultdict(set)
    for i in people:
        words = groups[i].name_tokens
        if groups[i].gender and (len(words) > 1 or words[0] in openers) and not husbands_name(i):
            given_genders[words[given]].add(groups[i].gender)
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
    # English given names of recurring full names only: Hungarian ones are settled by the book's own evidence.
    if language.english_titles:
        for word in given_names:
            if not given_genders.get(word) and (sex := common_given_name_sex(word)):
                given_genders[word].add(sex)
    return given_genders


def shared_surnames(forms: list[Form]) -> set[str]:
    """Keeps a surname seen in the plural ("the Rostovs") off any one bearer: a family, several people a bare surname
    may mean. Returns those surnames.

    Evidence: the last words of the forms ("Rostovs" beside "Rostov"). The other-gender form ("Countess Rostova") is
    not such evidence: it is another word, and the women of the family do not make a bare masculine surname ambiguous
    among the men.
    """
    last_words = {match_key(form.tokens[-1]) for form in forms}
    return {word for word in last_words if (surname_variants(word) & last_words) & {word + "s"}}


def surname_sex(surname: str, last_words: set[str]) -> str:
    """The sex a Russian surname's form gives when the book also has the other form ("rostova" is a woman's beside
    "rostov", "rostov" a man's beside "rostova"); "" otherwise."""
    for masculine, feminine in SURNAME_ENDINGS:
        if surname.endswith(feminine) and surname[: -len(feminine)] + masculine in last_words:
            return FEMALE
        if surname.endswith(masculine) and surname[: -len(masculine)] + feminine in last_words:
            return MALE
    return ""


def compatible_sets(a: set[str], b: set[str]) -> bool:
    """Whether every sex of ``a`` can be one person's with every sex of ``b``."""
    return all(genders_compatible(x, y) for x, y in ((x, y) for x in a for y in b))

"""``partial_names``: attach a partial person name (a first name, a surname, a name without its surname, a nickname)
to the one credible entity it can belong to.

Longer names are settled first, so "Anna Pavlovna" joins "Anna Pavlovna Scherer" before "Anna" looks for a home (and
finds two: Anna Pavlovna and Anna Mikhaylovna, so it stays apart). A name's homes are the full names that can hold it
(``fits``), of no other sex; then the narrowing steps (``STEPS``, in order) pick among several; a name left with one
home joins it, and the trace names the step that left it one. Anything ambiguous stays its own entity: a missed merge
costs recall, a wrong one precision, and the graph built on top suffers more from the latter. Alias table entries are
never moved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from ingestion.names import RANKS_BEFORE_SURNAME, genders_compatible, specificity
from ingestion.normalize import is_patronymic
from ingestion.resolution.evidence import Book, compatible_sets
from ingestion.resolution.forms import DOMINANCE, INTRODUCED, MIN_ANCHOR_SUPPORT, NEAR
from ingestion.resolution.rules.apart import (
    elsewhere,
    established,
    given_name_of_the_other_sex,
    his_wifes_name,
    kin_titles_apart,
    named_apart,
    nickname_chains,
    nickname_of_a_one_off,
    rank_fits,
    ranks_apart,
    said_together,
)

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class Partial:
    """A partial name looking for its home: what each narrowing step reads, and the homes it narrows."""

    index: int
    tokens: tuple[str, ...]
    kinds: dict[int, str]  # candidate -> how it can hold the name (``fits``)
    matches: list[int]  # the candidates that can
    homes: list[int]  # the roots of the matches still in the running
    given_only: bool = False  # every match holds the name as a given name
    ranked: tuple[int, ...] = ()  # the homes by mass, before the steps that pick one
    decided_by: str = "partial_names"  # the step that left one home

    @property
    def lone(self) -> bool:
        """A one-word name."""
        return len(self.tokens) == 1


def credible(book: Book, other: int, part: tuple[str, ...]) -> bool:
    """Whether the full name ``other`` is evidence enough to hold ``part``: containment in a longer name ("Michael
    Ilarionovich" in "Michael Ilarionovich Kutuzov") is. A lone first name or surname needs a full name that recurs,
    or whose other words are names seen elsewhere ("Anatole Kuragin", once, but Kuragin is known), not NER noise
    ("Beside Kutuzov")."""
    given, words = book.given, book.groups[other].name_tokens
    if len(part) > 1 or book.nodes[book.root(other)].support >= MIN_ANCHOR_SUPPORT:
        return True
    if book.nodes[other].titles and part[0] != words[given]:
        # a title says a one-off is a person's name, enough for a surname ("Dr. Mortimer": "Dr. James Mortimer"); a
        # given name fits too many one-offs ("Comte Pierre Besouhoff", once, in a letter)
        return True
    # a one-off whose surname is a given name of recurring full names is two names glued ("Natasha Pierre"; in
    # Hungarian order "Jancsi, Gergely" read as "Jancsi Gergely")
    if words[-1 - given] in book.words.given_names:
        return False
    if all(book.words.owners[word] - {other} for word in words if word not in part):
        return True
    # an introduction: the one full name that holds a name, said once, then the name alone again and again ("Carl
    # Linstrum", then "Carl" five times); a name said alone once or twice, or found in several one-off full names
    # ("Pierre" in letters and NER glue), is no such evidence
    fuller = [i for i in book.words.owners[part[0]] if len(book.groups[i].name_tokens) > 1]
    return fuller == [other] and book.words.lone_mentions[part[0]] >= INTRODUCED


def fits(book: Book, index: int, other: int) -> str:
    """How ``other`` can hold ``index``: "given" (the name, its given name, a nickname), "family", "maybe" (a full
    name that fits but whose sex is unknown) or "" (it cannot): the same name with a more specific title ("Andrew"
    in "Prince Andrew"), a part of a longer name in order, a nickname of its given name; never across sexes
    ("Mademoiselle X" and "Monsieur X" stay two), ranks (``ranks_apart``) or kin titles (``kin_titles_apart``),
    between names said together again and again (``said_together``), nor through a nickname's rarer variant
    (``nickname_chains``) or to a full name said once (``nickname_of_a_one_off``)."""
    group, home = book.groups[index], book.groups[other]
    part, full, given = group.name_tokens, home.name_tokens, book.given
    if other == index or not genders_compatible(group.gender, home.gender) or ranks_apart(book, index, other):
        return ""  # "Emperor Alexander" is not "Prince Alexander Golitsyn"
    if kin_titles_apart(book, index, other):
        return ""  # "Uncle George" is not the nephew "George Amberson Minafer"
    if said_together(book, index, other):
        return ""  # "Mr Dedalus" looks at "Stephen": not "Stephen Dedalus"
    titles = book.nodes[index].titles
    if part == full:  # "Captain Eldridge" is not "Miss Eldridge": a title must not contradict the home's
        more_specific = specificity(home.gender) > specificity(group.gender)
        fitting = rank_fits(book, titles, home.gender, book.nodes[book.root(other)].titles)
        return "given" if more_specific and fitting else ""
    if len(full) > max(len(part), 1) and is_partial(part, full, book.words.shared_surnames) and credible(
        book, other, part
    ):
        if part[given] == full[given]:
            if len(part) == 1 and book.language.english_titles and titles and titles <= RANKS_BEFORE_SURNAME:
                return ""  # "Colonel Fitzwilliam" names a surname, not Fitzwilliam Darcy's given name
            return "given"
        # "Mr. Temple" is not "Charlotte Temple": a titled surname joins a full name only if that one is known to be
        # of the same sex (by a title of its own, of a name attached to it, or of its given name elsewhere in the
        # book: "Monsieur Pierre" makes "Pierre Bezukhov" a man). Of unknown sex it still makes the surname
        # ambiguous ("maybe"): it just cannot receive it. A wife named by her husband's name ("Mrs. Bayham Badger")
        # has his given name, whose sex is not hers.
        by_given = set() if book.husbands_name(other) else book.words.given_genders.get(full[given], set())
        known = book.genders(book.root(other)) | by_given
        if not group.gender:
            return "family"
        if not known:
            return "maybe"
        return "family" if compatible_sets({group.gender}, known) else ""
    # A nickname names the bearer of the full given name ("Tommy": Thomas Beresford). A lone name and a lone variant
    # are one person only when one of them is rare beside the other ("Josephine", twice, beside "Jo"); two names
    # both in common use are two people ("Mary" and "Aunt Polly").
    if len(part) == 1 and book.variant(part[0], full[given]) and credible(book, other, part):
        if len(full) > 1 and nickname_of_a_one_off(book, other):
            return ""  # "Emma", 26 times, is not the "Emily Wilkinson" said once
        mine, theirs = book.nodes[index].mass, book.nodes[book.root(other)].mass
        if len(full) == 1 and nickname_chains(book, index, other):
            return ""
        if len(full) > 1 or DOMINANCE * min(mine, theirs) <= max(mine, theirs):
            return "given"
    return ""


def is_partial(part: tuple[str, ...], full: tuple[str, ...], shared_surnames: set[str]) -> bool:
    """Whether ``part`` can be a shorter way of writing ``full`` (shares its first or last name, in order); a
    surname seen in the plural ("the Rostovs") is no shorter way of writing any one of them."""
    if len(part) == 1:
        return full[0] == part[0] or (full[-1] == part[0] and part[0] not in shared_surnames)
    if part[0] != full[0] and part[-1] != full[-1]:
        return False
    remaining = iter(full)
    return all(token in remaining for token in part)


def partial_names(book: Book) -> None:
    """Joins each partial person name to the one credible entity it can belong to: "Anna Pavlovna" and "Scherer" to
    "Anna Pavlovna Scherer", "Tommy" to "Thomas Beresford" (see the module's docstring).

    Evidence: the name's words in order in a full name (``is_partial``) that recurs or is otherwise credible
    (``credible``), a nickname of its given name, the sexes and ranks of both (``fits``).

    Order: longest first; then the most specific title; then the rarest, so that the many small partial names
    ("Bonaparte") have gathered under their full names before a frequent first name ("Napoleon") weighs them.
    """
    groups, nodes = book.groups, book.nodes
    order = sorted(
        book.people, key=lambda i: (-len(groups[i].name_tokens), -specificity(groups[i].gender), groups[i].count, i)
    )
    for index in order:
        tokens = groups[index].name_tokens
        if groups[index].entry is not None or not tokens or nodes[index].parent != index:
            continue
        name = homes_of(book, index)
        for rule, step in STEPS:
            if (not rule or book.on(rule)) and step(book, name) and len(name.homes) == 1:
                name.decided_by = rule
        if len(name.homes) == 1 and any(name.kinds[other] != "maybe" for other in name.matches
                                        if book.root(other) == name.homes[0]):
            home = name.homes[0]
            book.union(index, home, name.decided_by)
            if len(tokens) > 1:  # a lone word lends no support: "Kiev" must not make "Kiev Pierre" a full name
                nodes[home].support += nodes[index].support
        elif name.homes:
            if len(name.homes) > 1:
                # the homes and the full names that can receive the name (not "maybe"), for ``stated_homes``
                receiving = tuple(other for other in name.matches
                                  if name.kinds[other] != "maybe" and book.root(other) in name.homes)
                book.undecided[index] = (tuple(name.homes), receiving)
            names = [" ".join(groups[home].name_tokens) for home in name.homes]
            logger.debug("name %r fits %d entities %s; kept apart", " ".join(tokens), len(name.homes), names)


def homes_of(book: Book, index: int) -> Partial:
    """The homes of a partial name before the narrowing steps: the roots of the candidates that can hold it, of no
    other sex and not his wife's name (``his_wifes_name``). What is known of the name's sex: its titles'; for a
    surname said alone, what its pronouns say, against all that is known of each candidate's ("Bingley … he" is not
    "Miss Bingley"; "Peggotty … she" is Clara Peggotty, not Ham). A given name said alone is called out to as often
    as it is spoken of ("Mary!" he said), so its pronouns are left to the steps that weigh them."""
    tokens = book.groups[index].name_tokens
    kinds = {other: fits(book, index, other) for other in sorted(book.candidates(tokens))}
    name = Partial(index, tokens, kinds, [other for other, kind in kinds.items() if kind], [])
    if name.lone and book.on("usual_role"):
        name.matches = usual_role(book, name)
    surname_alone = name.lone and tokens[0] in book.words.surnames
    own = book.sexes(index) if surname_alone else book.genders(index)
    roots = {book.root(other) for other in name.matches}
    name.homes = sorted(
        roots
        - {index}
        - {home for home in roots
           if not compatible_sets(own, book.sexes(home) if surname_alone else book.genders(home))
           or his_wifes_name(book, index, home) or given_name_of_the_other_sex(book, index, home)}
    )
    return name


def usual_role(book: Book, name: Partial) -> list[int]:
    """Prefers the full names that have a one-word name in its usual role (given name or surname), when a recurring
    one does. NER glues names together ("Kiev Pierre", "Natasha Pierre"; "Gergely Dobó" from "Gergely, Dobó"), so a
    word that is usually a given name ("Pierre" in "Pierre Bezukhov"; "Gergely" in "Bornemissza Gergely", Hungarian
    order) or usually a surname ("Dobó" in "Dobó István") is read in that role, and the spans that put it elsewhere
    are not taken as evidence of ambiguity.

    Evidence: the word's role over the recurring full names (``Words.given_names``, ``Words.surnames``).
    """
    word = name.tokens[0]
    position = -1 - book.given if word in book.words.surnames else book.given
    usual = [i for i in name.matches if book.groups[i].name_tokens[position] == word]
    if any(book.nodes[book.root(i)].support >= MIN_ANCHOR_SUPPORT for i in usual):
        return usual
    return name.matches


def _narrows(name: Partial, homes: list[int]) -> bool:
    changed = homes != name.homes
    name.homes = homes
    return changed


def named_apart_homes(book: Book, name: Partial) -> bool:
    """Drops the homes a titled surname is ``named_apart`` from, when it fits several as a surname only, two of them
    recurring: a one-off full name glued by the NER ("Skinny Philander", once) is no other bearer that "Mr. Samuel T.
    Philander" would have to be told from."""
    if len(name.homes) > 1 and name.lone and not any(name.kinds[other] == "given" for other in name.matches):
        if sum(book.nodes[home].support >= MIN_ANCHOR_SUPPORT for home in name.homes) < 2:
            return False
        return _narrows(name, [home for home in name.homes if not named_apart(book, name.index, home)])
    return False


def usual_title(book: Book, name: Partial) -> bool:
    """Picks the homes bearing the name's titles ("Prince Andrew" → "Prince Andrew Bolkonski", not "Andrew
    Kaysarov"), else the title the book mostly gives it ("Princess Mary", 484 times, beside "Countess Mary" →
    "Princess Mary Bolkonskaya") — only for a name that mostly goes by a title: "Prince Nicholas", 10 of 580
    "Nicholas", does not make every Nicholas the prince.

    Evidence: the titles of the name and of each home, and how often each of the name's titles is said.
    """
    node = book.nodes[name.index]
    if len(name.homes) <= 1 or not node.title_mass:
        return False
    usual = max(node.title_mass, key=lambda title: (node.title_mass[title], title))
    if 2 * node.title_mass[usual] < node.mass:
        return False
    titled = [home for home in name.homes if node.titles <= book.nodes[home].titles]
    return _narrows(name, titled or [home for home in name.homes if usual in book.nodes[home].titles] or name.homes)


def _ranked(book: Book, name: Partial) -> bool:
    """Not a rule: records which homes hold the name as a given name only, and the homes by mass, for the steps
    after it."""
    name.given_only = all(name.kinds[other] == "given" for other in name.matches if book.root(other) in name.homes)
    name.ranked = tuple(sorted(name.homes, key=lambda home: -book.nodes[home].mass))
    return False


def one_person(book: Book, name: Partial) -> bool:
    """Joins full names that share a given name into one person when they can all be one: "Prince Vasili" fits
    "Prince Vasili Kuragin" and "Prince Vasili Sergeevich", one man's name with his surname and with his
    patronymic, not two rivals for it.

    Evidence: one given name, one surname at most and exactly one patronymic over all their forms; their sexes and
    ranks not in conflict. Two surnames, or two patronymics, are two people ("Nicholas Rostov", "Nicholas Andreevich
    Bolkonski"). Not in Hungarian, which has no patronymics.
    """
    if len(name.homes) <= 1 or not name.given_only or book.language.shared_given_names:
        return False
    if not _one_person(book, name.homes):
        return False
    for other in name.ranked[1:]:
        book.union(other, name.ranked[0], "one_person")
    return _narrows(name, list(name.ranked[:1]))


def _one_person(book: Book, homes: list[int]) -> bool:
    given_names: set[str] = set()
    patronymics: set[str] = set()
    surnames: set[str] = set()
    for home in homes:
        for member in book.nodes[home].gathered:
            words = book.groups[member].name_tokens
            if len(words) < 2:
                continue
            given_names.add(words[0])
            patronymics.update(word for word in words[1:] if is_patronymic(word))
            if not is_patronymic(words[-1]):
                surnames.add(words[-1])
    if len(given_names) != 1 or len(patronymics) > 1 or len(surnames) > 1 or not patronymics:
        return False
    return all(
        compatible_sets(book.sexes(a), book.sexes(b)) and not ranks_apart(book, a, b)
        for a in homes
        for b in homes
        if a < b
    )


def dominant_given_name(book: Book, name: Partial) -> bool:
    """Joins a given name that fits several people to the one with ``DOMINANCE`` times the mentions of the next
    ("Andrew": Prince Andrew, not the Andrew Kaysarov of one chapter). In Hungarian, not while another home is a
    person of another family the book names more than once (``established``).

    Evidence: the mentions gathered under each home.
    """
    if len(name.homes) <= 1 or not name.given_only:
        return False
    top, second = name.ranked[0], name.ranked[1]
    if book.nodes[top].mass < DOMINANCE * book.nodes[second].mass:
        return False
    if book.language.shared_given_names and any(established(book, home, top) for home in name.ranked[1:]):
        return False
    return _narrows(name, [top])


def nearest(book: Book, index: int, homes: list[int]) -> int | None:
    """The home in whose chapters the lone name ``index`` is said ``DOMINANCE`` times as often as in any other home's
    (and at least ``NEAR`` times), else None: where the text keeps a name, there is its bearer."""
    where = book.nodes[index].where
    said_near = sorted(((sum(where[unit] for unit in book.nodes[home].where), home) for home in homes), reverse=True)
    best, runner_up = said_near[0][0], said_near[1][0]
    return said_near[0][1] if best >= NEAR and best >= DOMINANCE * runner_up else None


def given_name_near(book: Book, name: Partial) -> bool:
    """Joins a lone given name fitting several people of like mass to the one it is said beside: its mentions in
    that one's chapters number ``DOMINANCE`` times those in any other's, and at least ``NEAR`` ("Holmes" beside
    "Sherlock Holmes" and "Mycroft Holmes"). Not in Hungarian: its given names are shared by too many of a book's
    families in the same chapters ("István": Dobó, Mekcsey, Zoltay …).

    Evidence: the chapters (units) of the name and of each home.
    """
    if len(name.homes) <= 1 or not name.given_only or not name.lone or book.language.shared_given_names:
        return False
    near = nearest(book, name.index, name.homes)
    return near is not None and _narrows(name, [near])


def named_one_off(book: Book, name: Partial) -> bool:
    """Among one-off full names a bare surname fits, picks the one whose given name the book's recurring full names
    use: the others were glued by the NER ("Mekcsey Cece", "Nono Mekcsey" beside "Mekcsey István", each once).

    Evidence: the homes' given names against ``Words.given_names``, their support.
    """
    if len(name.homes) <= 1 or not name.lone or name.given_only:
        return False
    named = [home for home in name.homes if book.groups[home].name_tokens[book.given] in book.words.given_names]
    if len(named) == 1 and all(book.nodes[home].support < MIN_ANCHOR_SUPPORT for home in name.homes
                               if home != named[0]):
        return _narrows(name, named)
    return False


def dominant_surname(book: Book, name: Partial) -> bool:
    """Joins a bare surname of a known sex ("Kutuzov … he") to the one full name of that sex that dominates the others
    by ``DOMINANCE`` times the mentions; of unknown sex ("Bennet": the father and his daughters) it stays apart, and
    a surname seen in the plural ("the Rostovs") never gets here (``is_partial``).

    Evidence: the surname's sex (its pronouns, titles), the top home's, the homes' mentions.
    """
    if len(name.homes) <= 1 or not name.lone or name.given_only:
        return False
    sex, top = book.sexes(name.index), book.sexes(name.ranked[0])
    if sex and top and compatible_sets(sex, top) and (
        book.nodes[name.ranked[0]].mass >= DOMINANCE * book.nodes[name.ranked[1]].mass
    ):
        return _narrows(name, list(name.ranked[:1]))
    return False


def surname_near(book: Book, name: Partial) -> bool:
    """Joins a bare surname of a known sex that no home dominates to the one of that sex whose chapters it is said in
    ("Kutuzov … he", said in Michael Ilarionovich Kutuzov's chapters, not Paul Ivanovich Kutuzov's). Not in
    Hungarian (``given_name_near``).

    Evidence: the surname's sex and chapters, each home's chapters and sex.
    """
    if len(name.homes) <= 1 or not name.lone or name.given_only or book.language.shared_given_names:
        return False
    sex = book.sexes(name.index)
    if not sex or (near := nearest(book, name.index, name.homes)) is None:
        return False
    if book.sexes(near) and compatible_sets(sex, book.sexes(near)):
        return _narrows(name, [near])
    return False


def elsewhere_home(book: Book, name: Partial) -> bool:
    """Drops the one home of a lone name said ``elsewhere``."""
    if len(name.homes) == 1 and name.lone and elsewhere(book, name.index, name.homes[0]):
        return _narrows(name, [])
    return False


# The narrowing steps of ``partial_names``, in order, each by the name of the rule that switches it off; a step
# without one (``_ranked``) records what the later steps read. ``named_apart`` and ``elsewhere`` are keep-apart
# rules (``rules.apart``): switched off, they drop no home.
STEPS: tuple[tuple[str, Callable[[Book, Partial], bool]], ...] = (
    ("named_apart", named_apart_homes),
    ("usual_title", usual_title),
    ("", _ranked),
    ("one_person", one_person),
    ("dominant_given_name", dominant_given_name),
    ("given_name_near", given_name_near),
    ("named_one_off", named_one_off),
    ("dominant_surname", dominant_surname),
    ("surname_near", surname_near),
    ("elsewhere", elsewhere_home),
)

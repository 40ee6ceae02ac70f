"""The joining rules besides ``partial_names``: one name under titles of one sex, two forms of one given name in one
family, a titled surname of a family's one member of its sex, a family's office to the member named in full under
it, a titled surname of a person named without it, the pet and foreign forms of a given name, and a title before an
initial. Each reads the ``Book``'s evidence and joins through ``Book.union``, which records it in the trace."""

from __future__ import annotations

import os
from collections import defaultdict

from ingestion.names import FEMALE, MALE, RANKS_BEFORE_SURNAME, UNMARRIED, genders_compatible, specificity, title_gender
from ingestion.normalize import is_patronymic
from ingestion.resolution.evidence import Book, compatible_sets
from ingestion.resolution.forms import DOMINANCE, FORM_STEM, INTRODUCED, MIN_ANCHOR_SUPPORT, NEAR
from ingestion.resolution.rules.apart import (
    elsewhere,
    given_name_of_the_other_sex,
    his_wifes_name,
    kin_titles_apart,
    named_apart,
    rank_fits,
    ranks_apart,
    said_together,
    surname_of_the_other_sex,
)
from ingestion.resolution.rules.nicknames import clipped_given_names


def same_name_titles(book: Book) -> None:
    """Joins one name under titles of one sex into one person: "Princess Mary", "Countess Mary" and "Mary" — before
    any full name is looked for, so that the bare name weighs with its titled forms. The home is the most specific
    title's, then the most mentioned.

    Keeps apart: namesakes of two sexes ("Monsieur X", "Mademoiselle X") and of conflicting ranks ("Emperor
    Alexander", "Prince Alexander"), which ``partial_names`` settles one by one; a rank a woman rarely held
    (``rank_fits``), a man's name inside his wife's (``his_wifes_name``), a surname of the other sex by its pronouns
    (``surname_of_the_other_sex``), a woman's given name off a man's title or the reverse
    (``given_name_of_the_other_sex``), a kin-titled name of several people's (``kin_titles_apart``), names said together
    again and again (``said_together``). Evidence: the groups' name words and titles.
    """
    same_name: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in book.people:
        if book.groups[i].entry is None:
            same_name[book.groups[i].name_tokens].append(i)
    for members in same_name.values():
        specific = [i for i in members if book.groups[i].gender]
        if len(members) < 2 or not specific:
            continue
        sexes = [book.groups[i].gender for i in specific]
        if not all(genders_compatible(a, b) for a in sexes for b in sexes):
            continue
        if any(ranks_apart(book, a, b) for a in specific for b in specific):
            continue
        home = max(specific, key=lambda i: (specificity(book.groups[i].gender), book.groups[i].count, -i))
        for i in members:
            if (
                i != home
                and rank_fits(book, book.nodes[i].titles, book.groups[home].gender, book.nodes[home].titles)
                and not his_wifes_name(book, i, home)
                and not surname_of_the_other_sex(book, i, home)
                and not given_name_of_the_other_sex(book, i, home)
                and not kin_titles_apart(book, i, home)
                and not said_together(book, i, home)
            ):
                book.union(i, home, "same_name_titles")
                # one name, so its untitled mentions say it recurs: a full name said 20 times and once with a
                # title ("Bornemissza Gergely úrnál", the home) is no one-off that a lone given name may not join
                book.nodes[home].support += book.nodes[i].support


def given_name_forms(book: Book) -> None:
    """Joins two full names of one family whose given names are forms of one name: "Natalie Rostova" beside "Natasha
    Rostova", "Vasili Dmitrich Denisov" beside "Vaska Denisov". The rarer joins the more mentioned.

    Evidence: the other words of one are among the other's, and the given names are a known nickname pair (of sexes
    not contradictory), one is the other cut short ("Balt Van Tassel", "Baltus Van Tassel": ``clipped_given_names``),
    or they share their first three letters and both are known to be of one sex ("Henry" and "Henrietta" are not).
    """
    given = book.given
    families: dict[str, list[int]] = defaultdict(list)
    for i in book.people:
        words = book.groups[i].name_tokens
        if len(words) > 1 and book.groups[i].entry is None and book.nodes[i].parent == i:
            families[words[-1 - given]].append(i)
    for members in families.values():
        members.sort(key=lambda i: (-book.nodes[i].mass, i))
        for position, rarer in enumerate(members):
            for home in members[:position]:
                if (
                    book.nodes[rarer].parent != rarer
                    or book.root(home) == rarer
                    or not forms_of_one_given_name(book, rarer, home)
                ):
                    continue
                book.union(rarer, book.root(home), "given_name_forms")
                break


def forms_of_one_given_name(book: Book, rarer: int, home: int) -> bool:
    """Whether two full names of one surname differ only in the form of the given name (``given_name_forms``)."""
    a, b = book.groups[rarer].name_tokens, book.groups[home].name_tokens
    sex_a, sex_b = book.sexes(rarer), book.sexes(home)
    first, second = a[book.given], b[book.given]
    if first == second or not compatible_sets(sex_a, sex_b):
        return False
    rest_a, rest_b = set(a) - {first}, set(b) - {second}
    if not (rest_a <= rest_b or rest_b <= rest_a):
        return False
    if book.variant(first, second) or (book.on("clipped_given_names") and clipped_given_names(first, second)):
        return True
    shared = len(os.path.commonprefix([first, second]))
    return shared >= 3 and bool(sex_a) and bool(sex_b)


def titled_family_member(book: Book) -> None:
    """Joins a titled surname of a family ("Mr. Morgan", "Miss Morgan", where the book also says "the Morgans") to the
    one member of the family the book names in full and knows to be of the title's sex: "Mr. Morgan" to "Eugene
    Morgan", "Miss Morgan" to his daughter "Lucy Morgan". A surname seen in the plural may mean any of the family
    (``shared_surnames``), so ``partial_names`` leaves it; the title narrows it to the members of one sex.

    Keeps apart: a family with two members the title fits ("Mr. Pocket": Matthew and Herbert Pocket, both men), or
    one of unknown sex (but for a man's title, the family's only member named in full: ``family_head``); a member of
    another or only vaguer sex ("Mrs. Chester" is not "May Chester", a woman not known to be married); a member the
    book names with the same title and given name again and again (``named_apart``) while the title alone is said
    more: that is the head of the family ("Mr. Knightley" beside "Mr. John Knightley"); a rank a woman rarely held
    (``rank_fits``), his wife's name (``his_wifes_name``), a member said together with the title again and again
    (``said_together``: "Mr. Hale" beside his son "Frederick").

    Evidence: the surnames seen in the plural (``Words.shared_surnames``); the title's sex (a man, a married or an
    unmarried woman) against what is known of each member's (``Book.sexes``: titles, pronouns, the given name's);
    the members' support (``MIN_ANCHOR_SUPPORT``).
    """
    for index in book.people:
        home = _family_member(book, index)
        if home is not None:
            # the trace names the step that knew the member's sex when the book did not
            rule = "titled_family_member" if book.sexes(home) else "family_head"
            book.union(index, home, rule)


def _family_member(book: Book, index: int) -> int | None:
    group, node = book.groups[index], book.nodes[index]
    words = group.name_tokens
    if (
        len(words) != 1
        or not group.gender
        or node.parent != index
        or group.entry is not None
        or words[0] not in book.words.shared_surnames
    ):
        return None
    members = _named_in_full(book, index, words[0])
    fitting = [
        home for home in sorted(members)
        if book.nodes[home].support >= MIN_ANCHOR_SUPPORT and compatible_sets({group.gender}, book.sexes(home))
    ]
    if len(fitting) != 1:
        return None
    home = fitting[0]
    # known to be of the title's sex; for "Miss", a woman is enough: a daughter's full name has the family's surname
    # from birth, while a wife's ("Mrs.") is the one she married into, and the title alone is often hers
    known = book.sexes(home)
    if not known and family_head(book, index, members, home):
        known = {MALE}
    if (
        not ({group.gender} | ({FEMALE} if group.gender == UNMARRIED else set())) & known
        or not rank_fits(book, {t for t in node.titles if not title_gender(t)}, group.gender, book.nodes[home].titles)
        or his_wifes_name(book, index, home)
        or (named_apart(book, index, home) and book.nodes[home].mass < node.mass)
        or said_together(book, index, home)
    ):
        return None
    return home


def family_head(book: Book, index: int, members: set[int], home: int) -> bool:
    """Reads a family's one member named in full, of no known sex, as the man a man's titled surname names: "Mr.
    Athelny" (and the "Athelny … he" said with it) is "Thorpe Athelny", the only Athelny the book names in full
    beside "Mrs. Athelny" and "the Athelnys". A man's surname is his from birth and the head of a family is who it is
    called after, while a woman's full name may be her maiden one; so only a man's title is read so.

    Evidence: the title's sex (a man's), the word's usual role (a surname of the book's recurring full names), the
    family's members named in full and said ``MIN_ANCHOR_SUPPORT`` times (exactly one), nothing known of that one's
    sex (titles, pronouns, its given name's in the book or in the world).
    """
    if not book.on("family_head") or book.groups[index].gender != MALE:
        return False
    if book.groups[index].name_tokens[0] not in book.words.surnames:
        return False  # "Mr. Philip" beside a glued "Louvre Philip": a given name, not a family's
    recurring = [member for member in members if book.nodes[member].support >= MIN_ANCHOR_SUPPORT]
    return recurring == [home] and not book.sexes(home)


def _named_in_full(book: Book, index: int, surname: str, titles: frozenset[str] | set[str] = frozenset()) -> set[int]:
    """The homes of the family's members named in full (a given name and ``surname`` as the surname), each form
    carrying every one of ``titles``; ``index``'s own home left out."""
    return {
        book.root(i)
        for i in book.words.owners[surname]
        if len(book.groups[i].name_tokens) > 1 and book.surname_of(i) == surname and titles <= book.nodes[i].titles
    } - {index}


def office_holder(book: Book) -> None:
    """Joins a surname under a rank or office ("Judge Pyncheon", "Captain Clayton") to the one person the book names
    in full under that same rank or office ("Judge Jaffrey Pyncheon"), where the surname is a family's, said in the
    plural ("the Pyncheons"), so that ``partial_names`` leaves it: the office says which member it is.

    Keeps apart: two members under the office, a member of another sex by the name's pronouns, conflicting ranks
    (``ranks_apart``), names said together again and again (``said_together``).

    Evidence: the ranks and offices before the surname (``names.RANKS_BEFORE_SURNAME``) and before the full names;
    the surnames seen in the plural; the sexes.
    """
    for index in book.people:
        home = _office_member(book, index)
        if home is not None:
            book.union(index, home, "office_holder")


def _office_member(book: Book, index: int) -> int | None:
    group, node = book.groups[index], book.nodes[index]
    words = group.name_tokens
    held = node.titles & RANKS_BEFORE_SURNAME
    if (
        len(words) != 1
        or not held
        or node.parent != index
        or group.entry is not None
        or words[0] not in book.words.shared_surnames
    ):
        return None
    holders = _named_in_full(book, index, words[0], titles=held)
    if len(holders) != 1:
        return None
    home = holders.pop()
    if (not compatible_sets(book.sexes(index), book.sexes(home)) or ranks_apart(book, index, home)
            or said_together(book, index, home)):
        return None
    return home


def titled_surname_of_the_unnamed(book: Book) -> None:
    """Joins a titled surname such as "Princess Drubetskaya", whose bearers by full name are all said ``elsewhere``
    ("Julie Drubetskaya", twice, at the end), to the one person of that title and sex whom the book names by given
    name and patronymic only ("Anna Mikhaylovna"): a Russian novel names a woman so, and her surname goes with her
    title alone.

    Evidence: most of the surname's mentions stand in that person's chapters — ``NEAR`` times at least and
    ``DOMINANCE`` times as often as in any other such person's. Not in Hungarian.
    """
    if book.language.shared_given_names:
        return
    for index in book.people:
        if book.nodes[index].parent == index and book.groups[index].entry is None:
            bearer = _unnamed_bearer(book, index)
            if bearer is not None:
                book.union(index, bearer, "titled_surname_of_the_unnamed")


def _unnamed_bearer(book: Book, index: int) -> int | None:
    words = book.groups[index].name_tokens
    if len(words) != 1 or not book.groups[index].gender or words[0] not in book.words.surnames:
        return None
    if not all(elsewhere(book, index, book.root(other)) for other in book.words.owners[words[0]]
               if len(book.groups[other].name_tokens) > 1):
        return None
    node = book.nodes[index]
    unnamed = [
        home
        for home in book.people
        if book.nodes[home].parent == home
        and home != index
        and node.titles <= book.nodes[home].titles
        and _named_without_surname(book, home)
        and compatible_sets(book.sexes(index), book.sexes(home))
    ]
    said_near = sorted(((sum(node.where[unit] for unit in book.nodes[home].where), home) for home in unnamed),
                       reverse=True)
    best, home = said_near[0] if said_near else (0, -1)
    runner_up = said_near[1][0] if len(said_near) > 1 else 0
    return home if best >= NEAR and best >= DOMINANCE * runner_up and 2 * best > node.mass else None


def _named_without_surname(book: Book, home: int) -> bool:
    """Whether the book names a person by given name and patronymic, never with a surname ("Anna Mikhaylovna",
    "Princess Anna Mikhaylovna")."""
    full = [book.groups[m].name_tokens for m in book.nodes[home].gathered if len(book.groups[m].name_tokens) > 1]
    return bool(full) and all(is_patronymic(words[-1]) for words in full)


def other_forms_of_given_names(book: Book) -> None:
    """Joins a one-word name that no other name holds to the person whose given name it is another form of: "Andre"
    (the French form) and "Andrusha" (a Russian pet form) to Prince Andrew, "Platoche" to Platon Karataev.

    Pet and foreign forms keep the start of the name and change its end, and no nickname list has a novel's many
    languages; so the name must share its first ``FORM_STEM`` letters with the given name of recurring full names.

    Evidence: the word-likeness is checked against the book itself: the name is said twice or more, is no given name or
    surname of the book's recurring full names ("Guardsman" beside "Horse Guards" is no name) nor a given name with
    a suffix (a surname or patronymic made of it: "Johnson", "Borisov", "Vasilich"), the bearers of that given name
    are of one person by ``DOMINANCE`` times the mentions, the name is rarer than that person by as much (a pet form
    is the exception, not the rule), of no other sex, and most of its mentions stand in the chapters where that
    person is named — where a name's other form is used, its bearer is. Without chapters (a list of names, not a
    book) nothing joins. Not in Hungarian, whose pet names have their rule (``names.hungarian_pet_name``, in
    ``partial_names``).
    """
    if book.language.shared_given_names:
        return
    given, words = book.given, book.words
    by_stem: dict[str, set[int]] = defaultdict(set)
    for i in book.people:
        word = book.groups[i].name_tokens[given]
        if word in words.given_names and len(word) >= FORM_STEM:
            by_stem[word[:FORM_STEM]].add(i)
    for index in book.people:
        tokens, node = book.groups[index].name_tokens, book.nodes[index]
        if (
            len(tokens) != 1
            or node.parent != index
            or book.groups[index].entry is not None
            or node.mass < MIN_ANCHOR_SUPPORT
            or tokens[0] in words.given_names | words.surnames
            or book.candidates(tokens) - {index}
        ):
            continue
        bearers = by_stem.get(tokens[0][:FORM_STEM], set())
        if any(tokens[0].startswith(book.groups[i].name_tokens[given]) for i in bearers):
            continue  # the whole name and a suffix: a surname or patronymic made of it ("Johnson", "Borisov")
        homes = sorted({book.root(i) for i in bearers} - {index}, key=lambda h: (-book.nodes[h].mass, h))
        if not homes or (len(homes) > 1 and book.nodes[homes[0]].mass < DOMINANCE * book.nodes[homes[1]].mass):
            continue
        home = book.nodes[homes[0]]
        inside = sum(node.where[unit] for unit in home.where)
        if (
            DOMINANCE * node.mass <= home.mass
            and 2 * inside > node.mass
            and compatible_sets(book.sexes(index), book.sexes(homes[0]))
        ):
            book.union(index, homes[0], "other_forms_of_given_names")


def initialled_names(book: Book) -> None:
    """Joins a title before an initial ("Mr. C.", "Mrs. K.") to the one person the book calls by that title before a
    name of that initial, in whose chapters it is said: "Mr. C.", the lawyer Vholes's way of addressing Richard
    Carstone ("Mr. Carstone"), is Richard; "Mrs. K." in Jo's letters is "Mrs. Kirke"; "Miss D." is "Miss Dora". A
    name cut to its initial keeps the title and the first letter, and is said where its bearer is.

    Keeps apart: an initial with no such bearer ("Lord D", a man the book never names); an initial said fewer than
    ``INTRODUCED`` times ("Mrs. B.", once, is Mrs. Bagnet, not the Mrs. Bucket of its chapter); bearers of other
    sexes; two bearers said alike in its chapters.

    Evidence: the title (a form of the bearer's carries the same title before a name of that initial), the sexes,
    the chapters: the initial's mentions in the bearer's chapters more than half of its own and ``DOMINANCE`` times
    those in any other bearer's. English.
    """
    if not book.language.english_titles:
        return
    surnames_by_title: dict[tuple[str, str], set[int]] = defaultdict(set)
    for i in book.people:
        words = book.groups[i].name_tokens
        if words and len(words[-1]) > 1:
            for form in book.groups[i].forms:
                for title in form.titles:
                    surnames_by_title[(title.casefold(), words[-1][0])].add(i)
    for index in book.people:
        group, node = book.groups[index], book.nodes[index]
        words = group.name_tokens
        if (len(words) != 1 or len(words[0]) != 1 or not group.gender or node.parent != index
                or group.entry is not None or node.mass < INTRODUCED):
            continue  # an initial said once or twice ("Mr. L." in one letter) gives its chapters too little to go on
        bearers = set().union(*(surnames_by_title.get((t.casefold(), words[0]), set())
                                for form in group.forms for t in form.titles))
        homes = sorted({book.root(i) for i in bearers} - {index})
        homes = [h for h in homes if compatible_sets({group.gender}, book.sexes(h) | book.genders(h))]
        if not homes:
            continue
        said_near = sorted(((sum(node.where[unit] for unit in book.nodes[h].where), h) for h in homes), reverse=True)
        best, home = said_near[0]
        runner_up = said_near[1][0] if len(said_near) > 1 else 0
        if 2 * best > node.mass and best >= DOMINANCE * runner_up:
            book.union(index, home, "initialled_names")

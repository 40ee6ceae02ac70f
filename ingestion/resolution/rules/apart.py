"""The rules that keep apart: predicates saying two groups cannot be one person, which the joining rules ask before
they join. Each, switched off, says "not apart" — so switching one off can only join more."""

from __future__ import annotations

from ingestion.names import MALE, SURNAME_TITLES, UNMARRIED, common_given_name_sex, rank_conflict, title_gender
from ingestion.resolution.evidence import Book, compatible_sets
from ingestion.resolution.forms import DOMINANCE, INTRODUCED, MIN_ANCHOR_SUPPORT


def ranks_apart(book: Book, a: int, b: int) -> bool:
    """Keeps apart two groups whose titles cannot be one person's: a sovereign's and a lesser rank's ("Emperor
    Alexander", "Prince Alexander"), a Miss's and a titled woman's (``names.rank_conflict``), two men's ranks of
    nobility each said ``INTRODUCED`` times ("Prince Nicholas", "Count Nicholas"), two kinds of office each said
    so ("Colonel Pyncheon", "Judge Pyncheon": a father's rank and his son's office).

    Evidence: the titles carried by ``RANK_SHARE`` of each group's mentions (``Book.usual_titles``), the ranks and
    offices said again and again (``Book.held_ranks``, ``Book.held_offices``).
    """
    if not book.on("ranks_apart"):
        return False
    if rank_conflict(book.usual_titles(a), book.usual_titles(b)):
        return True
    ranks_a, ranks_b = book.held_ranks(a), book.held_ranks(b)
    if ranks_a and ranks_b and ranks_a.isdisjoint(ranks_b):
        return True
    offices_a, offices_b = book.held_offices(a), book.held_offices(b)
    return bool(offices_a and offices_b and offices_a.isdisjoint(offices_b))


# Titles of kinship, given by the family's younger members ("Uncle George", "Aunt March", "Cousin Hepzibah"): they
# say whose relative a person is, not a rank.
KIN_TITLES = frozenset("uncle aunt cousin grandpa grandfather grandma grandmother granny".split())
# Sexless titles of callings women held in the novels of the period.
WOMENS_CALLINGS = frozenset({"nurse"})


def rank_fits(book: Book, ranks: set[str], gender: str, home_titles: set[str]) -> bool:
    """Keeps a rank a woman rarely held in the novels of the period off a woman: "Captain Eldridge", "General Shaw"
    are not "Miss Eldridge" or "Mrs. Shaw", unless she is given it too; beside a man's title it is no objection
    ("General Kutuzov", "Prince Kutuzov"). A kinship or a woman's calling is no such rank: "Aunt Fanny Minafer" is
    "Miss Fanny Minafer". Returns whether the name with these titles fits.

    Evidence: the sexless titles of the name bar kin titles and women's callings, the home's titles, its sex.
    """
    if not book.on("rank_fits") or gender == MALE:
        return True
    # a kinship ("Aunt", "Cousin") or a woman's calling ("Nurse") is no rank; a title of a sex is settled by the sexes
    held = {rank for rank in ranks if not title_gender(rank)} - KIN_TITLES - WOMENS_CALLINGS
    return held <= home_titles


def surname_of_the_other_sex(book: Book, index: int, home: int) -> bool:
    """Keeps a surname said alone off a home of the other sex by its pronouns: "Peggotty … she" (David Copperfield's
    nurse) is not "Mr. Peggotty", her brother. A given name said alone is called out to as often as it is spoken of
    ("Mary!" he said), so its pronouns are not read so.

    Evidence: the pronouns after the surname's own mentions, the home's titles.
    """
    words = book.groups[index].name_tokens
    return (
        book.on("surname_of_the_other_sex")
        and len(words) == 1
        and words[0] in book.words.surnames
        and not compatible_sets(book.sexes(index), {book.groups[home].gender})
    )


def given_name_of_the_other_sex(book: Book, index: int, home: int) -> bool:
    """Keeps a given name said alone off a home whose titles are of the other sex when the book and the world agree on
    the name's sex: "Camilla … she", a woman's name by the counts of its bearers, is not "Mr. Camilla" (her husband,
    called by her name). A given name's own pronouns are not read alone, for it is called out to ("Mary!" he said);
    with the world's count agreeing, they are.

    Evidence: the pronouns after the name's own mentions (``Node.said_sex``), its bearers' usual sex
    (``names.common_given_name_sex``; English), the home's titles.
    """
    words = book.groups[index].name_tokens
    if not book.on("given_name_of_the_other_sex") or len(words) != 1 or not book.language.english_titles:
        return False
    said = book.nodes[index].said_sex
    return bool(said) and said == common_given_name_sex(words[0]) and not compatible_sets({said}, book.genders(home))


def his_wifes_name(book: Book, index: int, home: int) -> bool:
    """Keeps a man's name and the married woman named by it apart, either way round: "Mrs. Joe" is Joe's wife, "Mrs.
    John Dashwood" John Dashwood's, "Mrs Theobald" is not Theobald Pontifex, "Madame St. Aubert" the wife of St.
    Aubert (he). English: a married woman takes her husband's surname, and in the novels of the period his given
    name too.

    Evidence: the home's title (Mrs.), the name's sex by the book's pronouns or its given name's titles; for a lone
    given name, the sex the book gives that given name (its full names, titles, pronouns: "John" of "John Brooke" is
    not "Mrs. John Brooke", though "John!" is called out by as many women as men).
    """
    if not book.on("his_wifes_name") or book.husbands_name(home) == book.husbands_name(index):
        return False
    man = index if book.husbands_name(home) else home
    words = book.groups[man].name_tokens
    given = len(words) == 1 and words[0] in book.words.given_names
    given_sexes = book.words.given_genders.get(words[0], set()) if given else set()
    return MALE in book.sexes(man) | given_sexes


def named_apart(book: Book, index: int, home: int) -> bool:
    """Keeps a titled surname off a full name the book gives, again and again, the same form of address with a given
    name: "Mr. John Knightley" beside "Mr. Knightley" (his elder brother), "Miss Elizabeth Bennet" beside "Miss
    Bennet" (Jane, the eldest), "Mrs. John Dashwood" beside "Mrs. Dashwood" (her mother-in-law). The title before a
    surname alone names the head of the family or its eldest daughter; the others get their given names too.

    Evidence: the full names gathered under the home said ``INTRODUCED`` times or more with a title of the surname's
    sex. English; asked only when the surname has other bearers.
    """
    if not book.on("named_apart") or not book.language.english_titles:
        return False
    sex = {title_gender(title) for title in book.nodes[index].titles & SURNAME_TITLES} - {""}
    if len(sex) != 1:
        return False
    said = sum(
        form.count
        for member in book.nodes[home].gathered
        if len(book.groups[member].name_tokens) > 1
        for form in book.groups[member].forms
        if {title_gender(title) for title in SURNAME_TITLES.intersection(form.titles)} == sex
    )
    return said >= INTRODUCED


def elsewhere(book: Book, index: int, home: int) -> bool:
    """Keeps a lone name off its only home when it belongs to another person: the home is a full name the book
    repeats, yet never in a chapter where the name, ``DOMINANCE`` times as frequent, is said ("Princess
    Drubetskaya", 6 mentions in Book One, is not "Julie Drubetskaya", twice, married at the end; "Emperor Paul" is
    not "Paul Ivanovich Kutuzov").

    Evidence: the chapters of both. A full name said once may introduce the name anywhere; without units (a list of
    names, not a book) nothing is known of chapters.
    """
    name, full = book.nodes[index], book.nodes[home]
    if not book.on("elsewhere") or not name.where or not full.where or full.support < MIN_ANCHOR_SUPPORT:
        return False
    return name.mass >= DOMINANCE * full.mass and not name.where.keys() & full.where.keys()


def established(book: Book, home: int, beside: int) -> bool:
    """Keeps a lone Hungarian given name off its dominant home when another home is a person of another family whom
    the book names more than once ("István": Dobó István beside Mekcsey István). "Bornemissza Gergő" beside
    "Bornemissza Gergely", or beside a lone "Gergely", may be the same person.

    Evidence: the homes' surnames, their support and the mentions of the surname said alone.
    """
    if not book.on("established"):
        return False
    surname = book.surname_of(home)
    if not book.surname_of(beside) or surname == book.surname_of(beside):
        return False
    return book.nodes[home].support >= MIN_ANCHOR_SUPPORT or book.words.lone_mentions[surname] >= MIN_ANCHOR_SUPPORT


def nickname_chains(book: Book, index: int, other: int) -> bool:
    """Keeps a one-word name off a one-word variant it is not the rarer of: the rare form joins the common one, never
    the common one a rare form, nor a rare form gathered under another given name — "Hannah" (118 mentions), a form
    of "Joanna", is not Jo March because "Joanna" (once, also a form of "Jo") joined Jo; "Pip" (332) does not go to
    "Philip" (twice). A variant gathered under a home of its own given name weighs with that home ("Kaszi" joins
    "Kász bég").

    Evidence: the name's mentions against the variant's own, or its home's when that home is of the variant's given
    name; ``DOMINANCE``.
    """
    if not book.on("nickname_chains"):
        return False
    root = book.root(other)
    home = book.groups[root].name_tokens
    own_home = root != other and bool(home) and home[book.given] == book.groups[other].name_tokens[0]
    theirs = book.nodes[root].mass if own_home else book.groups[other].count
    return DOMINANCE * book.nodes[index].mass > theirs


def nickname_of_a_one_off(book: Book, home: int) -> bool:
    """Keeps a nickname off a full name the book says once: "Emma" (26 times, the nursemaid) is not "Emily
    Wilkinson", said once, though "Emma" is a pet form of "Emily"; "Emma", a servant called to once, is not "Miss
    Emily Snow". A pet form names whoever the book calls so, and a full name said once says too little of who that
    is; a name's own words are another matter ("Anatole" of "Anatole Kuragin", said once: ``credible``). Returns
    whether the nickname stays off.

    Evidence: the mentions gathered under the full name (``MIN_ANCHOR_SUPPORT``); "Philip Pirrip", three times, keeps
    "Pip".
    """
    return book.on("nickname_of_a_one_off") and book.nodes[book.root(home)].support < MIN_ANCHOR_SUPPORT


def kin_titles_apart(book: Book, a: int, b: int) -> bool:
    """Keeps a one-word name under a kin title apart from a form of that name without it when the book names several
    people by that name in full: "Uncle George" is George Amberson ("Uncle George Amberson"), not his nephew George
    Amberson Minafer, the "George" of most pages; "Aunt March" is an elder of the Marches named in full ("Jo March",
    "Amy March"), not their mother "Mrs. March". Beside one bearer ("Aunt Carrol", "Mrs. Carrol"; "Cousin John",
    "John Jarndyce") the kin title is one more way to say the name.

    Evidence: the kin titles (``KIN_TITLES``) of the forms as written, on the one-word name and not on the other; the
    full names holding that word in its role (given name or surname) with two other names or more; for a given
    name, one of them given the kin title in full.
    """
    if not book.on("kin_titles_apart"):
        return False
    kin = {i: {t for form in book.groups[i].forms for t in form.titles} & KIN_TITLES for i in (a, b)}
    titled = [i for i in (a, b) if kin[i]]
    if len(titled) != 1 or len(book.groups[titled[0]].name_tokens) != 1:
        return False
    word = book.groups[titled[0]].name_tokens[0]
    role = -1 - book.given if word in book.words.surnames else book.given
    full = [
        i
        for i in book.words.owners.get(word, ())
        if len(book.groups[i].name_tokens) > 1 and book.groups[i].name_tokens[role] == word
    ]
    if len({book.groups[i].name_tokens[-1 - role] for i in full}) < 2:
        return False
    return role != book.given or any(
        kin[titled[0]] & {t for form in book.groups[i].forms for t in form.titles} for i in full
    )


def said_together(book: Book, a: int, b: int) -> bool:
    """Keeps apart two names when a titled name of one and a given name of the other are said in one sentence again
    and again: "Mr Dedalus" and "Stephen" ("Mr Dedalus looked at Stephen"), "Mr. Laurence" and "Laurie", "Mr. Carey"
    and "Philip" are a father or an uncle beside the son or nephew whose surname he bears — one person is seldom
    called by title and by given name in one sentence, two people of one family often are. A name is weighed with
    what its home will gather: the one-word given names of its full names ("Mr Dedalus" is kept off "Stephen
    Dedalus" before "Stephen", said apart, joins it).

    Evidence: the sentences holding a mention of each (``SurfaceForm.cooccurring``), ``INTRODUCED`` at least, of a
    titled one-word name and an untitled one-word name without a word in common. Not so: an apposition said once or
    twice, one name said again ("Mr. Snagsby" … "Snagsby"), two untitled names ("Napoleon" … "Bonaparte": the
    narrator's variety), a Miss before a surname ("Miss Hale" … "Margaret": the young woman herself, titled in
    speech and named in the narration), a home mostly said without its title (``_mostly_titled``), the given name of
    a husband in his wife's name ("Mrs. George Osborne" is not called "George").
    """
    if not book.on("said_together"):
        return False
    side_a = _named_by(book, a)
    side_b = _named_by(book, b) - side_a
    return any(
        n >= INTRODUCED and other in side_b and _title_and_given_name(book, form, other)
        and _mostly_titled(book, a if book.by_text[form].titles else b)
        for form in (side_a if side_b else ())
        for other, n in book.together.get(form, {}).items()
    )


def _mostly_titled(book: Book, index: int) -> bool:
    """Whether the forms gathered under ``index``'s home are said with a title at least as often as without one: a
    surname mostly said bare ("Bezukhov", 39 times, beside "Count Bezukhov", 24) is how the book calls the family's
    best-known member, whom the title alone does not tell from his father."""
    root = book.nodes[book.root(index)]
    forms = [form for member in root.gathered for form in book.groups[member].forms]
    return 2 * sum(form.count for form in forms if form.titles) >= sum(form.count for form in forms)


def _title_and_given_name(book: Book, one: str, other: str) -> bool:
    """Whether of two surface texts one is a title before a one-word name ("Mr Dedalus") and the other a one-word
    name alone ("Stephen"), without a word in common."""
    first, second = book.by_text.get(one), book.by_text.get(other)
    if first is None or second is None or len(first.name_tokens) != 1 or len(second.name_tokens) != 1:
        return False
    if first.name_tokens == second.name_tokens:
        return False
    if first.title_only or second.title_only or bool(first.titles) == bool(second.titles):
        return False
    # a Miss before a surname is the young woman the narrator also calls by her given name, not her elder
    return UNMARRIED not in {first.gender, second.gender}


def _named_by(book: Book, index: int) -> set[str]:
    """The surface texts of the forms gathered under ``index``'s home, and of the one-word names that are the given
    names of its full names: what the home is called and will be."""
    root = book.nodes[book.root(index)]
    texts = {text for member in root.gathered for text in book.groups[member].texts}
    for member in root.gathered:
        words = book.groups[member].name_tokens
        # a wife named by her husband's name ("Mrs. George Osborne") is not called by his given name
        if len(words) > 1 and not book.husbands_name(member):
            given = words[book.given]
            texts.update(text for lone in book.words.owners.get(given, ())
                         if book.groups[lone].name_tokens == (given,) for text in book.groups[lone].texts)
    return texts

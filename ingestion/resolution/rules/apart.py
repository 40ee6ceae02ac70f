"""The rules that keep apart: predicates saying two groups cannot be one person, which the joining rules ask before
they join. Each, switched off, says "not apart" — so switching one off can only join more."""

from __future__ import annotations

from ingestion.names import MALE, SURNAME_TITLES, rank_conflict, title_gender
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


def rank_fits(book: Book, ranks: set[str], gender: str, home_titles: set[str]) -> bool:
    """Keeps a rank a woman rarely held in the novels of the period off a woman: "Captain Eldridge", "General Shaw"
    are not "Miss Eldridge" or "Mrs. Shaw", unless she is given it too; beside a man's title it is no objection
    ("General Kutuzov", "Prince Kutuzov"). Returns whether the name with these sexless titles fits.

    Evidence: the titles of the name and of its home, the sex of the home.
    """
    return not book.on("rank_fits") or gender == MALE or ranks <= home_titles


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


def his_wifes_name(book: Book, index: int, home: int) -> bool:
    """Keeps a man's name off the married woman named by it: "Mrs. Joe" is Joe's wife, "Mrs. John Dashwood" John
    Dashwood's, "Madame St. Aubert" the wife of St. Aubert (he). English: a married woman takes her husband's
    surname, and in the novels of the period his given name too.

    Evidence: the home's title (Mrs.), the name's sex by the book's pronouns or its given name's titles.
    """
    return (
        book.on("his_wifes_name")
        and book.husbands_name(home)
        and not book.husbands_name(index)
        and MALE in book.sexes(index)
    )


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

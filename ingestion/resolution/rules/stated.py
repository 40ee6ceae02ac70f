"""The names a book says are one person's: a pseudonym, an alias, a name others give, a maiden and a married name,
joined where a sentence of the book says so and nowhere else."""

from __future__ import annotations

from ingestion.names import FEMALE, MARRIED, UNMARRIED
from ingestion.resolution.evidence import Book, compatible_sets


def stated_names(book: Book) -> None:
    """Joins two names a sentence of the book says are one person's: "Abel Magwitch, otherwise Provis", "Mr. Weevle,
    otherwise Jobling", "Umbopa, alias Ignosi", "Mrs. McMull (formerly Miss Swartz)", "Miss Ada Clare, now Mrs.
    Richard Carstone". A pseudonym shares no word with the name and a married name no surname, so no rule reading
    the names can join them; the book's own statement can, said once. The less mentioned joins the more; the last of
    the joins, so that each name has gathered its other forms first.

    Keeps apart: names of two sexes by their titles, pronouns and given names (a Miss and a Mrs. count as one woman
    here: the statement says she married); a group of the alias table's, which nothing moves.

    Evidence: ``SurfaceForm.stated`` (``ingestion.evidence.stated_sql``: the words between two names of one sentence,
    ``names.NAMED_ALSO``). English patterns.
    """
    group_of = {text: i for i in book.people for text in book.groups[i].texts}
    for text, others in sorted(book.stated.items()):
        for other in sorted(others):
            first, second = group_of.get(text), group_of.get(other)
            if first is None or second is None:
                continue
            roots = sorted({book.root(first), book.root(second)}, key=lambda i: (-book.nodes[i].mass, i))
            if len(roots) < 2 or any(book.groups[root].entry is not None for root in roots):
                continue
            if compatible_sets(_one_woman(book.sexes(first)), _one_woman(book.sexes(second))):
                book.union(roots[1], roots[0], "stated_names")


def _one_woman(sexes: set[str]) -> set[str]:
    """The sexes with a married and an unmarried woman's read as a woman's."""
    return {FEMALE if sex in (MARRIED, UNMARRIED) else sex for sex in sexes}


def stated_homes(book: Book) -> None:
    """Joins a partial name that ``partial_names`` left between several homes once the later joins have made those
    homes one person: "Tony" fits "Tony Jobling" and "Mr. Tony Weevle", two people for the names alone, until the
    book says "Mr. Weevle, otherwise Jobling" (``stated_names``); then its one home is that person. Run after the
    last join, so in practice after the book's own statements.

    Keeps apart: a name whose homes are still two people or more; a name fitting its homes only as full names of
    unknown sex ("maybe": such a home cannot receive it, as in ``partial_names``); a name joined meanwhile.

    Evidence: the homes ``partial_names`` found for the name (``Book.undecided``: its words in order in each, of no
    other sex or rank, past the keep-apart rules asked there) and the joins made since.
    """
    for index, (homes, receiving) in sorted(book.undecided.items()):
        roots = {book.root(home) for home in homes}
        if len(roots) == 1 and book.root(index) == index and roots & {book.root(other) for other in receiving}:
            book.union(index, roots.pop(), "stated_homes")

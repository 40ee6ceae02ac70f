"""Quality of pronoun and description links on LitBank's coreference layer (75 book openings).

    .venv/bin/python bench/quality_coref.py [--litbank ../shared/data/litbank] [--names gold|ner]
                                            [--entities resolver|gold] [--tune] [--books] [--errors N]

Each book's opening is read in its original text, paragraphs and all (``bench/quality_quotes.py`` maps LitBank's
tokens there). The person names given to ``ingestion.coref.resolve_references`` are LitBank's proper-name mentions of
people (``--names gold``) or csillag's English NER's (``ner``: trained on these books, an optimistic figure); they
are grouped into entities by csillag's resolver (``--entities resolver``, the pipeline's way) or by the gold chains
(``gold``: a perfect resolver). The quotations and their speakers are the quotes stage's own
(``ingestion.quotes``), never the gold ones.

- **Recall** (the issue's figure): over the gold pronouns of people he/him/his/himself/she/her/hers/herself whose
  gold chain holds a proper name of a person, the share linked to an entity whose names lie in that chain (the chain
  that holds most of the entity's name mentions in the excerpt).
- **Precision**: of every link made to a gold mention of a person (any pronoun, or a description), the share right
  by the same test; a link to a pronoun whose chain has no name is wrong.
- The first- and second-person pronouns inside quotations, and descriptions, are reported apart.
- **Why wrong**: each pronoun not linked to its chain gets one class (``error_class``), printed with the figures;
  ``--errors N`` prints N of them with their class and text.
- ``--tune``: the parameters of ``GRID`` (the reaches, ``SALIENCE_RATIO``, ``POSSESSIVE_NEAREST``) chosen 5-fold
  (book i in fold i % 5), held-out pooled; with ``--books`` each book's held-out figure, so a gain made by one book
  shows.

Never a test: it measures and prints.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import itertools
import logging
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from quality_quotes import Book, book_stems, load_book, ner_names, region  # noqa: E402

from ingestion.coref import references as references_module  # noqa: E402
from ingestion.coref.references import THIRD_PERSON, Reference, Speech, resolve_references  # noqa: E402
from ingestion.quotes import attribute, find_quotations  # noqa: E402
from ingestion.relations.sentences import PersonMention, sentence_spans  # noqa: E402
from ingestion.relations.sexes import person_sexes  # noqa: E402
from ingestion.resolution import SurfaceForm, resolve_entities  # noqa: E402

FOLDS = 5
# values no fold chose once pronouns looked ahead too (decision 0033's first grid: reach 40 or 60, unknown reach 2,
# look-ahead 0 or 10; a paragraph limit since 0020) are no longer searched: --tune takes ~10-25 minutes
GRID: dict[str, tuple[float, ...]] = {
    "SENTENCE_REACH": (10, 15, 25), "PARAGRAPH_REACH": (100,), "UNKNOWN_REACH": (0, 1), "CATAPHORA_REACH": (40, 100),
    "SALIENCE_RATIO": (0, 1.5, 2, 3), "POSSESSIVE_NEAREST": (0, 1),
}
SHIPPED = {name: getattr(references_module, name) for name in GRID}
QUOTED_PERSONS = frozenset({"i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself"})


def people_of(book: Book, text: str, base: int, names_mode: str, entities_mode: str) -> list[PersonMention]:
    """The person names of the region with an entity id each."""
    if names_mode == "gold":
        spans = sorted({(s - base, e - base) for s, e, _, kind in book.mentions
                        if kind == "PROP" and base <= s < base + len(text)})
    else:
        spans = sorted(set(_ner_names(text)))
    if entities_mode == "gold":
        chain = {(s - base, e - base): entity for s, e, entity, _ in book.mentions}
        return [PersonMention(s, e, chain.get((s, e), f"?{text[s:e]}")) for s, e in spans]
    counts = Counter(text[s:e] for s, e in spans)
    _, mapping = resolve_entities([SurfaceForm(t, "PERSON", n) for t, n in counts.items()], language="en")
    return [PersonMention(s, e, mapping[(text[s:e], "PERSON")]) for s, e in spans if (text[s:e], "PERSON") in mapping]


@functools.cache
def _ner_names(text: str) -> tuple[tuple[int, int], ...]:
    """The NER's person spans of a book's region, read once for every grid point of ``--tune``."""
    return tuple(ner_names(text))


def speeches_of(text: str, people: Sequence[PersonMention]) -> list[Speech]:
    """The quotes stage's quotations of ``text`` with speakers and addressees as entity ids."""
    entity_at = {(m.start, m.end): m.entity_id for m in people}
    found = attribute(text, find_quotations(text), sorted(entity_at))
    return [
        Speech(a.quote.start, a.quote.end, entity_at.get(a.speaker) if a.speaker else None,
               tuple(entity_at[s] for s in a.addressees if s in entity_at))
        for a in found
    ]


def score_book(book: Book, names_mode: str, entities_mode: str, errors: list[str]) -> Counter[str]:
    """Counts of one book: gold pronouns, right links, links made, by pronoun."""
    text, base = region(book)
    people = people_of(book, text, base, names_mode, entities_mode)
    speeches = speeches_of(text, people)
    links = resolve_references(text, people, speeches)
    gold_at = {(s - base, e - base): entity for s, e, entity, _ in book.mentions}
    named_chains = {entity for _, _, entity, kind in book.mentions if kind == "PROP"}
    chain_of_entity: dict[str, Counter[str]] = defaultdict(Counter)
    for m in people:  # a NER span need not have a gold mention's exact offsets: the one it overlaps most
        chain = gold_at.get((m.start, m.end)) or _overlapping(book, m.start + base, m.end + base)
        if chain:
            chain_of_entity[m.entity_id][chain] += 1
    chains = {entity_id: _chain(chain_of_entity, entity_id) for entity_id in chain_of_entity}
    counts: Counter[str] = Counter()
    linked = {(r.start, r.end): r for r in links}
    for s, e, entity, kind in book.mentions:
        if not (book.start <= s < book.end) or kind != "PRON":
            continue
        word = book.text[s:e].casefold()
        if word not in THIRD_PERSON or entity not in named_chains:
            continue
        link = linked.get((s - base, e - base))
        right = link is not None and _chain(chain_of_entity, link.entity_id) == entity
        counts["gold"] += 1
        counts[f"gold:{word}"] += 1
        counts["right"] += right
        counts[f"right:{word}"] += right
        if not right:
            why = error_class(Wrong(text, s - base, THIRD_PERSON[word], entity, link), people, links, chains, speeches)
            counts[f"class:{why}"] += 1
            if len(errors) < 10_000:
                got = next((text[m.start:m.end] for m in people if link and m.entity_id == link.entity_id), "-")
                errors.append(f"{why[:28]:28} {book.name[:24]:24} {word:8} gold={entity:24} got={got:24} "
                              f"{book.text[max(s - 70, 0):s + 10]!r}")
    for link in links:
        gold = gold_at.get((link.start, link.end))
        if gold is None or not (book.start <= link.start + base < book.end):
            continue
        word = text[link.start:link.end].casefold()
        group = "quoted" if word in QUOTED_PERSONS else link.kind
        counts[f"made:{group}"] += 1
        counts[f"made_right:{group}"] += _chain(chain_of_entity, link.entity_id) == gold
    return counts


@dataclass(frozen=True)
class Wrong:
    """A gold pronoun of a named person not linked to its chain: where, its sex, its gold chain, the link made."""

    text: str
    offset: int
    sex: str
    chain: str
    link: Reference | None


def error_class(
    wrong: Wrong, people: Sequence[PersonMention], links: Sequence[Reference], chains: dict[str, str | None],
    speeches: Sequence[Speech],
) -> str:
    """Why a pronoun is not linked to its chain, first cause first: the right entity is no candidate (never named,
    named only later, not within ``SENTENCE_REACH``, of the other sex by the document's evidence), no link made, or
    another candidate chosen (a name that is no gold person, one of unknown sex, a more recent one, one of the same
    sentence). ``in quotation`` is added when the pronoun is inside one."""
    text, offset = wrong.text, wrong.offset
    rights = {entity_id for entity_id, chain in chains.items() if chain == wrong.chain}
    sentence_starts = [start for start, _ in sentence_spans(text)]

    def sentence(at: int) -> int:
        return bisect.bisect_right(sentence_starts, at) - 1

    before = [(m.start, m.entity_id) for m in people if m.start < offset]
    before += [(r.start, r.entity_id) for r in links if r.start < offset]
    near = [(start, entity_id) for start, entity_id in before
            if sentence(offset) - sentence(start) <= references_module.SENTENCE_REACH]
    sexes = person_sexes(text, people)
    quoted = " in quotation" if any(q.start <= offset < q.end for q in speeches) else ""
    if not rights:
        why = "A right person never named"
    elif not any(entity_id in rights for _, entity_id in before):
        why = "B named only after the pronoun"
    elif not any(entity_id in rights for _, entity_id in near):
        why = "C not within reach"
    elif all(sexes.get(entity_id, "") not in (wrong.sex, "") for entity_id in rights):
        why = "D right person of the other sex"
    elif wrong.link is None:
        why = "E no link"
    else:
        got = wrong.link.entity_id
        last = {entity_id: sentence(start) for start, entity_id in sorted(near)}
        right_last = max(last.get(entity_id, -1) for entity_id in rights)
        if chains.get(got) is None:
            why = "F a name of no gold person"
        elif not sexes.get(got):
            why = "G one of unknown sex"
        elif last.get(got, -1) > right_last:
            why = "H a more recent one"
        else:
            why = "I one of the same sentence" if last.get(got, -1) == right_last else "J an earlier one"
    return why + quoted


def _overlapping(book: Book, start: int, end: int) -> str | None:
    """The chain of the gold person mention overlapping ``[start, end)`` most, or None."""
    best, chain = 0, None
    for s, e, entity, _ in book.mentions:
        overlap = min(e, end) - max(s, start)
        if overlap > best:
            best, chain = overlap, entity
    return chain


def _chain(chain_of_entity: dict[str, Counter[str]], entity_id: str) -> str | None:
    chains = chain_of_entity.get(entity_id)
    return chains.most_common(1)[0][0] if chains else None


def report(title: str, counts: Counter[str]) -> None:
    """Print one block of figures."""
    share = counts["right"] / max(counts["gold"], 1)
    print(f"{title}: pronouns of named people {counts['gold']}, linked right {share:.3f}")
    print("    by pronoun: " + ", ".join(
        f"{w} {counts[f'right:{w}'] / counts[f'gold:{w}']:.3f} ({counts[f'gold:{w}']})"
        for w in THIRD_PERSON if counts[f"gold:{w}"]))
    wrong = counts["gold"] - counts["right"]
    for why in sorted(key for key in counts if key.startswith("class:")):
        print(f"    wrong, {why[6:]}: {counts[why]} ({counts[why] / max(wrong, 1):.1%} of the wrong)")
    for group in ("pronoun", "quoted", "nominal"):
        made = counts[f"made:{group}"]
        if made:
            print(f"    links to gold people, {group}: {made}, precision {counts[f'made_right:{group}'] / made:.3f}")


def main() -> int:
    """Score every book; print the figures overall, per fold and (``--books``) per book."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--litbank", type=Path, default=ROOT.parent / "shared" / "data" / "litbank")
    parser.add_argument("--names", choices=("gold", "ner"), default="gold")
    parser.add_argument("--entities", choices=("resolver", "gold"), default="resolver")
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="run with a parameter of GRID set to VALUE (exploration; --tune is the figure to quote)")
    parser.add_argument("--books", action="store_true", help="print each book's figure")
    parser.add_argument("--errors", type=int, default=0, help="print this many wrong or missing links")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if not (args.litbank / "coref").is_dir():
        print(f"LitBank coreference not found under {args.litbank}: nothing to measure", file=sys.stderr)
        return 2
    books = [load_book(args.litbank, stem) for stem in book_stems(args.litbank)]
    for setting in args.set:
        name, _, value = setting.partition("=")
        if not (name.isupper() and isinstance(getattr(references_module, name, None), int | float)):
            parser.error(f"--set {setting!r}: not a numeric parameter of ingestion.coref.references")
        setattr(references_module, name, float(value) if "." in value else int(value))
    if args.tune:
        cross_validate(books, args.names, args.entities, args.books)
        return 0
    total: Counter[str] = Counter()
    by_fold: dict[int, Counter[str]] = defaultdict(Counter)
    errors: list[str] = []
    for i, book in enumerate(books):
        counts = score_book(book, args.names, args.entities, errors)
        total.update(counts)
        by_fold[i % FOLDS].update(counts)
        if args.books:
            print(f"  {book.name[:40]:40} {counts['right']:4}/{counts['gold']:4}")
    report(f"all {len(books)} books, names={args.names}, entities={args.entities}, shipped parameters", total)
    for fold, c in sorted(by_fold.items()):
        print(f"  fold {fold}: {c['gold']} pronouns, linked right {c['right'] / max(c['gold'], 1):.3f}")
    for line in errors[: args.errors]:
        print(line)
    return 0


def cross_validate(books: Sequence[Book], names_mode: str, entities_mode: str, by_book: bool = False) -> None:
    """Each fold scored with the grid point that did best on the other four; pooled held-out figures."""
    grid = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    per_book: list[list[Counter[str]]] = []
    for point in grid:
        for name, value in point.items():
            setattr(references_module, name, value)
        per_book.append([score_book(book, names_mode, entities_mode, []) for book in books])
        pooled = sum(per_book[-1], Counter())
        print(f"  {point}: linked right {pooled['right'] / pooled['gold']:.3f}")
    for name, value in SHIPPED.items():
        setattr(references_module, name, value)
    held_out: Counter[str] = Counter()
    for fold in range(FOLDS):

        def recall(g: int, fold: int = fold) -> float:
            c = sum((x for i, x in enumerate(per_book[g]) if i % FOLDS != fold), Counter())
            return c["right"] / max(c["gold"], 1)

        best = max(range(len(grid)), key=recall)
        fold_counts = sum((x for i, x in enumerate(per_book[best]) if i % FOLDS == fold), Counter())
        for i in range(fold, len(books), FOLDS) if by_book else ():
            print(f"    {books[i].name[:40]:40} {per_book[best][i]['right']:4}/{per_book[best][i]['gold']:4}")
        held_out.update(fold_counts)
        print(f"  fold {fold}: chose {grid[best]} (train {recall(best):.3f}), held out "
              f"{fold_counts['right'] / max(fold_counts['gold'], 1):.3f}")
    report(f"5-fold held-out, names={names_mode}, entities={entities_mode}", held_out)


if __name__ == "__main__":
    sys.exit(main())

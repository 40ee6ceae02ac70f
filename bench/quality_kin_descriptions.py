"""Kinship descriptions linked to characters ("her father" -> Mr. Hale) on LitBank's coreference layer.

    .venv/bin/python bench/quality_kin_descriptions.py [--litbank ../shared/data/litbank] [--names gold|ner]
                                                       [--entities resolver|gold] [--errors N]

Each of the 75 book openings is read in its original text (``bench/quality_quotes.py`` maps LitBank's tokens there),
with person names and entities as ``bench/quality_coref.py`` gives them (``--names gold``: LitBank's proper names,
``ner``: csillag's NER; ``--entities resolver``: csillag's resolver, ``gold``: the gold chains), the quotes stage's
quotations and the pronoun links of ``ingestion.coref``. ``ingestion.relations.descriptions`` links the kinship
descriptions it reads ("his wife", "George's mother", "my father" in a told speaker's quotation) to a person.

- **Links**: a description linked to an entity whose names lie in the gold chain of the description's mention is
  right; one whose mention is in no chain or in another, wrong (a floor: LitBank leaves a description that is part
  of a longer phrase unannotated).
- **Recall**: over the gold descriptions the module reads (a possessor, a singular kinship noun of a sex and of a
  tie a family name can tell) whose chain holds a proper name in the excerpt, the share linked right.
- **Ties**: links whose possessor is right too (the relation the statement makes).

Never a test: it measures and prints.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from quality_coref import _chain, _overlapping, people_of, speeches_of  # noqa: E402
from quality_quotes import Book, book_stems, load_book, region  # noqa: E402

from graph.kinship import kinship_words  # noqa: E402
from ingestion.coref.references import resolve_references  # noqa: E402
from ingestion.relations.descriptions import (  # noqa: E402
    BY_FAMILY_NAME,
    Families,
    agreed,
    description_regex,
    description_statements,
)
from ingestion.relations.sexes import person_sexes  # noqa: E402

WORDS = kinship_words("en")


def score_book(book: Book, names_mode: str, entities_mode: str, errors: list[str]) -> Counter[str]:
    """One opening's counts: gold descriptions of named people, links made, right, ties right."""
    text, base = region(book)
    people = people_of(book, text, base, names_mode, entities_mode)
    speeches = speeches_of(text, people)
    pronouns = {r.start: r.entity_id for r in resolve_references(text, people, speeches) if r.kind == "pronoun"}
    told = {(s.start, s.end): s.speaker_id for s in speeches}

    def speaker_at(offset: int) -> str | None:
        return next((who for (start, end), who in told.items() if start <= offset < end), None)

    families = Families.of(text, people, person_sexes(text, people))
    statements = agreed(description_statements(text, people, WORDS, families, pronouns, speaker_at), [])
    gold_at = {(s - base, e - base): entity for s, e, entity, _ in book.mentions}
    named = {entity for _, _, entity, kind in book.mentions if kind == "PROP"}
    chains: dict[str, Counter[str]] = defaultdict(Counter)
    for m in people:
        chain = gold_at.get((m.start, m.end)) or _overlapping(book, m.start + base, m.end + base)
        if chain:
            chains[m.entity_id][chain] += 1
    counts: Counter[str] = Counter()
    for match in description_regex(WORDS).finditer(text):
        kin = WORDS[match.group("kin").casefold()]
        start = match.start() if match.group("owner") is None else None
        owner = next((m for m in people if m.end in (match.start("owner"), match.end("owner"))), None)
        start = owner.start if owner is not None else start
        if (
            start is None
            or not (book.start <= start + base < book.end)
            or kin.type not in BY_FAMILY_NAME
            or not kin.sex
        ):
            continue
        counts["gold_named"] += gold_at.get((start, match.end())) in named
    for row in statements:
        if not (book.start <= row.start + base < book.end):
            continue
        gold = gold_at.get((row.start, row.end))
        right = gold is not None and _chain(chains, row.src_id) == gold
        possessor_span = (row.start, row.start + len(text[row.start : row.end].split()[0]))
        possessor_gold = gold_at.get(possessor_span) or _overlapping(book, row.start + base, row.start + base + 1)
        counts["made"] += 1
        counts["right"] += right
        counts["tie_right"] += right and _chain(chains, row.dst_id) == possessor_gold
        if not right:
            errors.append(
                f"{book.name[:24]:24} {text[row.start : row.end]!r:28} gold={gold} got={_chain(chains, row.src_id)}"
            )
    return counts


def main() -> int:
    """Score every opening and print the totals."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--litbank", type=Path, default=ROOT.parent / "shared" / "data" / "litbank")
    parser.add_argument("--names", choices=("gold", "ner"), default="gold")
    parser.add_argument("--entities", choices=("resolver", "gold"), default="resolver")
    parser.add_argument("--errors", type=int, default=0, help="print this many wrong links")
    args = parser.parse_args()
    if not (args.litbank / "coref").is_dir():
        print(f"LitBank coreference not found under {args.litbank}: nothing to measure", file=sys.stderr)
        return 2
    total: Counter[str] = Counter()
    errors: list[str] = []
    for stem in book_stems(args.litbank):
        total.update(score_book(load_book(args.litbank, stem), args.names, args.entities, errors))
    made, right = total["made"], total["right"]
    print(
        f"names={args.names} entities={args.entities}: gold descriptions of named people {total['gold_named']}, "
        f"links made {made}, right {right} (precision {right / max(made, 1):.3f}, recall "
        f"{right / max(total['gold_named'], 1):.3f}), ties right {total['tie_right']}"
    )
    for line in errors[: args.errors]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

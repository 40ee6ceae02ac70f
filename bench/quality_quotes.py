"""Quality of quotation detection and speaker attribution on LitBank's quotations layer (75 books).

    .venv/bin/python bench/quality_quotes.py [--litbank ../shared/data/litbank] [--names gold|ner] [--tune] [--errors N]
                                             [--coref] [--classes] [--save FILE] [--against FILE]

LitBank annotates every quotation of each book's first ~2,000 tokens with its speaker (an entity of the book's
coreference layer). Its texts are tokenised, one sentence per line, without paragraphs; the whole books in
``original/`` hold the same characters (whitespace aside), so every token is mapped to its offsets there and the
quotations are found and attributed on the original prose, paragraphs and all, as the pipeline would see it.

- Detection: precision and recall of the quotations found in the excerpt, a gold quotation matched by the predicted
  one that overlaps it most (one to one); exact when both offsets agree.
- Speakers: over **all** gold quotations (a quotation not found is a wrong answer). The predicted speaker is a span
  of the text; it is right when it lies inside a mention of the gold speaker's coreference entity (LitBank's
  coreference marks every name, description and pronoun of a character, so a name mention of the right character
  anywhere in the excerpt is right, and a wrong character's never is). Spans outside every annotated mention are
  wrong. By attribution kind, and per fold of the 75 books (5 folds, books sorted by name, book i in fold i % 5).
- ``--tune``: the attribution's two parameters (``GRID``: how many paragraphs apart two turns of one conversation
  may be, how far back a pronoun looks for its name) chosen on four folds and scored on the fifth, five times; the
  pooled held-out figures are the ones to quote (docs/decisions/0013 says which values ship and why).
- A "he" or "she" left as the speaker (no name found for it) is never right: it is in the speaker's chain by
  construction. A description or "I" (the narrator) no name was found for can be right but gives the pipeline no
  entity; the figure "right and a name" counts only name spans.
- ``--coref``: a speaker given as "he"/"she" is the entity ``ingestion.coref`` links the pronoun to, as in the
  quotes stage (the names grouped by csillag's resolver; the speaker span is that entity's latest name).
- ``--classes``: each kind's wrong attributions by a class read from the gold (``error_class``): the speaker named
  before the quotation, only after it or never (an unnamed speaker needs a description or "I" to be right), and the
  answer nobody, a neighbouring turn's speaker, or someone else.
- ``--save FILE`` writes each book's right and gold counts (shipped parameters) as JSON; ``--against FILE`` prints
  the per-book spread against such a file: how many books gain, lose, and by how much (a rule kept only when it helps
  across the books, not in one).
- Character names given to attribution: ``gold`` the coreference layer's proper-name mentions of people (as with a
  perfect character list); ``ner`` csillag's English NER (ingestion/models/en_litbank, trained on these 75 books:
  seen text, so an optimistic figure for it).

Never a test: it measures and prints.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import logging
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingestion.coref.speakers import pronoun_speakers  # noqa: E402
from ingestion.quotes import Attribution, attribute, find_quotations  # noqa: E402
from ingestion.quotes import attribution as attribution_module  # noqa: E402
from ingestion.relations.sentences import PersonMention  # noqa: E402
from ingestion.resolution import SurfaceForm, resolve_entities  # noqa: E402

FOLDS = 5
# The attribution's parameters and the values ``--tune`` tries (the shipped ones among them).
GRID: dict[str, tuple[int, ...]] = {"TURN_GAP": (1, 2, 4, 6), "RECENT_WINDOW": (1000, 2000, 4000, 8000, 1_000_000)}
SHIPPED = {name: getattr(attribution_module, name) for name in GRID}
# A third-person pronoun left as the speaker names no one: never right, though it is in the speaker's chain.
UNRESOLVED = frozenset({"he", "she", "ő"})
KINDS = ("explicit", "anaphoric", "implicit", "none")
# --coref: "he said" given to the entity its pronoun is linked to, as the quotes stage does.
COREF = False
# --classes: the wrong ones of each kind by ``error_class``.
CLASSES = False


@dataclass
class Book:
    """One LitBank book: the original text, the excerpt's extent in it, gold quotations and coreference mentions."""

    name: str
    text: str
    start: int
    end: int
    quotes: list[tuple[int, int, str]]  # start, end, gold speaker entity
    mentions: list[tuple[int, int, str, str]]  # start, end, entity, kind (PROP/NOM/PRON) of PER mentions


def token_offsets(tokenised: str, original: str) -> list[list[tuple[int, int]]]:
    """Each token's (start, end) in ``original``, by sentence: the two texts agree outside whitespace."""
    compact = re.sub(r"\s+", "", tokenised)
    positions = [m.start() for m in re.finditer(r"\S", original)]
    flat = "".join(original[p] for p in positions)
    base = flat.find(compact)
    if base < 0:
        raise ValueError("the tokenised text is not in the original")
    result, cursor = [], base
    for line in tokenised.split("\n"):
        sentence = []
        for token in line.split(" "):
            if not token:
                continue
            sentence.append((positions[cursor], positions[cursor + len(token) - 1] + 1))
            cursor += len(token)
        result.append(sentence)
    return result


def load_book(litbank: Path, stem: str) -> Book:
    """Read one book's quotations, its coreference people and its original text, all in original offsets."""
    tokenised = (litbank / "quotations" / "tsv" / f"{stem}_brat.txt").read_text(encoding="utf-8")
    original = (litbank / "original" / f"{stem}.txt").read_text(encoding="utf-8")
    offsets = token_offsets(tokenised, original)

    def span(s1: str, t1: str, s2: str, t2: str) -> tuple[int, int]:
        return offsets[int(s1)][int(t1)][0], offsets[int(s2)][int(t2)][1]

    quotes, speakers = {}, {}
    for row in (litbank / "quotations" / "tsv" / f"{stem}_brat.ann").read_text(encoding="utf-8").splitlines():
        cells = row.split("\t")
        if cells[0] == "QUOTE":
            quotes[cells[1]] = span(*cells[2:6])
        elif cells[0] == "ATTRIB":
            speakers[cells[1]] = cells[2]
    spans, entities = {}, {}
    for row in (litbank / "coref" / "tsv" / f"{stem}_brat.ann").read_text(encoding="utf-8").splitlines():
        cells = row.split("\t")
        if cells[0] == "MENTION" and cells[7] == "PER":
            spans[cells[1]] = (*span(*cells[2:6]), cells[8])
        elif cells[0] == "COREF":
            entities[cells[1]] = cells[2]
    mentions = sorted((s, e, entities[t], kind) for t, (s, e, kind) in spans.items() if t in entities)
    flat = [token for sentence in offsets for token in sentence]
    gold = sorted((s, e, speakers[q]) for q, (s, e) in quotes.items())
    return Book(stem, original, flat[0][0], flat[-1][1], gold, mentions)


def book_stems(litbank: Path) -> list[str]:
    """The books with a quotations file, sorted by name."""
    return sorted(p.name[: -len("_brat.ann")] for p in (litbank / "quotations" / "tsv").glob("*_brat.ann"))


def region(book: Book) -> tuple[str, int]:
    """The text the pipeline would read around the excerpt: from its paragraph's start to the end of the paragraph
    it ends in (the offset of the region's start is returned to map back)."""
    start = book.text.rfind("\n\n", 0, book.start)
    start = 0 if start < 0 else start + 2
    end = book.text.find("\n\n", book.end)
    return book.text[start : len(book.text) if end < 0 else end], start


def ner_names(text: str) -> list[tuple[int, int]]:
    """PERSON spans of csillag's English NER pipeline over ``text``."""
    from ingestion.nlp import NlpSpec, get_nlp

    nlp = get_nlp(NlpSpec(language="en", model="en_litbank"))
    return [(ent.start_char, ent.end_char) for ent in nlp(text).ents if ent.label_ in ("PERSON", "PER")]


def match_quotes(gold: Sequence[tuple[int, int, str]], found: Sequence[Attribution]) -> dict[int, int]:
    """Gold index -> predicted index, one to one, each gold quotation taking the unused prediction overlapping it
    most."""
    pairs = []
    for g, (gs, ge, _) in enumerate(gold):
        for p, attribution in enumerate(found):
            overlap = min(ge, attribution.quote.end) - max(gs, attribution.quote.start)
            if overlap > 0:
                pairs.append((-overlap, g, p))
    matched: dict[int, int] = {}
    used = set()
    for _, g, p in sorted(pairs):
        if g not in matched and p not in used:
            matched[g] = p
            used.add(p)
    return matched


def speaker_entity(book: Book, span: tuple[int, int] | None) -> str | None:
    """The coreference entity of the smallest gold mention containing ``span``, or None."""
    if span is None:
        return None
    best = None
    starts = [m[0] for m in book.mentions]
    for s, e, entity, _ in book.mentions[: bisect.bisect_right(starts, span[0])]:
        if s <= span[0] and span[1] <= e and (best is None or e - s < best[1] - best[0]):
            best = (s, e, entity)
    return best[2] if best else None


def with_pronoun_speakers(
    text: str, attributed: list[Attribution], names: Sequence[tuple[int, int]]
) -> list[Attribution]:
    """The attributions with "he said"/"she said" given to the entity the pronoun is linked to, as the quotes stage
    does (``ingestion.coref.pronoun_speakers``): the names grouped into entities by csillag's resolver, and the
    speaker span the entity's latest name before the quotation."""
    counts = Counter(text[s:e] for s, e in names)
    _, mapping = resolve_entities([SurfaceForm(t, "PERSON", n) for t, n in counts.items()], language="en")
    people = [PersonMention(s, e, mapping[(text[s:e], "PERSON")]) for s, e in sorted(set(names))
              if (text[s:e], "PERSON") in mapping]
    entity_at = {(m.start, m.end): m.entity_id for m in people}
    out = list(attributed)
    for index, entity in pronoun_speakers(text, attributed, people, entity_at).items():
        quote = attributed[index].quote
        spans = [(m.start, m.end) for m in people if m.entity_id == entity]
        before = [span for span in spans if span[0] < quote.start]
        out[index] = replace(attributed[index], speaker=(before or spans)[-1 if before else 0])
    return out


def score_book(book: Book, names_mode: str, errors: list[str]) -> Counter[str]:
    """Counts for one book: detection tp/fp/fn/exact, speakers right by kind."""
    text, base = region(book)
    names = (
        [(s - base, e - base) for s, e, _, kind in book.mentions if kind == "PROP" and base <= s < base + len(text)]
        if names_mode == "gold"
        else ner_names(text)
    )
    attributed = attribute(text, find_quotations(text), sorted(set(names)))
    if COREF:
        attributed = with_pronoun_speakers(text, attributed, names)
    found = [a for a in attributed if a.quote.start + base < book.end and a.quote.end + base > book.start]
    name_set = set(names)
    counts: Counter[str] = Counter()
    matched = match_quotes([(s - base, e - base, sp) for s, e, sp in book.quotes], found)
    counts["gold"] += len(book.quotes)
    counts["found"] += len(found)
    counts["matched"] += len(matched)
    for g, (gs, ge, speaker) in enumerate(book.quotes):
        attribution = found[matched[g]] if g in matched else None
        kind = attribution.kind if attribution else "missed"
        counts["exact"] += bool(
            attribution and (attribution.quote.start + base, attribution.quote.end + base) == (gs, ge)
        )
        span = None
        if attribution and attribution.speaker:
            span = (attribution.speaker[0] + base, attribution.speaker[1] + base)
        said = book.text[span[0] : span[1]] if span else ""
        right = speaker_entity(book, span) == speaker and said.casefold() not in UNRESOLVED
        counts[f"n:{kind}"] += 1
        counts[f"right:{kind}"] += right
        counts["right"] += right
        counts["given"] += bool(attribution and attribution.speaker)
        counts["right_named"] += right and attribution is not None and attribution.speaker in name_set
        if not right:
            counts[f"wrong:{kind}:{error_class(book, g, speaker_entity(book, span))}"] += 1
        if not right and len(errors) < ERRORS_KEPT:
            errors.append(f"{book.name[:30]:30} {kind:9} gold={speaker:25} said={said!r:22} {book.text[gs:ge][:60]!r}")
    return counts


ERRORS_KEPT = 10_000


def error_class(book: Book, g: int, predicted: str | None) -> str:
    """A wrong attribution's class from the gold alone: whether its speaker is named (a proper name in the excerpt)
    before the quotation, only after it, or never; and whether the answer is nobody, the speaker of the gold
    quotation just before or after (a turn of the conversation taken for another), or someone else."""
    start, _, speaker = book.quotes[g]
    named = [s for s, _, entity, kind in book.mentions if entity == speaker and kind == "PROP"]
    where = "named before" if any(s < start for s in named) else "named after" if named else "never named"
    neighbours = {book.quotes[j][2] for j in (g - 1, g + 1) if 0 <= j < len(book.quotes)}
    given = "nobody" if predicted is None else "a neighbouring turn's" if predicted in neighbours else "another"
    return f"{where}, {given}"


def report(title: str, counts: Counter[str]) -> None:
    """Print one block of figures."""
    precision = counts["matched"] / max(counts["found"], 1)
    recall = counts["matched"] / max(counts["gold"], 1)
    print(
        f"{title}: quotations gold {counts['gold']}, found {counts['found']}: P {precision:.3f} R {recall:.3f} "
        f"(exact offsets {counts['exact'] / max(counts['gold'], 1):.3f} of gold); speaker accuracy "
        f"{counts['right'] / max(counts['gold'], 1):.3f}, right and a name (an entity for the pipeline) "
        f"{counts['right_named'] / max(counts['gold'], 1):.3f}; given a speaker {counts['given']}, right among them "
        f"{counts['right'] / max(counts['given'], 1):.3f}"
    )
    for kind in (*KINDS, "missed"):
        n = counts[f"n:{kind}"]
        if n:
            share, right = n / counts["gold"], counts[f"right:{kind}"] / n
            print(f"    {kind:9} {n:5} quotations ({share:.0%}), speaker right {right:.3f}")
            if CLASSES:
                wrong = sorted(((v, k.split(":")[2]) for k, v in counts.items() if k.startswith(f"wrong:{kind}:")))
                print("        wrong: " + "; ".join(f"{label} {v}" for v, label in reversed(wrong)))


def main() -> int:
    """Score every book, print the figures overall and per fold."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--litbank", type=Path, default=ROOT.parent / "shared" / "data" / "litbank")
    parser.add_argument("--names", choices=("gold", "ner"), default="gold")
    parser.add_argument("--tune", action="store_true", help="5-fold choice of the attribution's parameters")
    parser.add_argument("--errors", type=int, default=0, help="print this many wrong attributions")
    parser.add_argument("--coref", action="store_true", help="pronoun speakers from ingestion.coref, as the stage")
    parser.add_argument("--classes", action="store_true", help="the wrong attributions of each kind by error class")
    parser.add_argument("--save", type=Path, help="write each book's right/gold counts to this JSON file")
    parser.add_argument("--against", type=Path, help="print the per-book spread against a file --save wrote")
    args = parser.parse_args()
    global COREF, CLASSES
    COREF, CLASSES = args.coref, args.classes
    logging.basicConfig(level=logging.WARNING)
    if not (args.litbank / "quotations").is_dir():
        print(f"LitBank quotations not found under {args.litbank}: nothing to measure", file=sys.stderr)
        return 2
    stems = book_stems(args.litbank)
    books = [load_book(args.litbank, stem) for stem in stems]
    if args.tune:
        cross_validate(books, args.names)
        return 0
    total: Counter[str] = Counter()
    by_fold: dict[int, Counter[str]] = defaultdict(Counter)
    errors: list[str] = []
    per_book: dict[str, list[int]] = {}
    for i, book in enumerate(books):
        counts = score_book(book, args.names, errors)
        total.update(counts)
        by_fold[i % FOLDS].update(counts)
        per_book[book.name] = [counts["right"], counts["gold"]]
    report(f"all {len(stems)} books, names={args.names}, shipped parameters", total)
    for fold in sorted(by_fold):
        c = by_fold[fold]
        print(f"  fold {fold}: gold {c['gold']}, speaker accuracy {c['right'] / max(c['gold'], 1):.3f}")
    for line in errors[: args.errors]:
        print(line)
    if args.against:
        print_spread(json.loads(args.against.read_text(encoding="utf-8")), per_book)
    if args.save:
        args.save.write_text(json.dumps(per_book, indent=0), encoding="utf-8")
    return 0


def print_spread(before: dict[str, list[int]], after: dict[str, list[int]]) -> None:
    """Books gaining and losing right speakers against an earlier run (``--save``), with the largest changes."""
    deltas = {name: right - before[name][0] for name, (right, _) in after.items() if name in before}
    gained = sorted(((d, n) for n, d in deltas.items() if d > 0), reverse=True)
    lost = sorted((d, n) for n, d in deltas.items() if d < 0)
    print(
        f"per book against the saved run: {len(gained)} gain (+{sum(d for d, _ in gained)}), {len(lost)} lose "
        f"({sum(d for d, _ in lost)}), {len(deltas) - len(gained) - len(lost)} unchanged"
    )
    for delta, name in [*gained[:5], *lost[:5]]:
        print(f"    {delta:+3d} {name}")


def cross_validate(books: Sequence[Book], names_mode: str) -> None:
    """5-fold choice of the attribution's parameters: each fold scored with the grid point that did best (speaker
    accuracy) on the other four folds; prints each fold's choice and the pooled held-out figures."""
    grid = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    per_book: list[list[Counter[str]]] = []
    for point in grid:
        for name, value in point.items():
            setattr(attribution_module, name, value)
        per_book.append([score_book(book, names_mode, []) for book in books])
        pooled = sum(per_book[-1], Counter())
        print(f"  {point}: speaker accuracy {pooled['right'] / pooled['gold']:.3f}")
    for name, value in SHIPPED.items():
        setattr(attribution_module, name, value)
    held_out: Counter[str] = Counter()
    for fold in range(FOLDS):

        def accuracy(g: int, fold: int = fold) -> float:
            c = sum((x for i, x in enumerate(per_book[g]) if i % FOLDS != fold), Counter())
            return c["right"] / max(c["gold"], 1)

        best = max(range(len(grid)), key=accuracy)
        fold_counts = sum((x for i, x in enumerate(per_book[best]) if i % FOLDS == fold), Counter())
        held_out.update(fold_counts)
        print(
            f"  fold {fold}: chose {grid[best]} (train {accuracy(best):.3f}), held-out speaker accuracy "
            f"{fold_counts['right'] / max(fold_counts['gold'], 1):.3f}"
        )
    report(f"5-fold held-out, names={names_mode}", held_out)


if __name__ == "__main__":
    sys.exit(main())

"""Precision/recall/F1 of a pipeline on LitBank's named people and named places, read as prose pieces.

Named people are the PER mentions LitBank's coreference layer marks ``PROP``; named places the ``PROP`` GPE, LOC
and FAC mentions (one class: a place found as LOC instead of GPE still counts — the place is what matters here;
the per-label ``strict`` figure is given too). *Exact* needs the same character span; *overlap* counts a gold name
as found when a prediction of its class overlaps it, and a prediction as right when it overlaps a gold name of its
class (so "Jaggers" for "Mr. Jaggers" is right by overlap only). Predictions lose a leading "the" and a trailing "'s"
first (``normalize_span``). A prediction that equals a PROP mention nested in
another (unreachable for a flat NER, ~13 in 75 books) counts neither way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ingestion.training.litbank import PLACE_LABELS, Piece

if TYPE_CHECKING:
    from spacy.language import Language

logger = logging.getLogger(__name__)

CLASSES: dict[str, frozenset[str]] = {"people": frozenset({"PERSON"}), "places": PLACE_LABELS}
_ARTICLES = ("the ", "The ")
_POSSESSIVES = ("'s", "’s")


def normalize_span(text: str, start: int, end: int) -> tuple[int, int]:
    """A predicted span without a leading article or a trailing possessive ("the Thames", "Buffett's").

    Why: OntoNotes-trained models put "the" inside some names and LitBank's names (``name_core``) never do; scoring
    the name, not the convention, keeps the comparison with en_core_web_sm fair.
    """
    if text.startswith(_ARTICLES, start) and end - start > 4:
        start += 4
    if text[start:end].endswith(_POSSESSIVES) and end - start > 2:
        end -= 2
    return start, end


@dataclass
class Counts:
    """Counts of one class: exact and overlap matches, and exact matches with the same label (``strict``)."""

    gold: int = 0
    predicted: int = 0
    exact: int = 0
    strict: int = 0
    gold_found: int = 0
    predicted_right: int = 0

    def add(self, other: Counts) -> None:
        """Add another set of counts to this one."""
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def prf(self, kind: str = "exact") -> tuple[float, float, float]:
        """(precision, recall, F1) for ``exact``, ``strict`` or ``overlap`` matching."""
        if kind == "overlap":
            p = self.predicted_right / self.predicted if self.predicted else 0.0
            r = self.gold_found / self.gold if self.gold else 0.0
        else:
            hits = self.exact if kind == "exact" else self.strict
            p = hits / self.predicted if self.predicted else 0.0
            r = hits / self.gold if self.gold else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@dataclass
class Scores:
    """Counts per class (``people``, ``places``)."""

    counts: dict[str, Counts] = field(default_factory=lambda: {name: Counts() for name in CLASSES})

    def add(self, other: Scores) -> None:
        """Add another set of scores (e.g. another fold's) to this one."""
        for name, counts in other.counts.items():
            self.counts[name].add(counts)

    def as_dict(self) -> dict[str, dict[str, float | int]]:
        """Counts and P/R/F1 per class, rounded, for JSON and tables."""
        out: dict[str, dict[str, float | int]] = {}
        for name, c in self.counts.items():
            row: dict[str, float | int] = dict(vars(c))
            for kind in ("exact", "overlap", "strict"):
                p, r, f = c.prf(kind)
                row.update({f"{kind}_p": round(p, 4), f"{kind}_r": round(r, 4), f"{kind}_f1": round(f, 4)})
            out[name] = row
        return out


def pooled(rows: list[dict[str, dict[str, float | int]]]) -> Scores:
    """Scores summed from several ``Scores.as_dict()`` results (e.g. the folds'): micro-averaged over all books."""
    total = Scores()
    for row in rows:
        for cls, counts in row.items():
            c = Counts(**{name: int(counts[name]) for name in vars(Counts())})
            total.counts[cls].add(c)
    return total


def score_with_entity_labels(
    nlp: Language, pieces: Iterable[Piece], min_mentions: int = 2, batch_size: int = 32, carry: bool = False
) -> tuple[Scores, Scores]:
    """``score_pipeline``, each name labelled as the pipeline's graph labels it: by its entity.

    The entities stage resolves a book's names (``ingestion.resolution``) and gives each entity one label from all
    its mentions and their evidence (majority, titles, full names); what a user sees — "Agnes (PERSON)" — is that
    label, whatever the NER said of one mention ("Agnes" LOC in one sentence). Per book, as the stage does per
    corpus; an entity under ``min_mentions`` is dropped by the stage, so its mentions keep the NER's label. A name
    that is one word the book capitalises only where a sentence starts ("Bother!") is no name to the stage
    (``sentence_openers``, computed here from the book's pieces as the stage computes it from its chunks) and is
    dropped. With ``carry``, the kept people's names are carried to their occurrences the NER left unlabelled
    (``ingestion.carrying``), as the stage carries them.
    """
    from collections import Counter, defaultdict

    from ingestion.carrying import Carrier, carriable_aliases, one_word_aliases
    from ingestion.resolution import SurfaceForm, article_candidates, opener_candidates, resolve_entities

    pieces = list(pieces)
    predicted: list[list[tuple[int, int, str]]] = []
    for piece, doc in zip(pieces, nlp.pipe((p.text for p in pieces), batch_size=batch_size), strict=True):
        predicted.append([(*normalize_span(piece.text, e.start_char, e.end_char), e.label_) for e in doc.ents])
    books: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    texts: dict[str, list[str]] = defaultdict(list)
    for piece, spans in zip(pieces, predicted, strict=True):
        books[piece.book].update((piece.text[s:e], label) for s, e, label in spans)
        texts[piece.book].append(piece.text)
    relabel: dict[str, dict[tuple[str, str], str]] = {}
    dropped: dict[str, set[str]] = {}
    carriers: dict[str, Carrier] = {}
    for book, forms in books.items():
        surface = [SurfaceForm(text, label, n) for (text, label), n in forms.items()]
        openers = sentence_openers(texts[book], opener_candidates(surface, "en"))
        usage = article_usage(texts[book], article_candidates(surface, "en"))
        entities, mapping = resolve_entities(surface, language="en", sentence_openers=openers, article_usage=usage)
        label_of = {entity.entity_id: entity.label for entity in entities}
        mentions: Counter[str] = Counter()
        for key, entity_id in mapping.items():
            mentions[entity_id] += forms.get(key, 0)
        relabel[book] = {
            key: label_of[entity_id] for key, entity_id in mapping.items() if mentions[entity_id] >= min_mentions
        }
        dropped[book] = openers
        if carry:  # as the entities stage does: the kept people's names, wherever the NER left them unlabelled
            kept = [(e.entity_id, e.label, e.aliases) for e in entities if mentions[e.entity_id] >= min_mentions]
            others = [(text, eid) for (text, _), eid in mapping.items() if mentions[eid] < min_mentions]
            common = written_lowercase(texts[book], one_word_aliases(kept))
            carriers[book] = Carrier(carriable_aliases(kept, others, openers, common))
    total, raw = Scores(), Scores()
    for piece, spans in zip(pieces, predicted, strict=True):
        table = relabel[piece.book]
        labelled = [
            (s, e, table.get((piece.text[s:e], label), label))
            for s, e, label in spans
            if piece.text[s:e] not in dropped[piece.book]
        ]
        if piece.book in carriers:
            found = carriers[piece.book].find(piece.text, [(s, e) for s, e, _ in spans])
            labelled.extend((c.start, c.end, "PERSON") for c in found)
        total.add(score_piece(piece, labelled))
        raw.add(score_piece(piece, labelled, raw=True))
    return total, raw


# The entities stage's casing rules (ingestion.stages.entities), in Python: a capitalised word inside a sentence —
# after a letter, digit, comma or semicolon and one space or line break — and a word in lowercase.
_MID_SENTENCE_CAPITAL = re.compile(r"(?<=[^\W_,;][ \t\r\n])[^\W\d_]+|(?<=[,;][ \t\r\n])[^\W\d_]+")
_WORD = re.compile(r"(?<!\w)[^\W\d_]+")


_ARTICLED_WORD = re.compile(r"(?:\b(?:[Aa]|[Aa]n|[Tt]he|THE)[ \t\r\n]+)?([^\W\d_]+)")


def article_usage(texts: Iterable[str], candidates: set[str]) -> dict[str, tuple[int, int]]:
    """The entities stage's ``article_usage`` in Python: each capitalised candidate's occurrences, and those just
    after "a", "an" or "the"."""
    counts: dict[str, list[int]] = {}
    for text in texts:
        for match in _ARTICLED_WORD.finditer(text):
            word = match.group(1)
            if word in candidates and word[:1].isupper():
                seen = counts.setdefault(word, [0, 0])
                seen[0] += 1
                seen[1] += match.start(1) > match.start()
    return {word: (n, articled) for word, (n, articled) in counts.items()}


def written_lowercase(texts: Iterable[str], candidates: set[str]) -> set[str]:
    """The ``candidates`` the texts also write in lowercase ("Will" where "will" occurs)."""
    lower = {word for text in texts for word in _WORD.findall(text) if word[:1].islower()}
    return {word for word in candidates if word.lower() in lower}


def sentence_openers(texts: Iterable[str], candidates: set[str]) -> set[str]:
    """The ``candidates`` the texts write in lowercase somewhere and never capitalise inside a sentence: the rule of
    the entities stage's ``sentence_openers`` (a Spark pass over the chunks there), for scoring a book here."""
    lower: set[str] = set()
    inside: set[str] = set()
    for text in texts:
        lower.update(word for word in _WORD.findall(text) if word[:1].islower())
        inside.update(word for word in _MID_SENTENCE_CAPITAL.findall(text) if word[:1].isupper())
    return {word for word in candidates if word.lower() in lower and word not in inside}


def score_piece(piece: Piece, predicted: Iterable[tuple[int, int, str]], raw: bool = False) -> Scores:
    """Score one piece's predicted ``(start_char, end_char, label)`` entities against its gold names.

    ``raw`` scores against LitBank's whole mention spans instead of their name part.
    """
    scores = Scores()
    predicted = list(predicted)
    for name, labels in CLASSES.items():
        c = scores.counts[name]
        gold = [(s, e, label) for s, e, label in (piece.raw_names if raw else piece.names) if label in labels]
        unreachable = {(s, e) for s, e, label in piece.nested if label in labels}
        preds = [(s, e, label) for s, e, label in predicted if label in labels and (s, e) not in unreachable]
        gold_spans = {(s, e): label for s, e, label in gold}
        c.gold += len(gold)
        c.predicted += len(preds)
        c.exact += sum((s, e) in gold_spans for s, e, _ in preds)
        c.strict += sum(gold_spans.get((s, e)) == label for s, e, label in preds)
        c.gold_found += sum(any(ps < ge and gs < pe for ps, pe, _ in preds) for gs, ge, _ in gold)
        c.predicted_right += sum(any(ps < ge and gs < pe for gs, ge, _ in gold) for ps, pe, _ in preds)
    return scores


def score_pipeline(nlp: Language, pieces: Iterable[Piece], batch_size: int = 32) -> tuple[Scores, Scores]:
    """Run ``nlp`` on each piece's prose text (as the mentions stage runs it on chunks) and score it.

    Returns the scores against the names and against LitBank's whole mention spans (``raw``).
    """
    pieces = list(pieces)
    total, raw = Scores(), Scores()
    for piece, doc in zip(pieces, nlp.pipe((p.text for p in pieces), batch_size=batch_size), strict=True):
        predicted = [(*normalize_span(piece.text, e.start_char, e.end_char), e.label_) for e in doc.ents]
        total.add(score_piece(piece, predicted))
        raw.add(score_piece(piece, predicted, raw=True))
    return total, raw

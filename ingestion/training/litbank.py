"""LitBank → spaCy NER training data: named entities only, with spaCy/OntoNotes label names.

LitBank (Bamman et al. 2019/2020, CC BY 4.0) annotates people, places, facilities, organisations and vehicles in the
openings of 100 novels, nested, proper names ("Tom Sawyer") and common-noun phrases ("the boy") alike. csillag wants
*named* entities, so the training targets are the mentions its coreference layer marks ``PROP`` (``PROP_PER`` …; the
same spans and text as the entity layer), and among overlapping ``PROP`` mentions the outermost — "Lincoln 's Inn
Hall" (FAC), not the "Lincoln" nested in it. Labels are renamed to the ones the rest of csillag uses (``LABELS``).

LitBank's text is tokenised (one sentence a line, tokens split by spaces: ``Lincoln 's Inn Hall .``); the model
reads raw prose, so every sentence is detokenised (``detokenize``) into the spacing a book would have, and the
sentences are grouped into pieces about as long as the pipeline's chunks (``ingestion.chunk_max_chars``).

Rehearsal: LitBank has no dates, numbers or nationalities (NORP), but csillag keeps NORP and a model fine-tuned on
LitBank alone would forget them. ``add_rehearsal`` adds the base model's own predictions for the labels LitBank does
not annotate, where they touch no LitBank name, so fine-tuning keeps what the base model knew about them.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token
    from spacy.vocab import Vocab

logger = logging.getLogger(__name__)

# LitBank's ACE types → OntoNotes names (vehicles are OntoNotes PRODUCTs).
LABELS: dict[str, str] = {"PER": "PERSON", "GPE": "GPE", "LOC": "LOC", "FAC": "FAC", "ORG": "ORG", "VEH": "PRODUCT"}
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
# Labels whose every named instance LitBank annotates: for them LitBank's word is final (no rehearsal).
GOLD_LABELS = frozenset(LABELS.values())

# Tokens written without a space before them / after them in running prose.
_NO_SPACE_BEFORE = re.compile(r"^(?:[,.;:!?)\]}”’%]|\.\.\.+|'(?:s|S|d|D|m|M|ll|re|ve|LL|RE|VE)|n't|N'T|--+|—|_)$")
_NO_SPACE_AFTER = re.compile(r"^(?:[(\[{“‘$]|--+|—)$")
# A PROP mention is a noun phrase ("the talented Miss Cowley", "her aunt Shaw", "the city of York"); the name in it
# starts after these (and after any lowercase or punctuation token) and ends before the first lowercase word that
# is not a name particle ("Sir Jacob Borrodaile offering …", "the Admiral Benbow inn").
_DETERMINERS = frozenset("The A An His Her My Our Their Your Its This That These Those".split())
_PARTICLES = frozenset("of de du des la le van von der den da di del y the 's".split())


@dataclass(frozen=True)
class Mention:
    """One LitBank coreference-layer mention: token span ``[start, end)`` of the book, kind PROP/NOM/PRON, ACE type."""

    start: int
    end: int
    kind: str
    type: str


@dataclass(frozen=True)
class Book:
    """A LitBank book: its tokenised sentences and its coreference-layer mentions (book token offsets)."""

    name: str
    sentences: tuple[tuple[str, ...], ...]
    mentions: tuple[Mention, ...]


@dataclass(frozen=True)
class Piece:
    """A run of whole sentences as prose: ``words``/``spaces`` rebuild ``text``; ``names`` are gold named entities.

    ``names`` are ``(start_char, end_char, label)`` in ``text``: the name part (``name_core``) of the outermost PROP
    mentions, OntoNotes labels; ``raw_names`` the same mentions with LitBank's whole span.
    ``nested`` are PROP mentions inside another PROP (unreachable by a flat NER; reported, not scored).
    """

    book: str
    text: str
    words: tuple[str, ...]
    spaces: tuple[bool, ...]
    names: tuple[tuple[int, int, str], ...]
    nested: tuple[tuple[int, int, str], ...]
    raw_names: tuple[tuple[int, int, str], ...]
    sentence_starts: tuple[int, ...]
    token_names: tuple[tuple[int, int, str], ...]


def book_names(root: Path) -> list[str]:
    """The books present under LitBank's root (file stems without ``_brat``), sorted."""
    return sorted(p.name[: -len("_brat.ann")] for p in (root / "coref" / "brat").glob("*_brat.ann"))


def read_book(root: Path, name: str) -> Book:
    """Read one book's tokenised text and coreference mentions (brat standoff, character offsets)."""
    stem = root / "coref" / "brat" / f"{name}_brat"
    lines = stem.with_suffix(".txt").read_text(encoding="utf-8").split("\n")
    sentences: list[tuple[str, ...]] = []
    char_to_token: dict[int, int] = {}
    end_to_token: dict[int, int] = {}
    offset = 0
    count = 0
    for line in lines:
        tokens = tuple(line.split(" ")) if line else ()
        position = offset
        for token in tokens:
            char_to_token[position] = count
            end_to_token[position + len(token)] = count + 1
            position += len(token) + 1
            count += 1
        if tokens:
            sentences.append(tokens)
        offset += len(line) + 1
    mentions = []
    for line in stem.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
        if not line.startswith("T"):
            continue
        _, spec, _text = line.split("\t", 2)
        tag, start, end = spec.split(" ")
        kind, _, ace = tag.partition("_")
        if int(start) not in char_to_token or int(end) not in end_to_token:
            logger.warning("%s: mention %s does not fall on token boundaries; skipped", name, line)
            continue
        mentions.append(Mention(char_to_token[int(start)], end_to_token[int(end)], kind, ace))
    return Book(name=name, sentences=tuple(sentences), mentions=tuple(mentions))


def detokenize(tokens: Sequence[str]) -> list[bool]:
    """Whether each token is followed by a space in prose (straight double quotes alternate open/close)."""
    spaces = [True] * len(tokens)
    quote_open = False
    for i, token in enumerate(tokens):
        if token == '"':
            if quote_open and i > 0:
                spaces[i - 1] = False
            elif not quote_open:
                spaces[i] = False
            quote_open = not quote_open
            continue
        if i > 0 and _NO_SPACE_BEFORE.match(token):
            spaces[i - 1] = False
        if _NO_SPACE_AFTER.match(token):
            spaces[i] = False
    if tokens:
        spaces[-1] = True  # sentences are joined by a space
    return spaces


def name_core(words: Sequence[str], start: int, end: int) -> tuple[int, int] | None:
    """The proper-name part ``[start, end)`` of a PROP mention's tokens, or None when it has none.

    Why: the NER's job is the name; the NP's determiners, adjectives, kinship nouns and relative clauses belong to
    the coreference layer. Titles stay (they are capitalised: "Miss Cowley", "Monsieur St. Aubert").
    """
    while start < end and (
        not words[start][:1].isalnum() or words[start][:1].islower() or words[start] in _DETERMINERS
    ):
        start += 1
    if start == end:
        return None
    stop = start + 1
    while stop < end and not (words[stop][:1].islower() and words[stop] not in _PARTICLES):
        stop += 1
    while stop > start + 1 and (words[stop - 1] in _PARTICLES or not words[stop - 1][:1].isalnum()):
        stop -= 1
    return start, stop


def outermost(mentions: Iterable[Mention]) -> tuple[list[Mention], list[Mention]]:
    """Split PROP mentions into the outermost ones (non-overlapping, longest first) and those nested in them."""
    kept: list[Mention] = []
    nested: list[Mention] = []
    for mention in sorted(mentions, key=lambda m: (m.start, -(m.end - m.start))):
        if kept and mention.start < kept[-1].end:
            nested.append(mention)
        else:
            kept.append(mention)
    return kept, nested


def pieces(book: Book, max_chars: int = 1500) -> Iterator[Piece]:
    """The book as prose pieces of whole sentences, each at most ``max_chars`` long (or one longer sentence)."""
    props = [m for m in book.mentions if m.kind == "PROP" and m.type in LABELS]
    raw_names, raw_nested = outermost(props)
    words_of_book = [w for sentence in book.sentences for w in sentence]
    names = _cores(words_of_book, raw_names)
    nested = _cores(words_of_book, raw_nested)
    groups: list[list[tuple[int, tuple[str, ...]]]] = [[]]
    size = 0
    first = 0
    for sentence in book.sentences:
        length = sum(len(t) + 1 for t in sentence)
        if groups[-1] and size + length > max_chars:
            groups.append([])
            size = 0
        groups[-1].append((first, sentence))
        size += length
        first += len(sentence)
    for group in groups:
        words: list[str] = []
        spaces: list[bool] = []
        for _, sentence in group:
            words.extend(sentence)
            spaces.extend(detokenize(sentence))
        start_token = group[0][0]
        end_token = start_token + len(words)
        starts: list[int] = []
        position = 0
        for word, space in zip(words, spaces, strict=True):
            starts.append(position)
            position += len(word) + (1 if space else 0)
        text = "".join(w + (" " if s else "") for w, s in zip(words, spaces, strict=True)).rstrip()

        token_names = tuple(
            (m.start - start_token, m.end - start_token, LABELS[m.type])
            for m in names
            if start_token <= m.start and m.end <= end_token
        )
        yield Piece(
            book=book.name,
            text=text,
            words=tuple(words),
            spaces=tuple(spaces),
            names=_to_chars(names, starts, words, start_token, end_token),
            raw_names=_to_chars(raw_names, starts, words, start_token, end_token),
            sentence_starts=tuple(first - start_token for first, _ in group),
            nested=_to_chars(nested, starts, words, start_token, end_token),
            token_names=token_names,
        )


def _to_chars(
    mentions: Iterable[Mention], starts: Sequence[int], words: Sequence[str], lo: int, hi: int
) -> tuple[tuple[int, int, str], ...]:
    """Character spans in a piece (tokens ``lo``..``hi`` of the book) of the mentions that lie inside it."""
    return tuple(
        (starts[m.start - lo], starts[m.end - 1 - lo] + len(words[m.end - 1 - lo]), LABELS[m.type])
        for m in mentions
        if lo <= m.start and m.end <= hi
    )


def _cores(words: Sequence[str], mentions: Iterable[Mention]) -> list[Mention]:
    out = []
    for m in mentions:
        core = name_core(words, m.start, m.end)
        if core is not None:
            out.append(Mention(core[0], core[1], m.kind, m.type))
    return out


def to_doc(vocab: Vocab, piece: Piece) -> Doc:
    """A spaCy Doc of the piece with its named entities set and every other token annotated as outside (O)."""
    from spacy.tokens import Doc, Span

    doc = Doc(vocab, words=list(piece.words), spaces=list(piece.spaces))
    doc.ents = [Span(doc, start, end, label=label) for start, end, label in piece.token_names]
    return doc


def capitalised_copy(doc: Doc, rng: random.Random, share: float = 0.3, starts: Sequence[int] = ()) -> Doc:
    """A copy of a training doc with about ``share`` of its sentences in capitals, entities kept.

    Why: books print names in capitals (headings, letters, title pages, "TOM!" in dialogue); the model reads shape
    and a lowercase form, so it sees few capitalised names unless shown some.
    """
    from spacy.tokens import Doc, Span

    bounds = [*starts, len(doc)] if starts else [0, len(doc)]
    words = [t.text for t in doc]
    for begin, end in zip(bounds, bounds[1:], strict=False):
        if rng.random() < share:
            words[begin:end] = [w.upper() for w in words[begin:end]]
    copy = Doc(doc.vocab, words=words, spaces=[bool(t.whitespace_) for t in doc])
    copy.ents = [Span(copy, e.start, e.end, label=e.label_) for e in doc.ents]
    return copy


def _renamable(token: Token, titles: frozenset[str]) -> bool:
    return token.is_alpha and token.text[:1].isupper() and len(token.text) > 1 and token.text not in titles


def name_words(docs: Iterable[Doc], titles: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """The distinct words of the training docs' names by class (people, places): the pools for renaming."""
    pools: dict[str, set[str]] = {"PERSON": set(), "PLACE": set()}
    for doc in docs:
        for ent in doc.ents:
            pool = "PERSON" if ent.label_ == "PERSON" else "PLACE" if ent.label_ in PLACE_LABELS else None
            if pool:
                pools[pool].update(t.text for t in ent if _renamable(t, titles) and not t.text.isupper())
    return {name: sorted(words) for name, words in pools.items()}


def renamed_copy(
    doc: Doc, rng: random.Random, pools: dict[str, list[str]], titles: frozenset[str] = frozenset()
) -> Doc:
    """A copy of a training doc whose people and places carry other names of their class (word for word).

    Why: LitBank has a few hundred names; renaming makes the model read the context ("said", "Mr.", "in") rather
    than remember the names, which is what a book it has never seen needs.
    """
    from spacy.tokens import Doc, Span

    mapping: dict[str, str] = {}
    words = [t.text for t in doc]
    for ent in doc.ents:
        pool = pools.get("PERSON" if ent.label_ == "PERSON" else "PLACE" if ent.label_ in PLACE_LABELS else "")
        if not pool:
            continue
        for t in ent:
            if _renamable(t, titles):
                new = mapping.setdefault(t.text.title(), rng.choice(pool))
                words[t.i] = new.upper() if t.text.isupper() else new
    copy = Doc(doc.vocab, words=words, spaces=[bool(t.whitespace_) for t in doc])
    copy.ents = [Span(copy, e.start, e.end, label=e.label_) for e in doc.ents]
    return copy


def add_rehearsal(
    docs: Sequence[Doc], base: Language, batch_size: int = 64, unsure: Collection[str] = ()
) -> int:
    """Add the base pipeline's entities of labels LitBank does not annotate, where they overlap no gold name.

    The base pipeline's entities of the ``unsure`` labels that overlap no gold name are marked *missing* instead
    (neither an entity nor "outside"): LitBank names so few organisations (25 in 75 books) that training their
    spans as "outside" teaches the model that an institution's name is nothing, and it forgets them in news ("Bank
    of England"); their spans are left out of the loss instead. Returns how many entities were added.
    ``base`` is run on copies of the gold tokenisation, so spans line up.
    """
    from spacy.tokens import Doc, Span

    added = 0
    copies = (Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc]) for doc in docs)
    for doc, predicted in zip(docs, base.pipe(copies, batch_size=batch_size), strict=True):
        taken = {i for ent in doc.ents for i in range(ent.start, ent.end)}
        free = [ent for ent in predicted.ents if not taken.intersection(range(ent.start, ent.end))]
        extra = [Span(doc, ent.start, ent.end, label=ent.label_) for ent in free if ent.label_ not in GOLD_LABELS]
        missing = [Span(doc, ent.start, ent.end) for ent in free if ent.label_ in unsure]
        if extra or missing:
            doc.set_ents(sorted([*doc.ents, *extra], key=lambda s: s.start), missing=missing, default="unmodified")
            added += len(extra)
    return added

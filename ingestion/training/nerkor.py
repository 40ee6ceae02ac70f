"""NYTK-NerKor (CoNLL-U Plus, IOB2) → spaCy ``Doc`` objects and ``DocBin`` files for ``spacy train``.

The corpus has one ``.conllup`` file per text, grouped by genre folder, columns ``FORM LEMMA UPOS XPOS FEATS
CONLL:NER EMMORPH:LEMMA``, sentences separated by blank lines. Only ``# global.columns`` lines are comments: real
tokens such as ``#Szudánban`` (a hashtag, tagged B-LOC) also start with ``#``, so a line is a token whenever it has
the seven tab-separated fields. The corpus records no spacing; ``spaces_for`` rebuilds the usual spacing around
punctuation so that a document's text reads like running text (the tokenizer sees the same at run time).

Each token keeps its gold lemma, so the same files train and evaluate the base-form rules (``ingestion.baseform``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

logger = logging.getLogger(__name__)

N_FIELDS = 7
GENRES = ("fiction", "legal", "news", "web", "wikipedia")
# No space before these tokens, none after the openers.
_NO_SPACE_BEFORE = frozenset(",.;:!?)]}%…”»’") | {"...", "''"}
_NO_SPACE_AFTER = frozenset("([{„«‘“")


@dataclass(frozen=True)
class Token:
    """One corpus token: surface form, lemma, universal POS and the IOB2 NER tag."""

    form: str
    lemma: str
    upos: str
    ner: str


@dataclass(frozen=True)
class Sentence:
    """A sentence of one text, with the text's genre (its folder) and file stem."""

    tokens: tuple[Token, ...]
    genre: str
    source: str


def read_conllup(path: Path, genre: str | None = None) -> Iterator[Sentence]:
    """The sentences of one ``.conllup`` file; ValueError names the file and line of a malformed token line."""
    genre = genre or path.parent.name
    tokens: list[Token] = []
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.rstrip("\n")
            if not line.strip():
                if tokens:
                    yield Sentence(tuple(tokens), genre, path.stem)
                    tokens = []
                continue
            fields = line.split("\t")
            if len(fields) != N_FIELDS:
                if line.startswith("#"):  # a comment (only "# global.columns" in practice)
                    continue
                raise ValueError(f"{path}:{number}: expected {N_FIELDS} tab-separated fields, got {len(fields)}")
            form, lemma, upos, _xpos, _feats, ner, _emlemma = fields
            tokens.append(Token(form, lemma, upos, ner))
    if tokens:
        yield Sentence(tuple(tokens), genre, path.stem)


def read_split(root: Path, genres: Iterable[str] = GENRES) -> Iterator[Sentence]:
    """Every sentence of a split folder (``…/nerkor/train``), genre by genre, files in name order."""
    for genre in genres:
        folder = root / genre
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.conllup")):
            yield from read_conllup(path, genre)


def spaces_for(forms: list[str]) -> list[bool]:
    """Whether each token is followed by a space, by the usual spacing of punctuation."""
    spaces = []
    for i, form in enumerate(forms):
        nxt = forms[i + 1] if i + 1 < len(forms) else None
        space = nxt is not None and nxt not in _NO_SPACE_BEFORE and form not in _NO_SPACE_AFTER
        spaces.append(space)
    return spaces


def to_doc(vocab: Vocab, sentences: list[Sentence]) -> Doc:
    """One ``Doc`` of consecutive sentences with gold entities, lemmas, POS and sentence starts."""
    from spacy.tokens import Doc

    forms = [t.form for s in sentences for t in s.tokens]
    spaces = spaces_for(forms)
    # A sentence ends with a space (the next one starts a new word).
    ends = {sum(len(s.tokens) for s in sentences[: i + 1]) - 1 for i in range(len(sentences))}
    spaces = [sp or (i in ends and i + 1 < len(forms)) for i, sp in enumerate(spaces)]
    tokens = [t for s in sentences for t in s.tokens]
    starts: list[bool | int | None] = [i == 0 for s in sentences for i, _ in enumerate(s.tokens)]
    doc = Doc(
        vocab,
        words=forms,
        spaces=spaces,
        lemmas=[t.lemma for t in tokens],
        pos=[t.upos if t.upos != "_" else "X" for t in tokens],
        ents=[_iob(t.ner) for t in tokens],
        sent_starts=starts,
    )
    doc.user_data["genre"] = sentences[0].genre
    doc.user_data["source"] = sentences[0].source
    return doc


def _iob(tag: str) -> str:
    # spaCy reads IOB2 "B-PER"/"I-PER"/"O" directly; anything unknown is outside.
    return tag if tag[:2] in ("B-", "I-") or tag == "O" else "O"


def docs_from_split(vocab: Vocab, root: Path, n_sents: int = 10) -> Iterator[Doc]:
    """The split as docs of up to ``n_sents`` consecutive sentences of one text (a context window for NER)."""
    group: list[Sentence] = []
    for sentence in read_split(root):
        if group and (sentence.source != group[0].source or sentence.genre != group[0].genre or len(group) >= n_sents):
            yield to_doc(vocab, group)
            group = []
        group.append(sentence)
    if group:
        yield to_doc(vocab, group)


def convert(root: Path, out: Path, n_sents: int = 10) -> int:
    """Write the split under ``root`` as a ``.spacy`` DocBin at ``out``; returns the number of docs."""
    import spacy
    from spacy.tokens import DocBin

    vocab = spacy.blank("hu").vocab
    docbin = DocBin(attrs=["ORTH", "LEMMA", "POS", "ENT_IOB", "ENT_TYPE", "SENT_START"], store_user_data=True)
    count = 0
    for doc in docs_from_split(vocab, root, n_sents):
        docbin.add(doc)
        count += 1
    out.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(out)
    logger.info("converted %s: %d docs → %s", root, count, out)
    return count


def gold_names(root: Path) -> Iterator[tuple[str, str, str, str]]:
    """(label, text, last form, last lemma) of every gold name of a split, in corpus order.

    The text is the name as written (tokens joined by the rebuilt spacing); only its last word inflects, so the
    gold base form is the text with that word replaced by its lemma (``gold_base_form``).
    """
    for sentence in read_split(root):
        tokens = sentence.tokens
        spaces = spaces_for([t.form for t in tokens])
        i = 0
        while i < len(tokens):
            tag = tokens[i].ner
            if not tag.startswith("B-"):
                i += 1
                continue
            label, j = tag[2:], i + 1
            while j < len(tokens) and tokens[j].ner == f"I-{label}":
                j += 1
            text = "".join(t.form + (" " if sp and k < j - 1 else "") for k, (t, sp) in
                           enumerate(zip(tokens[i:j], spaces[i:j], strict=True), start=i))
            yield label, text, tokens[j - 1].form, tokens[j - 1].lemma
            i = j


def gold_base_form(text: str, last_form: str, last_lemma: str) -> str:
    """The name's base form: its text with the last word's form replaced by the lemma."""
    return text[: len(text) - len(last_form)] + last_lemma if text.endswith(last_form) else text

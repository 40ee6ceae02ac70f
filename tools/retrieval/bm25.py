"""A BM25 (Okapi) index over chunk texts held in numpy arrays, and reciprocal-rank fusion for hybrid ranking.

The postings are kept in CSR layout: the sorted vocabulary, and per term a slice of two int32 arrays (document
numbers in document order, term frequencies) that ``starts`` delimits. A library of 2,906 documents (8× War and
Peace: ~21,600 chunks, 13,000 stems, 2 million postings) then loads from its file in milliseconds, grows by a
document without touching the postings one by one (``reindexed``), and answers a query in milliseconds, so no native
search engine is needed on the chat side.
"""

from __future__ import annotations

import functools
import logging
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)


class BM25Index:
    """Okapi BM25 over documents given as term lists (``k1`` term saturation, ``b`` length normalisation).

    ``terms`` is sorted; term ``terms[i]`` occurs in documents ``docs[starts[i]:starts[i + 1]]`` (ascending) with the
    frequencies ``tfs[starts[i]:starts[i + 1]]``; ``lengths[d]`` is document ``d``'s number of terms. Only terms
    with postings are listed, so two indexes of the same documents hold equal arrays however they were made.
    """

    def __init__(self, terms: Sequence[str], starts: Any, docs: Any, tfs: Any, lengths: Any, *,
                 k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = float(k1)
        self.b = float(b)
        self.terms = list(terms)
        self.starts = np.asarray(starts, dtype=np.int64)
        self.docs = np.asarray(docs, dtype=np.int32)
        self.tfs = np.asarray(tfs, dtype=np.int32)
        self.lengths = np.asarray(lengths, dtype=np.int32)
        self._check()

    def _check(self) -> None:
        """Raise ValueError naming the first inconsistent array (a damaged file must not give wrong scores)."""
        for name in ("starts", "docs", "tfs", "lengths"):
            if getattr(self, name).ndim != 1:
                raise ValueError(f"BM25 array {name!r} has shape {getattr(self, name).shape}; expected one dimension")
        if len(self.starts) != len(self.terms) + 1:
            raise ValueError(f"BM25 'starts' has {len(self.starts)} entries for {len(self.terms)} terms; "
                             f"expected {len(self.terms) + 1}")
        if len(self.tfs) != len(self.docs):
            raise ValueError(f"BM25 'tfs' has {len(self.tfs)} entries for {len(self.docs)} postings")
        if self.starts[0] != 0 or self.starts[-1] != len(self.docs) or np.any(np.diff(self.starts) <= 0):
            raise ValueError(f"BM25 'starts' is not an increasing run from 0 to {len(self.docs)} postings")
        if len(self.docs) and (self.docs.min() < 0 or self.docs.max() >= self.size):
            raise ValueError(f"BM25 'docs' holds document numbers outside 0..{self.size - 1}: "
                             f"{int(self.docs.min())}..{int(self.docs.max())}")

    @classmethod
    def build(cls, documents: Iterable[Sequence[str] | Mapping[str, int]], *, k1: float = 1.5,
              b: float = 0.75) -> BM25Index:
        """Index documents (each a list of terms, or its terms counted: term → occurrences) numbered in iteration
        order."""
        vocabulary: dict[str, int] = {}
        term_ids, docs, tfs, lengths = _postings_of(enumerate(documents), vocabulary)
        return _assemble(list(vocabulary), term_ids, docs, tfs, np.asarray(list(lengths.values()), dtype=np.int32),
                         k1, b)

    def reindexed(self, keep: Sequence[int | None],
                  added: Mapping[int, Sequence[str] | Mapping[str, int]]) -> BM25Index:
        """The index of a new numbering of ``len(keep)`` documents: number ``i`` is this index's document ``keep[i]``
        (its postings and length reused), or where ``keep[i]`` is None a new one whose terms are ``added[i]``.

        Equal to ``build`` over the same documents (the same arrays): an index grows by analysing only its new
        documents, the kept postings renumbered through one array.

        Raises:
            ValueError: ``added`` does not hold exactly the numbers whose ``keep`` is None, or ``keep`` names a
                document this index does not have, or one twice.
        """
        old = np.fromiter((-1 if n is None else n for n in keep), dtype=np.int64, count=len(keep))
        missing = np.flatnonzero(old < 0)
        if set(missing.tolist()) != set(added):
            raise ValueError(f"reindexed: added documents {sorted(added)} are not the new ones {missing.tolist()}")
        if len(old) and old.max() >= self.size:
            raise ValueError(f"reindexed: keep names document {int(old.max())}; this index has {self.size}")
        kept = np.flatnonzero(old >= 0)
        if len(np.unique(old[kept])) != len(kept):
            twice = np.flatnonzero(np.bincount(old[kept]) > 1)
            raise ValueError(f"reindexed: keep names documents {twice.tolist()[:10]} more than once")
        renumber = np.full(self.size, -1, dtype=np.int64)
        renumber[old[kept]] = kept
        lengths = np.zeros(len(keep), dtype=np.int32)
        lengths[kept] = self.lengths[old[kept]]
        moved = renumber[self.docs]
        survives = moved >= 0
        old_term = np.repeat(np.arange(len(self.terms), dtype=np.int64), np.diff(self.starts))[survives]
        vocabulary = dict(self.ids)
        new_terms, new_docs, new_tfs, new_lengths = _postings_of(((n, added[n]) for n in sorted(added)), vocabulary)
        lengths[list(new_lengths)] = list(new_lengths.values())
        return _assemble(list(vocabulary), np.concatenate([old_term, new_terms]),
                         np.concatenate([moved[survives], new_docs]), np.concatenate([self.tfs[survives], new_tfs]),
                         lengths, self.k1, self.b)

    @property
    def size(self) -> int:
        """Number of indexed documents."""
        return len(self.lengths)

    @functools.cached_property
    def ids(self) -> dict[str, int]:
        """Term → its position in ``terms`` (built at the first look-up, not at load time)."""
        return {term: number for number, term in enumerate(self.terms)}

    @property
    def postings(self) -> Mapping[str, list[tuple[int, int]]]:
        """A read-only view ``term → [(doc, tf), ...]`` of the arrays (for inspection and tests)."""
        return _Postings(self)

    def idf(self, term: str) -> float:
        """Robertson–Spärck Jones idf, floored at 0 by the +1 inside the log (Lucene's variant)."""
        number = self.ids.get(term)
        df = 0 if number is None else int(self.starts[number + 1] - self.starts[number])
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    @functools.cached_property
    def _norms(self) -> np.ndarray:
        """Per document ``k1 · (1 - b + b · length / average length)``, in the order of operations of the scalar
        formula, so the scores are the same floats whichever way they are computed."""
        average = int(self.lengths.sum(dtype=np.int64)) / len(self.lengths) or 1.0
        return self.k1 * (1 - self.b + self.b * self.lengths.astype(np.float64) / average)

    def _score_arrays(self, query_terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(document numbers ascending, their scores) of every document holding at least one query term."""
        if not self.size:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        total = np.zeros(self.size)
        hit = np.zeros(self.size, dtype=bool)
        for term, weight in Counter(query_terms).items():  # a repeated query term counts again
            number = self.ids.get(term)
            if number is None:
                continue
            span = slice(int(self.starts[number]), int(self.starts[number + 1]))
            docs, tf = self.docs[span], self.tfs[span].astype(np.float64)
            # the scalar formula's order of operations; a term's documents are distinct, so += adds each once
            total[docs] += weight * self.idf(term) * tf * (self.k1 + 1) / (tf + self._norms[docs])
            hit[docs] = True
        matched = np.flatnonzero(hit)
        return matched, total[matched]

    def scores(self, query_terms: Sequence[str]) -> dict[int, float]:
        """BM25 score of every document that holds at least one query term (a repeated query term counts again)."""
        matched, values = self._score_arrays(query_terms)
        return dict(zip(matched.tolist(), values.tolist(), strict=True))

    def top(self, query_terms: Sequence[str], k: int = 10) -> list[tuple[int, float]]:
        """The ``k`` best documents as (number, score): score desc, then document number (book order)."""
        matched, values = self._score_arrays(query_terms)
        order = np.lexsort((matched, -values))[:k]
        return list(zip(matched[order].tolist(), values[order].tolist(), strict=True))


def _postings_of(
    numbered: Iterable[tuple[int, Sequence[str] | Mapping[str, int]]], vocabulary: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, int]]:
    """The postings of documents given as (number, terms), read one document at a time: (term ids, document numbers,
    term frequencies), ``vocabulary`` grown with the new terms; and each document's length by number."""
    term_ids: list[int] = []
    docs: list[int] = []
    tfs: list[int] = []
    lengths: dict[int, int] = {}
    for number, terms in numbered:
        # a mapping is the terms already counted (``Analyzer.term_counts``); a document's length is its terms' count
        counts = terms if isinstance(terms, Mapping) else Counter(terms)
        lengths[number] = sum(counts.values())
        term_ids.extend(vocabulary.setdefault(term, len(vocabulary)) for term in counts)
        docs.extend([number] * len(counts))
        tfs.extend(counts.values())
    return (np.asarray(term_ids, dtype=np.int64), np.asarray(docs, dtype=np.int64), np.asarray(tfs, dtype=np.int32),
            lengths)


def _assemble(vocabulary: list[str], term_ids: np.ndarray, docs: np.ndarray, tfs: np.ndarray, lengths: np.ndarray,
              k1: float, b: float) -> BM25Index:
    """The index of postings given as (``vocabulary[term_ids[i]]``, ``docs[i]``, ``tfs[i]``) in any order: terms
    sorted, unused ones dropped, each term's postings in document order. ``build`` and ``reindexed`` both end here,
    which is what makes their indexes equal."""
    counts = np.bincount(term_ids, minlength=len(vocabulary))
    used = np.flatnonzero(counts).tolist()
    used.sort(key=vocabulary.__getitem__)
    rank = np.full(len(vocabulary), -1, dtype=np.int64)
    rank[used] = np.arange(len(used))
    # a stable sort (timsort) is near linear on postings that are mostly in order already, as a grown index's are
    order = np.argsort(rank[term_ids] * max(len(lengths), 1) + docs, kind="stable")
    starts = np.zeros(len(used) + 1, dtype=np.int64)
    np.cumsum(counts[used], out=starts[1:])
    return BM25Index([vocabulary[number] for number in used], starts, docs[order], tfs[order], lengths, k1=k1, b=b)


class _Postings(Mapping[str, list[tuple[int, int]]]):
    """``BM25Index.postings``: term → [(doc, tf), ...] read from the arrays on demand."""

    def __init__(self, index: BM25Index) -> None:
        self._index = index

    def __getitem__(self, term: str) -> list[tuple[int, int]]:
        number = self._index.ids[term]
        span = slice(int(self._index.starts[number]), int(self._index.starts[number + 1]))
        return list(zip(self._index.docs[span].tolist(), self._index.tfs[span].tolist(), strict=True))

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.terms)

    def __len__(self) -> int:
        return len(self._index.terms)


def reciprocal_rank_fusion(rankings: Iterable[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Fuse several rankings of document numbers: score = Σ 1 / (k + rank), rank counted from 1 (Cormack et al.).

    The hybrid hook: BM25's ranking and a dense ranking fused without calibrating their scores.
    """
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))

"""Scoring entity resolution against a gold list of characters and their aliases (pairwise precision/recall)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from ingestion.errors import IngestionError
from ingestion.normalize import clean_surface
from ingestion.resolution import ResolvedEntity

logger = logging.getLogger(__name__)

PAIRS_REPORTED = 20  # wrong and missed pairs kept in a build report: enough to see what goes wrong, not a dump


class GoldListError(IngestionError, ValueError):
    """Raised when a gold list file cannot be read or is malformed; the message names the file."""


@dataclass(frozen=True, slots=True)
class GoldEntity:
    """One gold character: its canonical name and the surface forms by which the text refers to it."""

    canonical_name: str
    aliases: tuple[str, ...]
    label: str = "PERSON"


@dataclass(frozen=True, slots=True)
class GoldScore:
    """Pairwise figures behind a precision/recall score, kept for reports and for debugging a resolver."""

    precision: float
    recall: float
    found_aliases: int  # gold aliases that occur among the resolved entities' aliases
    predicted_pairs: int  # pairs of found aliases the resolver put in one entity
    gold_pairs: int  # pairs of found aliases that gold puts in one entity
    correct_pairs: int  # pairs in both
    wrong_pairs: tuple[tuple[str, str], ...]  # merged by the resolver, apart in gold
    missed_pairs: tuple[tuple[str, str], ...]  # together in gold, apart in the resolver's output
    gold_aliases: int = 0  # distinct gold aliases (by alias_key), found or not

    def summary(self) -> str:
        """One line for logs and reports: "precision 1.000 recall 0.950 (76/80 gold aliases found)"."""
        return describe_gold_report(self.details())

    def details(self, path: str | Path | None = None) -> dict[str, Any]:
        """The score as JSON-ready details for a stage marker and the run's report (pairs capped)."""
        report: dict[str, Any] = {
            "precision": self.precision,
            "recall": self.recall,
            "found_aliases": self.found_aliases,
            "gold_aliases": self.gold_aliases,
            "predicted_pairs": self.predicted_pairs,
            "gold_pairs": self.gold_pairs,
            "correct_pairs": self.correct_pairs,
            "wrong_pairs": [list(pair) for pair in self.wrong_pairs[:PAIRS_REPORTED]],
            "missed_pairs": [list(pair) for pair in self.missed_pairs[:PAIRS_REPORTED]],
        }
        if path is not None:
            report["path"] = str(path)
        return report


def describe_gold_report(report: Mapping[str, Any]) -> str:
    """The one-line form of a stored report (``GoldScore.details``, e.g. from the entities stage's marker)."""
    return (
        f"precision {report['precision']:.3f} recall {report['recall']:.3f} "
        f"({report['found_aliases']}/{report['gold_aliases']} gold aliases found)"
    )


def alias_key(text: str) -> str:
    """How aliases are compared: cleaned (possessive, punctuation, whitespace) and casefolded, accents kept."""
    return clean_surface(text).casefold()


def load_gold(path: str | Path) -> list[GoldEntity]:
    """Read a gold file: ``{"entities": [{"canonical_name": ..., "aliases": [...], "label": ...}, ...]}``.

    Raises:
        GoldListError: the file is missing or unreadable, is not such JSON, or lists an alias under two entities;
            the message names the file (and the entry).
    """
    where = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise GoldListError(f"cannot read gold list {where!r}: {exc.strerror or exc}", path=where) from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GoldListError(f"gold list {where!r} is not valid JSON: {exc}", path=where) from exc
    items = data.get("entities") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise GoldListError(f'gold list {where!r} must be a JSON object with an "entities" list', path=where)
    gold: list[GoldEntity] = []
    for number, item in enumerate(items, start=1):
        name = item.get("canonical_name") if isinstance(item, dict) else None
        aliases = item.get("aliases") if isinstance(item, dict) else None
        label = item.get("label", "PERSON") if isinstance(item, dict) else None
        if (
            not isinstance(name, str)
            or not name
            or not isinstance(aliases, list)
            or not all(isinstance(a, str) for a in aliases)
            or not isinstance(label, str)
        ):
            raise GoldListError(
                f'gold list {where!r} entity {number}: expected {{"canonical_name": str, "aliases": [str, ...], '
                f'"label": str}}, got {item!r}',
                path=where,
            )
        gold.append(GoldEntity(name, tuple(aliases), label))
    try:
        _gold_index(gold)
    except ValueError as exc:
        raise GoldListError(f"gold list {where!r}: {exc}", path=where) from exc
    return gold


def score_details(
    entities: Iterable[ResolvedEntity], gold: Iterable[GoldEntity] | Mapping[str, Iterable[str]]
) -> GoldScore:
    """Pairwise precision and recall of resolved entities against gold; see ``score_against_gold``."""
    gold_of = _gold_index(gold)
    found: dict[str, set[int]] = {}
    for index, entity in enumerate(entities):
        for alias in entity.aliases:
            key = alias_key(alias)
            if key in gold_of:
                found.setdefault(key, set()).add(index)
    predicted = gold_pairs = correct = 0
    wrong: list[tuple[str, str]] = []
    missed: list[tuple[str, str]] = []
    for a, b in combinations(sorted(found), 2):
        merged = bool(found[a] & found[b])
        together = gold_of[a] == gold_of[b]
        predicted += merged
        gold_pairs += together
        correct += merged and together
        if merged and not together:
            wrong.append((a, b))
        elif together and not merged:
            missed.append((a, b))
    return GoldScore(
        precision=correct / predicted if predicted else 1.0,
        recall=correct / gold_pairs if gold_pairs else 1.0,
        found_aliases=len(found),
        predicted_pairs=predicted,
        gold_pairs=gold_pairs,
        correct_pairs=correct,
        wrong_pairs=tuple(wrong),
        missed_pairs=tuple(missed),
        gold_aliases=len(gold_of),
    )


def score_against_gold(
    entities: Iterable[ResolvedEntity], gold: Iterable[GoldEntity] | Mapping[str, Iterable[str]]
) -> tuple[float, float]:
    """Pairwise (precision, recall) of resolved entities against a gold list of entities with aliases.

    Definitions. Aliases are compared by ``alias_key`` (possessive, punctuation and case ignored; accents
    kept). A gold alias is *found* when some resolved entity lists it among its aliases; gold aliases the NER
    never produced, and resolved aliases that are in no gold entity, take no part. For every unordered pair
    of distinct found aliases {a, b}:

    - the resolver *merged* them when at least one resolved entity contains both;
    - gold *joins* them when they are aliases of the same gold entity.

    precision = |merged and joined| / |merged|  (of the merges the resolver made among gold aliases, the
    share gold agrees with), and recall = |merged and joined| / |joined| (of the merges gold asks for among
    the found aliases, the share the resolver made). An empty denominator gives 1.0: nothing was claimed, or
    nothing could be missed. Every pair weighs the same, so a character with many aliases weighs more.

    ``gold`` is a list of ``GoldEntity`` or a mapping canonical name -> aliases; an alias listed under two
    gold entities raises ``ValueError``, since no resolver could be right about it.
    """
    score = score_details(entities, gold)
    return score.precision, score.recall


def _gold_index(gold: Iterable[GoldEntity] | Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Alias key -> canonical name; an alias under two gold entities raises ``ValueError``."""
    gold_of: dict[str, str] = {}
    for canonical, aliases in _gold_items(gold):
        for alias in {alias_key(alias) for alias in (*aliases,)}:
            if gold_of.setdefault(alias, canonical) != canonical:
                raise ValueError(f"gold alias {alias!r} is listed under both {gold_of[alias]!r} and {canonical!r}")
    return gold_of


def _gold_items(gold: Iterable[GoldEntity] | Mapping[str, Iterable[str]]) -> list[tuple[str, tuple[str, ...]]]:
    if isinstance(gold, Mapping):
        return [(canonical, tuple(aliases)) for canonical, aliases in gold.items()]
    return [(entity.canonical_name, entity.aliases) for entity in gold]

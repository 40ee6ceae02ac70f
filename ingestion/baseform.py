"""Base forms (nominative) of inflected Hungarian names, learned from a corpus's lemma column.

Hungarian glues case suffixes onto a name's last word ("Dobónak", "Egerbe", "Budára", "McLane-t"); entities must be
keyed and named by the nominative ("Dobó", "Eger", "Buda"). ``SuffixRules`` is a suffix-context lemmatizer for the
last word of a name: from (form, lemma) pairs it learns, for every word ending seen often enough, the commonest edit
("strip ``ában``, append ``a``"), keeping only the endings whose edit differs from that of their shorter ending (so
the table stays small); a word takes the edit of its longest known ending. Whole words are endings too ("^klára"),
so names seen in the corpus keep their own reading ("Klára" is nominative, "Budára" is not).

``base_forms`` is a spaCy component (factory ``csillag_base_forms``) that writes each entity's base form into its
``ent_id`` unless something earlier (the domain's EntityRuler pattern id) already named it; the mentions stage
stores ``ent_id`` and the entities stage keys entities by it. Its rules are saved with the pipeline
(``base_forms/rules.json``). Before that it splits a person's span that holds two adjacent names
(``name_starts``): the model reads "Tengelyi Völgyesyvel szólt" ("Tengelyi spoke with Völgyesy") as one name, and
that one name would join both men into one entity.
"""

from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingestion.domains.hungarian import ends_in_vowel
from ingestion.names import PERSON_LABELS

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

logger = logging.getLogger(__name__)

FACTORY = "csillag_base_forms"
MAX_CONTEXT = 8
# An ending must have been seen this often (and its edit be the majority) to get a rule of its own.
MIN_COUNT = 1
BOUNDARY = "^"
Edit = tuple[int, str]
IDENTITY: Edit = (0, "")
# Case endings long enough that a bare name rarely ends in them by chance: -t, -n, -ra, -ba … also end "Margot",
# "Eden", "Vavra", so an ending the rules strip counts only when it is one of these or a doubled -val/-vel.
CASE_ENDINGS = tuple("nak nek ban ben ból ből ról ről hoz hez höz tól től nál nél ért ként val vel".split())
_DIGRAPHS = frozenset({"cs", "gy", "ly", "ny", "sz", "ty", "zs"})


def edit_of(form: str, lemma: str) -> Edit | None:
    """The (strip, append) edit turning ``form`` into ``lemma`` (case-insensitively); None when none is plausible."""
    f, lem = form.casefold(), lemma.casefold()
    if len(f) != len(form):  # casefolding changed the length (ß): no reliable edit
        return None
    common = 0
    while common < min(len(f), len(lem)) and f[common] == lem[common]:
        common += 1
    if common < 2 and f != lem:  # suppletive or a different word: nothing to learn for names
        return None
    return (len(f) - common, lem[common:])


def _contexts(word: str) -> list[str]:
    """The word's endings, longest first, the whole word marked with ``^`` (so it is also an ending)."""
    low = word.casefold()
    marked = BOUNDARY + low
    return [marked[-n:] for n in range(min(len(marked), MAX_CONTEXT + 1), 0, -1)] + [""]


class SuffixRules:
    """Ending → edit table; ``lemma(word)`` applies the edit of the word's longest known ending."""

    def __init__(self, rules: dict[str, Edit] | None = None) -> None:
        self.rules: dict[str, Edit] = dict(rules or {})

    @classmethod
    def learn(cls, pairs: Iterable[tuple[str, str]], min_count: int = MIN_COUNT) -> SuffixRules:
        """Learn from (form, lemma) pairs of names' last words."""
        counts: dict[str, Counter[Edit]] = defaultdict(Counter)
        for form, lemma in pairs:
            edit = edit_of(form, lemma)
            if edit is None:
                continue
            for context in _contexts(form):
                counts[context][edit] += 1
        best: dict[str, Edit] = {}
        for context, edits in counts.items():
            edit, n = edits.most_common(1)[0]
            whole = context.startswith(BOUNDARY)
            if context == "" or n >= min_count or (whole and n == sum(edits.values())):
                best[context] = edit
        # Keep a rule only where it changes the answer of the next shorter ending that has a rule.
        kept: dict[str, Edit] = {}
        for context in sorted(best, key=len):
            parent = _fallback(best, context[1:]) if context else None
            if context == "" or best[context] != parent:
                kept[context] = best[context]
        return cls(kept)

    def edit(self, word: str) -> Edit:
        """The edit for ``word``: that of its longest ending with a rule."""
        for context in _contexts(word):
            edit = self.rules.get(context)
            if edit is not None and edit[0] < len(word) - 1:
                return edit
        return IDENTITY

    def lemma(self, word: str) -> str:
        """``word``'s base form, keeping its own spelling of what stays ("Tanácsnak" → "Tanács", not "tanács")."""
        strip, append = self.edit(word)
        if not strip and not append:
            return word
        stem = word[: len(word) - strip] if strip else word
        if append and stem[-1:].isupper() and stem.isupper():
            append = append.upper()
        return stem + append

    def inflected(self, word: str) -> bool:
        """Whether ``word`` carries a case ending (``CASE_ENDINGS`` or the assimilated -val/-vel: "Kováccsal")
        that the rules strip; a bare name ending in a short ending's letters ("Margot", "Eden") is not."""
        strip, _ = self.edit(word)
        if strip < 3:
            return False
        low = word.casefold()
        if low[-strip:].endswith(CASE_ENDINGS):
            return True
        doubled = low[-3:-2] == low[-4:-3] or (low[-5:-4] == low[-4:-3] and low[-4:-2] in _DIGRAPHS)
        return low.endswith(("al", "el")) and len(low) > 5 and doubled

    def base_form(self, name: str) -> str:
        """A multi-word name's base form: only its last word inflects ("Dobó Istvánnak" → "Dobó István")."""
        head, _, last = name.rpartition(" ")
        if not last or not any(ch.isalpha() for ch in last):
            return name
        base = self.lemma(last)
        return f"{head} {base}" if head else base

    def to_json(self) -> str:
        """The table as JSON (ending → [strip, append])."""
        return json.dumps({k: list(v) for k, v in sorted(self.rules.items())}, ensure_ascii=False, indent=0)

    @classmethod
    def from_json(cls, text: str) -> SuffixRules:
        """Read what ``to_json`` wrote."""
        return cls({k: (int(v[0]), str(v[1])) for k, v in json.loads(text).items()})


def name_starts(words: list[str], rules: SuffixRules) -> list[int]:
    """Indices of the words of one person's span at which another person's name begins.

    Hungarian inflects only a name's last word and puts the family name first, so inside a span a capitalised word
    begins a new name when the word before it carries a case ending ("Jónásnak Rétyvel": to Jónás, with Réty), or
    when it is an inflected old-spelling family name in -y (read i: "Völgyesy") after a family name formed with -i/-y
    ("Tengelyi Völgyesyvel": Tengelyi with Völgyesy) — given names, which follow a family name, never end so; in the
    nominative the pair is more often one family with its place ("Podolini Malatinszky") and stays whole. A title
    after a name is lowercase ("Slacsanek úr") and never splits.
    """
    starts = []
    for i in range(1, len(words)):
        before, word = words[i - 1], words[i]
        if not word[:1].isupper() or not before[:1].isupper():
            continue
        if (before.isalpha() and rules.inflected(before)) or (
            rules.inflected(word) and _old_family_name(rules.lemma(word)) and _family_adjective(before)
        ):
            starts.append(i)
    return starts


def _old_family_name(word: str) -> bool:
    """A final ``y`` read as the vowel i, the old spelling of family names ("Völgyesy", "Kárpáthy")."""
    return word.endswith("y") and ends_in_vowel(word)


def _family_adjective(word: str) -> bool:
    """A family name formed like an adjective of place, in -i or the old -y ("Tengelyi", "Macskaházy")."""
    return word.endswith(("i", "í")) or _old_family_name(word)


def _fallback(rules: dict[str, Edit], context: str) -> Edit | None:
    while True:
        if context in rules:
            return rules[context]
        if not context:
            return None
        context = context[1:]


class BaseForms:
    """spaCy component: each entity without an ``ent_id`` gets its base form as ``ent_id`` (see module docstring)."""

    def __init__(self, nlp: Language, name: str, labels: Iterable[str] = ()) -> None:
        self.name = name
        self.labels = frozenset(labels)
        self.rules = SuffixRules()

    def __call__(self, doc: Doc) -> Doc:
        """Split persons' spans holding two names, then set the base form of every unnamed entity whose label the
        component covers (all when none given)."""
        from spacy.tokens import Span

        changed = False
        ents = []
        for whole in doc.ents:
            if whole.ent_id_ or (self.labels and whole.label_ not in self.labels):
                ents.append(whole)
                continue
            parts = self._names(whole)
            changed = changed or len(parts) > 1
            for ent in parts:
                base = self.rules.base_form(ent.text)
                if base != ent.text:
                    ent = Span(doc, ent.start, ent.end, label=ent.label, span_id=base)
                    changed = True
                ents.append(ent)
        if changed:
            doc.ents = ents
        return doc

    def _names(self, ent: Any) -> list[Any]:
        """``ent`` cut where another person's name begins (``name_starts``); ``[ent]`` when it holds one name."""
        from spacy.tokens import Span

        if ent.label_ not in PERSON_LABELS or len(ent) < 2:
            return [ent]
        starts = name_starts([token.text for token in ent], self.rules)
        if not starts:
            return [ent]
        bounds = [ent.start, *(ent.start + i for i in starts), ent.end]
        return [Span(ent.doc, a, b, label=ent.label) for a, b in pairwise(bounds)]

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        """Write the rules (``rules.json``) and the labels."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "rules.json").write_text(self.rules.to_json(), encoding="utf-8")
        (path / "labels.json").write_text(json.dumps(sorted(self.labels)), encoding="utf-8")

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> BaseForms:
        """Read what ``to_disk`` wrote."""
        path = Path(path)
        self.rules = SuffixRules.from_json((path / "rules.json").read_text(encoding="utf-8"))
        self.labels = frozenset(json.loads((path / "labels.json").read_text(encoding="utf-8")))
        return self


def register() -> None:
    """Register the factory with spaCy (idempotent); ``build_nlp`` calls it before loading any pipeline."""
    from spacy.language import Language

    if not Language.has_factory(FACTORY):
        Language.factory(FACTORY, default_config={"labels": []}, func=_make)


def _make(nlp, name, labels):  # unannotated: spaCy validates real annotations only
    return BaseForms(nlp, name, labels)


def learn_from_nerkor(root: Path, labels: Iterable[str] = ("PER", "LOC", "ORG", "MISC")) -> SuffixRules:
    """Rules from the last word of every gold name of a NerKor split (its FORM and LEMMA columns)."""
    from ingestion.training.nerkor import gold_names

    wanted = set(labels)
    pairs = [(form, lemma) for label, _text, form, lemma in gold_names(root) if label in wanted]
    rules = SuffixRules.learn(pairs)
    logger.info("base forms: %d rules from %d names of %s", len(rules.rules), len(pairs), root)
    return rules


def describe(rules: SuffixRules) -> dict[str, Any]:
    """Size of the rule table, for logs and the model card."""
    return {"rules": len(rules.rules)}

"""Label consistency for names in fiction: a name's label decided from all its mentions in a text and their contexts.

A statistical NER labels each mention on its own, so "Madame St. Aubert" can come out PERSON in one sentence and
"St. Aubert" GPE in the next, and "Agnes" LOC where nothing around her says so. After the NER, within one text (in
the mentions stage: one chunk), this step

1. makes every entity that starts with a personal title ("Mr.", "M.", "Mme", "Monsieur", "Lady", "Captain" …) a
   PERSON, absorbs a title just before an entity into it ("Mr. [Jaggers]" → "Mr. Jaggers", PERSON), drops an
   entity that is a bare title ("Monsieur"), and makes a PERSON of a title and the capitalised words after it that
   the model left out ("M. Duroc");
2. collects, for each name and each word of a multi-word name, evidence: the labels the model gave it, titles
   (strong), and speech verbs next to it ("said Agnes", "Agnes replied");
3. relabels each entity to the label with the most evidence for its name when that is PERSON and beats the rest.

Only PERSON is promoted: places and organisations seldom take titles or speech verbs, and a place that shares a
word with a person ("Washington") keeps the model's label unless the evidence for the person is stronger.
Everything is general: titles and speech verbs are English words, no name of any book is listed.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

logger = logging.getLogger(__name__)

FACTORY = "csillag_name_labels"
PERSON = "PERSON"
PLACE = "place"  # evidence for "some place", whichever of GPE/LOC/FAC
# Personal titles, as tokens (spaCy keeps the period on "Mr." and "M."); case-sensitive, so "mother" is not one.
TITLES = frozenset(
    """Mr Mr. Mrs Mrs. Ms Ms. Miss Mister Master Messrs Messrs. Dr Dr. Doctor M. Mme Mme. Mlle Mlle. Monsieur Madame
    Mademoiselle Madam Sir Lady Lord Dame Captain Capt. Colonel Col. General Gen. Major Lieutenant Lieut. Sergeant
    Admiral Count Countess Prince Princess Duke Duchess Baron Baroness Marquis Marquise Emperor Empress Father Mother
    Sister Brother Aunt Uncle Professor Prof. Rev. Reverend Judge Herr Frau Fräulein Signor Signora Señor Señora Don
    Mistress Squire""".split()
)
# The titles that make a person of the capitalised words after them even where the model saw no entity ("M. Duroc",
# "Mme. Vautrin"); words such as "General", "Mother" or "Judge" begin other names too often.
NAMING_TITLES = frozenset(
    """Mr Mr. Mrs Mrs. Ms Ms. Miss Dr Dr. M. Mme Mme. Mlle Mlle. Monsieur Madame Mademoiselle Sir Lady Lord Dame
    Captain Colonel Lieutenant Sergeant Admiral Count Countess Prince Princess Duke Duchess Baron Baroness Marquis
    Professor Rev. Reverend Herr Frau Signor Signora Señor Señora Aunt Uncle Father Mistress Squire""".split()
)
SPEECH_VERBS = frozenset(
    """said says say asked asks replied replies cried cries exclaimed answered answers whispered murmured shouted
    continued added began remarked observed returned rejoined repeated interrupted muttered called laughed sighed
    thought exclaims""".split()
)
PLACE_LABELS = ("GPE", "LOC", "FAC")
TITLE_WEIGHT = 3
SPEECH_WEIGHT = 2
PLACE_WEIGHT = 2
# Words that make a name a place whatever the model said of it: built places (FAC) and natural ones (LOC), as the
# name's last word ("Chiswick Mall", "Sonora Desert") or, for the LOC_FIRST words, its first ("Mt Kenia").
FAC_HEADS = frozenset(
    """Street Lane Road Square Boulevard Avenue Mall Hall Bridge Park Castle Abbey Church Chapel Cathedral Inn House
    Palace Tower Gate Station Hotel Prison Row Terrace Gardens Manor Farm Mill Cottage Grange Priory Lodge""".split()
)
LOC_HEADS = frozenset(
    """River Lake Mountain Mountains Mount Island Isle Islands Bay Sea Ocean Valley Forest Wood Woods Hill Hills
    Desert Moor Marsh Marshes Coast Gulf Channel Creek Canyon Falls Plain Plains Peak Heath""".split()
)
LOC_FIRST = frozenset("Mt Mt. Mount Lake Isle Cape".split())
# "in X" / "near X" says X is a place ("looked at X", "a letter from X", "went to X" do not), and so does "the city
# of X"; "X, who" says X is someone.
PLACE_PREPOSITIONS = frozenset({"in", "In", "near", "Near"})
PLACE_NOUNS = frozenset(
    """city town village county province provinces kingdom state island port streets shores coast parish country
    capital suburbs borough district shore banks bank margin mouth waters""".split()
)
# "returning to X", "set off for X", "came from X": a journey's end or start is a place.
MOTION_VERBS = frozenset(
    """go goes going gone went come comes coming came return returns returning returned travel travelled traveled
    travelling sail sailed sailing journey journeyed drive drove ride rode walk walked off bound arrive arrived
    removed moved fled""".split()
)
MOTION_PREPOSITIONS = frozenset({"to", "for", "from", "towards", "toward"})


def _is_title(token_text: str) -> bool:
    # "MR." and "LADY" in a capitalised heading or letter are titles too.
    return token_text in TITLES or (token_text.isupper() and token_text.title() in TITLES)


def absorb_titles(doc: Doc) -> list[Span]:
    """Rule 1: the entities with titles absorbed, titled ones as PERSON, bare titles dropped."""
    from spacy.tokens import Span

    out: list[Span] = []
    for ent in doc.ents:
        start, label = ent.start, ent.label_
        if start > 0 and _is_title(doc[start - 1].text) and (not out or out[-1].end <= start - 1):
            start -= 1
        words = [t.text for t in doc[start : ent.end]]
        if all(_is_title(w) for w in words):
            continue
        if _is_title(words[0]) and words[1][:1].isupper():
            label = PERSON
        elif label == PERSON:
            label = place_label(doc[start : ent.end]) or label
        out.append(Span(doc, start, ent.end, label=label) if (start, label) != (ent.start, ent.label_) else ent)
    return out


def place_label(span: Span) -> str | None:
    """FAC or LOC when a word of the name says it is a place, else None."""
    first, last = span[0].text, span[-1].text
    if len(span) > 1 and last in FAC_HEADS:
        return "FAC"
    if len(span) > 1 and (last in LOC_HEADS or first in LOC_FIRST):
        return "LOC"
    return None


def titled_names(doc: Doc, ents: list[Span]) -> list[Span]:
    """New PERSON entities: a naming title and the capitalised words after it, where no entity covers them."""
    from spacy.tokens import Span

    taken = [False] * len(doc)
    for ent in ents:
        for i in range(ent.start, ent.end):
            taken[i] = True
    added: list[Span] = []
    i = 0
    while i < len(doc):
        word = doc[i].text
        if not taken[i] and (word in NAMING_TITLES or (word.isupper() and word.title() in NAMING_TITLES)):
            j = i + 1
            if j < len(doc) and doc[j].text == "." and not word.endswith("."):
                j += 1  # "Mme ." as the tokenizer may split it
            end = j
            while end < len(doc) and end - j < 3 and not taken[end] and _name_word(doc[end].text):
                end += 1
            if end > j:
                added.append(Span(doc, i, end, label=PERSON))
                i = end
                continue
        i += 1
    return added


def _name_word(word: str) -> bool:
    return word[:1].isupper() and (word.isalpha() or word in ("St.", "Ste.")) and not _is_title(word)


def name_keys(span: Span) -> tuple[str, list[str]]:
    """The title-less name of an entity and its words (for a multi-word name: each capitalised word)."""
    words = [t.text for t in span if not _is_title(t.text)]
    parts = [w for w in words if w[:1].isupper() and len(w) > 1] if len(words) > 1 else []
    return " ".join(words), parts


def _evidence(doc: Doc, ents: list[Span]) -> dict[str, Counter[str]]:
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for ent in ents:
        name, parts = name_keys(ent)
        weight = 1
        if ent.label_ == PERSON and _is_title(ent[0].text):
            weight = TITLE_WEIGHT
        votes[name][ent.label_] += weight
        for part in parts:
            # A word of a titled full name ("St. Aubert" of "Madame St. Aubert") inherits its evidence.
            votes[part][ent.label_] += weight if ent.label_ == PERSON else 1
        before = doc[ent.start - 1].lower_ if ent.start > 0 else ""
        after = doc[ent.end].lower_ if ent.end < len(doc) else ""
        after2 = doc[ent.end + 1].lower_ if ent.end + 1 < len(doc) and after == "," else ""
        if before in SPEECH_VERBS or after in SPEECH_VERBS or after2 in SPEECH_VERBS:
            votes[name][PERSON] += SPEECH_WEIGHT
        if ent.start > 0 and doc[ent.start - 1].text in PLACE_PREPOSITIONS and after not in ("'s", "’s", "'"):
            votes[name][PLACE] += PLACE_WEIGHT
        elif before == "of" and ent.start > 1 and doc[ent.start - 2].lower_ in PLACE_NOUNS:
            votes[name][PLACE] += PLACE_WEIGHT
        elif before in MOTION_PREPOSITIONS and ent.start > 1 and doc[ent.start - 2].lower_ in MOTION_VERBS:
            votes[name][PLACE] += PLACE_WEIGHT
        elif before == "the" and len(ent) == 1 and not ent.text.endswith("s"):
            # "the Hudson": a one-word name after "the" is a place or a thing, seldom someone (families are plural).
            votes[name][PLACE] += PLACE_WEIGHT
    return votes


def harmonize(doc: Doc) -> Doc:
    """Apply the three rules to ``doc.ents`` in place; returns the doc (a spaCy component)."""
    from spacy.tokens import Span

    ents = absorb_titles(doc)
    ents = sorted(ents + titled_names(doc, ents), key=lambda span: span.start)
    votes = _evidence(doc, ents)
    result: list[Span] = []
    for ent in ents:
        name, _ = name_keys(ent)
        evidence = votes.get(name, Counter())
        person = evidence[PERSON]
        other = sum(v for k, v in evidence.items() if k != PERSON)
        if ent.label_ != PERSON and person > other:
            ent = Span(doc, ent.start, ent.end, label=PERSON)
        elif ent.label_ == PERSON and not _is_title(ent[0].text) and evidence[PLACE] >= person:
            # Said to be somewhere more often than the model and the titles say it is someone.
            places = [k for k, _ in evidence.most_common() if k in PLACE_LABELS]
            ent = Span(doc, ent.start, ent.end, label=places[0] if places else "GPE")
        result.append(ent)
    doc.ents = result
    return doc


def register() -> None:
    """Register the spaCy factory ``csillag_name_labels`` (idempotent)."""
    from spacy.language import Language

    if not Language.has_factory(FACTORY):
        Language.factory(FACTORY, func=_make)


def _make(nlp: Any, name: str) -> Any:  # spaCy's factory signature; the step needs neither
    return harmonize


def add_to(nlp: Language) -> None:
    """Add the step after the pipeline's ner (or last)."""
    register()
    if FACTORY not in nlp.pipe_names:
        nlp.add_pipe(FACTORY, after="ner" if "ner" in nlp.pipe_names else None)

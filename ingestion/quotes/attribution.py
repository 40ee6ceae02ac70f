"""Who says each quotation: a name mention of the text, and how the text tells it.

Input: the document's text, its quotations (``ingestion.quotes.detection``) and the spans of its person names (the
mentions stage's NER; no list of characters). Output per quotation: the speaker span, the words next to the quotation
that name the speaker (the *cue*), the addressees named in it, and the kind of evidence, in this order of trust:

- ``explicit``: a verb of saying next to the quotation, in its sentence or in a paragraph before it that ends with a
  colon or a dash ("Then Mary spoke:", "and said at once--"), whose subject is a name
  (``ingestion.quotes.clauses``: "…," said Pierre / Pierre said, "…"; not "said he to Temple").
- ``anaphoric``: the subject is a pronoun ("he said") or a description ("said the old man"). "he"/"she" is the
  most recent name outside quotations whose sex fits (titles, then the pronouns after the name's mentions, then the
  given name) — or a description the text lets speak elsewhere, met after that name ("the doctor",
  ``ingestion.quotes.unnamed``); a description is the most recent name that carries its head noun ("the parson":
  Parson Tringham), else itself (a span no entity matches). A verb with no subject (Hungarian drops it: "- mondja a
  fiúnak") is the most recent name outside quotations. "I said" is the narrator: the pronoun is the speaker.
- ``implicit``: another quotation of the same paragraph already attributed (one paragraph, one speaker); a name,
  a "he"/"she" or a description of a person opening the sentence just before the quotation ("Pierre turned to her.
  “…”", "The old man looked up. “…”"); a reply to a vocative
  ("…, Natasha?" makes the next turn Natasha's; the first name called, since a later one is often an apposition:
  "…, Florence, … my boy, Harvey."); alternating turns (the speaker two turns back or ahead, when the turn between
  is someone else's), carried along the whole conversation — which ends where the narration between two turns
  brings in someone new (a name said there for the first time).
- ``none``: nothing of the above.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ingestion.names import (
    PRONOUN_PATTERNS,
    PRONOUN_WINDOW,
    common_given_name_sex,
    gender_of_titles,
    genders_compatible,
    pronoun_gender,
    title_gender,
)
from ingestion.normalize import EN_TITLES, HU_TITLES
from ingestion.quotes.clauses import subject
from ingestion.quotes.detection import Paragraph, Quotation, paragraphs
from ingestion.quotes.speech import (
    DETERMINERS,
    FEMALE_NOUNS,
    MALE_NOUNS,
    POLITE_ADDRESS,
    SUBJECT_PRONOUNS,
    WORD,
    is_speech_verb,
)
from ingestion.quotes.unnamed import noun_sex, unnamed_people_of

logger = logging.getLogger(__name__)

__all__ = ["Attribution", "attribute"]

Span = tuple[int, int]
EXPLICIT, ANAPHORIC, IMPLICIT, NONE = "explicit", "anaphoric", "implicit", "none"
# How many words may stand between a quotation and its verb of saying ("…," the old man at last said).
VERB_WINDOW = 5
# How far back a pronoun looks for its name: past it, the pronoun itself is the speaker (no entity).
RECENT_WINDOW = 8000
# Two paragraphs with quotations are turns of one conversation when this many paragraphs apart or fewer.
TURN_GAP = 4
# How far before a quotation the sentence it follows is looked for.
LEAD_WINDOW = 300
# A clause ends at these marks, but not at the dot of an abbreviated title ("Mr. Bennet").
CLAUSE_END = re.compile(r"(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bSt)(?<!\bMs)(?<!\b[A-Z])[.!?;:]|\n\s*\n")
# A title or kin word called out alone, set off by punctuation ("…, parson, …", "Uncle, you know", "…, doctor.").
_CALLING_TITLES = sorted((t for t in EN_TITLES if len(t) > 2 and t not in ("old", "young", "little", "grand")), key=len)
TITLE_VOCATIVE = re.compile(
    r"(?:(?<=[,;!?.“\"‘'—-])|(?<=[,;!?.“\"‘'—-]\s))"
    + r"((?i:" + "|".join(reversed(_CALLING_TITLES)) + r"))(?=\s*[,;!?.”\"’'—])"
)
# A paragraph that announces the quotation opening the next one ends with a colon (and perhaps a dash) or a dash
# ("and said at once--"); the verb of saying must still be among its last words.
ANNOUNCING = re.compile(r"(?::\s*(?:--|[-–—])?|--|[–—])\s*$")
# A description opening a sentence as its subject: a determiner, at most two lowercase words, then a verb in the past.
LEADING_DESCRIPTION = re.compile(
    r"(?:The|A|An|His|Her|Their|Our|My)\s+(?:[a-z-]+\s+){0,2}?([a-z-]+)(?=\s+(?:was|had|[a-z]+ed)\b)"
)
# Nouns that are people by themselves: an unresolved "he said" may be one met before, though it never speaks.
PERSON_NOUNS = MALE_NOUNS | FEMALE_NOUNS
SENTENCE_END = re.compile(r"(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bSt)(?<!\bMs)(?<!\b[A-Z])[.!?]\s")


@dataclass(frozen=True)
class Attribution:
    """One quotation's speaker (a name span, or the cue itself when no name fits), its cue, addressees, kind."""

    quote: Quotation
    speaker: Span | None = None
    cue: Span | None = None
    kind: str = NONE
    addressees: tuple[Span, ...] = field(default=())


@dataclass
class _Names:
    """The person-name spans of a text with what the text says of each: its key (last word, casefolded), its sex and
    whether it lies inside a quotation."""

    spans: list[Span]
    keys: list[str]
    sexes: list[str]
    quoted: list[bool]
    starts: list[int] = field(init=False)
    key_of: dict[Span, str] = field(init=False)
    by_word: dict[str, list[int]] = field(init=False)  # casefolded word -> indices of the names holding it

    def __post_init__(self) -> None:
        self.starts = [start for start, _ in self.spans]
        self.key_of = dict(zip(self.spans, self.keys, strict=True))
        self.by_word = {}

    def index_words(self, text: str) -> None:
        """Index the names by their words, for ``latest_with_word``."""
        for i, (start, end) in enumerate(self.spans):
            for word in set(text[start:end].casefold().split()):
                self.by_word.setdefault(word, []).append(i)

    def latest_with_word(self, word: str, offset: int) -> Span | None:
        """The latest name before ``offset`` that has ``word`` among its words ("parson": Parson Tringham)."""
        holders = self.by_word.get(word.casefold(), [])
        found = bisect.bisect_left(holders, bisect.bisect_left(self.starts, offset)) - 1
        return self.spans[holders[found]] if found >= 0 else None

    def before(self, offset: int) -> range:
        """Indices of the names starting before ``offset``, latest first."""
        return range(bisect.bisect_left(self.starts, offset) - 1, -1, -1)


def attribute(text: str, quotations: Sequence[Quotation], names: Sequence[Span]) -> list[Attribution]:
    """Attribute every quotation of ``text`` (module docstring); ``names`` are person-name spans in any order."""
    names_info = _names(text, sorted(set(names)), quotations)
    parts = paragraphs(text)
    paragraph_ends = [p.end for p in parts]
    result: list[Attribution] = []
    for index, quote in enumerate(quotations):
        addressees = _vocatives(text, quote, names_info)
        previous = _previous_turn(result, quote.paragraph)
        avoid = (_key_of(names_info, previous.speaker),) if previous and previous.speaker else ()
        found = _said(text, quotations, index, paragraph_ends, names_info, addressees, avoid)
        result.append(found or Attribution(quote, addressees=addressees))
    heads = _speaking_heads(text, result)
    _unnamed_speakers(text, quotations, result, names_info, heads)
    _continued(text, result)
    _same_paragraph(result)
    _leading_subjects(text, result, names_info, heads)
    _turns(text, result, names_info, parts)
    return result


def _speaking_heads(text: str, result: list[Attribution]) -> set[str]:
    """The head words of the descriptions said-clauses make speak ("said the doctor": doctor)."""
    return {
        text[a.cue[0] : a.cue[1]].split()[-1].casefold()
        for a in result
        if a.kind == ANAPHORIC and a.cue and text[a.cue[0] : a.cue[1]].split()[0].casefold() in DETERMINERS
    }


def _unnamed_speakers(
    text: str, quotations: Sequence[Quotation], result: list[Attribution], names: _Names, heads: set[str]
) -> None:
    """"he said" is a speaking description ("the doctor", ``ingestion.quotes.unnamed``) when one of its sex occurs
    after the name the pronoun was given, or when it was given none; then a person noun of its sex that does not
    speak elsewhere may be it too ("A man was sitting across the aisle. … he asked"): a pronoun left as the speaker
    names no one."""
    pronouns = [
        i for i, a in enumerate(result)
        if a.kind == ANAPHORIC and a.cue is not None and a.speaker is not None
        and text[a.cue[0] : a.cue[1]].casefold() in ("he", "she")
    ]
    # the person nouns are read only when some pronoun is left unresolved
    unresolved = any(result[i].speaker == result[i].cue for i in pronouns)
    unnamed, *people = unnamed_people_of(text, [heads, heads | PERSON_NOUNS] if unresolved else [heads], quotations)
    for i in pronouns:
        attribution = result[i]
        cue, speaker = attribution.cue, attribution.speaker
        assert cue is not None and speaker is not None  # as chosen above; for mypy
        word = text[cue[0] : cue[1]].casefold()
        source = people[0] if speaker == cue else unnamed
        found = source.latest(cue[0], SUBJECT_PRONOUNS[word], RECENT_WINDOW)
        if found is not None and (speaker == cue or found[0][0] > speaker[0]):
            carried = names.latest_with_word(found[1], found[0][0])
            result[i] = replace(attribution, speaker=carried or found[0])


def _continued(text: str, result: list[Attribution]) -> None:
    """A quotation that goes on after its said-clause is still its speaker's, within one sentence ("Ah," cried Miss
    Marjoribanks, reposing her sorrow in the arms of this anxious attendant, "we must try") or right after the
    sentence the clause ends ("Snake, snow will be flying," said Jim Wilson. "Are we going south?")."""
    for i in range(1, len(result)):
        before, attribution = result[i - 1], result[i]
        cue = before.cue
        if attribution.speaker is not None or before.speaker is None or cue is None:
            continue
        between = (before.quote.end, attribution.quote.start)
        same_paragraph = before.quote.paragraph == attribution.quote.paragraph
        clause_first = not SENTENCE_END.search(text, between[0], cue[0])  # the clause is the quotation's own
        ends = len(SENTENCE_END.findall(text, *between))
        if same_paragraph and between[0] <= cue[0] < between[1] and clause_first and ends <= 1:
            result[i] = replace(attribution, speaker=before.speaker, cue=cue, kind=before.kind)


def _names(text: str, spans: list[Span], quotations: Sequence[Quotation]) -> _Names:
    """Keys, sexes and whether quoted, for each name span."""
    starts = [q.start for q in quotations]
    quoted = []
    for start, _ in spans:
        i = bisect.bisect_right(starts, start) - 1
        quoted.append(i >= 0 and quotations[i].end > start)
    keys = [_key(text[s:e]) for s, e in spans]
    pronouns: dict[str, list[int]] = {}
    for (_, end), key in zip(spans, keys, strict=True):
        window = text[end : end + PRONOUN_WINDOW]
        counts = pronouns.setdefault(key, [0, 0])
        counts[0] += len(re.findall(PRONOUN_PATTERNS["he"], window))
        counts[1] += len(re.findall(PRONOUN_PATTERNS["she"], window))
    sexes = [_sex(text[s:e], pronouns[key]) for (s, e), key in zip(spans, keys, strict=True)]
    found = _Names(spans, keys, sexes, quoted)
    found.index_words(text)
    return found


def _key(name: str) -> str:
    words = [w for w in WORD.findall(name) if not title_gender(w.casefold())]
    return (words or WORD.findall(name) or [name])[-1].casefold()


def _sex(name: str, pronouns: list[int]) -> str:
    """A name's sex from its title, else the pronouns after its mentions, else its given name; ``""`` unknown."""
    words = WORD.findall(name)
    titled = gender_of_titles(w.casefold() for w in words)
    if titled:
        return titled
    by_pronouns = pronoun_gender(*pronouns)
    if by_pronouns:
        return by_pronouns
    return common_given_name_sex(words[0].casefold()) if len(words) > 1 else common_given_name_sex(name.casefold())


# Words of address between the comma and the name ("Yes, my dear Monsieur Pierre, …"): the name is still called.
# Titles are the resolver's own (``ingestion.normalize``); the rest are words of endearment.
_ADDRESS_WORDS = EN_TITLES | HU_TITLES | frozenset(
    "my dear dearest poor good mon ma cher chère kedves édes bátyám öcsém".split())


def _without_address_words(before: str) -> str:
    """``before`` without the words of address that end it."""
    words = before.split()  # only its last character and whether anything is left are read
    while len(words) > 1 and words[-1].casefold().rstrip(".") in _ADDRESS_WORDS:
        words.pop()
    return " ".join(words)


def _vocatives(text: str, quote: Quotation, names: _Names) -> tuple[Span, ...]:
    """Names the quotation addresses: after a comma and before punctuation ("Good night, Sir John,", "Come,
    Natasha."), or opening a sentence and followed by a comma, "!" or "?" ("Natasha, come!"). A name alone before a
    full stop is an answer or an introduction ("Margaret Hale. I'm the clerk."), not a call."""
    found = []
    for i in names.before(quote.end):
        start, end = names.spans[i]
        if start < quote.start:
            break
        before = _without_address_words(text[quote.start : start].rstrip())
        after = text[end : quote.end].lstrip()[:1]
        after_comma = before[-1:] == ","
        opening = not before[1:] or before[-1] in ".!?;"
        if (after_comma and (not after or after in ",.!?;”’\"'")) or (opening and after in ",!?"):
            found.append((start, end))
    return tuple(reversed(found))


def _said(
    text: str,
    quotations: Sequence[Quotation],
    index: int,
    paragraph_ends: list[int],
    names: _Names,
    addressees: tuple[Span, ...],
    avoid: tuple[str, ...],
) -> Attribution | None:
    """The attribution a verb of saying next to the quotation gives: after it first, then before it."""
    quote = quotations[index]
    limit = (
        paragraph_ends[bisect.bisect_left(paragraph_ends, quote.end)] if quote.end <= paragraph_ends[-1] else len(text)
    )
    if index + 1 < len(quotations):
        limit = min(limit, quotations[index + 1].start)
    tail_end = CLAUSE_END.search(text, quote.end, limit)
    tail = (quote.end, tail_end.start() if tail_end else limit)
    head = _head(text, quotations, index, paragraph_ends)
    for clause, after in ((tail, True), (head, False)):
        words = [
            (m.start() + clause[0], m.end() + clause[0], m.group()) for m in WORD.finditer(text[clause[0] : clause[1]])
        ]
        near = words[:VERB_WINDOW] if after else words[-VERB_WINDOW:]
        verb = next((w for w in near if is_speech_verb(w[2])), None)
        if verb is not None:
            return _speaker_of_clause(text, quote, words, verb, names, addressees, avoid)
    return None


def _head(text: str, quotations: Sequence[Quotation], index: int, paragraph_ends: list[int]) -> Span:
    """The sentence before a quotation, in its paragraph — or, for a quotation opening its paragraph, the previous
    paragraph's last sentence when it ends with a colon or a dash ("Then Mary spoke:" / the quotation), which
    announces it."""
    quote = quotations[index]
    at = bisect.bisect_left(paragraph_ends, quote.start)
    start = paragraph_ends[at - 1] if at > 0 else 0
    announced = at > 0 and ANNOUNCING.search(text, max(paragraph_ends[at - 1] - 8, 0), paragraph_ends[at - 1])
    if announced and not text[start : quote.start].strip():
        start = paragraph_ends[at - 2] if at > 1 else 0
    if index > 0:
        start = max(start, quotations[index - 1].end)
    heads = list(SENTENCE_END.finditer(text, start, quote.start))
    return heads[-1].end() if heads else start, quote.start


def _speaker_of_clause(
    text: str,
    quote: Quotation,
    words: list[tuple[int, int, str]],
    verb: tuple[int, int, str],
    names: _Names,
    addressees: tuple[Span, ...],
    avoid: tuple[str, ...],
) -> Attribution:
    """The attribution a said-clause's subject gives (``ingestion.quotes.clauses.subject``): a name is
    ``explicit``; a pronoun, a description or a dropped subject ``anaphoric`` — "he"/"she" and a dropped subject the
    latest fitting name, not the previous turn's speaker (``avoid``) while another fits; a description the latest
    name holding its head noun, else itself."""
    kind, span = subject(text, words, words.index(verb), names.spans, names.starts)
    if kind == "name":
        return Attribution(quote, span, span, EXPLICIT, addressees)
    if kind == "pronoun":
        word = text[span[0] : span[1]].casefold()
        if word in ("i", "én"):
            return Attribution(quote, span, span, ANAPHORIC, addressees)
        sex = SUBJECT_PRONOUNS[word]
        resolved = _recent(names, span[0], sex, addressees, avoid) or _recent(names, span[0], sex, addressees)
        return Attribution(quote, resolved or span, span, ANAPHORIC, addressees)
    if kind == "description":
        carried = names.latest_with_word(text[span[0] : span[1]].split()[-1], span[0])
        return Attribution(quote, carried or span, span, ANAPHORIC, addressees)
    resolved = _recent(names, quote.start, "", addressees, avoid) or _recent(names, quote.start, "", addressees)
    return Attribution(quote, resolved, span, ANAPHORIC, addressees)


def _recent(
    names: _Names, offset: int, sex: str, addressees: tuple[Span, ...], avoid: tuple[str, ...] = ()
) -> Span | None:
    """The latest name before ``offset`` (and at most ``RECENT_WINDOW`` characters before), outside quotations, whose
    sex fits, that the quotation does not address and whose key is not in ``avoid``."""
    spoken_to = {names.key_of[span] for span in addressees} | set(avoid)
    for i in names.before(offset):
        if names.spans[i][1] < offset - RECENT_WINDOW:
            break
        if not names.quoted[i] and names.keys[i] not in spoken_to and genders_compatible(sex, names.sexes[i]):
            return names.spans[i]
    return None


def _previous_turn(result: list[Attribution], paragraph: int) -> Attribution | None:
    """The last quotation of the paragraph just before ``paragraph``, if that paragraph holds one."""
    if result and result[-1].quote.paragraph == paragraph - 1:
        return result[-1]
    return None


def _same_paragraph(result: list[Attribution]) -> None:
    """A paragraph's unattributed quotations are its attributed quotation's speaker's, when it has just one."""
    by_paragraph: dict[int, list[int]] = {}
    for i, attribution in enumerate(result):
        by_paragraph.setdefault(attribution.quote.paragraph, []).append(i)
    for members in by_paragraph.values():
        speakers = {result[i].speaker for i in members if result[i].speaker}
        if len(speakers) != 1:
            continue
        source = next(result[i] for i in members if result[i].speaker)
        for i in members:
            if result[i].speaker is None:
                result[i] = replace(result[i], speaker=source.speaker, cue=source.cue, kind=source.kind)


def _leading_subjects(text: str, result: list[Attribution], names: _Names, heads: set[str]) -> None:
    """A name or a "he"/"she" opening the sentence just before a paragraph's first quotation speaks it ("Pierre
    turned. “…”", "She pounced at once. “…”"); the pronoun is the latest name whose sex fits, as in a said-clause.
    So does a description of a person there ("The old man surveyed the road. “…”"): its head a noun of one sex or
    one that speaks in a said-clause (``heads``), since "The paper crackled" is no one."""
    previous_paragraph = -1
    for i, attribution in enumerate(result):
        quote = attribution.quote
        first = quote.paragraph != previous_paragraph
        previous_paragraph = quote.paragraph
        if attribution.speaker is not None or not first:
            continue
        origin = max(0, quote.start - LEAD_WINDOW)
        lead = text[origin : quote.start].rstrip()[:-1]  # the sentence the quotation follows
        cut = max(lead.rfind("\n\n"), *(m.end() - 1 for m in SENTENCE_END.finditer(lead)), -1)
        sentence_start = origin + cut + 1
        found = _leading_name(text, sentence_start, quote.start, names)
        if found is not None and not _addresses(attribution, found, names):
            result[i] = replace(attribution, speaker=found, cue=found, kind=IMPLICIT)
            continue
        opening = WORD.search(text, sentence_start, quote.start)
        if opening is None or text[sentence_start : opening.start()].strip(" \n\t\"“‘'"):
            continue
        word = opening.group().casefold()
        if word in SUBJECT_PRONOUNS and word not in ("i", "én"):
            cue = opening.span()
            resolved = _recent(names, cue[0], SUBJECT_PRONOUNS[word], attribution.addressees)
            result[i] = replace(attribution, speaker=resolved or cue, cue=cue, kind=IMPLICIT)
            continue
        described = LEADING_DESCRIPTION.match(text, opening.start())
        if described is not None and (described.group(1) in heads or noun_sex(described.group(1))):
            cue = (described.start(), described.end(1))
            result[i] = replace(attribution, speaker=cue, cue=cue, kind=IMPLICIT)


def _leading_name(text: str, sentence_start: int, offset: int, names: _Names) -> Span | None:
    """A name outside quotations opening the sentence that starts at ``sentence_start``, before ``offset``."""
    for j in names.before(offset):
        if names.spans[j][0] < sentence_start:
            break
        if not names.quoted[j] and not text[sentence_start : names.spans[j][0]].strip(" \n\t\"“‘'"):
            return names.spans[j]
    return None


def _turns(text: str, result: list[Attribution], names: _Names, parts: Sequence[Paragraph]) -> None:
    """Replies to vocatives and alternating turns, over runs of paragraphs that each hold a quotation."""
    turns = _first_of_paragraphs(result)
    breaks = _breaks(result, turns, names, parts)
    changed = True
    while changed:  # each pass reaches two turns further from a known speaker
        changed = False
        for k, i in enumerate(turns):
            if result[i].speaker is not None:
                continue
            speaker = _turn_speaker(text, result, turns, k, names, breaks)
            if speaker is not None and not _addresses(result[i], speaker, names):
                result[i] = replace(result[i], speaker=speaker, cue=None, kind=IMPLICIT)
                changed = True
        _same_paragraph(result)


def _breaks(result: list[Attribution], turns: list[int], names: _Names, parts: Sequence[Paragraph]) -> set[int]:
    """The turns after which the conversation ends: more than ``TURN_GAP - 1`` paragraphs of narration before the
    next turn, or narration between them that brings in someone new (a name said there for the first time) — who
    may be the one answering, so the turns before say nothing of it."""
    first: dict[str, int] = {}
    for j, key in enumerate(names.keys):
        first.setdefault(key, j)
    found = set()
    for k in range(len(turns) - 1):
        here, following = result[turns[k]].quote.paragraph, result[turns[k + 1]].quote.paragraph
        if following - here > TURN_GAP:
            found.add(k)
        elif following - here > 1:
            low, high = parts[here].end, parts[following].start
            between = range(bisect.bisect_left(names.starts, low), bisect.bisect_left(names.starts, high))
            if any(not names.quoted[j] and first[names.keys[j]] == j for j in between):
                found.add(k)
    return found


def _first_of_paragraphs(result: list[Attribution]) -> list[int]:
    seen: set[int] = set()
    turns = []
    for i, attribution in enumerate(result):
        if attribution.quote.paragraph not in seen:
            seen.add(attribution.quote.paragraph)
            turns.append(i)
    return turns


def _turn_speaker(
    text: str, result: list[Attribution], turns: list[int], k: int, names: _Names, breaks: set[int]
) -> Span | None:
    """The speaker the conversation gives turn ``k``: the first one its previous turn addressed, else the speaker two
    turns back (or ahead) when the turn between is another's. Turns are the paragraphs holding a quotation, one
    conversation across none of the ``breaks`` (``_breaks``)."""

    def turn(offset: int) -> Attribution | None:
        j = k + offset
        if not 0 <= j < len(turns):
            return None
        low, high = sorted((k, j))
        if any(step in breaks for step in range(low, high)):
            return None
        return result[turns[j]]

    previous = turn(-1)
    if previous is not None and previous.addressees:
        return previous.addressees[0]
    called = _called_by_title(text, previous.quote) if previous is not None else None
    if called is not None:
        word = text[called[0] : called[1]].casefold()
        return called if word in POLITE_ADDRESS else names.latest_with_word(word, called[0]) or called
    for step in (-2, 2):
        other, between = turn(step), turn(step // 2)
        if other is None or other.speaker is None or other.kind == NONE or between is None:
            continue
        if between.speaker is None or _key_of(names, between.speaker) != _key_of(names, other.speaker):
            return other.speaker
    return None


def _called_by_title(text: str, quote: Quotation) -> Span | None:
    """A title or kin word a quotation calls someone by, alone between punctuation ("…, parson, …", "Uncle, you
    know"): the one who answers next."""
    found = None
    for match in TITLE_VOCATIVE.finditer(text, quote.start, quote.end):
        found = match.span(1)
    return found


def _addresses(attribution: Attribution, speaker: Span, names: _Names) -> bool:
    """Whether the quotation calls ``speaker`` by name: then someone else says it ("…, Alexandra.")."""
    return _key_of(names, speaker) in {_key_of(names, span) for span in attribution.addressees}


def _key_of(names: _Names, span: Span) -> str:
    return names.key_of.get(span, f"{span[0]}:{span[1]}")

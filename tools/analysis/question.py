"""What a reader's question asks: its kind (who, where, when, why, …), the answer type it expects, and its content
words — read from the wording alone, in English and Hungarian, before any tool looks at the book.

The kind decides the route: "Who is X?" is a question about X (the entity card); "Who persuaded X to leave?" asks
for someone else, and "What injury did X have?" for a thing — both are answered from the passages, with X only
narrowing the search. The rules are about the question's grammar, never about one book's names.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from tools.retrieval.analyzer import STOP_WORDS
from tools.retrieval.units import parse_reference


class Kind(enum.Enum):
    """What the question asks for."""

    IDENTITY = "identity"  # who is X / tell me about X: the entity card
    SUMMARY = "summary"  # what is the book about
    CHAPTER = "chapter"  # what happens in chapter N
    FIRST_APPEARANCE = "first_appearance"
    LAST_APPEARANCE = "last_appearance"
    QUOTATION = "quotation"  # who said "…"
    RELATION = "relation"  # who is X's mother
    PERSON = "person"  # who did …
    PLACE = "place"
    TIME = "time"
    REASON = "reason"
    MANNER = "manner"
    COUNT = "count"
    YES_NO = "yes_no"
    LIST = "list"
    THING = "thing"  # what / which …
    OTHER = "other"


# The answer's type: a span (SPAN_TYPES: the name, place, time or number is the answer) or what the answering
# sentence says it with (a reason, a manner).
SPAN_TYPES = ("person", "place", "time", "number", "age", "duration")
ANSWER_TYPE: dict[Kind, str] = {
    Kind.PERSON: "person", Kind.RELATION: "person", Kind.QUOTATION: "person", Kind.PLACE: "place",
    Kind.TIME: "time", Kind.COUNT: "number", Kind.REASON: "reason", Kind.MANNER: "manner",
}

_KINSHIP = (
    "mother father wife husband son daughter brother sister uncle aunt nephew niece cousin grandmother grandfather "
    "grandson granddaughter fiancé fiancée fiance fiancee lover friend servant master mistress guardian widow "
    "stepmother stepfather parents children child sweetheart "
    "anyja apja felesége férje fia lánya leánya bátyja öccse nővére húga nagybátyja nagynénje unokája barátja "
    "szolgája gazdája kedvese menyasszonya vőlegénye"
).split()
_SPEECH = r"(?:say|says|said|tell|tells|told|ask|asks|asked|shout|shouts|shouted|cry|cries|cried|exclaim|exclaims|" \
          r"exclaimed|reply|replies|replied|whisper|whispers|whispered|mondta|mondja|kiáltotta|kérdezte|felelte)"

# Ordered: the first rule that matches decides (a chapter reference wins over "what happens").
Rules = tuple[tuple[Kind, re.Pattern[str]], ...]


def _compiled(rules: tuple[tuple[Kind, str], ...]) -> Rules:
    return tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in rules)


_EN_RULES: Rules = _compiled((
    (Kind.SUMMARY, r"\b(summar|overview|what is (the|this) (book|novel|story) about|what happens in (the|this) "
                   r"(book|novel|story)\b|\bplot of\b|\bmain characters?\b)"),
    (Kind.CHAPTER, r"\b(chapter|book|part|volume)\s+([ivxlc]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten)"
                   r"\b.*\b(happen|occur|about)|\b(happen|occur)s?\b.*\b(chapter|book|part|volume)\s+([ivxlc]+|\d+)\b"),
    (Kind.CHAPTER, r"\b(chapter|part)\s*,?\s+(where|in which|when|that)\s+"),
    (Kind.FIRST_APPEARANCE, r"\b(first|initially)\b.{0,30}\b(meet|met|appear|appears|appeared|introduc|mention|seen)"),
    (Kind.LAST_APPEARANCE, r"\blast\b.{0,30}\b(appear|appears|appeared|mention|seen|see)\b"),
    (Kind.QUOTATION, r"^\W*(who|whom)\b(.{0,40}\b" + _SPEECH + r"\b|.*[\"“].{8,}[\"”])"),
    (Kind.RELATION, r"^\W*(who|whom)\s+(is|was|are|were|becomes|became)\s+(the\s+)?([\w-]+\s+){0,3}[\w-]+['’]s\s+("
                    + "|".join(_KINSHIP) + r")\b|^\W*(who|whom)\s+(is|was|are|were)\s+the\s+(" + "|".join(_KINSHIP)
                    + r")\s+of\b"),
    (Kind.COUNT, r"^\W*how (many|much)\b"),
    (Kind.TIME, r"^\W*(when|what (year|time|day|month|age|date|century)|how (long|old)|at what (age|time|hour)|"
                r"in what year|(which|what) (year|season|day))\b|"
                r"\b(what|which) (year|century|time period|period|season|decade|point in time)\b"),
    (Kind.PLACE, r"^\W*(where|from where|to where|what (place|city|town|country|village|house|street|land)|"
                 r"in what (place|city|town|country)|(which|what) (city|town|country|village|place|house|land))\b|"
                 r"\b(in|at|to|from) (what|which) (settlement|city|town|country|village|place|house|land|region)\b"),
    (Kind.REASON, r"^\W*(why|for what reason|what (was|is) the reason|what (made|makes|caused|causes|led))\b"),
    (Kind.MANNER, r"^\W*how\b"),
    (Kind.LIST, r"^\W*(list|name (all|the)|which (characters|people|persons|men|women))\b"),
    (Kind.PERSON, r"^\W*what (is|was|are|were) the names? of\b|^\W*what (is|was) [\w\s'’-]{1,40}['’]s (first |real )?"
                  r"name\b|^\W*(who|whom|whose)\b|^\W*(which|what) (man|woman|person|character|boy|girl|child|officer|"
                  r"soldier|servant)\b"),
    (Kind.YES_NO, r"^\W*(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|shall|may|might)\b"),
    (Kind.THING, r"^\W*(what|which)\b"),
    # The question word inside or at the end: "With whom does George fall in love?", "… to become what?"
    (Kind.PERSON, r"\b(whom|whose|who)\b"),
    (Kind.PLACE, r"\bwhere\b"),
    (Kind.TIME, r"\bwhen\b"),
    (Kind.THING, r"\b(what|which)\b"),
))
_HU_RULES: Rules = _compiled((
    (Kind.SUMMARY, r"(összefoglal|miről szól|áttekint|cselekmény|főszereplő)"),
    (Kind.CHAPTER, r"\b(fejezet|rész)\w*\b.*\b(történik|történt|szól)|\b(történik|történt)\b.*\bfejezet"),
    (Kind.CHAPTER, r"\b(fejezet\w*|rész\w*)\s*,?\s+(amelyben|ahol|amikor)\s+"),
    (Kind.FIRST_APPEARANCE, r"\b(először|első ízben)\b"),
    (Kind.LAST_APPEARANCE, r"\b(utoljára|utolsó ízben)\b"),
    (Kind.QUOTATION, r"^\W*ki\b(.{0,40}\b" + _SPEECH + r"\b|.*[\"“„].{8,}[\"”])"),
    (Kind.COUNT, r"^\W*(hány|mennyi)\b"),
    (Kind.TIME, r"^\W*(mikor|hány évesen|meddig|hány éves|melyik évben)\b"),
    (Kind.PLACE, r"^\W*(hol|hová|hova|honnan|merre|melyik (városban|várban|faluban|országban))\b"),
    (Kind.REASON, r"^\W*(miért|mi okból|mi volt az oka)\b"),
    (Kind.MANNER, r"^\W*(hogyan|miként|hogy)\b"),
    (Kind.PERSON, r"^\W*(ki|kit|kinek|kivel|kitől|kihez|kiről|kik)\b"),
    (Kind.THING, r"^\W*(mi|mit|mivel|miről|mibe|melyik|milyen)\b"),
    (Kind.YES_NO, r"\b\w+-e\b"),
))
# "Who is X?", "Who was X", "Tell me about X", "Ki volt X?": the rest of the question is only the name.
_IDENTITY = (
    re.compile(r"^\W*(who|what)\s+(is|was|are|were)\s+(?P<rest>.+?)\W*$", re.IGNORECASE),
    re.compile(r"^\W*(who's|tell me (more )?about|describe|introduce)\s+(?P<rest>.+?)\W*$", re.IGNORECASE),
    re.compile(r"^\W*(ki|kik|mi)\s+((volt|voltak|lesz|az)\s+)?(?P<rest>.+?)(\s+(volt|voltak|lesz))?\W*$",
               re.IGNORECASE),
    re.compile(r"^\W*(mesélj|mondj valamit)\s+(?P<rest>.+?)\W*$", re.IGNORECASE),
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_OPENING_CLAUSE = re.compile(
    r"^\W*(when|after|while|before|once|as|if|since|amikor|miután|mielőtt|mikor)\b[^,?]*,\s*"
    r"(?P<main>(who|whom|whose|what|which|where|why|how|when|ki|kit|kinek|mi|mit|hol|miért|hogyan|mikor)\b.*)",
    re.IGNORECASE,
)
MAX_NAME_WORDS = 5
_ARTICLES = frozenset("the a an this that az a egy".split())


@dataclass(frozen=True)
class Question:
    """A question read: its kind, the answer type (person, place, time, number or ""), its content words."""

    text: str
    kind: Kind
    answer_type: str
    content_words: tuple[str, ...]

    @property
    def asks_for_span(self) -> bool:
        """Whether the answer is a name, place, time or number found in a sentence (not the sentence itself)."""
        return self.answer_type in SPAN_TYPES


# The words of an interrogative phrase say what kind of answer is wanted, not what the answer is about: "How long did
# Clifford serve?" is not about the word "long", and a sentence on "the long past" does not answer it. "How old"
# keeps "old": an age is written with it ("six months old").
_FRAME = re.compile(
    r"\bhow\s+(long|many|much|far|often|soon)\b|\b(what|which)\s+(kind|kinds|sort|sorts|type|types)\s+of\b|"
    r"\b(what|which)\s+(is|was|are|were)\s+the\s+(name|names)\s+of\b",
    re.IGNORECASE,
)


def content_words(text: str, language: str) -> tuple[str, ...]:
    """The question's words less stop words, question words and the words of an interrogative phrase ("how long",
    "what kind of", "what is the name of"), in order, without repeats."""
    stops = STOP_WORDS.get(language, frozenset()) | STOP_WORDS.get("en", frozenset())
    seen: dict[str, None] = {}
    for word in _WORD.findall(_FRAME.sub(" ", text)):
        folded = word.casefold().strip("'’")
        if folded.endswith(("'s", "’s")):
            folded = folded[:-2]
        if len(folded) > 1 and folded not in stops and folded not in _QUESTION_WORDS:
            seen.setdefault(folded, None)
    return tuple(seen)


_QUESTION_WORDS = frozenset(
    "who whom whose what which how where when why does did do is are was were ki kit kinek kivel mi mit milyen "
    "hogyan hol mikor miért melyik hány mennyi happen happens happened".split()
)


def classify(text: str, language: str = "en") -> Kind:
    """The kind of ``text``, by the first rule of its language that matches (English rules also for Hungarian
    questions written in English)."""
    rules = _HU_RULES + _EN_RULES if language == "hu" else _EN_RULES
    opening = _OPENING_CLAUSE.match(text)
    if opening:  # "When Mary's brother died, who became the heir?": the main clause asks
        text = opening.group("main")
    # "At the end, what does Stephen determine?": the question word may follow an opening clause.
    for clause in (text, *[part for part in re.split(r"[,;:]\s*", text)[1:] if part]):
        for kind, pattern in rules:
            if pattern.search(clause):
                return kind
    return Kind.OTHER


def identity_subject(text: str) -> str | None:
    """The name in "Who is X?" / "Tell me about X" / "Ki X?" when that is all the question says, else None.

    "Who was Pierre's wife?" is not an identity question (it asks for someone else), nor is "Who is at the door?".
    """
    bare = _WORD.findall(text)
    if bare and len(bare) <= MAX_NAME_WORDS and all(w[:1].isupper() for w in bare) and text.strip()[-1:] != "?":
        return text.strip()  # a name alone, as typed into a search box
    for pattern in _IDENTITY:
        found = pattern.match(text.strip())
        if found is None:
            continue
        rest = found.group("rest").strip()
        words = _WORD.findall(rest)
        if not words or len(words) > MAX_NAME_WORDS:
            return None
        named = [w for w in words if w.casefold() not in _ARTICLES]
        if named and all(w[:1].isupper() for w in named) and not re.search(r"['’]s\b", rest):
            return rest
    return None


_ABOUT = re.compile(r"^\W*what (is|was) (?P<title>.{1,80}?) about\W*$", re.IGNORECASE)
_TITLE_LINKS = frozenset("and of the a an in on to de la le du von van az a és".split())


def asks_about_a_title(text: str) -> bool:
    """"What is War and Peace about?": the question names a title (every word capitalised but its small linking
    words) and asks what it is about — the book's summary, not a passage."""
    found = _ABOUT.match(text.strip())
    if found is None:
        return False
    words = _WORD.findall(found.group("title"))
    return bool(words) and words[0][:1].isupper() and all(
        w[:1].isupper() or w.casefold() in _TITLE_LINKS for w in words) and not re.search(r"['’]s\b", text)


_PART_START = (r"(?=(?:who|whom|whose|what|which|where|when|why|how|ki|kit|kinek|kivel|mi|mit|hol|hová|mikor|miért|"
               r"hogyan|hány)\b)")
_PARTS = re.compile(r"\?\s+|\s*,?\s+(?:and|és|s)\s+" + _PART_START, re.IGNORECASE)


def split_question(text: str, language: str = "en") -> list[str]:
    """The questions a multi-part question asks, each as a question of its own ("Who is Natasha's mother and where
    does she live?" → two); a single question → itself alone. A part counts only when it reads as a question."""
    parts = [p.strip(" ?") for p in _PARTS.split(text.strip()) if p and p.strip(" ?")]
    if len(parts) < 2 or any(len(p.split()) < 2 or classify(p, language) is Kind.OTHER for p in parts):
        return [text]
    return [p[:1].upper() + p[1:] + "?" for p in parts]


def asks_for_a_summary(text: str, language: str, title: str = "") -> bool:
    """A summary request: by its words ("summarise", "what is the book about", "miről szól"), or "What is <the
    book's title> about?"."""
    if analyse(text, language).kind is Kind.SUMMARY:
        return True
    found = _ABOUT.match(text.strip())
    named = found.group("title").casefold().strip(" \"'“”„") if found else ""
    return bool(named and title) and named in {t.strip().casefold() for t in title.split("·")}


# "How old …?" / "At what age …?" is answered by an age ("nine years old", "aged twenty"), "How long …?" by a length of
# time ("thirty years", "three days"): never by a season or an hour, which answer "When …?".
_AGE = re.compile(r"\b(how old|(at|by) what age|what age)\b", re.IGNORECASE)
_DURATION = re.compile(r"\b(how long|meddig)\b", re.IGNORECASE)


def answer_type(text: str, kind: Kind) -> str:
    """The answer type of a question of ``kind``; a time question asking how old or how long wants an age or a
    duration."""
    if kind is Kind.TIME and _AGE.search(text):
        return "age"
    if kind is Kind.TIME and _DURATION.search(text):
        return "duration"
    return ANSWER_TYPE.get(kind, "")


def analyse(text: str, language: str = "en") -> Question:
    """Read ``text``: identity questions first (they are only a name), then the kind rules."""
    if asks_about_a_title(text):
        kind = Kind.SUMMARY
    else:
        kind = Kind.IDENTITY if identity_subject(text) else classify(text, language)
    return Question(text, kind, answer_type(text, kind), content_words(text, language))


# What a chapter holds, asked of a named chapter ("Who dies in chapter IV?", "Mikor játszódik az első fejezet?"), is
# answered from that chapter's sentences; the chapter itself ("What happens in the third chapter?", "Who appears in
# chapter 3?") from its page.
_ASKED_OF_A_CHAPTER = frozenset({Kind.PERSON, Kind.PLACE, Kind.TIME, Kind.REASON, Kind.MANNER, Kind.COUNT,
                                 Kind.RELATION, Kind.QUOTATION, Kind.YES_NO, Kind.THING})
_ON_THE_PAGE = re.compile(r"\b(happen\w*|occur\w*|appear\w*|mention\w*|történ\w*|szerepel\w*|előfordul\w*)\b",
                          re.IGNORECASE)


def asks_within_a_chapter(text: str, language: str = "en") -> bool:
    """Whether ``text`` names a chapter and asks for something in it (not what the chapter is or who is on it)."""
    return (parse_reference(text) is not None and not _ON_THE_PAGE.search(text)
            and analyse(text, language).kind in _ASKED_OF_A_CHAPTER)

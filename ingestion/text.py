"""Turn raw document bytes into clean text, and refuse documents the pipeline should not ingest.

Pure functions on ``bytes``/``str`` (standard library only) so the Spark stages can call them inside pandas UDFs
and the unit tests can call them directly. Offsets used further down the pipeline (units, chunks, entity spans)
are character offsets into the text these functions return, so every transformation here happens exactly once:
``decode_document`` → ``strip_gutenberg`` → ``check_document``.
"""

from __future__ import annotations

import codecs
import hashlib
import logging
import re
import unicodedata

from ingestion.errors import IngestionError

logger = logging.getLogger(__name__)

# Content checks (this module), then reading and scanning (ingestion.records, ingestion.scan) and the documents
# stage's duplicate-id rule. docs/tables.md lists exactly these.
REJECT_REASONS: frozenset[str] = frozenset(
    {
        "binary",
        "undecodable",
        "empty",
        "line_too_long",
        "wrong_language",
        "too_large",
        "unreadable",
        "outside_allowed_roots",
        "symlink_loop",
        "malformed_json",
        "missing_id",
        "text_not_string",
        "duplicate_id",
        "duplicate_text",
    }
)


class RejectedDocument(IngestionError):
    """Raised when a document must not be ingested; ``reason`` is one of ``REJECT_REASONS``, ``detail`` says why."""

    def __init__(self, reason: str, detail: str, *, path: str | None = None, stage: str | None = None) -> None:
        if reason not in REJECT_REASONS:
            raise ValueError(f"unknown rejection reason {reason!r}; valid reasons: {sorted(REJECT_REASONS)}")
        super().__init__(f"{reason}: {detail}", stage=stage, path=path)
        self.reason = reason
        self.detail = detail


# --------------------------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------------------------

# Longest BOMs first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "PDF"),
    (b"PK\x03\x04", "ZIP (docx/epub/odt…)"),
    (b"\x1f\x8b", "gzip"),
    (b"\x89PNG", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF8", "GIF"),
    (b"\xd0\xcf\x11\xe0", "OLE2 (doc/xls)"),
)

# Whitespace controls (\t \n \v \f \r) are text; every other C0/C1 control means binary or a broken conversion.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])
_MAX_CONTROL_RATIO = 0.01

# Legacy single-byte fallbacks. cp1252 stands in for latin-1: it decodes 0xA0–0xFF identically and maps the
# C1 range 0x80–0x9F to the typographic quotes and dashes that Windows files actually contain there.
# A byte value decides between the two only where they disagree; evidence letters are the ones common in the
# language families each code page serves (Hungarian ő/ű first of all — that is why cp1250 is here at all).
_CP1250_EVIDENCE = frozenset("őűŐŰšžčřěůňťďľĺŕłąęśźżćńăşţŠŽČŘĚŮŇŤĎĽĹŔŁĄĘŚŹŻĆŃĂŞŢ")
_CP1252_EVIDENCE = frozenset("àèìòùñãåæøçêëïîÀÈÌÒÙÑÃÅÆØÇÊËÏÎ£¿¡œŒ")
_MAX_NON_ASCII_RATIO = 0.3
_MIN_PLAUSIBLE_RATIO = 0.9
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_LETTERS = re.compile(r"[^\W\d_]+")


def decode_document(data: bytes, *, source: str) -> str:
    """Decode a document's bytes to NFC text with ``\\n`` line endings and no BOM.

    Order: a UTF-8/16/32 BOM decides; otherwise strict UTF-8; otherwise cp1250 or cp1252 (the Windows superset of
    latin-1), but only when the result looks like prose in a Latin script (see ``_looks_like_legacy_text``).
    ``source`` names the document in error details and logs. UTF-16 without a BOM is not guessed (its NUL bytes
    make it look binary, and it is rejected as such).

    Raises:
        RejectedDocument: ``binary`` for NUL bytes, a known binary format or many control characters;
            ``undecodable`` when no encoding fits.
    """
    if not data:
        return ""
    text = _decode_with_bom(data, source)
    if text is None:
        _reject_binary_bytes(data, source)
        text = _decode_without_bom(data, source)
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise RejectedDocument("binary", f"{source}: contains NUL characters", path=source)
    controls = len(_CONTROL.findall(text))
    if controls and controls / len(text) > _MAX_CONTROL_RATIO:
        raise RejectedDocument(
            "binary",
            f"{source}: {controls} control characters in {len(text)} ({controls / len(text):.1%}, "
            f"limit {_MAX_CONTROL_RATIO:.0%})",
            path=source,
        )
    return unicodedata.normalize("NFC", normalize_newlines(text))


def normalize_newlines(text: str) -> str:
    """Return ``text`` with CRLF and lone CR line endings turned into LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode_with_bom(data: bytes, source: str) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise RejectedDocument(
                    "undecodable",
                    f"{source}: has a {encoding} BOM but is not valid {encoding}: {exc.reason}"
                    f" at byte {exc.start + len(bom)}",
                    path=source,
                ) from exc
    return None


def _reject_binary_bytes(data: bytes, source: str) -> None:
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            raise RejectedDocument("binary", f"{source}: is a {kind} file, not plain text", path=source)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise RejectedDocument("binary", f"{source}: NUL byte at offset {nul}", path=source)
    controls = len(data) - len(data.translate(None, _CONTROL_BYTES))
    if controls / len(data) > _MAX_CONTROL_RATIO:
        raise RejectedDocument(
            "binary", f"{source}: {controls} control bytes in {len(data)} (limit {_MAX_CONTROL_RATIO:.0%})", path=source
        )


def _decode_without_bom(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    # Mostly-valid UTF-8 with a few broken sequences is a damaged UTF-8 file: a legacy decode would turn every
    # correct "é" into mojibake, so refuse instead of guessing.
    lenient = data.decode("utf-8", errors="replace")
    broken = lenient.count("\ufffd")
    valid_multibyte = sum(1 for ch in lenient if ord(ch) > 0x7F) - broken
    if valid_multibyte >= broken:
        raise RejectedDocument(
            "undecodable",
            f"{source}: damaged UTF-8 ({broken} invalid sequences among {valid_multibyte} valid non-ASCII "
            f"characters, first at byte {first_bad})",
            path=source,
        )
    decoded: dict[str, str] = {}
    for encoding in ("cp1252", "cp1250"):
        try:
            candidate = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if _looks_like_legacy_text(candidate):
            decoded[encoding] = candidate
    if not decoded:
        raise RejectedDocument(
            "undecodable",
            f"{source}: not UTF-8 (invalid byte at offset {first_bad}) and does not look like cp1250 or "
            "cp1252/latin-1 text",
            path=source,
        )
    encoding = "cp1252"
    if "cp1250" in decoded and (
        "cp1252" not in decoded
        or _evidence(decoded["cp1250"], _CP1250_EVIDENCE) > _evidence(decoded["cp1252"], _CP1252_EVIDENCE)
    ):
        encoding = "cp1250"
    logger.info("decoded %s as %s (not valid UTF-8 from byte %d)", source, encoding, first_bad)
    return decoded[encoding]


def _evidence(text: str, letters: frozenset[str]) -> int:
    return sum(1 for ch in text if ch in letters)


def _looks_like_legacy_text(text: str) -> bool:
    """Whether a single-byte decode reads as Latin-script prose.

    Few non-ASCII characters; no control or unassigned ones; and nearly all of them either letters inside words
    that also hold ASCII letters ("tűz", "café"), one-letter words ("à", "ő"), or typographic punctuation.
    """
    non_ascii = _NON_ASCII.findall(text)
    if not non_ascii:
        return True
    if len(non_ascii) / len(text) > _MAX_NON_ASCII_RATIO:
        return False
    plausible = 0
    for ch in non_ascii:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cn", "Co", "Cs"):
            return False
        if category[0] in "PZ" or category == "Cf" or ch in "€£§°©®":  # quotes, dashes, NBSP, «», soft hyphen
            plausible += 1
    for word in _LETTERS.findall(text):
        if not word.isascii() and (len(word) == 1 or any(ch.isascii() for ch in word)):
            plausible += sum(1 for ch in word if not ch.isascii())
    return plausible / len(non_ascii) >= _MIN_PLAUSIBLE_RATIO


# --------------------------------------------------------------------------------------------------------------
# Project Gutenberg header and footer
# --------------------------------------------------------------------------------------------------------------

_PG_START = re.compile(
    r"^[ \t]*\*{3}[ \t]*START OF[ \t]+(?:THIS|THE)[ \t]+PROJECT[ \t]+GUTENBERG[ \t]+E-?BOOK\b[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
_PG_END = re.compile(
    r"^[ \t]*(?:\*{3}[ \t]*END OF[ \t]+(?:THIS|THE)[ \t]+PROJECT[ \t]+GUTENBERG[ \t]+E-?BOOK\b"
    r"|End of (?:the |this )?Project Gutenberg(?:'s)?(?:[ \t]+E-?(?:Book|text))?\b)[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)


def strip_gutenberg(text: str) -> tuple[str, int]:
    """Return the body between Project Gutenberg's START and END markers and the body's offset in ``text``.

    Recognises ``*** START OF THIS/THE PROJECT GUTENBERG EBOOK … ***``, ``*** END OF …`` and the older
    ``End of the Project Gutenberg EBook of …`` / ``End of Project Gutenberg's …`` lines; the body ends before the
    first end marker after the start. Leading and trailing whitespace of the body is dropped, so
    ``text[offset:offset + len(body)] == body``. Without any marker the text comes back unchanged with offset 0.
    """
    start_match = _PG_START.search(text)
    start = start_match.end() if start_match else 0
    end_match = _PG_END.search(text, start)
    if start_match is None and end_match is None:
        return text, 0
    end = end_match.start() if end_match else len(text)
    body = text[start:end]
    stripped = body.lstrip()
    offset = start + len(body) - len(stripped)
    return stripped.rstrip(), offset


# --------------------------------------------------------------------------------------------------------------
# Document checks
# --------------------------------------------------------------------------------------------------------------

# The most frequent words of each language, minus those the two share ("a", "is") or that are ordinary words of
# the other ("be", "mind", "most", "van"). Hungarian lists both 1909 ("igy", "ugy") and modern spellings.
_STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the of and to in that it was he his her she with for as had you not on at but by i him they this which "
        "have all from said were my so there what would one me we an or no are been when their who them will if "
        "out up do".split()
    ),
    "hu": frozenset(
        "az és hogy nem meg de egy s csak már mint volt ha azt el ki fel mert még én te ő mi ők ez ezt azok ott itt "
        "akkor pedig sem se minden neki nekem vagy úgy ugy így igy aki ami amit mikor hát lesz vele rá után sok kell "
        "olyan mit mondta".split()
    ),
}
# Share of a language's stopwords among all words below which a text is "clearly not" that language. Measured on
# 20k-character windows of the corpora: War and Peace 0.42–0.46 English, Egri csillagok 0.19–0.24 Hungarian,
# while each scores under 0.01 for the other language.
_MIN_STOPWORD_RATIO: dict[str, float] = {"en": 0.10, "hu": 0.08}
# ő and ű exist in no other major language; unaccented Hungarian (old ASCII e-texts) still passes on stopwords.
_HU_LETTERS = frozenset("őűŐŰ")
_MIN_HU_LETTER_RATIO = 0.002
LANGUAGE_SAMPLE_CHARS = 20_000
MIN_WORDS_FOR_LANGUAGE = 200


def check_document(
    text: str,
    *,
    max_line_chars: int = 100_000,
    min_chars: int = 1,
    expected_language: str | None = None,
) -> None:
    """Raise ``RejectedDocument`` when ``text`` should not be ingested; return ``None`` when it passes.

    Rejects text with fewer than ``min_chars`` non-whitespace characters (``empty``), a line longer than
    ``max_line_chars`` (``line_too_long``: a minified or binary-ish blob, not prose), and — when
    ``expected_language`` is ``"en"`` or ``"hu"`` — text whose first ``LANGUAGE_SAMPLE_CHARS`` characters are
    clearly in another language (``wrong_language``). Texts under ``MIN_WORDS_FOR_LANGUAGE`` words are never
    rejected for language; other language codes are not checked.
    """
    content_chars = len(text.strip())
    if content_chars < max(min_chars, 1):
        raise RejectedDocument("empty", f"{content_chars} non-blank characters (minimum {max(min_chars, 1)})")
    longest = max(len(line) for line in text.split("\n"))
    if longest > max_line_chars:
        raise RejectedDocument("line_too_long", f"a line of {longest} characters (limit {max_line_chars})")
    if expected_language is None:
        return
    if expected_language not in _STOPWORDS:
        logger.debug("no language profile for %r; language not checked", expected_language)
        return
    scores = language_scores(text[:LANGUAGE_SAMPLE_CHARS])
    if scores is None:
        return
    ratio = scores[expected_language]
    if ratio >= _MIN_STOPWORD_RATIO[expected_language]:
        return
    if expected_language == "hu" and scores["hu_letters"] >= _MIN_HU_LETTER_RATIO:
        return
    others = ", ".join(f"{lang}={scores[lang]:.2f}" for lang in sorted(_STOPWORDS) if lang != expected_language)
    raise RejectedDocument(
        "wrong_language",
        f"declared {expected_language!r} but only {ratio:.1%} of words are common {expected_language} words "
        f"(need {_MIN_STOPWORD_RATIO[expected_language]:.0%}; other languages: {others})",
    )


def language_scores(sample: str) -> dict[str, float] | None:
    """Return each profiled language's stopword share in ``sample`` plus ``hu_letters`` (share of ő/ű among letters).

    ``None`` when the sample has fewer than ``MIN_WORDS_FOR_LANGUAGE`` words (too short to judge).
    """
    words = letter_words(sample)
    if len(words) < MIN_WORDS_FOR_LANGUAGE:
        return None
    scores = {lang: sum(1 for word in words if word in stop) / len(words) for lang, stop in _STOPWORDS.items()}
    letters = sum(len(word) for word in words)
    scores["hu_letters"] = sum(1 for ch in sample if ch in _HU_LETTERS) / letters
    return scores


def letter_words(sample: str) -> list[str]:
    """The words of ``sample`` (runs of letters: digits and punctuation are no words), lower-cased."""
    return [word.lower() for word in _LETTERS.findall(sample)]


def content_id(text: str) -> str:
    """Return the document's stable id, ``"doc_"`` + the first 16 hex digits of the SHA-256 of its UTF-8 text."""
    return "doc_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def count_words(text: str) -> int:
    """Return the number of whitespace-separated words in ``text``."""
    return len(text.split())

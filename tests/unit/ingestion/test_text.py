"""Decoding, Gutenberg stripping and document checks: hand-made inputs, then the two real novels."""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path

import pytest

from ingestion.errors import IngestionError
from ingestion.text import (
    REJECT_REASONS,
    RejectedDocument,
    check_document,
    content_id,
    count_words,
    decode_document,
    strip_gutenberg,
)

CORPORA = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"

# ~60 words each, written by hand; repeated to pass the 200-word floor of the language check.
ENGLISH = (
    "It was late in the evening when the old captain came back to the house. He said that he had seen the "
    "enemy near the river, and that they would have to leave before the morning. Nobody in the room answered "
    "him at first; then his daughter rose, took his coat from him and asked what they were going to do now. "
)
HUNGARIAN = (
    "Késő este volt már, amikor az öreg kapitány hazaért. Azt mondta, hogy a törököt látta a folyó mellett, "
    "és hogy reggel előtt el kell menniük. Senki se felelt neki, csak a leánya állt fel, elvette tőle a "
    "köpönyegét, és megkérdezte, hogy mit csinálnak most már. Az öreg nem szólt semmit, csak leült az ablak "
    "mellé, és nézte a sötét udvart, ahol a szél fújt. "
)


def _corpus_bytes(name: str) -> bytes:
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"corpus file {path} is absent (read-only corpora live in ../shared/corpora)")
    return path.read_bytes()


# ---------------------------------------------------------------------------------------------------- decoding


def test_decode_document_strips_utf8_bom_and_crlf() -> None:
    data = b"\xef\xbb\xbfFirst line\r\nSecond line\r\n"
    assert decode_document(data, source="a.txt") == "First line\nSecond line\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_decode_document_reads_utf16_and_utf32_with_bom(encoding: str) -> None:
    text = "Árvíztűrő tükörfúrógép\r\nline two"
    bom = {"utf-16": b"", "utf-16-be": b"\xfe\xff", "utf-32": b""}[encoding]
    data = bom + text.encode(encoding)  # "utf-16"/"utf-32" codecs write their own BOM
    assert decode_document(data, source="x") == "Árvíztűrő tükörfúrógép\nline two"


def test_decode_document_turns_lone_cr_into_lf() -> None:
    assert decode_document(b"old mac\rline\r\r", source="x") == "old mac\nline\n\n"


def test_decode_document_normalises_to_nfc() -> None:
    decomposed = "Gergo\u030b and Pe\u0301ter".encode()
    result = decode_document(decomposed, source="x")
    assert result == "Gergő and Péter"
    assert unicodedata.is_normalized("NFC", result)


def test_decode_document_empty_bytes_give_empty_text() -> None:
    assert decode_document(b"", source="x") == ""


def test_decode_document_rejects_nul_bytes_as_binary() -> None:
    with pytest.raises(RejectedDocument) as caught:
        decode_document(b"plain text\x00more", source="bad.txt")
    assert caught.value.reason == "binary"
    assert "bad.txt" in caught.value.detail


def test_decode_document_rejects_known_binary_formats() -> None:
    with pytest.raises(RejectedDocument) as caught:
        decode_document(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", source="book.pdf")
    assert caught.value.reason == "binary"
    assert "PDF" in caught.value.detail


def test_decode_document_rejects_many_control_characters() -> None:
    data = b"abc\x01\x02def\x03ghi\x1b[0m" * 20
    with pytest.raises(RejectedDocument) as caught:
        decode_document(data, source="x")
    assert caught.value.reason == "binary"


def test_decode_document_tolerates_a_stray_control_character() -> None:
    data = b"a" * 999 + b"\x1a"  # DOS end-of-file marker: 1 in 1000 characters
    assert decode_document(data, source="x") == "a" * 999 + "\x1a"


def test_decode_document_falls_back_to_cp1250_for_hungarian() -> None:
    text = "Gárdonyi Géza: Egri csillagok. Gergő és Éva, őszi szűr, tűz és fűzfa, a török hűség."
    assert decode_document(text.encode("cp1250"), source="x") == text


def test_decode_document_falls_back_to_cp1252_for_western_text() -> None:
    text = "The café cost £5 — “très cher”, said the garçon; à bientôt."
    assert decode_document(text.encode("cp1252"), source="x") == text


def test_decode_document_latin1_bytes_decode_like_latin1() -> None:
    text = "Señor Muñoz déjà vu, naïve façade"
    assert decode_document(text.encode("latin-1"), source="x") == text


def test_decode_document_rejects_random_high_bytes() -> None:
    rng = random.Random(7)
    data = bytes(rng.randrange(0x20, 0x100) for _ in range(4096))
    with pytest.raises(RejectedDocument) as caught:
        decode_document(data, source="noise.bin")
    assert caught.value.reason in {"binary", "undecodable"}


def test_decode_document_rejects_random_bytes_with_controls_as_binary() -> None:
    rng = random.Random(7)
    data = bytes(rng.randrange(0x01, 0x100) for _ in range(4096))
    with pytest.raises(RejectedDocument) as caught:
        decode_document(data, source="noise.bin")
    assert caught.value.reason == "binary"


@pytest.mark.corpus
@pytest.mark.parametrize(("name", "encoding"), [("egri_csillagok.txt", "cp1250"), ("war_and_peace.txt", "cp1252")])
def test_decode_document_legacy_encoded_novel_round_trips(name: str, encoding: str) -> None:
    text = decode_document(_corpus_bytes(name), source=name)
    assert not text.isascii()  # the re-encoded file really exercises the fallback
    assert decode_document(text.encode(encoding), source=name) == text


def test_decode_document_rejects_damaged_utf8_instead_of_mojibake() -> None:
    data = "Árvíztűrő tükörfúrógép, ő és ű".encode() + b" \xff " + "még több ékezet".encode()
    with pytest.raises(RejectedDocument) as caught:
        decode_document(data, source="x")
    assert caught.value.reason == "undecodable"


def test_decode_document_rejects_invalid_text_after_a_bom() -> None:
    with pytest.raises(RejectedDocument) as caught:
        decode_document(b"\xef\xbb\xbfabc\xff\xfe", source="x")
    assert caught.value.reason == "undecodable"


def test_rejected_document_carries_reason_and_is_an_ingestion_error() -> None:
    error = RejectedDocument("empty", "nothing there", path="a.txt")
    assert isinstance(error, IngestionError)
    assert (error.reason, error.detail, error.path) == ("empty", "nothing there", "a.txt")
    assert error.reason in REJECT_REASONS


def test_issue_11_docs_tables_lists_every_reject_reason_and_no_other() -> None:
    import re

    from tests.conftest import ROOT

    section = (ROOT / "docs" / "tables.md").read_text(encoding="utf-8").split("## Where every input goes")[1]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE))
    assert documented == REJECT_REASONS


def test_rejected_document_refuses_unknown_reason() -> None:
    with pytest.raises(ValueError, match="'huge'.*valid reasons"):
        RejectedDocument("huge", "x")


# ---------------------------------------------------------------------------------------------------- gutenberg

_HEADER = (
    "The Project Gutenberg EBook of Tiny, by Nobody\n\nTitle: Tiny\n\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK TINY ***\n"
)
_FOOTER = (
    "\n\nEnd of the Project Gutenberg EBook of Tiny, by Nobody\n\n*** END OF THIS PROJECT GUTENBERG EBOOK TINY ***\n"
)


def test_strip_gutenberg_returns_body_and_its_offset() -> None:
    text = _HEADER + "\n\nCHAPTER I\n\nBody text.\n" + _FOOTER + "Licence blah\n"
    body, offset = strip_gutenberg(text)
    assert body == "CHAPTER I\n\nBody text."
    assert offset == len(_HEADER) + 2
    assert text[offset : offset + len(body)] == body


def test_strip_gutenberg_accepts_the_variant_and_newer_end_line() -> None:
    text = "head\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\nBody.\n*** END OF THE PROJECT GUTENBERG EBOOK X ***"
    assert strip_gutenberg(text) == ("Body.", text.index("Body."))


def test_strip_gutenberg_old_end_line_alone_ends_the_body() -> None:
    text = "Body first.\n\nEnd of Project Gutenberg's Alice, by Lewis Carroll\nlicence"
    assert strip_gutenberg(text) == ("Body first.", 0)


def test_strip_gutenberg_without_end_marker_runs_to_the_end() -> None:
    text = "hdr\n***START OF THIS PROJECT GUTENBERG EBOOK Y***\nAll the rest.\n"
    assert strip_gutenberg(text) == ("All the rest.", text.index("All"))


def test_strip_gutenberg_leaves_text_without_markers_unchanged() -> None:
    text = "  No markers here.\nThe Project Gutenberg is mentioned but not as a marker.\n"
    assert strip_gutenberg(text) == (text, 0)


@pytest.mark.corpus
def test_strip_gutenberg_war_and_peace_body_between_markers() -> None:
    text = decode_document(_corpus_bytes("war_and_peace.txt"), source="war_and_peace.txt")
    body, offset = strip_gutenberg(text)
    assert text[offset : offset + len(body)] == body
    assert body.startswith("An Anonymous Volunteer, and David Widger\n\nBOOK ONE: 1805\n\nCHAPTER I\n")
    assert body.endswith("to recognize a dependence of which we are not\nconscious.")
    assert "Project Gutenberg" not in body
    assert "START OF THIS PROJECT" in text[:offset]


# ---------------------------------------------------------------------------------------------------- checks


@pytest.mark.parametrize("text", ["", "   \n\t \n"])
def test_check_document_rejects_blank_text_as_empty(text: str) -> None:
    with pytest.raises(RejectedDocument) as caught:
        check_document(text)
    assert caught.value.reason == "empty"


def test_check_document_min_chars_counts_non_blank_content() -> None:
    check_document("  hello  ", min_chars=5)
    with pytest.raises(RejectedDocument) as caught:
        check_document("  hello  ", min_chars=6)
    assert caught.value.reason == "empty"


def test_check_document_rejects_one_enormous_line() -> None:
    check_document("short\n" + "x" * 50 + "\n", max_line_chars=50)
    with pytest.raises(RejectedDocument) as caught:
        check_document("short\n" + "x" * 51 + "\n", max_line_chars=50)
    assert caught.value.reason == "line_too_long"
    assert "51" in caught.value.detail


def test_check_document_accepts_text_in_the_declared_language() -> None:
    check_document(ENGLISH * 5, expected_language="en")
    check_document(HUNGARIAN * 5, expected_language="hu")


def test_check_document_rejects_english_declared_hungarian() -> None:
    with pytest.raises(RejectedDocument) as caught:
        check_document(ENGLISH * 5, expected_language="hu")
    assert caught.value.reason == "wrong_language"


def test_check_document_rejects_hungarian_declared_english() -> None:
    with pytest.raises(RejectedDocument) as caught:
        check_document(HUNGARIAN * 5, expected_language="en")
    assert caught.value.reason == "wrong_language"


def test_check_document_never_rejects_short_text_for_language() -> None:
    assert count_words(ENGLISH * 3) < 200
    check_document(ENGLISH * 3, expected_language="hu")


def test_check_document_skips_languages_without_a_profile() -> None:
    check_document(HUNGARIAN * 5, expected_language="de")


def test_check_document_judges_only_the_start_of_the_text() -> None:
    # 20k characters of English decide, whatever follows.
    check_document(ENGLISH * 80 + HUNGARIAN * 200, expected_language="en")


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "language", "other"),
    [("war_and_peace.txt", "en", "hu"), ("egri_csillagok.txt", "hu", "en")],
)
def test_check_document_real_novels_pass_their_language_only(name: str, language: str, other: str) -> None:
    body, _ = strip_gutenberg(decode_document(_corpus_bytes(name), source=name))
    check_document(body, expected_language=language)
    with pytest.raises(RejectedDocument) as caught:
        check_document(body, expected_language=other)
    assert caught.value.reason == "wrong_language"


@pytest.mark.corpus
def test_check_document_accepts_hungarian_without_accents() -> None:
    text = decode_document(_corpus_bytes("egri_csillagok.txt"), source="egri_csillagok.txt")[:30_000]
    ascii_only = "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    assert "ő" not in ascii_only and "á" not in ascii_only
    check_document(ascii_only, expected_language="hu")


# ---------------------------------------------------------------------------------------------------- ids, words


def test_content_id_is_doc_prefix_and_sha256_head() -> None:
    # Published SHA-256 test vectors: "" and "abc".
    assert content_id("") == "doc_e3b0c44298fc1c14"
    assert content_id("abc") == "doc_ba7816bf8f01cfea"


def test_content_id_depends_on_content_only() -> None:
    assert content_id("Egri csillagok") == content_id("Egri " + "csillagok")
    assert content_id("Egri csillagok") != content_id("Egri csillagok\n")


def test_count_words_splits_on_any_whitespace() -> None:
    assert count_words("  one two\tthree\nfour  \u00a0five ") == 5
    assert count_words("") == 0


@pytest.mark.corpus
@pytest.mark.parametrize(("name", "words"), [("war_and_peace.txt", 562_613), ("egri_csillagok.txt", 138_747)])
def test_count_words_matches_provenance_counts(name: str, words: int) -> None:
    # Word counts from shared/corpora/PROVENANCE.md (whitespace split of the raw files).
    assert count_words(decode_document(_corpus_bytes(name), source=name)) == words

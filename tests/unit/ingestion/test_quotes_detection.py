"""Quotation detection on crafted texts: each construction of printed dialogue, and the marks that are not quotes."""

from __future__ import annotations

from ingestion.quotes import find_quotations


def quoted(text: str) -> list[str]:
    return [text[q.start : q.end] for q in find_quotations(text)]


def test_quotes_straight_and_curly_marks_are_included_in_offsets() -> None:
    text = 'He stopped.\n\n"Good night," said the man.\n\n“Good night, Sir John,” said the parson.'
    assert quoted(text) == ['"Good night,"', "“Good night, Sir John,”"]


def test_quotes_nested_quotation_is_part_of_the_outer_one() -> None:
    text = "“I said ‘Good night’ to him, and ‘Sir John,’ he answered,” she told him."
    assert quoted(text) == ["“I said ‘Good night’ to him, and ‘Sir John,’ he answered,”"]


def test_quotes_apostrophes_in_a_double_quoted_book_are_not_quotes() -> None:
    text = "The boys’ caps were wet. ’Tis true, he thought.\n\n“Don’t go,” she said. “It’s the boys’ turn.”"
    assert quoted(text) == ["“Don’t go,”", "“It’s the boys’ turn.”"]


def test_quotes_single_mark_dialogue_with_apostrophes() -> None:
    text = (
        "‘Come here,’ said Tom. ‘Don’t be afraid.’\n\n"
        "‘I can’t,’ said Ann. ‘The boys’ dog is there.’\n\n"
        "‘It won’t bite,’ he said.\n\nThe dog’s tail wagged."
    )
    assert quoted(text) == [
        "‘Come here,’",
        "‘Don’t be afraid.’",
        "‘I can’t,’",
        "‘The boys’ dog is there.’",
        "‘It won’t bite,’",
    ]


def test_quotes_over_several_paragraphs_are_one_quotation() -> None:
    first = "“It began in the spring. Nobody knew.\n\n"
    second = "“Then the rains came, and the river rose.\n\n"
    third = "“That is all I know,” he said."
    text = "The old man spoke.\n\n" + first + second + third
    found = find_quotations(text)
    assert [text[q.start : q.end] for q in found] == [(first + second + third)[: -len(" he said.")]]
    assert found[0].paragraph == 1


def test_quotes_missing_closing_mark_ends_with_its_paragraph() -> None:
    text = "“Wait, she cried.\n\nHe ran to the door."
    assert quoted(text) == ["“Wait, she cried."]


def test_quotes_hungarian_dash_dialogue() -> None:
    text = (
        "A leány megállt.\n\n"
        "- Derdő, - mondja a fiunak, - uttyunk.\n\n"
        "- Bujjunk el! - mondja dideregve. Törököt láttam.\n\n"
        "A fiú hallgatott."
    )
    assert quoted(text) == ["- Derdő,", "- uttyunk.", "- Bujjunk el!", "Törököt láttam."]
    assert all(q.dash for q in find_quotations(text))


def test_quotes_dash_dialogue_without_closing_dash_ends_at_a_said_clause() -> None:
    text = "—Thanks, old chap, he cried briskly. That will do nicely.\n\n—Tell me, Mulligan, Stephen said quietly."
    assert quoted(text) == ["—Thanks, old chap,", "That will do nicely.", "—Tell me, Mulligan,"]


def test_quotes_a_dash_inside_narration_is_not_dialogue() -> None:
    text = "He came in — late, as always — and sat down.\n\nThe fire was out."
    assert quoted(text) == []


def test_quotes_a_word_set_off_in_narration_is_not_a_quotation() -> None:
    text = 'They called it the "elevator" of the town.\n\n"Come in," said Pierre.'
    assert quoted(text) == ['"Come in,"']

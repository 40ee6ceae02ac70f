"""Two tiny books with distinct people and places, and how the issue 38 tests ingest them: through the real pipeline
(``csillag pipeline``, in this process; two short texts need no JVM, every stage runs in the driver)."""

from __future__ import annotations

from pathlib import Path

from cli.app import main as cli_main

BOOK_A = """Chapter 1

Captain Zebulon Quarrington sailed from Marrowport with his first mate, Ottoline Fairweather. Zebulon Quarrington
trusted Ottoline Fairweather above all others, and Ottoline Fairweather kept the log of the Marrowport voyage.

Chapter 2

In Marrowport, Zebulon Quarrington met Ottoline Fairweather again at the harbour. "The sea is grey tonight," said
Ottoline Fairweather to Zebulon Quarrington.
"""
BOOK_B = """Chapter 1

Doctor Philippa Whitlock rode from Glenbarrow with her brother, Aldous Whitlock. Philippa Whitlock trusted Aldous
Whitlock above all others, and Aldous Whitlock kept the ledger of the Glenbarrow estate.

Chapter 2

In Glenbarrow, Philippa Whitlock met Aldous Whitlock again at the mill. "The river is high tonight," said Aldous
Whitlock to Philippa Whitlock.
"""
ASK_A = "Who is Zebulon Quarrington's closest companion?"
ASK_B = "Who is Philippa Whitlock's closest companion?"
ANSWER_A = "Zebulon Quarrington's closest companion is Ottoline Fairweather"
ANSWER_B = "Philippa Whitlock's closest companion is Aldous Whitlock"
ASK_B_PASSAGE = "What was high at the mill?"  # no name: answered from the BM25 index of the chunks
PASSAGE_B = '"The river is high tonight," said Aldous Whitlock to Philippa Whitlock.'
NAMES_A = ("Zebulon", "Quarrington", "Ottoline", "Fairweather", "Marrowport")


def corpus(folder: Path, text: str) -> Path:
    """A corpus folder holding ``text`` as book.txt."""
    folder.mkdir(parents=True)
    (folder / "book.txt").write_text(text, encoding="utf-8")
    return folder


def ingest(corpus: Path, lake: str) -> None:
    """The pipeline run over ``corpus`` into ``lake``; it must succeed."""
    assert cli_main(["pipeline", str(corpus), "--lakehouse", lake, "--quiet"]) == 0

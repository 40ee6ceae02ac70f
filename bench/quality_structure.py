"""Book structure: the units ``split_units`` finds in every book at hand, with no configuration.

For each book: units by kind, chapters, container levels (the deepest path), whether every chapter's path is unique,
the words kept out of NER as front matter / contents / back matter, and the headings that also occur inside a
prose chunk (0 expected). Counts from the text itself, by independent regexes, are printed beside them where the
book has a known heading form (War and Peace: ``BOOK …``/``… EPILOGUE`` and ``CHAPTER <roman>`` lines; Egri
csillagok: ``… RÉSZ`` and ``<roman>.`` lines).

    .venv/bin/python bench/quality_structure.py [BOOK.txt …]     # default: the samples and ../shared/corpora

Never a test: it measures and prints. Record the figures in docs/quality.md.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graph.tables import NON_PROSE_UNIT_KINDS  # noqa: E402
from ingestion.chunking import chunk_document  # noqa: E402
from ingestion.structure import split_units  # noqa: E402
from ingestion.text import decode_document, strip_gutenberg  # noqa: E402

logger = logging.getLogger(__name__)

SHARED = ROOT / ".." / "shared" / "corpora"
DEFAULT_BOOKS = [
    ROOT / "ingestion" / "samples" / "en" / "the_lighthouse_keepers.md",
    ROOT / "ingestion" / "samples" / "en" / "harbour_notes.txt",
    ROOT / "ingestion" / "samples" / "hu" / "a_var_ostroma.txt",
    SHARED / "war_and_peace.txt",
    SHARED / "egri_csillagok.txt",
]
# Independent counts: heading lines of each reference book's own form.
REFERENCE = {
    "war_and_peace.txt": (r"(?m)^(?:BOOK [A-Z]+|[A-Z]+ EPILOGUE)(?::.*)?$", r"(?m)^CHAPTER [IVXLC]+$"),
    "egri_csillagok.txt": (r"(?m)^[A-ZÖŐÜŰÁÉÍÓÚ]+ RÉSZ\..*$", r"(?m)^(?:[IVXLC]+\.|Befejezés\.)$"),
}


def measure(path: Path) -> None:
    """Print one book's structure figures."""
    body = strip_gutenberg(decode_document(path.read_bytes(), source=path.name))[0]
    started = time.perf_counter()
    units = split_units(body)
    seconds = time.perf_counter() - started
    chunks = chunk_document(body, units)
    kinds = Counter(u.kind for u in units)
    chapters = [u for u in units if u.kind == "chapter"]
    depth = max((u.path.count("›") + 1 for u in units if u.is_prose), default=0)
    non_prose_words = Counter()
    for chunk in chunks:
        if units[chunk.unit_index].kind in NON_PROSE_UNIT_KINDS:
            non_prose_words[units[chunk.unit_index].kind] += len(chunk.text.split())
    prose_text = "\n".join(c.text for c in chunks if units[c.unit_index].is_prose)
    headings_in_prose = sum(1 for u in units if u.kind in {"part", "chapter"} and f"\n{u.title}\n" in prose_text)
    print(f"{path.name}: {len(units)} units {dict(sorted(kinds.items()))} in {seconds:.2f} s; "
          f"levels {depth}; chapter paths unique: {len({c.path for c in chapters}) == len(chapters)}; "
          f"words out of NER {dict(non_prose_words) or 0} of {len(body.split())}; "
          f"headings inside prose chunks: {headings_in_prose}")
    if path.name in REFERENCE:
        parts, chapter = REFERENCE[path.name]
        print(f"  from the text: {len(re.findall(parts, body))} parts, {len(re.findall(chapter, body))} chapters; "
              f"found {kinds['part']} parts, {kinds['chapter']} chapters")
    print(f"  first units: {[u.path for u in units[:3]]}; last: {units[-1].path}")


def main(argv: list[str]) -> int:
    """Measure the books named, or the default ones that exist."""
    books = [Path(a) for a in argv] or [b for b in DEFAULT_BOOKS if b.is_file()]
    for book in books:
        measure(book)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

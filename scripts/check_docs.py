"""Check that the docs stay a map: small in total, short sections, no issue numbers, a short README.

    .venv/bin/python scripts/check_docs.py [ROOT]

Reads every ``docs/**/*.md`` and ``README.md`` under ROOT (default: the repository). A section is the text between two
headings of any level (``#`` … ``######`` at a line's start, outside fenced code blocks); the text before the first
heading counts as a section too. Exits 1 listing every breach (file, line, what and the limit), 0 when there is none:

- the reference pages (``docs/**/*.md`` but ``docs/decisions/``) together over ``MAX_REFERENCE_BYTES``;
- a decision record (``docs/decisions/*.md``) over ``MAX_DECISION_BYTES``: records are short, one per decision;
- a section over ``MAX_SECTION_LINES`` lines (docs and README);
- ``README.md`` over ``MAX_README_LINES`` lines;
- an issue number in the text (``issue 14``, ``Issues 3``, ``#38``), which belongs in the git log, not in a map;
- a relative link to a file that does not exist, or to an anchor no heading of that file makes (GitHub's slugs).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

MAX_REFERENCE_BYTES = 150_000
MAX_DECISION_BYTES = 4_500
MAX_SECTION_LINES = 120
MAX_README_LINES = 150
HEADING = re.compile(r"#{1,6}\s")
FENCE = re.compile(r"\s*(```|~~~)")
# "issue 14", "Issues 3 and 4", "#38"; not "test_issue_38_…" (a file's name) nor "#anchor" or "C#"
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? \d+|(?<![\w/&])#\d+\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Section:
    """A heading's text (empty before the first heading), the line it starts on (1-based) and its lines of text."""

    title: str
    line: int
    length: int


def sections(text: str) -> list[Section]:
    """The sections of a Markdown text, in order; headings inside fenced code blocks are text."""
    found: list[Section] = []
    title, start, in_fence = "", 1, False
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and HEADING.match(line):
            found.append(Section(title, start, number - start - (1 if title else 0)))
            title, start = line.strip(), number
    found.append(Section(title, start, len(lines) - start + (0 if title else 1)))
    return [section for section in found if section.title or section.length > 0]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading line: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lstrip("#").strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings."""
    return {slug(s.title) for s in sections(path.read_text(encoding="utf-8")) if s.title}


def broken_links(path: Path, text: str) -> list[tuple[int, str]]:
    """(line, link) of every relative link in ``text`` whose file or anchor does not exist."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for target in LINK.findall(line):
            if "://" in target or target.startswith("mailto:"):
                continue
            name, _, anchor = target.partition("#")
            linked = (path.parent / name) if name else path
            if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
                found.append((number, target))
    return found


def problems(root: Path) -> list[str]:
    """Every breach of the limits under ``root``, one line each."""
    docs = sorted((root / "docs").rglob("*.md"))
    found: list[str] = []
    records = root / "docs" / "decisions"
    reference = [path for path in docs if records not in path.parents]
    total = sum(path.stat().st_size for path in reference)
    if total > MAX_REFERENCE_BYTES:
        found.append(f"docs/**/*.md but decisions/: {total:,} bytes in all, over {MAX_REFERENCE_BYTES:,}")
    for path in docs:
        if records in path.parents and (size := path.stat().st_size) > MAX_DECISION_BYTES:
            found.append(f"{path.relative_to(root).as_posix()}: {size:,} bytes, over {MAX_DECISION_BYTES:,}")
    readme = root / "README.md"
    for path in docs + ([readme] if readme.is_file() else []):
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        for section in sections(text):
            if section.length > MAX_SECTION_LINES:
                heading = section.title or "(before the first heading)"
                found.append(f"{name}:{section.line}: section {heading!r} has {section.length} lines, "
                             f"over {MAX_SECTION_LINES}")
        for number, target in broken_links(path, text):
            found.append(f"{name}:{number}: broken link {target!r}")
        for number, line in enumerate(text.splitlines(), start=1):
            for match in ISSUE_NUMBER.finditer(line):
                found.append(f"{name}:{number}: issue number {match.group()!r}: say what it is, not its issue")
    if readme.is_file() and (lines := len(readme.read_text(encoding="utf-8").splitlines())) > MAX_README_LINES:
        found.append(f"README.md: {lines} lines, over {MAX_README_LINES}")
    return found


def main(argv: list[str] | None = None) -> int:
    """Print every breach and return 1, or return 0."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    found = problems(root)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

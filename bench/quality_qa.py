"""Question answering on whole books as a new user meets it: what ``csillag ask`` prints against plain BM25.

    .venv/bin/python bench/quality_qa.py [--set own|dev|all] [--books SUBSTR …] [--max-questions N]
                                         [--cache /tmp/csillag-qa] [--check-cli N] [--json FILE]

1. Books. ``dev``: the 11 novels of ``../shared/data/qa/literaryqa_dev_books.jsonl`` (307 reader questions; its
   README: CC BY-NC 4.0, development only — read from ``../shared``, never copied into the repository), texts in
   ``../shared/data/litbank/original/<gutenberg_id>_*.txt``. ``own``: ``bench/qa_own.jsonl``, questions we wrote by
   reading War and Peace, Egri csillagok and the README's sample, each with the sentence that answers it. Missing
   shared data is skipped with one line saying so.
2. Each book gets a lakehouse built with DEFAULT settings through the user's surface, ``csillag pipeline <book>
   --lakehouse <cache>/<name>`` (a subprocess; a lakehouse already built is up to date, so the run is instant).
3. Each question goes through ``csillag ask``'s own code in this process (``cli.ask.build_platform`` and
   ``cli.ask.Turn``: the platform is built once per book, the questions are asked warm); the first ``--check-cli``
   questions of each book are also run through the command itself (``cli.ask.main``, a fresh platform) and the two
   printed outputs must be identical.
4. Scores, each a share of the questions (``holds``): a reference answer is found in a text when at least 60 % of its
   content words are in it — words casefolded (``tools.retrieval.analyzer.words``), the analyser's stop words
   (``STOP_WORDS`` of the book's language) dropped, both sides Snowball-stemmed by the book language's ``Analyzer``
   ("carpenters" meets "carpenter"); an answer made of stop words only ("No.") keeps all its words. Either
   reference answer counts.
   - context recall: in the first 6,000 characters of what ``csillag ask`` prints;
   - answer line: in the first non-empty line it prints;
   - BM25 top-2 / top-5: in the concatenated texts of plain BM25's best 2 / 5 chunks (capped at 6,000 characters)
     from the same lakehouse's chunks and persisted index (``ChunkRetriever`` without a dense encoder or any entity
     logic);
   - p50 / p95 of the warm answer time per question (the whole ``csillag ask`` turn in this process).
5. Report per question kind (``question_kind``: by the question's wording), per labelled kind of our own questions,
   per book, and in total; ``--json`` writes all of it with one row per question (the printed output included).

Never a test: it measures and prints. Record the figures in docs/quality.md.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import math
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.retrieval.analyzer import STOP_WORDS, analyzer_for, words  # noqa: E402

SHARED = ROOT.parent / "shared"
DEV_QUESTIONS = SHARED / "data" / "qa" / "literaryqa_dev_books.jsonl"
DEV_TEXTS = SHARED / "data" / "litbank" / "original"
OWN_QUESTIONS = ROOT / "bench" / "qa_own.jsonl"
CONTEXT_CHARS = 6_000  # the share of the printed output (and of BM25's chunks) a reader is assumed to read
MATCH_SHARE = 0.6  # of a reference answer's content words that must be found

# Question kinds by wording, in the order ``question_kind`` tests them. English and Hungarian interrogatives.
_QUANTITY = re.compile(r"^(how (many|much|old|long|far|often)|hány|mennyi)\b")
_YES_NO_EN = re.compile(r"^(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|must|may|might)\b")
_YES_NO_HU = re.compile(r"\w-e\b")  # Hungarian marks a yes/no question with the particle -e ("Túléli-e …?")
_WH = {
    "who": "who", "whom": "who", "whose": "who", "which": "which", "what": "what", "where": "where",
    "when": "when", "why": "why", "how": "how",
    "ki": "who", "kit": "who", "kinek": "who", "kivel": "who", "kik": "who", "kié": "who", "kiket": "who",
    "kitől": "who", "kiről": "who", "melyik": "which", "mi": "what", "mit": "what", "mik": "what", "mivel": "what",
    "miről": "what", "minek": "what", "milyen": "what", "hol": "where", "hová": "where", "hova": "where",
    "honnan": "where", "merre": "where", "mikor": "when", "miért": "why", "hogyan": "how", "miként": "how",
}
KINDS = ("who", "what", "where", "when", "why", "how", "yes/no", "which", "how many", "other")


def question_kind(question: str) -> str:
    """The kind of a question by its wording: one of ``KINDS``.

    Rules, first match wins, on the comma-separated clauses of the casefolded question:
    1. the last clause that opens with an interrogative word decides ("When Mary was younger, how did her mother …"
       is a how-question): "how many/much/old/long/far/often", "hány", "mennyi" → how many; an English auxiliary
       ("Did …", "Was …") → yes/no; a wh-word (English or Hungarian, ``_WH``) → its kind;
    2. else a Hungarian ``-e`` particle anywhere → yes/no; else the first wh-word anywhere ("… obsessed with what?");
    3. else other (imperatives such as "Summarize the book.").
    """
    text = question.casefold().strip()
    for clause in reversed([c.strip(" \"'“”‘’") for c in re.split(r"[,;:]", text)]):
        kind = _opening_kind(clause)
        if kind:
            return kind
    if _YES_NO_HU.search(text):
        return "yes/no"
    for word in words(text):
        if word in _WH:
            return _WH[word]
    return "other"


def _opening_kind(clause: str) -> str | None:
    if _QUANTITY.match(clause):
        return "how many"
    if _YES_NO_EN.match(clause):
        return "yes/no"
    first = words(clause)[:1]
    if first and first[0] in _WH:
        return "yes/no" if _YES_NO_HU.search(clause) else _WH[first[0]]
    return None


def content_terms(text: str, language: str) -> set[str]:
    """The stemmed content words of ``text``: casefolded words, the language's stop words dropped, Snowball stems;
    all the words' stems when every word is a stop word (a "No." answer must still be findable)."""
    analyzer = analyzer_for(language)
    all_words = words(text)
    content = [w for w in all_words if w not in STOP_WORDS.get(language, frozenset())] or all_words
    return {analyzer.stem(w) for w in content}


def holds(answer: str, terms: set[str], language: str) -> bool:
    """Whether at least ``MATCH_SHARE`` of ``answer``'s content words are among ``terms`` (``text_terms``)."""
    wanted = content_terms(answer, language)
    return bool(wanted) and len(wanted & terms) >= MATCH_SHARE * len(wanted)


def text_terms(text: str, language: str) -> set[str]:
    """The stems of every word of ``text``, stop words included (a "No." answer is looked for among them)."""
    analyzer = analyzer_for(language)
    return {analyzer.stem(w) for w in set(words(text))}


def answered(answers: Sequence[str], text: str, language: str) -> bool:
    """Whether ``text`` holds any of the reference ``answers`` (``holds``)."""
    terms = text_terms(text, language)
    return any(holds(answer, terms, language) for answer in answers)


def answer_line(printed: str) -> str:
    """The first non-empty line of what ``csillag ask`` printed: the answer line."""
    return next((line for line in printed.splitlines() if line.strip()), "")


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` percentile of ``values`` (nearest rank); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


@dataclass
class Question:
    """One question of a set, with its reference answers."""

    question: str
    answers: list[str]
    label: str = ""  # the kind our own set gives it (person, relation, quotation …); "" for the dev set


@dataclass
class Book:
    """A book, where its text is, and its questions."""

    name: str  # the lakehouse folder's name
    title: str
    source: Path  # a text file or a folder of them
    set: str  # "dev" or "own"
    questions: list[Question] = field(default_factory=list)


@dataclass
class Row:
    """The result of one question."""

    set: str
    book: str
    question: str
    answers: list[str]
    kind: str
    label: str
    recall: bool
    answer_line: bool
    bm25_top2: bool
    bm25_top5: bool
    seconds: float
    printed: str


def dev_books(path: Path = DEV_QUESTIONS, texts: Path = DEV_TEXTS) -> list[Book]:
    """The development set's books (one JSON line per book)."""
    books = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        matches = sorted(texts.glob(f"{record['gutenberg_id']}_*.txt"))
        if not matches:
            print(f"no text for {record['title']} ({record['gutenberg_id']}) in {texts}: skipped", file=sys.stderr)
            continue
        questions = [Question(qa["question"].strip(), [a.strip() for a in qa["answers"]]) for qa in record["qas"]]
        books.append(Book(matches[0].stem, record["title"], matches[0], "dev", questions))
    return books


def own_books(path: Path = OWN_QUESTIONS) -> list[Book]:
    """Our own questions, one book per distinct ``book`` path (relative to the repository or its parent)."""
    books: dict[str, Book] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if record["book"] not in books:
            source = next((base / record["book"] for base in (ROOT, ROOT.parent) if (base / record["book"]).exists()),
                          None)
            if source is None:
                print(f"{record['book']} not found beside the repository: its questions are skipped", file=sys.stderr)
                books[record["book"]] = Book("", "", Path(), "own")
                continue
            name = f"{source.parent.name}_{source.name}" if source.is_dir() else source.stem
            books[record["book"]] = Book(name, name, source, "own")
        books[record["book"]].questions.append(Question(record["question"], record["answers"], record["kind"]))
    return [book for book in books.values() if book.name]


def build_lakehouse(source: Path, lake: Path) -> float:
    """``csillag pipeline SOURCE --lakehouse LAKE`` with default settings; the seconds it took (instant when up to
    date). Waits for another run writing the same lakehouse."""
    csillag = ROOT / ".venv" / "bin" / "csillag"
    command = [str(csillag)] if csillag.exists() else [sys.executable, "-m", "cli"]
    command += ["pipeline", str(source), "--lakehouse", str(lake), "--quiet", "--wait", "36000"]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(command)} failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return time.perf_counter() - started


class Asker:
    """One book's ``csillag ask``, built once: the CLI's own platform and ``Turn``, and plain BM25 beside it."""

    def __init__(self, lake: Path) -> None:
        from cli.ask import build_platform
        from settings.config import load_settings
        from tools.retrieval.chunks import ChunkRetriever

        self.lake = lake
        self.settings = load_settings(None, lakehouse={"root": str(lake)})
        self.platform, self.services = build_platform(self.settings)
        self.language = self.services.domain.language
        loaded = self.services.retriever
        self.bm25 = ChunkRetriever(loaded.chunks, loaded.index, loaded.analyzer)  # no dense encoder, no entities
        self.loop = asyncio.new_event_loop()
        self.asked = 0

    def ask(self, question: str) -> tuple[str, float]:
        """What ``csillag ask QUESTION`` prints, and the seconds the turn took."""
        from cli.ask import Turn

        out = io.StringIO()
        self.asked += 1  # a user per question: no clarification session carries over, as between CLI runs
        turn = Turn(self.platform, self.services.domain, user=f"bench-{self.asked}", lang=None, out=out,
                    progress=False)
        started = time.perf_counter()
        self.loop.run_until_complete(turn.converse(question, None, None))
        return out.getvalue(), time.perf_counter() - started

    def bm25_context(self, question: str, k: int) -> str:
        """The texts of plain BM25's best ``k`` chunks, joined, capped at ``CONTEXT_CHARS``."""
        return "\n".join(hit.chunk.text for hit in self.bm25.search(question, k=k))[:CONTEXT_CHARS]

    def close(self) -> None:
        """Stop the platform's loop."""
        self.loop.close()


def cli_output(lake: Path, question: str) -> str:
    """What ``csillag ask QUESTION --lakehouse LAKE`` prints, through the command itself (a fresh platform)."""
    from cli.ask import main as ask_main

    out = io.StringIO()
    code = ask_main([question, "--lakehouse", str(lake), "--quiet"], out=out)
    logging.getLogger().setLevel(logging.WARNING)  # the command configures logging; keep the bench's output clean
    if code != 0:
        raise RuntimeError(f"csillag ask {question!r} --lakehouse {lake} exited {code}")
    return out.getvalue()


def run_book(book: Book, cache: Path, check_cli: int) -> tuple[list[Row], dict[str, Any]]:
    """Build, ask and score one book; its rows and how long each step took."""
    lake = cache / book.name
    print(f"{book.name}: building {lake} …", flush=True)
    build_seconds = build_lakehouse(book.source, lake)
    started = time.perf_counter()
    asker = Asker(lake)
    load_seconds = time.perf_counter() - started
    mismatches = []
    for question in book.questions[:check_cli]:
        via_cli = cli_output(lake, question.question)
        if via_cli != asker.ask(question.question)[0]:
            mismatches.append(question.question)
            print(f"  ! the CLI printed something else for {question.question!r}", flush=True)
    asker.ask(book.questions[0].question)  # warm: the first turn loads what every later one reuses
    rows = []
    for question in book.questions:
        printed, seconds = asker.ask(question.question)
        context = printed[:CONTEXT_CHARS]
        rows.append(Row(
            set=book.set, book=book.name, question=question.question, answers=question.answers,
            kind=question_kind(question.question), label=question.label,
            recall=answered(question.answers, context, asker.language),
            answer_line=answered(question.answers, answer_line(printed), asker.language),
            bm25_top2=answered(question.answers, asker.bm25_context(question.question, 2), asker.language),
            bm25_top5=answered(question.answers, asker.bm25_context(question.question, 5), asker.language),
            seconds=seconds, printed=printed))
    asker.close()
    info = {"book": book.name, "title": book.title, "set": book.set, "build_s": round(build_seconds, 1),
            "load_s": round(load_seconds, 1), "cli_checked": min(check_cli, len(book.questions)),
            "cli_mismatches": mismatches}
    print(f"  {len(rows)} questions; build {build_seconds:.0f} s, load {load_seconds:.1f} s; "
          f"recall {sum(r.recall for r in rows)}/{len(rows)}", flush=True)
    return rows, info


def summarize(rows: Iterable[Row]) -> dict[str, Any]:
    """Counts, shares and answer-time percentiles of a group of rows."""
    group = list(rows)
    n = len(group)
    summary: dict[str, Any] = {"n": n}
    for score in ("recall", "answer_line", "bm25_top2", "bm25_top5"):
        hits = sum(getattr(r, score) for r in group)
        summary[score] = hits
        summary[f"{score}_share"] = round(hits / n, 3) if n else 0.0
    seconds = [r.seconds for r in group]
    summary["p50_ms"] = round(percentile(seconds, 0.5) * 1000)
    summary["p95_ms"] = round(percentile(seconds, 0.95) * 1000)
    return summary


def grouped(rows: Sequence[Row], key: str, order: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
    """``summarize`` per value of the row attribute ``key`` (``order`` first, then the others as met)."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[getattr(row, key)].append(row)
    names = [name for name in order if name in groups] + [name for name in groups if name not in order]
    return {name: summarize(groups[name]) for name in names}


def table(title: str, groups: dict[str, dict[str, Any]]) -> str:
    """A plain-text table of ``grouped``'s result."""
    lines = [title, f"{'':<44} {'n':>4} {'recall':>13} {'answer line':>13} {'BM25 top-2':>13} {'BM25 top-5':>13}"
                    f" {'p50 ms':>7} {'p95 ms':>7}"]
    for name, s in groups.items():
        cells = " ".join(f"{s[k]:>4} ({s[k + '_share']:.2f})  " for k in ("recall", "answer_line", "bm25_top2",
                                                                            "bm25_top5"))
        lines.append(f"{name[:44]:<44} {s['n']:>4} {cells}{s['p50_ms']:>7} {s['p95_ms']:>7}")
    return "\n".join(lines)


def report(rows: Sequence[Row]) -> dict[str, Any]:
    """Every grouping the bench prints: per set, per kind, per own label, per book, total."""
    return {
        "total": summarize(rows),
        "by_set": grouped(rows, "set", ("dev", "own")),
        "by_kind": grouped(rows, "kind", KINDS),
        "by_kind_dev": grouped([r for r in rows if r.set == "dev"], "kind", KINDS),
        "by_label_own": grouped([r for r in rows if r.set == "own"], "label"),
        "by_book": grouped(rows, "book"),
    }


def select(books: list[Book], patterns: Sequence[str] | None, max_questions: int | None) -> list[Book]:
    """The books whose name or title contains one of ``patterns`` (all without), each cut to ``max_questions``."""
    chosen = [b for b in books if not patterns or any(p.casefold() in f"{b.name} {b.title}".casefold()
                                                      for p in patterns)]
    for book in chosen:
        book.questions = book.questions[:max_questions] if max_questions else book.questions
    return [b for b in chosen if b.questions]


def main() -> int:
    """Build, ask, score and print; ``--json`` writes everything."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--set", choices=("own", "dev", "all"), default="all")
    parser.add_argument("--books", nargs="+", help="only books whose name or title contains one of these")
    parser.add_argument("--max-questions", type=int, help="at most this many questions per book")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/csillag-qa"), help="where the lakehouses are built")
    parser.add_argument("--check-cli", type=int, default=1,
                        help="questions per book also run through the csillag ask command, outputs compared")
    parser.add_argument("--json", type=Path, help="write the figures and every question's row here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    books: list[Book] = []
    if args.set in ("dev", "all"):
        if DEV_QUESTIONS.exists() and DEV_TEXTS.is_dir():
            books += dev_books()
        else:
            print(f"development set not found at {DEV_QUESTIONS} / {DEV_TEXTS}: skipped", file=sys.stderr)
    if args.set in ("own", "all"):
        books += own_books()
    books = select(books, args.books, args.max_questions)
    if not books:
        print("no book to measure", file=sys.stderr)
        return 2
    started = time.perf_counter()
    rows: list[Row] = []
    infos = []
    for book in books:
        book_rows, info = run_book(book, args.cache, args.check_cli)
        rows += book_rows
        infos.append(info)
    figures = report(rows)
    print()
    for title, key in (("per kind (by wording)", "by_kind"), ("per labelled kind (own set)", "by_label_own"),
                       ("per book", "by_book"), ("per set", "by_set")):
        if figures[key]:
            print(table(title, figures[key]), end="\n\n")
    print(table("total", {"all": figures["total"]}))
    elapsed = time.perf_counter() - started
    mismatched = sum(len(i["cli_mismatches"]) for i in infos)
    print(f"\n{len(rows)} questions on {len(books)} books in {elapsed:.0f} s; "
          f"csillag ask command vs in-process: {mismatched} mismatches of {sum(i['cli_checked'] for i in infos)}")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "books": infos, "seconds": round(elapsed, 1),
                                         "rows": [asdict(r) for r in rows]}, ensure_ascii=False, indent=1),
                             encoding="utf-8")
        print(f"written {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

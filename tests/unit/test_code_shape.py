"""The product packages' shape, checked on their source (``ast``): functions that fit on a screen (at most
``MAX_LINES`` lines, or a comment right above saying why), no signature that takes a path or a storage object
(``Path | Lakehouse``: one seam, the storage, reads both), no issue numbers in the code (the git log holds them)."""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cli", "jobs", "api", "ingestion", "tools", "settings", "graph")
MAX_LINES = 80
# "issue 14", "Issues 3"; "#38" but not a colour ("#888888", "stroke:#000") nor another project's issue
# ("apache/arrow#39862"): as scripts/check_docs.py reads the docs
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? \d+|(?<![\w/&\"':])#\d+\b")
PATH_TYPES = {"Path", "str", "PathLike", "os.PathLike"}
STORAGE_TYPE = re.compile(r"Lakehouse|Storage|Backend")


@functools.cache
def _sources() -> list[tuple[str, str]]:
    """(path, source) of every module of the product packages."""
    return [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    ]


def long_functions(name: str, source: str) -> list[str]:
    """The functions of ``source`` longer than ``MAX_LINES`` lines with no comment on the line above their ``def``
    (or above their decorators)."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        above = lines[first - 2].strip() if first >= 2 else ""
        if length > MAX_LINES and not above.startswith("#"):
            found.append(f"{name}:{node.lineno}: {node.name} is {length} lines: split it, or say why above its def")
    return found


def path_or_storage_unions(name: str, source: str) -> list[str]:
    """The parameters and returns of ``source`` typed as a union of a path and a storage object."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        for annotation in [a.annotation for a in arguments if a.annotation is not None] + [node.returns]:
            if annotation is None:
                continue
            text = ast.unparse(annotation).strip("'\"")
            members = {member.strip() for member in text.split("|")}
            if members & PATH_TYPES and any(STORAGE_TYPE.search(member) for member in members):
                found.append(f"{name}:{node.lineno}: {node.name} takes {text}: take the storage alone")
    return found


def issue_numbers(name: str, source: str) -> list[str]:
    """The issue numbers in the comments and strings of ``source``."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for match in ISSUE_NUMBER.finditer(token.string):
                found.append(f"{name}:{token.start[0]}: issue number {match.group()!r}: say what it is, not its issue")
    return found


def test_product_functions_fit_on_a_screen_or_say_why() -> None:
    assert [problem for name, source in _sources() for problem in long_functions(name, source)] == []


def test_product_signatures_take_no_path_or_storage_union() -> None:
    assert [problem for name, source in _sources() for problem in path_or_storage_unions(name, source)] == []


def test_product_code_names_no_issue_numbers() -> None:
    assert [problem for name, source in _sources() for problem in issue_numbers(name, source)] == []


def test_each_check_names_what_breaks_it() -> None:
    long_body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    source = (
        f"def long():\n{long_body}\n\n"
        f"# one table per branch: the clearest form\n@decorated\ndef said_why():\n{long_body}\n\n"
        f"def short():\n    return 1\n\n"
        "def mixed(root: Path | Lakehouse, other: 'str | LakehouseStorage') -> None: ...\n"
        "def fine(root: Lakehouse | None, path: str | Path) -> Path | None: ...\n"
        "# as issue 12 asked; see #39\n"
        "COLOURS = ['#888888', 'stroke:#000']  # apache/arrow#39862\n"
        "TEST = 'tests/unit/test_issue_12_x.py'\n"
    )
    assert long_functions("m.py", source) == [
        f"m.py:1: long is {MAX_LINES + 1} lines: split it, or say why above its def"
    ]
    mixed_line = source[: source.index("def mixed")].count("\n") + 1
    assert path_or_storage_unions("m.py", source) == [
        f"m.py:{mixed_line}: mixed takes Path | Lakehouse: take the storage alone",
        f"m.py:{mixed_line}: mixed takes str | LakehouseStorage: take the storage alone",
    ]
    comment_line = source[: source.index("# as issue")].count("\n") + 1
    assert issue_numbers("m.py", source) == [
        f"m.py:{comment_line}: issue number 'issue 12': say what it is, not its issue",
        f"m.py:{comment_line}: issue number '#39': say what it is, not its issue",
    ]

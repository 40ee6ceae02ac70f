"""The docs stay a map (scripts/check_docs.py): the repository's own docs pass, and the checker catches each breach."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.unit.repo_files import load_module

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_docs.py"


def _checker() -> ModuleType:
    return load_module("scripts/check_docs.py")


def _tree(tmp_path: Path, docs: dict[str, str], readme: str = "# r\n") -> Path:
    for name, text in docs.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    return tmp_path


def test_the_repositorys_docs_are_within_every_limit() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout


def test_sections_are_counted_between_headings_of_any_level_and_code_fences_hide_headings() -> None:
    text = "intro\n# A\none\ntwo\n### B\n```bash\n# not a heading\n```\nthree\n## C\n"
    found = [(s.title, s.line, s.length) for s in _checker().sections(text)]
    assert found == [("", 1, 1), ("# A", 2, 2), ("### B", 5, 4), ("## C", 10, 0)]


def test_a_long_section_a_large_docs_folder_and_a_long_readme_are_each_reported(tmp_path: Path) -> None:
    checker = _checker()
    long_section = "# T\n" + "x\n" * 121 + "## short\n" + "y\n" * 120
    big = "# Big\n" + ("z" * 100 + "\n\n") * 1550
    record = "# 0001\n" + ("w" * 100 + "\n\n") * 45
    root = _tree(tmp_path, {"a.md": long_section, "sub/b.md": big, "decisions/0001-x.md": record},
                 readme="# R\n" + "r\n\n" * 80)
    found = checker.problems(root)
    assert "docs/a.md:1: section '# T' has 121 lines, over 120" in found
    assert not any("'## short'" in line for line in found)
    assert any(line.startswith("docs/**/*.md but decisions/: ") and "over 150,000" in line for line in found)
    assert "docs/decisions/0001-x.md: 4,597 bytes, over 4,500" in found
    assert "README.md: 161 lines, over 150" in found
    assert checker.main([str(root)]) == 1


def test_issue_numbers_are_reported_but_file_names_and_anchors_are_not(tmp_path: Path) -> None:
    text = ("# Title\nas issue 14 said; Issues 3 and 4; see #38.\n"
            "tests/unit/api/test_issue_38_chat_reload.py, [link](#title), C# and &#38;\n")
    found = _checker().problems(_tree(tmp_path, {"a.md": text}))
    assert found == ["docs/a.md:2: issue number 'issue 14': say what it is, not its issue",
                     "docs/a.md:2: issue number 'Issues 3': say what it is, not its issue",
                     "docs/a.md:2: issue number '#38': say what it is, not its issue"]


def test_docs_within_the_limits_pass(tmp_path: Path) -> None:
    checker = _checker()
    root = _tree(tmp_path, {"a.md": "# A\n" + "x\n" * 120, "decisions/0001-x.md": "# 0001\ntext\n"})
    assert checker.problems(root) == []
    assert checker.main([str(root)]) == 0


def test_links_to_missing_files_and_anchors_are_reported(tmp_path: Path) -> None:
    text = (
        "# Who's who (and `relations`)\n[ok](#whos-who-and-relations) [ok](b.md#the-end) [web](https://x.org/y#z)\n"
        "[gone](c.md) [bad anchor](b.md#middle) [dir](sub/)\n"
    )
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    found = _checker().problems(_tree(tmp_path, {"a.md": text, "b.md": "# The end\n"}))
    assert found == ["docs/a.md:3: broken link 'c.md'", "docs/a.md:3: broken link 'b.md#middle'"]

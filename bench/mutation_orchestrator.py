"""Mutation testing of the orchestrator's contracts: mutmut over ``tools/orchestrator.py`` and
``tools/contracts.py`` with the orchestrator tests. Not part of CI: it takes minutes to hours.

mutmut copies the sources into ``mutants/`` of the directory it runs in, so this script runs it in a scratch copy of
the project (``--workdir``, default ``out/mutation``) and never touches the working tree. Each surviving mutant is
listed with its diff; docs/orchestrator.md records which test kills it, or why it is equivalent. Run (nice'd, it
uses every core it is given):

    nice -n 19 .venv/bin/python bench/mutation_orchestrator.py [--max-children 2] [--workdir out/mutation]

Needs the ``bench`` extra (``pip install -e .[bench]``: mutmut).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTATED = ("tools/orchestrator.py", "tools/contracts.py")
TESTS = (
    "tests/unit/tools/test_orchestrator_clarification.py",
    "tests/unit/tools/test_orchestrator_concurrency.py",
    "tests/unit/tools/test_orchestrator_coordination.py",
    "tests/unit/tools/test_orchestrator_group_tasks.py",
    "tests/unit/tools/test_orchestrator_groups.py",
    "tests/unit/tools/test_orchestrator_passthrough.py",
    "tests/unit/tools/test_orchestrator_rules.py",
    "tests/unit/tools/test_orchestrator_selection.py",
    "tests/unit/tools/test_tool_contracts.py",
    "tests/unit/tools/test_issue_43_orchestrator_isolation.py",
)
# What the tests import besides the mutated package; the test helpers come with tests/unit/tools.
COPIED = ("tools", "settings", "graph", "tests/__init__.py", "tests/conftest.py", "tests/unit/__init__.py",
          "tests/unit/tools", "pyproject.toml")


def _setup_cfg() -> str:
    def lines(values: tuple[str, ...]) -> str:
        return "".join(f"\n    {v}" for v in values)

    return (
        "[mutmut]\n"
        "source_paths = tools\n"
        f"only_mutate ={lines(MUTATED)}\n"
        f"also_copy ={lines(('settings', 'graph', 'tests'))}\n"
        f"pytest_add_cli_args_test_selection ={lines(TESTS)}\n"
        "pytest_add_cli_args =\n    -q\n    -p no:cacheprovider\n"
    )


def prepare(workdir: Path) -> None:
    """A scratch copy of the sources and tests mutmut needs, with its configuration in setup.cfg."""
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    for relative in COPIED:
        source = ROOT / relative
        target = workdir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    (workdir / "setup.cfg").write_text(_setup_cfg(), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run mutmut in a scratch copy; print the results and the diff of every survivor; exit 0 unless mutmut fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=ROOT / "out" / "mutation")
    parser.add_argument("--max-children", type=int, default=2)
    args = parser.parse_args(argv)
    mutmut = [sys.executable, "-m", "mutmut"]
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        print("mutmut is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    prepare(args.workdir)
    run = subprocess.run([*mutmut, "run", "--max-children", str(args.max_children)], cwd=args.workdir, check=False)
    results = subprocess.run([*mutmut, "results"], cwd=args.workdir, check=False, capture_output=True, text=True)
    print(results.stdout)
    lines = results.stdout.splitlines()
    survivors = [line.split(":")[0].strip() for line in lines if line.strip().endswith("survived")]
    for name in survivors:
        shown = subprocess.run([*mutmut, "show", name], cwd=args.workdir, check=False, capture_output=True, text=True)
        print(f"== {name}\n{shown.stdout}")
    print(f"{len(survivors)} surviving mutants")
    return 0 if run.returncode == 0 else run.returncode


if __name__ == "__main__":
    sys.exit(main())

"""Issue 12: README's import layers are checked in CI, here: by lint-imports and by importing with Spark blocked."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOT_PACKAGES = ("cli", "jobs", "api", "ingestion", "tools", "settings", "graph")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the venv's lint-imports in ``cwd`` (it reads ``[tool.importlinter]`` from pyproject.toml there)."""
    script = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
    # --no-cache: lint-imports would otherwise leave a .import_linter_cache folder in the working tree.
    return subprocess.run([sys.executable, "-c", script, "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_issue_12_lint_imports_keeps_every_layer_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout, result.stdout


def test_issue_12_layer_contracts_break_on_each_forbidden_import(tmp_path: Path) -> None:
    # The project's own contracts, over a tiny tree that breaks each of them once: proves they check what they say.
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for package in ROOT_PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "graph" / "settings.py").write_text("")
    (tmp_path / "graph" / "store.py").write_text("")
    (tmp_path / "graph" / "lakehouse.py").write_text("")
    (tmp_path / "graph" / "roots.py").write_text("")
    (tmp_path / "settings" / "config.py").write_text(
        "from graph.settings import *\nfrom graph.roots import *\nfrom graph.lakehouse import *\n"
    )
    (tmp_path / "api" / "runs.py").write_text("import ingestion\n")
    (tmp_path / "graph" / "model.py").write_text("import tools\n")
    (tmp_path / "settings" / "chat.py").write_text("from graph import store\n")
    (tmp_path / "api" / "app.py").write_text("from delta import tables\n")
    # The modules that keep a command's old name may run a cli command (the layers' ignored imports), and nothing
    # may import them; below cli nothing else imports it.
    for door, command in (("jobs/pipeline", "ingest"), ("jobs/stage", "ingest"), ("jobs/summary", "lakehouse"),
                          ("tools/ask", "ask"), ("api/__main__", "serve")):
        (tmp_path / "cli" / f"{command}.py").write_text("")
        (tmp_path / f"{door}.py").write_text(f"import cli.{command}\n")
    (tmp_path / "tools" / "ask.py").write_text("import cli.ask\nimport pyspark.sql\n")
    (tmp_path / "tools" / "render.py").write_text("import cli.app\n")
    (tmp_path / "cli" / "app.py").write_text("import jobs.pipeline\n")
    result = lint_imports(tmp_path)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "0 kept, 4 broken" in out, out
    for line in ("api.runs -> ingestion", "graph.model -> tools", "settings.chat -> graph.store",
                 "tools.ask -> pyspark", "api.app -> delta", "tools.render -> cli.app", "cli.app -> jobs.pipeline"):
        assert line in out, (line, out)
    doors = ("jobs.pipeline", "jobs.stage", "jobs.summary", "tools.ask", "api.__main__")
    assert all(f"{door} -> cli." not in out for door in doors), out
    assert all(f"settings.config -> graph.{allowed}" not in out for allowed in ("settings", "roots", "lakehouse")), out


BLOCK_SPARK = """
import importlib, json, pkgutil, sys

class NoSpark:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pyspark", "delta", "py4j"):
            raise ImportError("blocked: " + name)
        return None

sys.meta_path.insert(0, NoSpark())
imported = []
for package in ("tools", "graph", "settings"):
    root = importlib.import_module(package)
    imported.append(package)
    for module in pkgutil.walk_packages(root.__path__, package + "."):
        importlib.import_module(module.name)
        imported.append(module.name)
print(json.dumps(imported))
"""


def test_issue_12_tools_graph_and_settings_import_with_pyspark_blocked() -> None:
    result = subprocess.run([sys.executable, "-c", BLOCK_SPARK], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    imported = json.loads(result.stdout)
    # Every module of the three packages was imported, not just their __init__.
    assert {"tools.orchestrator", "tools.retrieval.analyzer", "tools.llm.router", "graph.embedded",
            "graph.neo4j_store", "settings.config"} <= set(imported), imported

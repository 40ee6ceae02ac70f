"""The repository's scripts and benches (files, not packages) loaded as modules, for their tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_module(relative: str) -> ModuleType:
    """The file ``ROOT / relative`` (e.g. ``bench/quality_qa.py``) run as the module named by its stem."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module

"""The OpenAPI document of the API, checked into ``docs/openapi.json``.

Regenerate it after changing an endpoint or a model: ``.venv/bin/python -m api.openapi`` (writes the file);
``tests/unit/api/test_openapi.py`` fails while the checked-in file differs from what the code generates.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

from settings.config import PROJECT_ROOT, load_settings

logger = logging.getLogger(__name__)

SPEC_FILE = PROJECT_ROOT / "docs" / "openapi.json"


def generate_spec() -> dict[str, Any]:
    """The OpenAPI document as the code defines it (settings do not change it; state goes to a temporary folder)."""
    from api.app import create_app

    with tempfile.TemporaryDirectory(prefix="csillag-openapi-") as tmp:
        app = create_app(load_settings(api={"state_dir": Path(tmp)}))
        spec = app.openapi()
        app.state.tasks.shutdown()
        app.state.store.close()
    return spec


def render_spec(spec: dict[str, Any]) -> str:
    """The file's exact text: indented, keys in the code's order, a final newline."""
    return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the spec to ``docs/openapi.json`` (or the path given)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else SPEC_FILE
    target.write_text(render_spec(generate_spec()), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

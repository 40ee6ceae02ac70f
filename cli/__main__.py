"""``python -m cli …``: the ``csillag`` command without its console script."""

from __future__ import annotations

import sys

from cli.app import main

if __name__ == "__main__":
    sys.exit(main())

"""``python -m tools.ask QUESTION …``: the ``csillag ask`` command (``cli.ask``) by its module name."""

from __future__ import annotations

import sys

from cli.ask import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())

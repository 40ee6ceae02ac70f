"""``python -m jobs.summary LAKEHOUSE [--top N]``: the ``csillag summary`` command (``cli.lakehouse``) by its
module name. What it reports is built in ``jobs.status``."""

from __future__ import annotations

import sys

from cli.lakehouse import summary_main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())

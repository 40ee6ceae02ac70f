"""``python -m api [--host H] [--port P] [--config FILE]``: serve the REST API (the ``csillag serve`` command of
``cli.serve``)."""

from __future__ import annotations

import sys

from cli.serve import main

if __name__ == "__main__":
    sys.exit(main())

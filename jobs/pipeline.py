"""``jobs/pipeline.py``: the ``csillag pipeline`` command as a script, for ``spark-submit`` (``spark-submit.sh
pipeline …``) and ``python -m jobs.pipeline``. Every stage that is not up to date:
documents → chunks → index → mentions → entities → cooccurrences → graph → neo4j.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobs.cli_ingest import pipeline
from tools.cli import run


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``csillag pipeline`` with ``argv`` (default ``sys.argv[1:]``); the exit codes are the command's."""
    return run(pipeline, argv, prog_name="csillag pipeline")


if __name__ == "__main__":
    sys.exit(main())

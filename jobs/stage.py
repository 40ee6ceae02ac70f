"""``jobs/stage.py``: the ``csillag stage STAGE INPUT…`` command as a script, for ``spark-submit`` (``spark-submit.sh
stage …``, the Airflow DAG's tasks) and ``python -m jobs.stage``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobs.cli_ingest import stage
from tools.cli import run


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``csillag stage`` with ``argv`` (default ``sys.argv[1:]``); an unknown stage fails listing the valid ones."""
    return run(stage, argv, prog_name="csillag stage")


if __name__ == "__main__":
    sys.exit(main())

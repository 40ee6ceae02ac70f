"""``jobs/stage.py``: the ``csillag stage STAGE INPUT…`` command (``cli.ingest``) as a script, for ``spark-submit``
(``spark-submit.sh stage …``, the Airflow DAG's tasks) and ``python -m jobs.stage``."""

from __future__ import annotations

import sys

from cli.ingest import stage_main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())

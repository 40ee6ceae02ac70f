"""``jobs/pipeline.py``: the ``csillag pipeline`` command (``cli.ingest``) as a script, for ``spark-submit``
(``spark-submit.sh pipeline …``, the REST API's runs) and ``python -m jobs.pipeline``. Every stage that is not up to
date: documents → chunks → index → mentions → entities → cooccurrences → graph → neo4j.
"""

from __future__ import annotations

import sys

from cli.ingest import pipeline_main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())

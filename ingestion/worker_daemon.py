"""Spark's Python daemon with the NER pipeline loaded before it forks any worker (``spark.python.daemon.module``).

Spark starts one Python daemon per executor (per set of worker environment variables) and forks every Python
worker from it. pyspark's own daemon imports almost nothing, so each worker imports pandas, pyarrow and spaCy and
loads the model on its first task: 1.2–1.8 s on every core before NER starts (docs/benchmarks.md). This daemon does it
once, before it listens: the forked workers inherit the loaded pipeline, and share its memory pages copy-on-write,
as the children of ``nlp.pipe(n_process=N)`` share their parent's.

Which pipeline: the mentions stage puts its ``NlpSpec`` into the environment of its Python function
(``PRELOAD_ENV``, see ``preload_environment``), and Spark passes that environment to the daemon it starts for the
function. Whatever goes wrong here is written to stderr and the daemon starts all the same: the worker then loads the
pipeline on its first task, as under pyspark's daemon, and a real problem (an unknown model) is reported there, by
the task, with the stage's own error.

``ingestion.spark`` and ``spark-submit.sh`` select this daemon for local masters only. On a cluster the daemon starts
before ``--py-files`` are on the executors' path, so it is for executors whose Python has csillag installed
(``--conf spark.python.daemon.module=ingestion.worker_daemon``); docs/ingestion.md.
"""

from __future__ import annotations

import base64
import gc
import pickle
import sys
import zlib
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ingestion.nlp import NlpSpec

MODULE = "ingestion.worker_daemon"
PRELOAD_ENV = "CSILLAG_NLP_PRELOAD"
# One environment string may not exceed 128 KiB on Linux (MAX_ARG_STRLEN); a spec larger than this (tens of
# thousands of ruler patterns) is not preloaded, and the workers load it themselves.
MAX_ENCODED_SPEC = 100_000


def encode_spec(spec: NlpSpec) -> str | None:
    """The spec as an environment value, or None when it is too large for one."""
    value = base64.b64encode(zlib.compress(pickle.dumps(spec), 9)).decode("ascii")
    return value if len(value) <= MAX_ENCODED_SPEC else None


def decode_spec(value: str) -> NlpSpec:
    """The spec ``encode_spec`` wrote (our own driver wrote it: the daemon trusts its environment as Spark does)."""
    spec: NlpSpec = pickle.loads(zlib.decompress(base64.b64decode(value)))  # noqa: S301 — see docstring
    return spec


def preload_environment(spec: NlpSpec) -> dict[str, str]:
    """Environment for the NER function's workers: the spec for the daemon to preload, when it fits."""
    value = encode_spec(spec)
    return {PRELOAD_ENV: value} if value else {}


def preload(environ: dict[str, str]) -> str | None:
    """Import what every NER worker needs and build the pipeline named in ``environ``; the problem, if any, as text."""
    try:
        # pandas, pyarrow and the stage's own code: every mapInPandas worker imports them on its first task.
        import ingestion.stages.mentions  # noqa: F401
        from ingestion.nlp import get_nlp

        value = environ.get(PRELOAD_ENV)
        if value:
            get_nlp(decode_spec(value))
    except Exception as exc:  # noqa: BLE001 — the daemon must start whatever happens; the task reports real errors
        return f"{type(exc).__name__}: {exc}"
    return None


def without_pyspark_zip(path: list[str]) -> list[str]:
    """``path`` without the ``pyspark.zip`` of a pyspark installation whose own folder is also on ``path``.

    Spark puts ``<pyspark>/python/lib/pyspark.zip`` first on the workers' path, and the worker calls
    ``importlib.invalidate_caches()`` before every task (``pyspark.worker_util.setup_spark_files``); on Python 3.11
    that makes each of the ~14 zip importers of pyspark's packages re-read the archive's whole directory: 0.08 s
    per task on every core, each time a core moves to its next task. The installed folder holds the same files
    (the archive is built from it), and a folder's importer only forgets its listing.
    """
    kept = []
    for entry in path:
        archive = Path(entry)
        package = archive.parent.parent.parent  # <site-packages>/pyspark/python/lib/pyspark.zip
        if (
            archive.name == "pyspark.zip"
            and archive.parent.name == "lib"
            and (package / "__init__.py").is_file()
            and str(package.parent) in path
        ):
            continue
        kept.append(entry)
    return kept


def main() -> None:
    """Preload, then run pyspark's daemon loop (it reads the worker module from argv as pyspark's does)."""
    import os

    sys.path[:] = without_pyspark_zip(sys.path)
    # The daemon's stdout carries its port number to the JVM: nothing else may be written there.
    with redirect_stdout(sys.stderr):
        problem = preload(dict(os.environ))
    if problem:
        print(f"csillag worker daemon: pipeline not preloaded ({problem}); workers will load it", file=sys.stderr)
    # What is loaded now lives as long as the workers: out of the collector's sight, a worker's collections neither
    # walk the model's objects nor write to (and so copy) the pages it shares with the daemon.
    gc.freeze()
    from pyspark import daemon

    daemon.manager()


if __name__ == "__main__":
    main()

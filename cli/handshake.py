"""The handshake between ``spark-submit.sh`` and ``csillag pipeline|stage``: what runs before a JVM starts.

``spark-submit.sh pipeline|stage ARGS…`` first runs the same command in a plain Python with
``--spark-submit-handshake MODE`` (hidden from ``--help``: the script is its only caller). That process

1. checks the settings and every input as ``--check`` does: a problem is one ``csillag:`` line and exit 2, before
   any JVM;
2. writes the ``spark-submit`` arguments the lakehouse needs at the JVM's start (an ``s3a://`` root: the S3A
   connector and its settings), one per line, to the file ``$CSILLAG_SPARK_ARGS_FILE`` names;
3. answers a run whose every stage is up to date and published, without Spark: the result is printed as the run
   would print it, and it exits ``ANSWERED``;
4. otherwise, by ``MODE``:
   - ``submit`` (a cluster's master): exits ``SUBMIT``, and the script submits the job with ``spark-submit``;
   - ``run-here`` (a local master): runs the job in this same process, which starts the JVM itself with the
     script's ``spark-submit`` options (``$CSILLAG_SUBMIT_ARGS``, read by ``ingestion.spark``) beside the stages
     that work in the driver, and exits with the run's own code (0–4). Except into HDFS: this process has made an
     HDFS client by then, after which pyspark's start of the JVM may hang (``SparkStartup.before_the_lock``), so it
     exits ``SUBMIT`` and the script submits the job as on a cluster.

The two codes are the handshake's alone, never a user's: ``spark-submit.sh`` turns ``ANSWERED`` into 0 and acts on
``SUBMIT``; every other code is the command's (``cli.base``) and the script's too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any

from settings.config import CsillagSettings
from tools.ingestion import IngestionRequest, IngestionResult, IngestionTool

logger = logging.getLogger(__name__)

OPTION = "--spark-submit-handshake"
SPARK_ARGS_FILE_VARIABLE = "CSILLAG_SPARK_ARGS_FILE"


class Handshake(StrEnum):
    """What the command does with a run the handshake cannot answer."""

    SUBMIT = "submit"  # leave it to spark-submit
    RUN_HERE = "run-here"  # run it in this process (a local master)


class HandshakeExit(IntEnum):
    """The handshake's own exit codes; spark-submit.sh names them ANSWERED and SUBMIT too."""

    ANSWERED = 10  # every stage was up to date: the result is printed, nothing to submit (the script exits 0)
    SUBMIT = 11  # the script submits the job with spark-submit


def write_spark_submit_args(settings: CsillagSettings) -> None:
    """The arguments this lakehouse needs at the JVM's start, one per line, into ``$CSILLAG_SPARK_ARGS_FILE``
    (nothing when the variable is not set)."""
    target = os.environ.get(SPARK_ARGS_FILE_VARIABLE)
    if not target:
        return
    from ingestion.spark import spark_submit_args

    args = spark_submit_args(settings.spark, settings.lakehouse.lakehouse())
    Path(target).write_text("".join(f"{arg}\n" for arg in args), encoding="utf-8")


def shake(
    mode: Handshake, tool: IngestionTool, request: IngestionRequest, settings: CsillagSettings,
    show: Callable[[IngestionResult], Any],
) -> HandshakeExit | None:
    """Steps 3 and 4 above: ``ANSWERED`` (the answer given to ``show``), ``SUBMIT``, or None when this process is
    to run the job itself."""
    answer = getattr(tool, "run_if_up_to_date", None)  # our NER tools; a plugin tool may lack it
    result = answer(request) if answer is not None else None
    if result is not None:
        show(result)
        return HandshakeExit.ANSWERED
    if mode is Handshake.SUBMIT or settings.lakehouse.lakehouse().is_hdfs:
        return HandshakeExit.SUBMIT
    return None

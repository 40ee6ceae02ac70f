"""Issue 38 item 11: the NER pool's processes (and multiprocessing's resource tracker) end with a SIGKILLed driver.

A real process tree: a driver process starts the pool (``ingestion.ner_pool.NerPool``, a blank English pipeline: the
real workers without a model's load), runs one part through it, and waits; the test kills it with SIGKILL, as the
hostile test killed a run in its mentions stage, and every process it had started must be gone within seconds.
Before, the workers waited on their call queue for ever and kept the tracker alive.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from tests.conftest import ROOT

DRIVER = textwrap.dedent(
    """
    import sys, threading, time
    import pyarrow as pa
    from ingestion.ner_pool import NerPool
    from ingestion.nlp import NlpSpec
    from ingestion.stages.mentions import NER_COLUMNS

    spec = NlpSpec(language="en")
    pools = []
    if sys.argv[1] == "main":
        pools.append(NerPool(2, [spec]))
    else:  # started by a thread that has ended before the pool's first part: its processes must live on
        starter = threading.Thread(target=lambda: pools.append(NerPool(2, [spec])))
        starter.start()
        starter.join()
    rows = pa.table({"doc_id": ["d", "d"], "chunk_id": ["c1", "c2"], "start": [0, 30],
                     "text": ["Pierre met Natasha in Moscow.", "Anna gave a party."], "n_words": [5, 4]})
    pools[0].mentions(rows, spec, NER_COLUMNS)
    print("ready", flush=True)
    time.sleep(300)
    """
)


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those still running (a zombie waiting for its new parent to reap it has ended)."""
    running = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                running.append(process)
        except psutil.NoSuchProcess:
            continue
    return running


@pytest.mark.parametrize("started_by", ["main", "ended-thread"])
def test_issue_38_ner_workers_and_tracker_end_with_a_killed_driver(started_by: str) -> None:
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, started_by], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    children: list[psutil.Process] = []
    try:
        assert driver.stdout is not None
        assert driver.stdout.readline().strip() == "ready"
        children = psutil.Process(driver.pid).children(recursive=True)
        commands = [" ".join(child.cmdline()) for child in children]
        assert sum("spawn_main" in command for command in commands) == 2, commands
        assert sum("resource_tracker" in command for command in commands) == 1, commands
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(10)
        deadline = time.monotonic() + 10
        while _alive(children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _alive(children) == [], [" ".join(p.cmdline()) for p in _alive(children)]
    finally:
        driver.kill()
        driver.wait(10)
        for child in _alive(children):  # only on failure: leave no orphan of ours behind
            child.kill()

"""What a run with nothing to do costs (target: "up-to-date rerun ≤ 2 s").

    .venv/bin/python bench/bench_rerun.py [--corpus ingestion/samples/en] [--lake DIR] [--repeat 5]

Builds the lakehouse once with ``./spark-submit.sh pipeline CORPUS`` (reused when it is there), then times, each
``--repeat`` times, wall clock of whole commands as a user or a scheduler runs them:

- ``./spark-submit.sh pipeline CORPUS`` on the up-to-date lakehouse (answered by the script's check, no JVM);
- ``csillag pipeline CORPUS`` (the same question inside the command: no Spark session is started);
- ``./spark-submit.sh pipeline CORPUS --check`` alone, the floor: a Python start-up and the settings;
- ``./spark-submit.sh pipeline CORPUS --force --stages documents``, for contrast: a run that needs Spark.

Prints min and median seconds per command. Never a test: it measures and prints (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(command: list[str], env: dict[str, str]) -> float:
    """Seconds of wall clock for one run of ``command``; a non-zero exit stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return seconds


def main() -> int:
    """Build once, then time the commands; print a line per command."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "ingestion" / "samples" / "en")
    parser.add_argument("--lake", type=Path, default=Path("/tmp/csillag-bench-rerun"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    venv = Path(sys.executable).parent
    env = dict(os.environ, CSILLAG_NO_BOOTSTRAP="1", CSILLAG_VENV=str(venv.parent), PYSPARK_PYTHON=sys.executable)
    submit = [str(ROOT / "spark-submit.sh"), "pipeline", str(args.corpus), "--lakehouse", str(args.lake), "--quiet"]
    print(f"building {args.lake} from {args.corpus} (reused when up to date) …", flush=True)
    print(f"  first run: {timed(submit, env):.1f} s", flush=True)
    commands = {
        "spark-submit.sh pipeline (up to date)": submit,
        "csillag pipeline (up to date)": [str(venv / "csillag"), "pipeline", str(args.corpus), "--lakehouse",
                                          str(args.lake), "--quiet", "--master", "local[2]"],
        "spark-submit.sh pipeline --check (floor)": [*submit, "--check"],
        "spark-submit.sh --force --stages documents (needs Spark)": [*submit, "--force", "--stages", "documents"],
    }
    for name, command in commands.items():
        runs = [timed(command, env) for _ in range(args.repeat)]
        print(f"{name:<58} min {min(runs):5.2f} s  median {statistics.median(runs):5.2f} s  ({args.repeat} runs)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

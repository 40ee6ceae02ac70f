"""Entry point: the whole ingestion pipeline.

documents → chunks → index → mentions → entities → cooccurrences → graph.
"""

from __future__ import annotations

import sys

from jobs.common import base_parser, run_job


def main(argv: list[str] | None = None) -> int:
    """Run every stage that is not already up to date; see ``jobs.common`` for the exit codes."""
    parser = base_parser("Ingest documents into the csillag lakehouse: every stage, skipping those up to date.")
    parser.add_argument("--stages", help="comma-separated subset of stages to run, in pipeline order")
    args = parser.parse_args(argv)
    stages = [s.strip() for s in args.stages.split(",") if s.strip()] if args.stages else None
    return run_job(args, stages)


if __name__ == "__main__":
    sys.exit(main())

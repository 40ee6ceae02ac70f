"""Entry point: one stage of the pipeline (what Airflow runs task by task). ``python -m jobs.stage STAGE INPUT…``."""

from __future__ import annotations

import sys

from jobs.common import EXIT_USAGE, base_parser, run_job


def main(argv: list[str] | None = None) -> int:
    """Run a single stage; an unknown stage name fails listing the valid ones."""
    from ingestion.pipeline import STAGE_NAMES

    parser = base_parser("Run one csillag ingestion stage (its upstream stages must be done).", with_stage=True)
    args = parser.parse_args(argv)
    if args.stage not in STAGE_NAMES:
        print(f"csillag: unknown stage {args.stage!r}; valid stages: {', '.join(STAGE_NAMES)}", file=sys.stderr)
        return EXIT_USAGE
    return run_job(args, [args.stage])


if __name__ == "__main__":
    sys.exit(main())

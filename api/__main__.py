"""``python -m api [--host H] [--port P] [--config FILE]``: serve the REST API."""

from __future__ import annotations

import argparse
import sys

from api.server import serve
from settings.config import load_settings
from tools.errors import ConfigError


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and serve; 2 for unusable settings."""
    parser = argparse.ArgumentParser(description="Serve the csillag REST API.")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    parser.add_argument("--config", help="settings file; default conf/csillag.toml or $CSILLAG_CONFIG")
    args = parser.parse_args(argv)
    try:
        serve(load_settings(args.config), host=args.host, port=args.port)
    except ConfigError as exc:
        print(f"csillag: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

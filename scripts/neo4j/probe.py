"""Readiness probe of the project's Neo4j server, used by ``scripts/neo4j.sh``.

Waits until Bolt at ``--uri`` answers ``RETURN 1`` with the given credentials, and can change the password of a
data directory that was initialised with another one. The password comes from the environment
(``CSILLAG_NEO4J_PASSWORD``; the old one from ``CSILLAG_NEO4J_OLD_PASSWORD``) so that it never shows in ``ps``.

Exit codes: 0 ready, 1 not ready before the timeout, 2 bad usage or driver missing, 3 credentials rejected,
4 the server process (``--pid``) died while we waited.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

logger = logging.getLogger(__name__)

EXIT_READY = 0
EXIT_TIMEOUT = 1
EXIT_USAGE = 2
EXIT_AUTH = 3
EXIT_DIED = 4


def _alive(pid: int | None) -> bool:
    """Whether process ``pid`` still exists (``None``: no process to watch, so always true)."""
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def wait_ready(uri: str, user: str, password: str, timeout_s: float, pid: int | None) -> int:
    """Poll ``uri`` until ``RETURN 1`` succeeds; return one of the module's exit codes."""
    import neo4j
    from neo4j.exceptions import AuthError, DriverError, Neo4jError

    deadline = time.monotonic() + timeout_s
    last_error = "no attempt made"
    while True:
        if not _alive(pid):
            print(f"probe: the server process {pid} exited while waiting for {uri}", file=sys.stderr)
            return EXIT_DIED
        try:
            # An auto-commit query, not execute_query: that one retries with growing back-off while Bolt is not
            # listening yet, which made the start wait seconds after the server was up.
            with neo4j.GraphDatabase.driver(uri, auth=(user, password), connection_timeout=5.0) as driver:
                with driver.session() as session:
                    record = session.run("RETURN 1 AS one").single()
                if record is not None and record["one"] == 1:
                    return EXIT_READY
                last_error = f"unexpected answer to RETURN 1: {record!r}"
        except AuthError as exc:
            print(f"probe: {uri} rejected user {user!r}: {exc.message}", file=sys.stderr)
            return EXIT_AUTH
        except Neo4jError as exc:
            if exc.code == "Neo.ClientError.Security.AuthenticationRateLimit":
                print(f"probe: {uri} locked user {user!r} out after failed logins: {exc.message}", file=sys.stderr)
                return EXIT_AUTH
            last_error = f"{type(exc).__name__}: {exc}"  # DatabaseUnavailable while neo4j is starting
        except (DriverError, OSError) as exc:
            # ServiceUnavailable while Bolt is not listening yet
            last_error = f"{type(exc).__name__}: {exc}"
        if time.monotonic() >= deadline:
            print(f"probe: {uri} not ready after {timeout_s:.0f}s; last error: {last_error}", file=sys.stderr)
            return EXIT_TIMEOUT
        time.sleep(0.5)


def change_password(uri: str, user: str, old_password: str, new_password: str) -> int:
    """Change ``user``'s password from ``old_password`` to ``new_password`` on the running server."""
    import neo4j
    from neo4j.exceptions import AuthError

    try:
        with neo4j.GraphDatabase.driver(uri, auth=(user, old_password)) as driver:
            driver.execute_query(
                "ALTER CURRENT USER SET PASSWORD FROM $old TO $new",
                old=old_password,
                new=new_password,
                database_="system",
            )
    except AuthError as exc:
        print(f"probe: the recorded old password of {user!r} was rejected too: {exc.message}", file=sys.stderr)
        return EXIT_AUTH
    return EXIT_READY


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, then wait for readiness or change the password; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", required=True)
    parser.add_argument("--user", default="neo4j")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for readiness")
    parser.add_argument("--pid", type=int, default=None, help="give up early when this process exits")
    parser.add_argument(
        "--change-password", action="store_true", help="change CSILLAG_NEO4J_OLD_PASSWORD to CSILLAG_NEO4J_PASSWORD"
    )
    args = parser.parse_args(argv)
    password = os.environ.get("CSILLAG_NEO4J_PASSWORD")
    if not password:
        print("probe: CSILLAG_NEO4J_PASSWORD is not set", file=sys.stderr)
        return EXIT_USAGE
    try:
        import neo4j  # noqa: F401  (only checking that the driver is installed)
    except ImportError:
        print(f"probe: the neo4j Python driver is not installed in {sys.executable}", file=sys.stderr)
        return EXIT_USAGE
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)  # its retry warnings would flood the start output
    if args.change_password:
        old = os.environ.get("CSILLAG_NEO4J_OLD_PASSWORD")
        if not old:
            print("probe: --change-password needs CSILLAG_NEO4J_OLD_PASSWORD", file=sys.stderr)
            return EXIT_USAGE
        return change_password(args.uri, args.user, old, password)
    return wait_ready(args.uri, args.user, password, args.timeout, args.pid)


if __name__ == "__main__":
    sys.exit(main())

"""The API's guards: the API key, confinement of paths to the allowed roots, and the request body size limit.

The key comes from ``CSILLAG_API_API_KEY`` (settings refuse it in a file). With no key configured every protected
endpoint answers 401 — the service fails closed instead of open. Paths are resolved (symlinks followed) before they
are compared with the roots, so neither ``../`` nor a symlink can lead out of them.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import ProblemError, problem_response

logger = logging.getLogger(__name__)

_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The API key (CSILLAG_API_API_KEY).")
_bearer = HTTPBearer(auto_error=False, description="The API key as a bearer token.")


async def require_api_key(
    request: Request,
    header_key: Annotated[str | None, Security(_api_key_header)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
) -> None:
    """FastAPI dependency: the request carries the configured key in ``X-API-Key`` or ``Authorization: Bearer``."""
    expected: str = request.app.state.api_key
    presented = header_key or (bearer.credentials if bearer is not None else None)
    if not presented:
        raise ProblemError(
            401, "missing API key: send it in the X-API-Key header or as Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if not expected or not hmac.compare_digest(presented.encode("utf-8"), expected.encode("utf-8")):
        raise ProblemError(401, "invalid API key", headers={"WWW-Authenticate": "Bearer"})


def resolve_roots(roots: Sequence[Path]) -> list[Path]:
    """The allowed roots as absolute, symlink-free paths (resolved once, at start-up)."""
    return [Path(root).expanduser().resolve() for root in roots]


def confine_path(raw: str, roots: Sequence[Path], *, field: str, must_exist: bool = True) -> Path:
    """``raw`` as an absolute path inside one of ``roots`` (already resolved); relative paths start at the first root.

    Raises:
        ProblemError: 422 for an empty or non-existent path, 403 for a path outside every root (``../``, symlinks).
    """
    if not raw or "\x00" in raw:
        raise ProblemError(
            422, f"{field}: {raw!r} is not a path", errors=[{"loc": field.split("."), "msg": "not a path"}]
        )
    if not roots:
        raise ProblemError(403, f"{field}: {raw!r} refused: no allowed roots are configured (api.allowed_roots)")
    candidate = Path(raw).expanduser()
    if ".." in candidate.parts:
        raise ProblemError(403, f"{field}: {raw!r} refused: '..' is not allowed in paths")
    if not candidate.is_absolute():
        candidate = roots[0] / candidate
    resolved = candidate.resolve()
    if not any(resolved == root or resolved.is_relative_to(root) for root in roots):
        shown = ", ".join(str(r) for r in roots)
        raise ProblemError(403, f"{field}: {raw!r} resolves to {resolved}, outside the allowed roots ({shown})")
    if must_exist and not resolved.exists():
        raise ProblemError(
            422, f"{field}: {raw!r} does not exist", errors=[{"loc": field.split("."), "msg": "path does not exist"}]
        )
    return resolved


class BodySizeLimit:
    """ASGI middleware: a request body above ``max_bytes`` is answered 413 before the endpoint sees it.

    A declared ``Content-Length`` is checked first; a chunked body is read up to the limit and replayed, so the
    endpoint never holds more than ``max_bytes``.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self, size: str) -> Any:
        return problem_response(413, f"request body of {size} bytes exceeds the limit of {self.max_bytes} bytes")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check, buffer and replay the body of an HTTP request."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                await problem_response(400, "Content-Length is not a number")(scope, receive, send)
                return
            if length > self.max_bytes:
                await self._too_large(str(length))(scope, receive, send)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(f"more than {self.max_bytes}")(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

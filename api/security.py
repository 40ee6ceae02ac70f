"""The API's guards: the API key, confinement of paths to the allowed roots, JSON bodies, the body size limit, and
keeping secrets out of the access log.

The key comes from ``CSILLAG_API_API_KEY`` (settings refuse it in a file). With no key configured every protected
endpoint answers 401 — the service fails closed instead of open. Paths are resolved (symlinks followed) before they
are compared with the roots, so neither ``../`` nor a symlink can lead out of them; a refusal names the path as the
client gave it, never what it resolved to (that would tell the client about the server's folders and links).
"""

from __future__ import annotations

import hmac
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, quote_plus, unquote_plus

from fastapi import Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import ProblemError, problem_response
from graph.roots import parse_root

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


def resolve_roots(roots: Sequence[Path | str]) -> list[Path | str]:
    """The allowed roots: folders as absolute, symlink-free paths (resolved once, at start-up); bucket URIs
    (``s3a://BUCKET/PATH``, already normalised by the settings) as they are."""
    return [root if isinstance(root, str) else Path(root).expanduser().resolve() for root in roots]


def folder_roots(roots: Sequence[Path | str]) -> list[Path]:
    """The allowed roots that are folders of this machine (inputs are only ever local files)."""
    return [root for root in roots if isinstance(root, Path)]


def confine_uri(uri: str, roots: Sequence[Path | str], *, field: str) -> str:
    """``uri`` (an ``s3a://BUCKET/PATH`` or ``hdfs://`` lakehouse, normalised) if it is one of the URI roots or lies
    under one.

    A bucket has no symlinks, so the comparison is of key segments: ``s3a://b/lh`` allows ``s3a://b/lh/x`` but not
    ``s3a://b/lh2``. It compares the name every client will write under: ``graph.roots.parse_root`` refuses what a
    store would read otherwise (``..``, percent-escapes such as ``%2e%2e``, a query or fragment, ``//``).

    Raises:
        ProblemError: 403 for such a URI or one under no URI root, naming the URI as the client gave it.
    """
    if ".." in uri.partition("://")[2].split("/"):
        raise ProblemError(403, f"{field}: {uri!r} refused: '..' is not allowed in paths")
    try:
        name = parse_root(uri)
    except ValueError as exc:
        raise ProblemError(403, f"{field}: {uri!r} refused: {exc}") from None
    # roots that are not URIs are folders; a URI root was checked by the settings
    if name.is_local or not any(parse_root(root).contains(name) for root in roots if isinstance(root, str)):
        raise ProblemError(403, f"{field}: {uri!r} refused: it lies under no allowed bucket root (api.allowed_roots)")
    return uri


def confine_path(
    raw: str, roots: Sequence[Path], *, field: str, must_exist: bool = True, whole_root: bool = False
) -> Path:
    """``raw`` as an absolute path inside one of ``roots`` (already resolved); relative paths start at the first root.

    ``whole_root``: a root itself is accepted too (the server's own configured lakehouse may be one).

    Raises:
        ProblemError: 422 for an empty or non-existent path or a root itself however it is spelled (``"."``, its
            absolute path: it would take in everything under the root, ``.venv`` included), 403 for a path outside
            every root (``../``, symlinks).
    """
    if not raw.strip() or "\x00" in raw:
        raise ProblemError(
            422, f"{field}: {raw!r} is not a path; name a file or folder inside the allowed roots",
            errors=[{"loc": field.split("."), "msg": "not a path"}],
        )
    if not Path(raw).parts and not whole_root:  # ".", "./", "./.": named by accident more often than not
        raise _whole_root(raw, field)
    if not roots:
        raise ProblemError(403, f"{field}: {raw!r} refused: no allowed roots are configured (api.allowed_roots)")
    candidate = Path(raw).expanduser()
    if ".." in candidate.parts:
        raise ProblemError(403, f"{field}: {raw!r} refused: '..' is not allowed in paths")
    if not candidate.is_absolute():
        candidate = roots[0] / candidate
    try:
        resolved = candidate.resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, later versions OSError (ELOOP)
        raise ProblemError(
            422, f"{field}: {raw!r} is a symbolic link loop (ELOOP); it leads to no file",
            errors=[{"loc": field.split("."), "msg": "symbolic link loop"}],
        ) from None
    if not any(resolved == root or resolved.is_relative_to(root) for root in roots):
        raise ProblemError(403, f"{field}: {raw!r} refused: it lies outside the allowed roots (api.allowed_roots)")
    if resolved in roots and not whole_root:
        raise _whole_root(raw, field)
    if must_exist and not resolved.exists():
        raise ProblemError(
            422, f"{field}: {raw!r} does not exist", errors=[{"loc": field.split("."), "msg": "path does not exist"}]
        )
    return resolved


def _whole_root(raw: str, field: str) -> ProblemError:
    return ProblemError(
        422, f"{field}: {raw!r} names the whole allowed root; name a file or folder inside it",
        errors=[{"loc": field.split("."), "msg": "the whole allowed root"}],
    )


_JSON_TYPE = re.compile(r"^application/([\w.+-]+\+)?json$", re.IGNORECASE)


async def require_json(request: Request) -> None:
    """FastAPI dependency of the endpoints that read a JSON body: another declared media type is a 415.

    Without it a ``text/plain`` body reaches validation and comes back as a 422 about the body's shape. A request
    without ``Content-Type`` is read as JSON (FastAPI's rule), so ``curl --data-binary @file.json`` still works.
    """
    declared = request.headers.get("content-type")
    if declared is None:
        return
    media_type = declared.split(";", 1)[0].strip()
    if not _JSON_TYPE.match(media_type):
        raise ProblemError(415, f"Content-Type {media_type!r} is not accepted; send the body as application/json")


# Query parameters whose value is a credential by name; their values never reach the access log.
_SECRET_PARAMETER = re.compile(r"key|token|secret|passw|auth|credential|signature", re.IGNORECASE)
REDACTED = "***"


def redact_target(target: str, secrets: Sequence[str] = ()) -> str:
    """``target`` (path and query) with credential-like query values and every occurrence of ``secrets`` masked."""
    path, sep, query = target.partition("?")
    if sep:
        pairs = []
        for pair in query.split("&"):
            name, eq, value = pair.partition("=")
            pairs.append(f"{name}={REDACTED}" if eq and _SECRET_PARAMETER.search(unquote_plus(name)) else pair)
        target = f"{path}?{'&'.join(pairs)}"
    for secret in secrets:
        for form in {secret, quote(secret, safe=""), quote_plus(secret)} if secret else ():
            target = target.replace(form, REDACTED)
    return target


class AccessLogRedaction(logging.Filter):
    """Filter for uvicorn's access logger: the request target is logged with :func:`redact_target`.

    A client that sends the key as ``?api_key=…`` is refused (401), but uvicorn logs the request line as it came;
    this filter masks the key there before any handler writes it.
    """

    def __init__(self, secrets: Sequence[str] = ()) -> None:
        super().__init__("csillag.redaction")
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the target argument of an access record (uvicorn: client, method, target, version, status)."""
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact_target(args[2], self.secrets), *args[3:])
        return True


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

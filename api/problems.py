"""Errors as RFC 7807 problem details (``application/problem+json``), never stack traces.

Endpoints raise :class:`ProblemError`; FastAPI's own errors (404 routes, 405, request validation) and anything
unexpected are turned into the same shape by the handlers installed with :func:`install_problem_handlers`. A 500
answer says only that something failed and gives an id to find the logged traceback by.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

logger = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"
_TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class Problem(BaseModel):
    """The RFC 7807 body; ``errors`` lists the invalid fields of a 422 (``loc`` is the path to the field)."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None
    errors: list[dict[str, Any]] | None = None


class ProblemError(Exception):
    """Raised by an endpoint to answer with a problem document: status, a detail naming the bad value."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors
        self.headers = headers


def problem_response(
    status: int,
    detail: str | None,
    *,
    instance: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """A problem+json response."""
    body = Problem(title=_TITLES.get(status, "Error"), status=status, detail=detail, instance=instance, errors=errors)
    return JSONResponse(
        body.model_dump(exclude_none=True), status_code=status, media_type=PROBLEM_JSON, headers=headers
    )


def _field_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    return [
        {"loc": [str(p) for p in error.get("loc", ())], "msg": str(error.get("msg", "")), "type": error.get("type")}
        for error in exc.errors()
    ]


def validation_detail(errors: list[dict[str, Any]]) -> str:
    """One line naming every invalid field (the first five): ``body.inputs: Field required; …``."""
    parts = [f"{'.'.join(e['loc']) or '<body>'}: {e['msg']}" for e in errors[:5]]
    return "invalid request: " + "; ".join(parts)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app serves at this request's path (for a correct ``Allow`` header)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match in (Match.FULL, Match.PARTIAL):
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def install_problem_handlers(app: FastAPI) -> None:
    """Route every error of ``app`` through a problem+json answer."""

    @app.exception_handler(ProblemError)
    async def _problem(request: Request, exc: ProblemError) -> JSONResponse:
        return problem_response(
            exc.status, exc.detail, instance=request.url.path, errors=exc.errors, headers=exc.headers
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else None
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:  # Starlette names only the first matching route's methods
            headers["Allow"] = ", ".join(allowed_methods(request))
        return problem_response(exc.status_code, detail, instance=request.url.path, headers=headers or None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _field_errors(exc)
        return problem_response(422, validation_detail(errors), instance=request.url.path, errors=errors)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        incident = uuid.uuid4().hex[:12]
        logger.error("unhandled error %s on %s %s", incident, request.method, request.url.path, exc_info=exc)
        return problem_response(
            500, f"internal error; the server log has the details under incident {incident}", instance=request.url.path
        )


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entries documenting problem answers with these status codes."""
    return {
        status: {"model": Problem, "description": _TITLES[status], "content": {PROBLEM_JSON: {}}} for status in statuses
    }


PROBLEM_RESPONSES = problem_responses(400, 401, 403, 404, 413, 422)
"""OpenAPI ``responses=`` entries documenting the problem answers of a protected endpoint."""

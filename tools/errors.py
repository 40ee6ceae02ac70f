"""Errors of the chat side and of configuration.

One root per concern (style guide): ``ToolError`` for tools and the orchestrator, ``ConfigError`` for settings.
"""

from __future__ import annotations

from pathlib import Path

from settings.errors import ConfigError as ConfigError  # the chat side raises it for its own settings too


class ToolError(Exception):
    """Raised when a tool, the registry or the orchestrator cannot do what was asked."""

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class LakehouseNotReadyError(ToolError):
    """Raised when the chat side's lakehouse is missing, empty or half-built; names the path and what is missing."""

    def __init__(self, message: str, *, path: Path | str, missing: list[str] | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.missing = list(missing or [])


class ToolContractError(ToolError, TypeError):
    """Raised when a tool class breaks a platform contract at definition or registration time (R-PLUG-1, R-PRIO-1)."""


class DuplicateToolError(ToolError):
    """Raised when a second tool class is registered under a name that is already taken."""


class UnknownToolError(ToolError, KeyError):
    """Raised when a tool, orchestrator or task type is looked up by a name that is not registered."""

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return str(self.args[0])


class MissingDependencyError(ToolError):
    """Raised at start-up when an injected field of a tool has no provider; names the tool, the field and its type."""

    def __init__(self, message: str, *, tool_name: str | None = None, field: str | None = None) -> None:
        super().__init__(message, tool_name=tool_name)
        self.field = field


class ToolExecutionError(ToolError):
    """Raised when a tool failed or timed out and nothing else could answer the request."""

    def __init__(self, message: str, *, tool_name: str | None = None, failures: dict[str, BaseException] | None = None):
        super().__init__(message, tool_name=tool_name)
        self.failures = dict(failures or {})


class ClarificationError(ToolError):
    """Raised when a clarification session is unknown, expired, already answered or belongs to another user."""

    def __init__(self, message: str, *, session_id: str | None = None) -> None:
        super().__init__(message)
        self.session_id = session_id


class NoOrchestratorError(ToolError):
    """Raised when no orchestrator, or more than one, matches a request's domain and systems (R-OT-1, R-OT-4)."""


class LlmError(ToolError):
    """Raised when the chat-completions endpoint fails after its retries, or answers with something unreadable."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class TaskError(ToolError):
    """Raised when an async task type is unknown, its input is invalid, or a task id does not exist (R-ASYNC-*)."""

    def __init__(self, message: str, *, task_type: str | None = None, task_id: str | None = None) -> None:
        super().__init__(message)
        self.task_type = task_type
        self.task_id = task_id

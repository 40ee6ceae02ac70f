"""What every ``csillag`` command shares: one-line errors with an exit code, and the exit codes themselves."""

from __future__ import annotations

import logging
from typing import Any, NoReturn

import click

from jobs.common import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE

logger = logging.getLogger(__name__)

EXIT_UNAVAILABLE = 4  # the API could not be reached, or answered with an error
__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_PARTIAL", "EXIT_UNAVAILABLE", "EXIT_USAGE", "CliError", "Command", "Group",
           "fail"]


class CliError(click.ClickException):
    """Raised by a command to end with one ``csillag: …`` line on stderr and the given exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it on the class; ours varies

    def show(self, file: Any = None) -> None:
        """One line, no usage text."""
        click.echo(f"csillag: {self.message}", err=True)


class _OneLineUsageErrors:
    """Mixed into our click classes: a usage error is one ``csillag: …`` line pointing at ``--help``."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[misc]
        except click.UsageError as exc:
            where = " ".join(p for p in (parent.command_path if parent else "", info_name or "") if p)
            raise CliError(f"{exc.format_message()} (see `{where} --help`)") from None

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)  # type: ignore[misc]
        except click.UsageError as exc:
            raise CliError(f"{exc.format_message()} (see `{ctx.command_path} --help`)") from None


class Command(_OneLineUsageErrors, click.Command):
    """A csillag command."""


class Group(_OneLineUsageErrors, click.Group):
    """A csillag command group; its commands and sub-groups are ours too."""

    command_class = Command
    group_class = type


def fail(message: str, exit_code: int = EXIT_USAGE) -> NoReturn:
    """End the command with one error line and ``exit_code``."""
    raise CliError(message, exit_code)

"""What every ``csillag`` command shares: exit codes, one-line errors, ``--config``, logging.

Every command of the package follows the same conventions: a usage or settings error is one ``csillag: …`` line on
stderr, never a usage block, and ``run`` gives every entry point (``csillag``, ``python -m jobs.pipeline``,
``python -m tools.ask``, ``python -m api``, the spark-submit scripts) the same exit code for the same outcome.
"""

from __future__ import annotations

import logging
import logging.config
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

import click

from graph.lakehouse import Lakehouse
from settings.config import PROJECT_ROOT, CsillagSettings, load_settings
from settings.errors import ConfigError

logger = logging.getLogger(__name__)

EXIT_OK = 0  # succeeded, or every stage already up to date
EXIT_FAILED = 1  # the work failed (a failed run, task or tool; the message names the cause)
EXIT_USAGE = 2  # bad arguments or settings: nothing was done
EXIT_PARTIAL = 3  # ingestion finished, but some documents were rejected
EXIT_BUSY = 4  # ingestion not started: another run holds the lakehouse's lock (stderr names it)
EXIT_UNAVAILABLE = 4  # ``tasks``: the API could not be reached, or answered with an error
EXIT_ABORTED = 130  # interrupted (Ctrl-C), as a shell reports it
LOGGING_CONF = PROJECT_ROOT / "conf" / "logging.conf"
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 110}

F = TypeVar("F", bound=Callable[..., Any])


class CliError(click.ClickException):
    """Raised by a command to end with one ``csillag: …`` line on stderr and the given exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it on the class; ours varies

    def show(self, file: Any = None) -> None:
        """One line, no usage text."""
        click.echo(f"csillag: {self.message}", err=True)


def lakehouse_option(raw: str | None, settings: CsillagSettings | None) -> Lakehouse:
    """A ``--lakehouse`` option's (or argument's) root, else ``lakehouse.root``, as the command's ``Lakehouse``: a
    folder, ``file://``, ``s3a://`` (with the settings' ``lakehouse.s3``; ``settings`` None: loaded here) or
    ``hdfs://``; a root no backend serves ends the command with one line."""
    try:
        settings = settings or load_settings()
    except ConfigError as exc:
        fail(str(exc))
    value = raw if raw is not None else settings.lakehouse.root
    try:
        return Lakehouse.for_root(value, settings.lakehouse.s3)
    except ValueError as exc:
        fail(f"--lakehouse {raw!r}: {exc}" if raw is not None else str(exc))


def fail(message: str, exit_code: int = EXIT_USAGE) -> NoReturn:
    """End the command with one error line and ``exit_code``."""
    raise CliError(message, exit_code)


class _OneLineUsageErrors:
    """Mixed into our click classes: a usage error is one ``csillag: …`` line pointing at ``--help``; ``-h`` and the
    help's width are the same whether the command runs inside ``csillag`` or on its own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["context_settings"] = CONTEXT_SETTINGS | (kwargs.get("context_settings") or {})
        super().__init__(*args, **kwargs)

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


def config_option(function: F) -> F:
    """``--config FILE`` on a command that also runs on its own (``python -m …``); it wins over the group's."""
    return click.option(
        "--config", "config", type=click.Path(dir_okay=False),
        help="Settings file (TOML/YAML); default $CSILLAG_CONFIG, else conf/csillag.toml.",
    )(function)


def cli_settings(ctx: click.Context, config: str | None = None, **overrides: Any) -> CsillagSettings:
    """The settings of this invocation, highest first: ``overrides`` (flags), the environment, the file — the
    command's ``--config``, else ``csillag --config``, else ``$CSILLAG_CONFIG``/``conf/csillag.toml`` — defaults.

    A bad value ends the command with one line and exit code 2.
    """
    shared = ctx.find_object(dict) or {}
    try:
        return load_settings(config or shared.get("config"), **overrides)
    except ConfigError as exc:
        fail(str(exc))


def configure_logging(quiet: bool = False) -> None:
    """Our logging config (conf/logging.conf); quiet keeps warnings only.

    Commands call it after their checks, so that a usage or settings error stays one line.
    """
    if LOGGING_CONF.exists():
        logging.config.fileConfig(LOGGING_CONF, disable_existing_loggers=False)
    else:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if quiet:
        logging.getLogger().setLevel(logging.WARNING)


def run(command: click.Command, argv: Sequence[str] | None, prog_name: str, **extra: Any) -> int:
    """Run ``command`` on ``argv`` (default ``sys.argv[1:]``) and return its exit code instead of exiting.

    ``extra`` goes to the click context (``obj=…``). Every csillag entry point ends here, so a usage error, a
    ``CliError`` and Ctrl-C end the same way whichever door the user came in by.
    """
    try:
        code = command.main(args=list(argv) if argv is not None else None, prog_name=prog_name,
                            standalone_mode=False, **extra)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("csillag: aborted", err=True)
        return EXIT_ABORTED
    return code if isinstance(code, int) else EXIT_OK

"""``csillag ask``: ask the books a question from the command line — ``csillag ask "Ki Gergely legközelebbi társa?"``.

The command is defined once, here (``cli.app`` adds it to the ``csillag`` application, and ``python -m tools.ask``
runs the same command). It builds the platform with ``ChatPlatform.from_settings`` — the one
way in, shared with the REST API: it loads the lakehouse's book (graph, chunk index, units) and chooses the domain and
its language from the settings and the documents — and runs the question through it, streaming the answer and its
citations to stdout. A lakehouse that is missing, empty or half-built ends with one line naming the path and what is
missing, exit 1. Offline by default (lexical routing, extractive or tool-written answers); with ``llm.base_url`` set,
routing and composition use that OpenAI-compatible endpoint. ``--interactive`` keeps asking, and answers the tools'
clarification questions ("Which Rostov do you mean?") in the same session.

Exit codes: 0 answered (or asked back), 1 the lakehouse or a tool failed, 2 bad usage or settings.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import Sequence
from typing import TextIO

import click

from cli.base import (
    EXIT_FAILED,
    Command,
    cli_settings,
    config_option,
    configure_logging,
    fail,
    run,
)
from graph.errors import GraphStoreError
from tools.analysis.domain import KNOWN_DOMAINS, DomainServices, DomainSettings
from tools.errors import ConfigError, ToolError
from tools.platform import ChatPlatform
from tools.request import ChatRequest
from tools.retrieval.analyzer import STOP_WORDS
from tools.streaming import ResponseEmitter, TextGenerationResponse

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W\d_]+")
_HUNGARIAN_ONLY_LETTERS = frozenset("őű")  # names carry á, é, ó, ö… in English questions too ("Dobó"), not these


def guess_language(text: str, default: str = "en") -> str:
    """The user's language (R-INT) when none is given: ``hu`` or ``en`` by their function words; ``default`` (the
    book's language) when they tie — "a" is a function word of both.

    Names say nothing about the asker's language ("How are Dobó and Gergely connected?" is English), so only
    words of the stop lists and the letters ő, ű count.
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    hungarian = sum(w in STOP_WORDS["hu"] for w in words) + sum(ch in _HUNGARIAN_ONLY_LETTERS for ch in text.casefold())
    english = sum(w in STOP_WORDS["en"] for w in words)
    if hungarian == english:
        return default if default in ("hu", "en") else "en"
    return "hu" if hungarian > english else "en"


def build_platform(settings: object, domain: DomainSettings | str | None = None) -> tuple[ChatPlatform, DomainServices]:
    """``ChatPlatform.from_settings`` (the one way in) and the book's services it loaded.

    Raises:
        LakehouseNotReadyError: the lakehouse is missing, empty or half-built.
    """
    platform = ChatPlatform.from_settings(settings, domain=domain)
    if platform.book is None:  # cannot happen: without a registry from_settings loads the book or raises
        raise ToolError("the chat platform was built without a book")
    return platform, platform.book


@click.command("ask", cls=Command)
@click.argument("question", required=False)
@click.option("--lakehouse", type=click.Path(file_okay=False),
              help="Lakehouse root: a folder or s3a://BUCKET/PATH (overrides lakehouse.root).")
@click.option("--domain", help="The books' domain (default: the ingestion tool's, else the lakehouse folder's name; "
              f"known: {', '.join(sorted(KNOWN_DOMAINS))}).")
@config_option
@click.option("--lang", help="The user's language (default: guessed from the question, hu or en).")
@click.option("--user", default="cli", show_default=True, help="User id (clarification sessions belong to one user).")
@click.option("--session", "session_id", help="Answer the clarification question of this session.")
@click.option("--interactive", is_flag=True, help="Keep asking; answer clarification questions in the same session.")
@click.option("--quiet", is_flag=True, help="Log warnings only, and no progress lines.")
@click.pass_context
def ask_command(ctx: click.Context, question: str | None, lakehouse: str | None, domain: str | None,
                config: str | None, lang: str | None, user: str, session_id: str | None, interactive: bool,
                quiet: bool) -> None:
    """Ask the books of a lakehouse QUESTION in this process and print the cited answer.

    Progress goes to stderr. Exit code 0 answered (or asked back), 1 the lakehouse is missing, empty or half-built
    (one line naming it and what is missing) or a tool failed, 2 bad usage or settings.
    """
    if not question and not interactive:
        fail("a question is required (or --interactive)")
    streams = ctx.find_object(dict) or {}
    out: TextIO = streams.get("out") or sys.stdout
    inp: TextIO = streams.get("inp") or sys.stdin
    settings = cli_settings(ctx, config, **({"lakehouse": {"root": lakehouse}} if lakehouse is not None else {}))
    try:
        platform, services = build_platform(settings, domain)
    except ConfigError as exc:
        fail(str(exc))
    except (ToolError, GraphStoreError) as exc:
        fail(str(exc), EXIT_FAILED)
    configure_logging(quiet)  # after loading the book, so that its errors stay one line
    turn = Turn(platform, services.domain, user=user, lang=lang, out=out, progress=not quiet)
    try:
        asyncio.run(turn.converse(question, session_id, inp if interactive else None))
    except ToolError as exc:
        fail(str(exc), EXIT_FAILED)


class Turn:
    """The conversation of one ``ask`` command: one question, or (``inp``) questions until an empty line."""

    def __init__(self, platform: ChatPlatform, domain: DomainSettings, *, user: str, lang: str | None, out: TextIO,
                 progress: bool) -> None:
        self.platform, self.domain, self.user, self.lang, self.out = platform, domain, user, lang, out
        self.progress = progress

    def _sink(self, event: TextGenerationResponse) -> None:
        if event.kind == "delta":
            self.out.write(event.text)
            self.out.flush()
        elif event.kind == "progress" and self.progress:
            click.echo(f"… {event.text}", err=True)

    async def converse(self, question: str | None, session_id: str | None, inp: TextIO | None) -> None:
        """Answer ``question``; with ``inp``, keep reading questions (and answers to clarification questions)."""
        while True:
            if question is None:
                if inp is None:
                    return
                self.out.write("? ")
                self.out.flush()
                line = inp.readline()
                if not line or line.strip().casefold() in {"", "quit", "exit", "kilép"}:
                    return
                question = line.strip()
            request = ChatRequest(question, user_id=self.user, domain=self.domain.name,
                                  user_lang=self.lang or guess_language(question, self.domain.language),
                                  session_id=session_id,
                                  answer=question if session_id is not None else None)
            response = await self.platform.handle(request, ResponseEmitter(self._sink))
            self.out.write("\n")
            asked_back = response.finish_reason == "clarification" and response.clarification is not None
            session_id = response.clarification["session_id"] if asked_back and response.clarification else None
            if session_id is not None and inp is None:
                click.echo(f"(answer with: csillag ask --session {session_id} \"…\")", err=True)
            question = None


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, inp: TextIO | None = None) -> int:
    """``python -m tools.ask``: the ``csillag ask`` command; ``out``/``inp`` replace stdout/stdin (tests)."""
    return run(ask_command, argv, prog_name="csillag ask", obj={"out": out, "inp": inp})


"""Ask the knowledge graph a question from the command line: ``python -m tools.ask "Ki Gergely legközelebbi társa?"``.

Loads the domain's services from the lakehouse (graph, chunk index, units), registers the domain tools, and runs the
question through ``ChatPlatform`` — the same path as the REST API — streaming the answer and its citations to
stdout. Offline by default (lexical routing, extractive or tool-written answers); with ``llm.base_url`` set, routing
and composition use that OpenAI-compatible endpoint. ``--interactive`` keeps asking, and answers the tools'
clarification questions ("Which Rostov do you mean?") in the same session.

Exit codes: 0 answered (or asked back), 1 a csillag error (settings, lakehouse, tools), 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from graph.errors import GraphStoreError
from tools.analysis.domain import KNOWN_DOMAINS, DomainServices, DomainSettings
from tools.domains.egri_csillagok import TOOLS
from tools.errors import ConfigError, ToolError
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
from tools.retrieval.analyzer import STOP_WORDS
from tools.streaming import OpenAIResponse, ResponseEmitter, TextGenerationResponse

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W\d_]+")
_HUNGARIAN_ONLY_LETTERS = frozenset("őű")  # names carry á, é, ó, ö… in English questions too ("Dobó"), not these


def guess_language(text: str) -> str:
    """The user's language (R-INT) when none is given: ``hu`` or ``en`` by their function words.

    Names say nothing about the asker's language ("How are Dobó and Gergely connected?" is English), so only
    words of the stop lists and the letters ő, ű count.
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    hungarian = sum(w in STOP_WORDS["hu"] for w in words) + sum(ch in _HUNGARIAN_ONLY_LETTERS for ch in text.casefold())
    english = sum(w in STOP_WORDS["en"] for w in words)
    return "hu" if hungarian > english else "en"


def build_platform(settings: object, domain: DomainSettings) -> tuple[ChatPlatform, DomainServices]:
    """The chat platform with the domain tools and the domain's services loaded from its lakehouse."""
    registry = ToolRegistry(entry_point_group=None)
    for tool_class in TOOLS:
        registry.register(tool_class)
    if domain.ingestion_tool:
        # The domain's ingestion tool (a csillag.tools plugin) is wired to the chat tools; it gets these settings.
        registry.register(ToolRegistry().get_class(domain.ingestion_tool))
    services = DomainServices.load(domain, getattr(settings, "graph", None),
                                   neo4j_settings=getattr(settings, "neo4j", None),
                                   retrieval_settings=getattr(settings, "retrieval", None))
    platform = ChatPlatform.from_settings(settings, registry, services=[*services.as_list(), settings])
    return platform.start(), services


def _printer(out: TextIO) -> Callable[[TextGenerationResponse], None]:
    def sink(event: TextGenerationResponse) -> None:
        if event.kind == "delta":
            out.write(event.text)
            out.flush()
    return sink


async def ask(platform: ChatPlatform, request: ChatRequest, out: TextIO) -> OpenAIResponse:
    """Run one turn, streaming the answer text to ``out``."""
    emitter = ResponseEmitter(_printer(out))
    response = await platform.handle(request, emitter)
    out.write("\n")
    return response


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="csillag ask", description="Ask the book graph a question.")
    parser.add_argument("question", nargs="?", help="the question (omit with --interactive)")
    parser.add_argument("--lakehouse", type=Path, help="lakehouse root (overrides lakehouse.root)")
    parser.add_argument("--domain", default="egri_csillagok",
                        help=f"domain name (known: {', '.join(sorted(KNOWN_DOMAINS))}; others need ner.language)")
    parser.add_argument("--config", help="settings file (TOML/YAML); default conf/csillag.toml or $CSILLAG_CONFIG")
    parser.add_argument("--lang", help="the user's language (default: guessed from the question)")
    parser.add_argument("--user", default="cli", help="user id (clarification sessions belong to one user)")
    parser.add_argument("--interactive", action="store_true", help="keep asking; answer clarification questions")
    parser.add_argument("--quiet", action="store_true", help="log warnings only")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, inp: TextIO | None = None) -> int:
    """Parse the arguments, load the domain and answer; see the module docstring for exit codes."""
    out = out or sys.stdout
    inp = inp or sys.stdin
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.question and not args.interactive:
        parser.print_usage(sys.stderr)
        sys.stderr.write("csillag ask: a question is required (or --interactive)\n")
        return 2
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, stream=sys.stderr)
    from settings.config import load_settings

    try:
        overrides = {"lakehouse": {"root": args.lakehouse}} if args.lakehouse else {}
        settings = load_settings(args.config, **overrides)
        domain = DomainSettings.from_settings(settings, args.domain)
        platform, _ = build_platform(settings, domain)
        return asyncio.run(_session(platform, domain, args, out, inp))
    except (ConfigError, ToolError, GraphStoreError) as exc:
        sys.stderr.write(f"csillag ask: {exc}\n")
        return 1


async def _session(platform: ChatPlatform, domain: DomainSettings, args: argparse.Namespace, out: TextIO,
                   inp: TextIO) -> int:
    question = args.question
    session_id: str | None = None
    while True:
        if question is None:
            out.write("? ")
            out.flush()
            line = inp.readline()
            if not line or line.strip().casefold() in {"", "quit", "exit", "kilép"}:
                return 0
            question = line.strip()
        lang = args.lang or guess_language(question)
        if session_id is not None:
            request = ChatRequest(question, user_id=args.user, domain=domain.name, user_lang=lang,
                                  session_id=session_id, answer=question)
        else:
            request = ChatRequest(question, user_id=args.user, domain=domain.name, user_lang=lang)
        response = await ask(platform, request, out)
        asked_back = response.finish_reason == "clarification" and response.clarification is not None
        session_id = response.clarification["session_id"] if asked_back and response.clarification else None
        if not args.interactive:
            return 0
        question = None


if __name__ == "__main__":
    sys.exit(main())

"""Clarification sessions: a question goes back to the user, the answer resumes the request where it stopped.

Lifecycle (docs/orchestrator.md): the orchestrator opens a session when one or more tools of a priority group ask a
question (R-CLAR-1); the session records the request, the context buffer so far, the groups still to run and each
asking tool's question and private ``state``. The next turn names the session id; ``take()`` hands the session back
exactly once, only to the user who opened it, and only before it expires. Expired sessions are swept lazily.

Trust model: the caller of the platform (the REST API's one key, or a host importing the module) is one tenant that
authenticates its own users and names them in ``user_id``; the platform cannot check that name. What keeps one user
from answering another's question is the pair: the session id — 128 random bits from the operating system's CSPRNG,
sent only in the response to the turn that asked — and the ``user_id`` that opened it. The id is therefore a secret:
it is never written to the log, and a failed attempt (a foreign user, a wrong id) neither consumes the session nor
tells the caller that it exists.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.documents import ClarificationQuestion, PromptAndContext
from tools.errors import ClarificationError
from tools.request import ChatRequest

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ClarificationSession:
    """What one tool receives when its question was answered (platform clarification session).

    ``state`` is the tool's own ``state`` from ``as_clarification`` — singleton tools keep per-request data here and
    not in fields (R-CC-2). ``round`` counts the questions this tool asked in this request, starting at 1.
    """

    session_id: str
    tool_name: str
    question: str
    answer: str
    state: dict[str, Any] = field(default_factory=dict, hash=False)
    round: int = 1


@dataclass(slots=True)
class PendingRequest:
    """Everything needed to resume a request: stored by the orchestrator, opaque to the store.

    Besides the context buffer it keeps everything else the request had produced before the question — direct
    answers, failures, the tools that ran, the answer order and whether usable context exists — so the resumed
    answer equals the one the request would have given had the user's answer been known from the start (R-CLAR-1).
    ``resume_priority`` is the priority of the group that asked; ``resume_rank`` its full rank in the schedule
    (``tools.scheduling``).
    """

    session_id: str
    user_id: str
    request: ChatRequest
    orchestrator_name: str
    questions: dict[str, ClarificationQuestion]
    buffer: dict[str, list[PromptAndContext]]
    resume_priority: int
    rounds: dict[str, int]
    task_no: str = "1"
    extra: dict[str, Any] = field(default_factory=dict)
    expires_at: float = 0.0
    resume_rank: tuple[int, ...] = ()
    direct: list[Any] = field(default_factory=list)
    failures: dict[str, BaseException] = field(default_factory=dict)
    tools_run: list[str] = field(default_factory=list)
    order: dict[str, Any] = field(default_factory=dict)
    usable: bool = False


class SessionStore:
    """Open clarification sessions, bounded in number and time; safe to share between requests and threads."""

    def __init__(self, ttl_s: float = 900.0, max_sessions: int = 10_000, clock: Callable[[], float] | None = None):
        if ttl_s <= 0:
            raise ValueError(f"ttl_s must be > 0, got {ttl_s}")
        self.ttl_s = ttl_s
        self.max_sessions = max_sessions
        self._clock = clock or time.monotonic
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, PendingRequest] = OrderedDict()

    @staticmethod
    def new_id() -> str:
        """A fresh, unguessable session id: 32 hex digits, 128 bits of ``secrets`` (the OS's CSPRNG)."""
        return secrets.token_hex(16)

    def put(self, pending: PendingRequest) -> str:
        """Store ``pending`` until it is taken or expires; returns its session id."""
        now = self._clock()
        pending.expires_at = now + self.ttl_s
        with self._lock:
            self._sweep(now)
            while len(self._sessions) >= self.max_sessions:
                self._sessions.popitem(last=False)
                # not its id: with it, anyone reading the log could answer in that user's name
                logger.warning("clarification store full (%d); dropped the oldest session", self.max_sessions)
            self._sessions[pending.session_id] = pending
        return pending.session_id

    def take(self, session_id: str, user_id: str) -> PendingRequest:
        """Remove and return the session; it can be resumed only once, by its own user, before it expires.

        Raises:
            ClarificationError: the id is unknown, expired, already used, or opened by another user (these read
                the same to the caller, so a session id of another user reveals nothing).
        """
        now = self._clock()
        with self._lock:
            pending = self._sessions.get(session_id)
            if pending is not None and pending.user_id == user_id:
                del self._sessions[session_id]
            else:
                pending = None
        if pending is None:
            raise ClarificationError(
                f"no open clarification session {session_id!r} for this user (unknown, already answered or expired)",
                session_id=session_id,
            )
        if pending.expires_at <= now:
            raise ClarificationError(
                f"clarification session {session_id!r} expired after {self.ttl_s:g}s; ask the question again",
                session_id=session_id,
            )
        return pending

    def __len__(self) -> int:
        with self._lock:
            self._sweep(self._clock())
            return len(self._sessions)

    def _sweep(self, now: float) -> None:
        expired = [sid for sid, p in self._sessions.items() if p.expires_at <= now]
        for sid in expired:
            del self._sessions[sid]
        if expired:
            logger.info("dropped %d expired clarification sessions", len(expired))


def split_answers(answer: str | dict[str, str], tool_names: list[str]) -> dict[str, str]:
    """Route a user's answer to the tools that asked (several questions reach the user as one turn).

    A mapping is taken as it is (unknown names are refused). A string answers a single question as a whole; for
    several questions, numbered lines ``1. …`` / ``2) …`` are matched to the questions in the order they were shown,
    and without numbering every tool receives the whole answer.
    """
    if isinstance(answer, dict):
        unknown = sorted(set(answer) - set(tool_names))
        if unknown:
            raise ClarificationError(f"answers for tools that asked nothing: {unknown}; asking tools: {tool_names}")
        missing = [name for name in tool_names if name not in answer]
        if missing:
            raise ClarificationError(f"no answer for the question of {missing}; asking tools: {tool_names}")
        return dict(answer)
    if len(tool_names) == 1:
        return {tool_names[0]: answer.strip()}
    numbered: dict[int, list[str]] = {}
    current: int | None = None
    for line in answer.splitlines():
        stripped = line.strip()
        head, sep, rest = stripped.partition(".") if "." in stripped[:4] else stripped.partition(")")
        if sep and head.isdigit():
            current = int(head)
            numbered.setdefault(current, []).append(rest.strip())
        elif current is not None and stripped:
            numbered[current].append(stripped)
    if sorted(numbered) == list(range(1, len(tool_names) + 1)):
        return {name: " ".join(numbered[i + 1]).strip() for i, name in enumerate(tool_names)}
    return {name: answer.strip() for name in tool_names}

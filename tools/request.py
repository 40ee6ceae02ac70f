"""One user request as the chat side sees it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A user's chat turn: the platform's parameters plus who asks and, for a clarification turn, the answer.

    ``systems`` are the platform systems the user may reach (an orchestrator's ``eligible_system`` is matched
    against them, R-OT-4); ``permissions`` feed ``is_eligible`` checks (R-CHAT-2). A turn answering a clarification
    question carries ``session_id`` and ``answer``: a string for one question, or a mapping tool name → answer when
    several tools asked in the same turn.
    """

    user_prompt: str
    user_id: str = "anonymous"
    domain: str | None = None
    systems: tuple[str, ...] = ()
    user_lang: str = "en"
    important_words: tuple[str, ...] = ()
    permissions: frozenset[str] = frozenset()
    session_id: str | None = None
    answer: str | dict[str, str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_clarification_answer(self) -> bool:
        """Whether this turn answers an earlier clarification question."""
        return self.session_id is not None

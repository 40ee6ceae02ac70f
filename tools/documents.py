"""The documents tools exchange, and the outcome of one tool call.

Platform types rendered here: ``UniqueTextDocument``, ``TextAnswer``, ``InternalContextDocument``, ``PromptAndContext``
and ``ToolExecutionResult``. They are frozen dataclasses rather than pydantic models because the orchestrator creates
them on every call of every tool and the per-request overhead budget is well under a millisecond.

The addressee decides the type (R-INT-1/2): a ``TextAnswer`` may reach the final answer and the RAG step, an
``InternalContextDocument`` is only for the receiving tool and the orchestrator strips it before either.
"""

from __future__ import annotations

import enum
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

ModelT = TypeVar("ModelT")


@dataclass(frozen=True, slots=True)
class UniqueTextDocument:
    """A text document that is equal to another of the same type with the same text (platform UniqueTextDocument).

    Sets of documents therefore deduplicate by content (R-INT-3). ``source`` (where the text came from, used for
    citations) and ``metadata`` do not take part in equality: the same passage found twice is one document.
    """

    text: str
    source: str | None = field(default=None, compare=False)
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def as_set(cls, *texts: str, source: str | None = None) -> set[UniqueTextDocument]:
        """Wrap texts into a deduplicated set of documents of this type (Java ``TextAnswer.asSet(text)``)."""
        return {cls(text, source=source) for text in texts}

    @property
    def is_internal(self) -> bool:
        """Whether only the receiving tool may read this document (R-INT-1)."""
        return False


@dataclass(frozen=True, slots=True)
class TextAnswer(UniqueTextDocument):
    """Text that may reach the end-user's answer and the RAG context (platform TextAnswer)."""


@dataclass(frozen=True, slots=True)
class InternalContextDocument(UniqueTextDocument):
    """Text only for the tool receiving it, never for the final LLM call or RAG (platform InternalContextDocument).

    R-INT-1: wrap tool-to-tool payloads in it; R-INT-2: the orchestrator filters it out before RAG and the final
    answer whatever its content; R-INT-3: the receiver reads structured data back from its text (``to_model``).
    """

    @property
    def is_internal(self) -> bool:
        """Always true: this is the internal channel."""
        return True

    @classmethod
    def from_model(cls, value: Any, *, source: str | None = None) -> InternalContextDocument:
        """Serialise a pydantic model, dataclass-like dict or any JSON value into an internal document."""
        if hasattr(value, "model_dump_json"):
            return cls(value.model_dump_json(), source=source)
        return cls(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str), source=source)

    def to_model(self, model: type[ModelT]) -> ModelT:
        """Read the text back as ``model`` (a pydantic model class) — the receiving side of R-INT-3."""
        validate = getattr(model, "model_validate_json", None)
        if validate is None:
            raise TypeError(f"to_model needs a pydantic model class, got {model!r}")
        return validate(self.text)  # type: ignore[no-any-return,unused-ignore]

    def to_json(self) -> Any:
        """Read the text back as plain JSON."""
        return json.loads(self.text)


def public_documents(documents: Iterable[UniqueTextDocument]) -> list[UniqueTextDocument]:
    """The documents that may reach RAG and the final answer: every InternalContextDocument removed (R-INT-2)."""
    return [doc for doc in documents if not doc.is_internal]


@dataclass(frozen=True, slots=True)
class PromptAndContext:
    """The context one tool produced for one prompt (platform PromptAndContext).

    ``documents`` keeps the tool's documents in a stable order (text order) so snapshots compare equal across runs.
    """

    prompt: str
    documents: tuple[UniqueTextDocument, ...]
    tool_name: str
    task_no: str = "1"

    @property
    def completion_key(self) -> str:
        """The ``taskNo:toolName`` key under which the context buffer holds this context (R-CC-1)."""
        return f"{self.task_no}:{self.tool_name}"

    def public(self) -> PromptAndContext | None:
        """This context without internal documents, or None when nothing public is left (R-INT-2)."""
        kept = tuple(public_documents(self.documents))
        if not kept:
            return None
        if len(kept) == len(self.documents):
            return self
        return PromptAndContext(self.prompt, kept, self.tool_name, self.task_no)


class ResultKind(enum.Enum):
    """What a tool call produced."""

    GUARANTEED_CONTEXT = "guaranteed_context"  # context that must reach the answer step
    OPTIONAL_CONTEXT = "optional_context"  # context the answer step may use; does not stop the RAG fallback
    DIRECT_ANSWER = "direct_answer"  # the tool answered the user itself; no composition needed
    CLARIFICATION = "clarification"  # the tool needs the user to answer a question first (R-CLAR-1)
    NOTHING = "nothing"  # the tool had nothing to add


@dataclass(frozen=True, slots=True)
class ClarificationQuestion:
    """A question a tool asks the user, and the state it wants back when the answer arrives.

    ``state`` is how a singleton tool remembers where it stopped without an instance field (R-CC-2): the orchestrator
    keeps it in the clarification session and hands it back in ``ClarificationSession.state``.
    """

    text: str
    state: dict[str, Any] = field(default_factory=dict, hash=False)
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolExecutionResult:
    """The outcome of one tool call (platform ToolExecutionResult).

    Build it with the class methods; a tool may also return ``None``, which the orchestrator reads as ``nothing``.
    """

    kind: ResultKind
    tool_name: str
    documents: frozenset[UniqueTextDocument] = frozenset()
    answer: str | None = None
    question: ClarificationQuestion | None = None

    @classmethod
    def as_guaranteed_context(cls, name: str, docs: Iterable[UniqueTextDocument]) -> ToolExecutionResult:
        """Context that the answer step must receive (Java ``asGuaranteedContext(getName(), docs)``, R-DEP-5)."""
        return cls(ResultKind.GUARANTEED_CONTEXT, name, frozenset(docs))

    @classmethod
    def as_optional_context(cls, name: str, docs: Iterable[UniqueTextDocument]) -> ToolExecutionResult:
        """Context the answer step may use; unlike guaranteed context it does not make the RAG fallback unnecessary."""
        return cls(ResultKind.OPTIONAL_CONTEXT, name, frozenset(docs))

    @classmethod
    def as_direct_answer(
        cls, name: str, text: str, docs: Iterable[UniqueTextDocument] = ()
    ) -> ToolExecutionResult:
        """The tool's own final answer to the user; ``docs`` are its sources."""
        return cls(ResultKind.DIRECT_ANSWER, name, frozenset(docs), answer=text)

    @classmethod
    def as_clarification(
        cls, name: str, question: str, *, state: dict[str, Any] | None = None, options: Iterable[str] = ()
    ) -> ToolExecutionResult:
        """Ask the user ``question`` before going on (R-CLAR-1); ``state`` comes back with the answer."""
        return cls(ResultKind.CLARIFICATION, name, question=ClarificationQuestion(question, dict(state or {}),
                                                                                   tuple(options)))

    @classmethod
    def nothing(cls, name: str) -> ToolExecutionResult:
        """The tool had nothing to contribute."""
        return cls(ResultKind.NOTHING, name)

    @property
    def has_context(self) -> bool:
        """Whether this result carries context documents for later tools or the answer."""
        return bool(self.documents) and self.kind in (ResultKind.GUARANTEED_CONTEXT, ResultKind.OPTIONAL_CONTEXT,
                                                     ResultKind.DIRECT_ANSWER)

    def sorted_documents(self) -> tuple[UniqueTextDocument, ...]:
        """The documents in a stable order: type name, then text."""
        return tuple(sorted(self.documents, key=lambda d: (type(d).__name__, d.text)))

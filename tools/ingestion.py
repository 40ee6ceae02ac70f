"""The ingestion contract shared with the Spark side (platform ``IIngestionTool``; R-ING-1..4).

The chat side only defines the contract: the ingestion package implements it (an ``AbstractNERIngestionTool``
running Spark jobs), the REST API calls ``execute_ingestion`` and ``explain_entity``. Nothing here imports pyspark.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from graph.lakehouse import Lakehouse
from tools.contracts import ChatbotTool
from tools.documents import ToolExecutionResult
from tools.errors import ToolError
from tools.request import ChatRequest

if TYPE_CHECKING:
    from settings.config import CsillagSettings
    from tools.plugins import ToolRegistry

logger = logging.getLogger(__name__)


DEFAULT_TOOL = "ner_ingestion"  # the ingestion tool when ``ingestion.tool`` names none

# The pipeline's stages in order: part of the contract, so callers (the REST API) can validate a request's stage list
# without importing the batch side. ingestion.pipeline checks at import time that its stages match.
STAGE_NAMES: tuple[str, ...] = (
    "documents", "chunks", "index", "mentions", "entities", "quotes", "relations", "cooccurrences", "graph", "neo4j"
)  # fmt: skip


class IngestionRequest(BaseModel):
    """What to ingest and how."""

    inputs: list[str]  # files, folders, JSONL files, Delta/Parquet table paths
    force: bool = False  # redo every stage
    stages: list[str] | None = None  # None = all
    run_id: str | None = None
    options: dict[str, Any] = {}
    wait_seconds: float = 0  # how long to wait for another run's lock on the lakehouse before answering "busy"


class StageReport(BaseModel):
    """The outcome of one ingestion stage."""

    stage: str
    status: Literal["succeeded", "skipped", "failed", "not_run"]
    reason: str | None = None
    counts: dict[str, int] = {}
    seconds: float = 0.0
    # What the stage reports beyond counts, as in its marker; e.g. the entities stage's ``gold`` score.
    details: dict[str, Any] = {}


class IngestionResult(BaseModel):
    """The outcome of one ingestion run; a failure is reported here, never raised (R-ING-3). ``busy``: the run did
    not start because another run holds the lakehouse's lock; ``reason`` names that run."""

    run_id: str
    status: Literal["succeeded", "partial", "failed", "skipped", "busy"]
    reason: str | None = None
    stages: list[StageReport] = []
    counts: dict[str, int] = {}
    rejects: int = 0


class ResolutionStep(BaseModel):
    """One join of an entity's trace: the rule, the surface forms it joined, and the forms of the group they joined
    (empty when the rule made one group of the forms, as ``name_key`` and ``alias_table`` do)."""

    rule: str = Field(description="The resolution rule's name (docs/resolution.md).")
    forms: list[str]
    into: list[str] = []


class EntityExplanation(BaseModel):
    """An entity a name names, in one resolution scope, and which rule joined which of its forms, in order."""

    scope: str = Field(description='"" when one name is one entity across the corpus, else the document id.')
    entity_id: str
    name: str
    label: str
    aliases: list[str]
    steps: list[ResolutionStep] = Field(description="Empty for an entity of one form that no rule joined.")


class IngestionTool(ChatbotTool, abstract=True):
    """Offline knowledge-base loading (platform ``IIngestionTool``; R-ING-1..4).

    Excluded from the chat pipeline: never eligible, so routing never offers it, and the orchestrator refuses to
    activate it (R-ING-1). Only the ingestion pipeline calls ``execute_ingestion``, which must be idempotent
    (R-ING-2, e.g. ``_SUCCESS`` markers) and must not raise: it logs and returns a failed result (R-ING-3). The
    ChatbotTool methods are stubs returning None (R-ING-4).
    """

    @abstractmethod
    def execute_ingestion(self, request: IngestionRequest) -> IngestionResult:
        """Load the inputs into the knowledge base."""

    def explain_entity(self, name: str, lakehouse: Lakehouse) -> list[EntityExplanation]:
        """The entities ``name`` names in the lakehouse (a form or a name, in any case; one per scope) and how they
        were resolved; empty when it names none. A tool that resolves no entities raises ``ToolError``."""
        raise ToolError(f"tool {self.get_name()!r} resolves no entities", tool_name=self.get_name())

    def is_eligible(self, request: ChatRequest) -> bool:
        """Never eligible: routing never offers an ingestion tool (R-ING-1)."""
        return False

    def execute_with_result(self, *args: Any, **kwargs: Any) -> ToolExecutionResult | None:
        """A stub (R-ING-4)."""
        return None


def build_ingestion_tool(
    name: str, settings: CsillagSettings, registry: ToolRegistry | None = None
) -> IngestionTool:
    """The named ingestion tool of ``registry`` (default: the installed plugins), injected with the settings
    (R-PLUG-1/2); ``ToolError`` when ``name`` is no tool or not an ingestion tool."""
    from tools.plugins import ToolContainer, ToolRegistry

    registry = registry or ToolRegistry()
    cls = registry.get_class(name)
    if not issubclass(cls, IngestionTool):
        ingestion = sorted(n for n, c in registry.classes().items() if issubclass(c, IngestionTool))
        raise ToolError(
            f"tool {name!r} is not an ingestion tool; ingestion tools: {', '.join(ingestion)}", tool_name=name
        )
    container = ToolContainer(registry, services=[settings])
    tool: IngestionTool = container.inject(cls())
    return tool

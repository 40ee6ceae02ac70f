"""What a lakehouse holds, as far as the chat side cares: is it built, and in which language are its books.

The chat tools read the tables of every stage but ``index`` (which the chat side rebuilds itself when its files are
missing), so a lakehouse is ready when each of those stages has its ``_SUCCESS`` marker and the ``documents`` table
has rows. Anything less is a ``LakehouseNotReadyError`` naming the path and what is missing — never a platform whose
tools all stay silent. The books' language is the majority ``language`` of the ``documents`` table: the language
the ingestion tool analysed them in, and so the one the chat side's analyser and index must use.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tools.errors import LakehouseNotReadyError

logger = logging.getLogger(__name__)

CHAT_STAGES: tuple[str, ...] = ("documents", "chunks", "mentions", "entities", "cooccurrences", "graph")
"""The pipeline stages whose tables the chat tools read, in pipeline order."""

# The layout ingestion.markers writes; tools/ may not import ingestion (it needs no Spark), so it is repeated here.
MARKERS_DIR = "_markers"
MARKER_FILE = "_SUCCESS"


@dataclass(frozen=True)
class LakehouseContents:
    """A ready lakehouse: its root, how many documents it holds and their majority language (None if unrecorded)."""

    root: Path
    documents: int
    language: str | None


def _ingest_hint(root: Path) -> str:
    return f"csillag ingest PATH… --lakehouse {root}"


def done_stages(root: Path) -> list[str]:
    """The chat stages whose ``_SUCCESS`` marker exists under ``root``, in pipeline order."""
    return [stage for stage in CHAT_STAGES if (root / MARKERS_DIR / stage / MARKER_FILE).is_file()]


def documents_languages(root: Path) -> tuple[int, Counter[str]]:
    """The ``documents`` table's row count, and how many rows carry each language code (empty codes left out)."""
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    from graph.published import arrow_dataset

    try:
        table = arrow_dataset(DeltaTable(str(root / "documents"))).to_table(columns=["language"])
    except TableNotFoundError as exc:
        raise LakehouseNotReadyError(
            f"lakehouse {root} has a documents marker but no documents table; rebuild it with: "
            f"{_ingest_hint(root)} --force", path=root, missing=["documents"],
        ) from exc
    codes = table.column("language").to_pylist()
    return len(codes), Counter(code.strip() for code in codes if code and code.strip())


def check_lakehouse(root: Path) -> LakehouseContents:
    """The lakehouse at ``root`` if the chat tools can answer from it.

    Raises:
        LakehouseNotReadyError: ``root`` does not exist, a chat stage is not done, or there are no documents.
    """
    root = Path(root)
    if not root.is_dir():
        raise LakehouseNotReadyError(
            f"lakehouse {root} does not exist; ingest a corpus into it first: {_ingest_hint(root)}",
            path=root, missing=list(CHAT_STAGES),
        )
    done = done_stages(root)
    missing = [stage for stage in CHAT_STAGES if stage not in done]
    if len(missing) == len(CHAT_STAGES):
        raise LakehouseNotReadyError(
            f"lakehouse {root} holds no ingested corpus (no stage done); ingest one first: {_ingest_hint(root)}",
            path=root, missing=missing,
        )
    if missing:
        raise LakehouseNotReadyError(
            f"lakehouse {root} is half-built: stages {', '.join(missing)} not done (the chat tools need "
            f"{', '.join(CHAT_STAGES)}); finish it with: {_ingest_hint(root)}",
            path=root, missing=missing,
        )
    count, languages = documents_languages(root)
    if count == 0:
        raise LakehouseNotReadyError(
            f"lakehouse {root} has no documents: every input was rejected (see its rejects table, or "
            f"`csillag status --lakehouse {root}`)", path=root, missing=["documents"],
        )
    # Ties go to the alphabetically first code, so the choice does not depend on the table's row order.
    language = min(languages, key=lambda code: (-languages[code], code)) if languages else None
    if len(languages) > 1:
        logger.warning("lakehouse %s holds documents in several languages %s; analysing questions as %s", root,
                       dict(languages), language)
    return LakehouseContents(root=root, documents=count, language=language)


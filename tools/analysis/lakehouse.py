"""What a lakehouse holds, as far as the chat side cares: is it built, and in which language are its books.

The chat tools read the tables of every stage but ``index`` (which the chat side rebuilds itself when its files are
missing), so a lakehouse is ready when each of those stages has its ``_SUCCESS`` marker and the ``documents`` table
has rows. Anything less is a ``LakehouseNotReadyError`` naming the path and what is missing — never a platform whose
tools all stay silent. The books' language is the majority ``language`` of the ``documents`` table: the language
the ingestion tool analysed them in, and so the one the chat side's analyser and index must use.

A lakehouse is the ``Lakehouse`` of the settings (``settings.lakehouse.lakehouse()``): a folder, a bucket or HDFS,
whose markers and tables are read through it (its backend for the markers, delta-rs and pyarrow for the tables, all
from the one ``lakehouse.s3`` block), never through a second client.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from graph.lakehouse import Lakehouse
from tools.errors import LakehouseNotReadyError
from tools.retrieval.analyzer import STEMMER_LANGUAGES

logger = logging.getLogger(__name__)

CHAT_STAGES: tuple[str, ...] = ("documents", "chunks", "mentions", "entities", "cooccurrences", "graph")
"""The pipeline stages whose tables the chat tools read, in pipeline order."""

# The layout ingestion.markers writes; tools/ may not import ingestion (it needs no Spark), so it is repeated here.
MARKERS_DIR = "_markers"
MARKER_FILE = "_SUCCESS"


@dataclass(frozen=True)
class LakehouseContents:
    """A ready lakehouse: its root, how many documents it holds and their majority language (None if unrecorded)."""

    root: Lakehouse
    documents: int
    language: str | None


def _ingest_hint(root: Lakehouse) -> str:
    return f"csillag ingest PATH… --lakehouse {root.uri()}"


def done_stages(root: Lakehouse) -> list[str]:
    """The chat stages whose ``_SUCCESS`` marker exists under ``root``, in pipeline order."""
    return [stage for stage in CHAT_STAGES if root.is_file(MARKERS_DIR, stage, MARKER_FILE)]


def documents_languages(root: Lakehouse) -> tuple[int, Counter[str]]:
    """The ``documents`` table's row count, and how many rows carry each language code (empty codes left out)."""
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    from graph.published import arrow_dataset

    try:
        delta = DeltaTable(root.delta_uri("documents"), storage_options=root.storage_options)
        table = arrow_dataset(delta, root).to_table(columns=["language"])
    except TableNotFoundError as exc:
        raise LakehouseNotReadyError(
            f"lakehouse {root.uri()} has a documents marker but no documents table; rebuild it with: "
            f"{_ingest_hint(root)} --force", path=root.location, missing=["documents"],
        ) from exc
    codes = table.column("language").to_pylist()
    return len(codes), Counter(code.strip() for code in codes if code and code.strip())


def check_lakehouse(root: Lakehouse) -> LakehouseContents:
    """The lakehouse ``root`` (a folder, a bucket or HDFS) if the chat tools can answer from it.

    Raises:
        LakehouseNotReadyError: ``root`` does not exist (a bucket: nothing stored under it), a chat stage is not
            done, or there are no documents.
        graph.errors.StorageError: the bucket cannot be reached (names the endpoint and the cause).
    """
    name, where = root.uri(), root.location
    if not root.is_dir():
        raise LakehouseNotReadyError(
            f"lakehouse {name} does not exist; ingest a corpus into it first: {_ingest_hint(root)}",
            path=where, missing=list(CHAT_STAGES),
        )
    done = done_stages(root)
    missing = [stage for stage in CHAT_STAGES if stage not in done]
    if len(missing) == len(CHAT_STAGES):
        raise LakehouseNotReadyError(
            f"lakehouse {name} holds no ingested corpus (no stage done); ingest one first: {_ingest_hint(root)}",
            path=where, missing=missing,
        )
    if missing:
        raise LakehouseNotReadyError(
            f"lakehouse {name} is half-built: stages {', '.join(missing)} not done (the chat tools need "
            f"{', '.join(CHAT_STAGES)}); finish it with: {_ingest_hint(root)}",
            path=where, missing=missing,
        )
    count, languages = documents_languages(root)
    if count == 0:
        raise LakehouseNotReadyError(
            f"lakehouse {name} has no documents: every input was rejected (see its rejects table, or "
            f"`csillag status --lakehouse {name}`)", path=where, missing=["documents"],
        )
    # The commonest of the languages questions can be analysed in (a few Italian documents among English ones leave
    # the books English); ties go to the alphabetically first code, so the choice does not depend on the row order.
    analysable = Counter({code: n for code, n in languages.items() if code in STEMMER_LANGUAGES}) or languages
    language = min(analysable, key=lambda code: (-analysable[code], code)) if analysable else None
    if len(languages) > 1:
        logger.warning("lakehouse %s holds documents in several languages %s; analysing questions as %s", name,
                       dict(languages), language)
    return LakehouseContents(root=root, documents=count, language=language)


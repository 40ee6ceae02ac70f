"""What changed since a stage's last run, for the stages after ``entities`` that update their rows per document."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ingestion.markers import fingerprint

if TYPE_CHECKING:
    from ingestion.context import RunContext
    from ingestion.markers import Marker

logger = logging.getLogger(__name__)

__all__ = ["documents_changed"]


def documents_changed(ctx: RunContext, previous: Marker | None) -> tuple[list[str], list[str]] | None:
    """(resolved, removed) documents when a stage that reads only ``entities`` (``requires = ("entities",)``) may
    update the rows it wrote last time for those documents only, else None (redo everything).

    That is when the entities stage's last run resolved only some documents (document scope) on top of exactly the
    tables the stage's rows were made from: the entities marker names the output it extended
    (``details["documents"]["extends"]``), and the stage's previous marker (``previous``, its last complete run) the
    entities output it read.
    """
    marker = ctx.lakehouse.markers.read("entities")
    plan = marker.details.get("documents") if marker is not None else None
    if not plan or not plan.get("extends") or previous is None:
        return None
    if fingerprint({"entities": plan["extends"]}) != previous.input_fingerprint:
        return None
    return list(plan["resolved"]), list(plan["removed"])

"""``_SUCCESS`` markers (R-ING-2): the proof that a stage finished, and what it finished with.

A marker is written only after the stage's Delta commit, atomically (temp file + rename), so a job killed mid-stage
leaves no marker and the rerun redoes that stage. Its fingerprints decide whether a rerun may skip the stage.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graph.files import atomic_write_text

logger = logging.getLogger(__name__)

MARKER_FILE = "_SUCCESS"
STARTED_FILE = "_STARTED"


def fingerprint(value: Any) -> str:
    """A short, stable hash of any JSON-serialisable value (dict keys sorted)."""
    blob = json.dumps(value, sort_keys=True, default=str, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:24]


def library_versions() -> dict[str, str]:
    """Versions recorded in every marker, so a run can be traced to the code that produced it."""
    versions = {"python": platform.python_version()}
    for dist in ("csillag", "pyspark", "delta-spark", "spacy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return versions


class Marker(BaseModel):
    """The content of a stage's ``_SUCCESS`` file."""

    stage: str
    run_id: str
    config_fingerprint: str
    input_fingerprint: str
    output_fingerprint: str
    counts: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    finished_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    versions: dict[str, str] = Field(default_factory=library_versions)
    details: dict[str, Any] = Field(default_factory=dict)


class MarkerStore:
    """Reads and writes markers under ``<root>/_markers/<stage>/_SUCCESS``."""

    def __init__(self, root: Path) -> None:
        self.root = root / "_markers"

    def path(self, stage: str) -> Path:
        """Where the stage's marker lives."""
        return self.root / stage / MARKER_FILE

    def read(self, stage: str) -> Marker | None:
        """The stage's marker, or None when absent or unreadable (an unreadable marker means: redo the stage)."""
        path = self.path(stage)
        try:
            return Marker.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.warning("ignoring unreadable marker %s: %s", path, exc)
            return None

    def write(self, marker: Marker) -> None:
        """Write the marker atomically: a reader sees the old file, no file, or the whole new one."""
        path = self.path(marker.stage)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, marker.model_dump_json(indent=2))

    def started_config(self, stage: str) -> str | None:
        """The config fingerprint of the last attempt that started the stage (finished or not)."""
        try:
            return json.loads((self.root / stage / STARTED_FILE).read_text(encoding="utf-8"))["config_fingerprint"]
        except (OSError, ValueError, KeyError):
            return None

    def mark_started(self, stage: str, *, run_id: str, config_fingerprint: str) -> None:
        """Record which settings the tables are being written with, so a crashed attempt can be resumed."""
        path = self.root / stage / STARTED_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"run_id": run_id, "config_fingerprint": config_fingerprint}))

    def clear(self, stage: str) -> None:
        """Remove the stage's marker before its work starts, so a crash cannot leave a stale one behind."""
        self.path(stage).unlink(missing_ok=True)

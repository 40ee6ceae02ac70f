"""``_SUCCESS`` markers (R-ING-2): the proof that a stage finished, and what it finished with.

A marker is written only after the stage's Delta commit, atomically (on a folder temp file + rename; in an S3 bucket
one PUT under the final key, which replaces the object whole), so a job killed mid-stage leaves no marker and the
rerun redoes that stage. Its fingerprints decide whether a rerun may skip the stage.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from pydantic import BaseModel, Field

from graph.errors import StorageError
from graph.lakehouse import Lakehouse

logger = logging.getLogger(__name__)

MARKERS_DIR = "_markers"
MARKER_FILE = "_SUCCESS"
STARTED_FILE = "_STARTED"
# What a stage keeps from its last complete run besides its marker, for its next incremental run (e.g. the
# documents stage's files already read); bulky, so kept out of the marker, which every reader and the manifest copy.
STATE_FILE = "_STATE"


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
    # SHA-256 of the ``_STATE`` the run left (None: none): a state that does not match is not that run's
    state_sha256: str | None = None


class MarkerStore:
    """Reads and writes markers under ``<root>/_markers/<stage>/_SUCCESS``."""

    def __init__(self, root: Lakehouse) -> None:
        self.storage = root
        # stage → SHA-256 of the state this process wrote for it, for the stage's marker (``Stage.run``)
        self.state_digests: dict[str, str] = {}

    def path(self, stage: str) -> str:
        """Where the stage's marker lives (a path, or an s3a:// URI)."""
        return self.storage.uri(MARKERS_DIR, stage, MARKER_FILE)

    def read(self, stage: str) -> Marker | None:
        """The stage's marker, or None when absent or unreadable (an unreadable marker means: redo the stage)."""
        try:
            text = self.storage.read_text(MARKERS_DIR, stage, MARKER_FILE)
            return None if text is None else Marker.model_validate_json(text)
        except (OSError, ValueError, StorageError) as exc:
            logger.warning("ignoring unreadable marker %s: %s", self.path(stage), exc)
            return None

    def write(self, marker: Marker) -> None:
        """Write the marker atomically: a reader sees the old file, no file, or the whole new one."""
        self.storage.write_text(MARKERS_DIR, marker.stage, MARKER_FILE, data=marker.model_dump_json(indent=2))

    def started_config(self, stage: str) -> str | None:
        """The config fingerprint of the last attempt that started the stage (finished or not)."""
        try:
            text = self.storage.read_text(MARKERS_DIR, stage, STARTED_FILE)
            return None if text is None else json.loads(text)["config_fingerprint"]
        except (OSError, ValueError, KeyError, StorageError):
            return None

    def mark_started(self, stage: str, *, run_id: str, config_fingerprint: str) -> None:
        """Record which settings the tables are being written with, so a crashed attempt can be resumed."""
        data = json.dumps({"run_id": run_id, "config_fingerprint": config_fingerprint})
        self.storage.write_text(MARKERS_DIR, stage, STARTED_FILE, data=data)

    def read_state(self, stage: str, marker: Marker | None) -> dict[str, Any] | None:
        """The state the run of ``marker`` left for the stage, or None: no marker (the last attempt crashed), no
        state, or the state of another run (one that crashed after writing it and before its marker)."""
        if marker is None:
            return None
        where = self.storage.uri(MARKERS_DIR, stage, STATE_FILE)
        try:
            text = self.storage.read_text(MARKERS_DIR, stage, STATE_FILE)
            if text is None:
                return None
            if hashlib.sha256(text.encode("utf-8")).hexdigest() != marker.state_sha256:
                # changed since its run wrote it (or written before markers named it): never trusted
                logger.warning("ignoring stage state %s: it is not the one run %s left (its SHA-256 differs from "
                               "the marker's); the stage recomputes what it kept", where, marker.run_id)
                return None
            state = json.loads(text)
        except (OSError, ValueError, StorageError) as exc:
            logger.warning("ignoring unreadable stage state %s: %s", where, exc)
            return None
        if not isinstance(state, dict) or state.get("run_id") != marker.run_id:
            return None
        return state

    def write_state(self, stage: str, *, run_id: str, state: dict[str, Any]) -> None:
        """Keep ``state`` for the stage's next run; written before the marker, which records its SHA-256, so it is
        trusted only with that marker and unchanged."""
        text = json.dumps({**state, "run_id": run_id})
        self.storage.write_text(MARKERS_DIR, stage, STATE_FILE, data=text)
        self.state_digests[stage] = hashlib.sha256(text.encode("utf-8")).hexdigest()

    def clear(self, stage: str) -> None:
        """Remove the stage's marker before its work starts, so a crash cannot leave a stale one behind."""
        self.storage.delete(MARKERS_DIR, stage, MARKER_FILE)

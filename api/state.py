"""The API's persistent state in SQLite: async task states and ingestion run records survive a restart.

One file (``<api.state_dir>/state.sqlite3``), two tables keyed by id, each row a JSON document plus the columns
queries filter on. SQLite in WAL mode behind one lock: the writers are the task runner's thread and the event loop,
a handful of small writes per task or run, far below what a single connection serves.

Restart policy: whatever was ``queued`` or ``running`` when the previous process ended cannot be resumed (its
coroutine, thread or subprocess is gone, and a task may not be safe to run twice), so :meth:`StateStore.interrupt`
marks it ``failed`` with the reason ``interrupted by restart``; the caller decides to start it again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

INTERRUPTED = "interrupted by restart"
_ACTIVE = ("queued", "running")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, status TEXT NOT NULL, created_at REAL NOT NULL, doc TEXT);
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, status TEXT NOT NULL, created_at REAL NOT NULL, doc TEXT);
CREATE INDEX IF NOT EXISTS tasks_created ON tasks (created_at);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at);
"""
_TABLES = ("tasks", "runs")


class StateStore:
    """JSON documents by id in the ``tasks`` and ``runs`` tables of one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    @staticmethod
    def _table(table: str) -> str:
        if table not in _TABLES:
            raise ValueError(f"unknown state table {table!r}; tables: {', '.join(_TABLES)}")
        return table

    def put(self, table: str, doc: dict[str, Any], *, id_field: str) -> None:
        """Insert or replace one document (``doc[id_field]`` is its id; it needs ``status`` and ``created_at``)."""
        row = (doc[id_field], doc["status"], float(doc.get("created_at") or time.time()), json.dumps(doc, default=str))
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO {self._table(table)} (id, status, created_at, doc) VALUES (?, ?, ?, ?)", row
            )

    def get(self, table: str, doc_id: str) -> dict[str, Any] | None:
        """The document with this id, or None."""
        with self._lock:
            row = self._db.execute(f"SELECT doc FROM {self._table(table)} WHERE id = ?", (doc_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def recent(self, table: str, *, limit: int = 100, status: str | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` documents, newest first, optionally of one status."""
        query = f"SELECT doc FROM {self._table(table)}"
        params: tuple[Any, ...] = ()
        if status is not None:
            query += " WHERE status = ?"
            params = (status,)
        query += " ORDER BY created_at DESC, id LIMIT ?"
        with self._lock:
            rows = self._db.execute(query, (*params, limit)).fetchall()
        return [json.loads(row[0]) for row in rows]

    def interrupt(self, table: str, *, error_field: str, finished_field: str = "finished_at") -> list[str]:
        """Mark every queued or running document ``failed`` with :data:`INTERRUPTED`; returns their ids."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT doc FROM {self._table(table)} WHERE status IN (?, ?)", _ACTIVE
            ).fetchall()
        ids = []
        now = time.time()
        for (raw,) in rows:
            doc = json.loads(raw)
            doc.update({"status": "failed", error_field: INTERRUPTED, finished_field: now})
            id_field = "task_id" if table == "tasks" else "run_id"
            self.put(table, doc, id_field=id_field)
            ids.append(doc[id_field])
        if ids:
            logger.warning("%d %s were interrupted by the restart and are now failed: %s", len(ids), table, ids)
        return ids

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

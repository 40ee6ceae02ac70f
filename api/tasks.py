"""Async tasks whose state survives an API restart: ``tools.tasks.TaskRunner`` writing through to SQLite.

Every state change of the in-process runner (queued, running, progress, the outcome) is written to the
``StateStore``; a task id the runner no longer knows — from before a restart, or trimmed — is read from the store.
Tasks that were queued or running when the previous process ended are ``failed`` with ``interrupted by restart``
(see ``api.state`` for why they are not re-queued).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from api.state import INTERRUPTED, StateStore
from tools.contracts import AsyncTaskTool
from tools.errors import TaskError
from tools.tasks import FINISHED, TaskRunner, TaskState

logger = logging.getLogger(__name__)


def _state_from_doc(doc: dict[str, Any]) -> TaskState:
    fields = set(TaskState.__dataclass_fields__)
    return TaskState(**{k: v for k, v in doc.items() if k in fields})


class PersistentTaskRunner(TaskRunner):
    """A TaskRunner that records every task's state in a :class:`StateStore` and reads back older ones."""

    def __init__(self, store: StateStore, tools: Iterable[AsyncTaskTool] = (), **kwargs: Any) -> None:
        super().__init__(tools, **kwargs)
        self.store = store
        self._persist_lock = threading.Lock()
        self._closing = False
        store.interrupt("tasks", error_field="error")

    def _persist(self, task_id: str) -> None:
        # Read and write under one lock, so a slower writer can never store an older state over a newer one.
        with self._persist_lock:
            if self._closing:
                return
            with self._lock:
                state = self._states.get(task_id)
            if state is not None:
                self.store.put("tasks", state.to_dict(), id_field="task_id")

    def start(self, task_type: str, task_input: Mapping[str, Any] | BaseModel) -> str:
        """Validate, queue and record the task (see ``TaskRunner.start``)."""
        task_id = super().start(task_type, task_input)
        self._persist(task_id)
        return task_id

    def _update(self, task_id: str, **changes: Any) -> None:
        super()._update(task_id, **changes)
        self._persist(task_id)

    def get(self, task_id: str) -> TaskState:
        """The task's state: live if the runner holds it, else as last recorded.

        Raises:
            TaskError: no such task id, live or recorded.
        """
        try:
            return super().get(task_id)
        except TaskError:
            doc = self.store.get("tasks", task_id)
            if doc is None:
                raise
            return _state_from_doc(doc)

    def cancel(self, task_id: str) -> TaskState:
        """Cancel a live task; a recorded one is finished already and is returned as it is."""
        with self._lock:
            live = task_id in self._states
        if not live:
            return self.get(task_id)
        return super().cancel(task_id)

    def list(self, *, limit: int = 100, status: str | None = None) -> list[TaskState]:
        """The newest recorded tasks, newest first."""
        return [_state_from_doc(doc) for doc in self.store.recent("tasks", limit=limit, status=status)]

    def shutdown(self) -> None:
        """Stop: what still runs is recorded as interrupted (not cancelled — nobody asked), then the loop stops."""
        with self._persist_lock:
            with self._lock:
                active = [s for s in self._states.values() if s.status not in FINISHED]
            for state in active:
                doc = state.to_dict() | {"status": "failed", "error": INTERRUPTED, "finished_at": time.time()}
                self.store.put("tasks", doc, id_field="task_id")
            self._closing = True
        super().shutdown()

"""Executing an agent coordinator's plan: a tree of sub-steps, each naming its tool (R-AC-1, R-AC-2).

Rules (docs/orchestrator.md):
- The coordinator runs in its own priority group under task number ``n`` (``1`` for the main request); its
  top-level steps are numbered ``n.1``, ``n.2``…, the sub-steps of ``n.2`` are ``n.2.1``… Each step's output goes
  into the request's context buffer under ``<number>:<tool name>``.
- Top-level steps run in order (``AgentCoordinator.parallel_steps = True`` runs them concurrently); a step's
  sub-steps run before the step itself, in order or concurrently per ``SubTask.parallel``, so a step can consume its
  sub-steps' output. Every step sees a snapshot of the buffer taken when it starts.
- A step naming an unknown, disabled, ingestion, async-task, orchestrator or coordinator tool fails alone; a failing
  step does not stop its siblings. Clarification questions from a step are not asked (logged and ignored): only
  priority-group tools talk to the user. At most ``max_subtasks`` steps per plan.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tools.contracts import AgentCoordinator, ChatbotTool, SubTask
from tools.errors import ToolError

logger = logging.getLogger(__name__)

RunStep = Callable[[ChatbotTool, str, str, Sequence[str]], Awaitable[Any]]
"""``(tool, prompt, task_no, important_words) -> result``: the engine's way of running one step."""
ResolveTool = Callable[[str], ChatbotTool]


def count_steps(steps: Sequence[SubTask]) -> int:
    """Number of steps in the tree."""
    return sum(1 + count_steps(step.subtasks) for step in steps)


def number_steps(steps: Sequence[SubTask], parent_no: str) -> list[tuple[str, SubTask]]:
    """Every step with its task number, depth first (``1.1``, ``1.1.1``, ``1.2``…) — for logs and docs."""
    result: list[tuple[str, SubTask]] = []
    for index, step in enumerate(steps, start=1):
        number = f"{parent_no}.{index}"
        result.append((number, step))
        result.extend(number_steps(step.subtasks, number))
    return result


class PlanExecutor:
    """Runs one coordinator's plan with the engine's ``run_step`` and ``resolve`` callbacks."""

    def __init__(self, resolve: ResolveTool, run_step: RunStep, max_steps: int) -> None:
        self._resolve = resolve
        self._run_step = run_step
        self.max_steps = max_steps
        self.failures: dict[str, BaseException] = {}

    async def execute(self, coordinator: AgentCoordinator, steps: Sequence[SubTask], parent_no: str) -> None:
        """Validate the plan's size, then run it.

        Raises:
            ToolError: the plan has more than ``max_steps`` steps (the coordinator fails; nothing runs).
        """
        if not all(isinstance(step, SubTask) for step in steps):
            name = coordinator.get_name()
            raise ToolError(f"coordinator {name!r} must return SubTask objects", tool_name=name)
        total = count_steps(steps)
        if total > self.max_steps:
            raise ToolError(
                f"coordinator {coordinator.get_name()!r} planned {total} steps; at most {self.max_steps} are run",
                tool_name=coordinator.get_name(),
            )
        parallel = bool(getattr(coordinator, "parallel_steps", False))
        await self._run_level(steps, parent_no, parallel)

    async def _run_level(self, steps: Sequence[SubTask], parent_no: str, parallel: bool) -> None:
        numbered = [(f"{parent_no}.{i}", step) for i, step in enumerate(steps, start=1)]
        if parallel:
            await asyncio.gather(*(self._run_node(no, step) for no, step in numbered))
        else:
            for no, step in numbered:
                await self._run_node(no, step)

    async def _run_node(self, task_no: str, step: SubTask) -> None:
        if step.subtasks:
            await self._run_level(step.subtasks, task_no, step.parallel)
        try:
            tool = self._resolve(step.tool)
        except ToolError as exc:
            logger.error("plan step %s names tool %r which cannot run: %s", task_no, step.tool, exc)
            self.failures[f"{task_no}:{step.tool}"] = exc
            return
        await self._run_step(tool, step.prompt, task_no, step.important_words)

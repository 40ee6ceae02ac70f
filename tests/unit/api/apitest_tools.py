"""Tools the API tests register: async tasks (quick, slow, failing) and a clarifying chat tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tools.contracts import AsyncTaskTool, ClarifiableTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.plugins import ToolRegistry


class SumInput(BaseModel):
    numbers: list[int] = Field(min_length=1)


class SumTask(AsyncTaskTool):
    name = "sum_task"
    task_type = "sum.v1"
    input_model = SumInput

    async def run(self, task_input: SumInput, context: Any) -> dict[str, int]:
        context.report(0.5, "adding")
        return {"total": sum(task_input.numbers)}


class SleepInput(BaseModel):
    seconds: float = Field(ge=0, le=600)


class SleepTask(AsyncTaskTool):
    name = "sleep_task"
    task_type = "sleep.v1"
    input_model = SleepInput

    async def run(self, task_input: SleepInput, context: Any) -> str:
        context.report(0.1, "sleeping")
        await asyncio.sleep(task_input.seconds)
        return "rested"


class FailInput(BaseModel):
    path: str


class FailTask(AsyncTaskTool):
    name = "fail_task"
    task_type = "fail.v1"
    input_model = FailInput

    def run(self, task_input: FailInput, context: Any) -> None:
        raise FileNotFoundError(f"no such corpus: {Path(task_input.path).name}")


class CastleAsker(ClarifiableTool):
    name = "castle_asker"
    instruction = "Answers questions about castles, fortresses and their sieges."

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        emitter.progress("looking for the castle", tool_name=self.name)
        return ToolExecutionResult.as_clarification(
            self.name, "Which castle do you mean?", state={"asked": prompt}, options=["Eger", "Szigetvár"]
        )

    def execute_with_clarification(self, session, systems, prompt, lang, words, emitter, callback):
        text = f"The castle of {session.answer} withstood the siege of 1552."
        return ToolExecutionResult.as_direct_answer(self.name, text, TextAnswer.as_set(text))


TEST_TOOLS = (SumTask, SleepTask, FailTask, CastleAsker)


def make_registry() -> ToolRegistry:
    registry = ToolRegistry(entry_point_group=None)
    for cls in TEST_TOOLS:
        registry.register(cls)
    return registry

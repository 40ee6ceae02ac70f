from __future__ import annotations

import asyncio
import random
import re
import time

from tests.unit.tools.tooltest_helpers import make_platform
from tools.contracts import ContextConsumerTool, OrchestratorActivatedTool, ToolDependent
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult
from tools.plugins import Injected
from tools.request import ChatRequest

MISMATCHES: list[str] = []


def request_no(text: str) -> str:
    return re.search(r"req-(\d+)", text).group(1)


class Producer(OrchestratorActivatedTool):
    name = "producer"

    def get_priority(self) -> int:
        return 1

    async def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        await asyncio.sleep(random.uniform(0, 0.01))
        no = request_no(prompt)
        docs = TextAnswer.as_set(f"public fact of req-{no}") | InternalContextDocument.as_set(f'{{"req": "{no}"}}')
        return ToolExecutionResult.as_guaranteed_context(self.name, docs)


class Consumer(ContextConsumerTool):
    name = "consumer"

    def get_priority(self) -> int:
        return 2

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        time.sleep(random.uniform(0, 0.002))  # a sync tool in a worker thread, interleaving with the others
        no = request_no(prompt)
        seen = {request_no(d.text) if "req-" in d.text else d.to_json()["req"]
                for contexts in prior.values() for c in contexts for d in c.documents}
        if seen != {no}:
            MISMATCHES.append(f"consumer of req-{no} saw {sorted(seen)}")
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"consumer answer of req-{no}"))


class Dependant(ToolDependent):
    name = "dependant"
    producer: Injected[Producer]

    def get_priority(self) -> int:
        return 3

    def get_required_tools(self):
        return [self.producer]

    async def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        await asyncio.sleep(random.uniform(0, 0.005))
        no = request_no(prompt)
        internal = [d.to_json()["req"] for c in required["producer"] for d in c.documents if d.is_internal]
        if internal != [no]:
            MISMATCHES.append(f"dependant of req-{no} saw {internal}")
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"dependant answer of req-{no}"))


def test_r_cc_2_and_r_dep_4_overlapping_requests_never_share_context():
    MISMATCHES.clear()
    random.seed(7)
    platform = make_platform(Producer, Consumer, Dependant)

    async def go():
        return await asyncio.gather(*(platform.handle(ChatRequest(f"question req-{i}")) for i in range(150)))

    responses = asyncio.run(go())
    assert MISMATCHES == []
    for i, response in enumerate(responses):
        numbers = set(re.findall(r"req-(\d+)", response.content))
        assert numbers == {str(i)}, (i, response.content)
        assert f"dependant answer of req-{i}" in response.content

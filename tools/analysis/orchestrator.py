"""``AbstractAnalysisOrchestrator``: the routing result plus each analysis tool's own suitability test.

Offline, routing is lexical (``LexicalRouter``): an instruction cannot list every character's name, so "Ki Gergely
legközelebbi társa?" shares no word with the entity tool's instruction. Each analysis tool therefore states when it
fits (``matches_prompt``: a known name, a chapter reference, a summary request), and this orchestrator runs the union
of what the router chose and what the tools claim. Tools re-check their preconditions and return ``nothing`` when a
question is not theirs, so a generous router costs a few milliseconds, never a wrong answer.
"""

from __future__ import annotations

import asyncio
import logging

from graph.errors import GraphStoreError
from tools.contracts import PRIORITY_MAX, ChatbotTool, OrchestratorActivatedTool
from tools.errors import ToolError
from tools.orchestrator import AbstractOrchestratorTool
from tools.request import ChatRequest

logger = logging.getLogger(__name__)


class AbstractAnalysisOrchestrator(AbstractOrchestratorTool, abstract=True):
    """An orchestrator that adds the orchestrated tools whose ``matches_prompt`` accepts the question."""

    async def plan(self, request: ChatRequest) -> dict[int, list[ChatbotTool]]:
        """The routed plan plus the self-selected analysis tools (and their required tools, R-DEP-2)."""
        groups = await super().plan(request)
        selected: dict[str, ChatbotTool] = {t.get_name(): t for tools in groups.values() for t in tools}
        for tool in self.get_orchestrated_tools(request):
            matcher = getattr(tool, "matches_prompt", None)
            if tool.get_name() in selected or matcher is None or tool.get_priority() == PRIORITY_MAX:
                continue
            try:
                suitable = await asyncio.to_thread(matcher, request.user_prompt, request.user_lang)
            except (ToolError, GraphStoreError) as exc:  # an unwired or failing tool must not sink the request
                logger.error("suitability test of %s failed: %s", tool.get_name(), exc)
                continue
            if suitable:
                self._add_with_requirements(tool, selected)
        regrouped: dict[int, list[ChatbotTool]] = {}
        for member in selected.values():
            priority = (member.get_priority() if isinstance(member, OrchestratorActivatedTool)
                        else self.settings.routed_tool_priority)
            regrouped.setdefault(priority, []).append(member)
        logger.debug("plan: %s", {p: [t.get_name() for t in ts] for p, ts in sorted(regrouped.items())})
        return dict(sorted(regrouped.items()))

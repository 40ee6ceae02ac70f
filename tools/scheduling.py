"""From an orchestrator's plan to the ordered groups it runs (R-PRIO-1..5, R-DEP-2, R-DEP-3).

A plan maps priority → the tools chosen for a request. The schedule lists ``(rank, tools)`` in run order, where
``rank = (phase, priority, level)``:

- **phase** 0 holds the tools routing and the suitability test chose, with everything they require, transitively
  (R-DEP-2). Phase 1 is the fallback: the ``PRIORITY_MAX`` tools with those of their required tools that phase 0
  does not already run ("with its inputs"). Phase 1 runs after all of phase 0 and only when the orchestrator decides
  the fallback is needed (R-PRIO-5, docs/orchestrator.md).
- **priority** is the tool's own (a routed plain ChatbotTool takes the plan's key, ``routed_tool_priority``).
- **level** is 0 unless a tool requires one whose rank is not smaller — a misordered dependency, logged as an error
  at start-up (R-DEP-3). Such a dependant moves one level after its requirement, so the requirement still runs
  before the dependant's group (R-DEP-2) and both keep running.

Tools of equal rank run concurrently (R-PRIO-3); ranks run in ascending order (R-PRIO-4). Disabled tools are left
out (their dependants then get an empty required context, R-DEP-5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence

from tools.contracts import PRIORITY_MAX, ChatbotTool, OrchestratorActivatedTool, ToolDependent

logger = logging.getLogger(__name__)

Rank = tuple[int, int, int]
"""``(phase, priority, level)``; compared as a tuple."""
MAIN_PHASE = 0
FALLBACK_PHASE = 1

Schedule = list[tuple[Rank, list[ChatbotTool]]]
Requires = Callable[[ChatbotTool], Sequence[ChatbotTool]]
"""A tool's required tools, as the orchestrator asked them for this request."""


def own_requirements(tool: ChatbotTool) -> Sequence[ChatbotTool]:
    """The tool's required tools as it declares them (none for a tool that is not ``ToolDependent``)."""
    return tool.get_required_tools() if isinstance(tool, ToolDependent) else ()


def _closure(roots: Iterable[ChatbotTool], disabled: Mapping[str, str], exclude: Mapping[str, object],
             requires: Requires) -> dict[str, ChatbotTool]:
    """``roots`` and their required tools, transitively, without disabled tools and without ``exclude``."""
    found: dict[str, ChatbotTool] = {}
    stack = list(roots)[::-1]
    while stack:
        tool = stack.pop()
        name = tool.get_name()
        if name in found or name in exclude:
            continue
        reason = disabled.get(name)
        if reason is not None:
            logger.warning("tool %s is disabled (%s); not run", name, reason)
            continue
        found[name] = tool
        stack.extend(list(requires(tool))[::-1])
    return found


def _ranks(members: Mapping[str, ChatbotTool], priority_of: Mapping[str, int], requires: Requires
           ) -> dict[str, tuple[int, int]]:
    ranks: dict[str, tuple[int, int]] = {}

    def rank(tool: ChatbotTool) -> tuple[int, int]:
        name = tool.get_name()
        if name in ranks:  # done, or on the current path (a cycle is refused at start-up; never recurse forever)
            return ranks[name]
        own = priority_of.get(name)
        if own is None:
            own = tool.get_priority() if isinstance(tool, OrchestratorActivatedTool) else PRIORITY_MAX
        best = ranks[name] = (own, 0)
        for required in requires(tool):
            if required.get_name() in members:
                required_priority, required_level = rank(required)
                best = max(best, (required_priority, required_level + 1))
        ranks[name] = best
        return best

    for tool in members.values():
        rank(tool)
    return ranks


def schedule(plan: Mapping[int, Sequence[ChatbotTool]], disabled: Mapping[str, str],
             requires: Requires = own_requirements) -> Schedule:
    """The groups of ``plan`` in run order, required tools included (see the module docstring); ``disabled`` names
    the tools left out, with the reason."""
    priority_of = {tool.get_name(): priority for priority, tools in plan.items() for tool in tools}
    main_roots = [tool for priority, tools in plan.items() if priority != PRIORITY_MAX for tool in tools]
    fallback_roots = [tool for priority, tools in plan.items() if priority == PRIORITY_MAX for tool in tools]
    main = _closure(main_roots, disabled, {}, requires)
    fallback = _closure(fallback_roots, disabled, main, requires)
    groups: dict[Rank, list[ChatbotTool]] = {}
    for phase, members in ((MAIN_PHASE, main), (FALLBACK_PHASE, fallback)):
        ranks = _ranks(members, priority_of, requires)
        for name, tool in members.items():
            groups.setdefault((phase, *ranks[name]), []).append(tool)
    return sorted(groups.items())


def describe(ranked: Schedule) -> list[list[object]]:
    """A JSON-able form of a schedule (``[[rank…], [tool names…]]``), as a clarification session stores it."""
    return [[list(rank), [tool.get_name() for tool in tools]] for rank, tools in ranked]

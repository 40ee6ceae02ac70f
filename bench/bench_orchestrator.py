"""Orchestrator overhead and throughput, with the same topology as a LangGraph graph for comparison.

Topology: ten no-op async tools in three priority groups (4 + 4 + 2). Routing selects every tool (LangGraph has no
routing step), the answer is composed by the offline extractive composer. Run:

    .venv/bin/python bench/bench_orchestrator.py [--requests 2000] [--concurrency 100] [--rounds 1]

On a loaded machine one comparison moves with whatever else runs; ``--rounds N`` measures the two alternately N times
and prints every round's ratio with the load average, so the spread is visible; ``--clock cpu`` times each request by
the process's CPU time instead of the wall clock, which the other jobs of a busy machine do not lengthen.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import operator
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from settings.chat import OrchestratorSettings  # noqa: E402
from tools.contracts import OrchestratorActivatedTool  # noqa: E402
from tools.platform import ChatPlatform  # noqa: E402
from tools.plugins import ToolRegistry  # noqa: E402
from tools.request import ChatRequest  # noqa: E402

GROUPS = (4, 4, 2)


class SelectAll:
    async def select(self, prompt: str, candidates: Any, *, important_words: Any = ()) -> list[str]:
        return [c.name for c in candidates]


def make_noop(name: str, priority: int, sleep_s: float = 0.0) -> type:
    async def execute_with_result(self: Any, *args: Any) -> None:
        if sleep_s:
            await asyncio.sleep(sleep_s)
        return None

    return type(name, (OrchestratorActivatedTool,), {
        "name": name, "get_priority": lambda self: priority, "execute_with_result": execute_with_result,
        "__module__": __name__,
    })


def csillag_platform() -> ChatPlatform:
    registry = ToolRegistry(entry_point_group=None)
    for group, size in enumerate(GROUPS, start=1):
        for i in range(size):
            registry.register(make_noop(f"noop_{group}_{i}", group))
    return ChatPlatform(registry, orchestrator_settings=OrchestratorSettings(rag_fallback=False),
                        router=SelectAll()).start()


def langgraph_app() -> Any:
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        outputs: Annotated[list[str], operator.add]

    def node(name: str) -> Any:
        async def run(state: State) -> dict[str, list[str]]:
            return {"outputs": []}

        return run

    graph = StateGraph(State)
    previous: list[str] = []
    for group, size in enumerate(GROUPS, start=1):
        names = [f"noop_{group}_{i}" for i in range(size)]
        for name in names:
            graph.add_node(name, node(name))
            if previous:
                graph.add_edge(previous, name)  # fan-in: wait for the whole previous group
            else:
                graph.add_edge(START, name)
        previous = names
    for name in previous:
        graph.add_edge(name, END)
    return graph.compile()


async def per_request(run: Any, n: int, clock: Any = time.perf_counter) -> list[float]:
    for _ in range(50):  # warm-up
        await run()
    times = []
    for _ in range(n):
        started = clock()
        await run()
        times.append(clock() - started)
    return times


async def throughput(run: Any, concurrency: int, batches: int) -> float:
    await asyncio.gather(*(run() for _ in range(concurrency)))
    started = time.perf_counter()
    for _ in range(batches):
        await asyncio.gather(*(run() for _ in range(concurrency)))
    return concurrency * batches / (time.perf_counter() - started)


async def group_wall_time() -> tuple[float, float]:
    """One group of four tools sleeping 10/20/30/40 ms: its wall time against the slowest tool."""
    sleeps = {"sleep_10": 0.010, "sleep_20": 0.020, "sleep_30": 0.030, "sleep_40": 0.040}
    registry = ToolRegistry(entry_point_group=None)
    for name, seconds in sleeps.items():
        registry.register(make_noop(name, 1, seconds))
    single = ChatPlatform(registry, orchestrator_settings=OrchestratorSettings(rag_fallback=False),
                          router=SelectAll()).start()
    walls = []
    for _ in range(20):
        started = time.perf_counter()
        await single.handle(ChatRequest("bench"))
        walls.append(time.perf_counter() - started)
    return statistics.median(walls), max(sleeps.values())


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1, help="alternate the per-request measurements N times")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="per-request clock")
    args = parser.parse_args(argv)

    platform = csillag_platform()
    request = ChatRequest("bench")

    async def csillag_run() -> Any:
        return await platform.handle(request)

    app = langgraph_app()

    async def langgraph_run() -> Any:
        return await app.ainvoke({"outputs": []})

    ours: list[float] = []
    theirs: list[float] = []
    rounds: list[str] = []
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    for _ in range(max(1, args.rounds)):
        ours_now = await per_request(csillag_run, args.requests, clock)
        theirs_now = await per_request(langgraph_run, args.requests, clock)
        ours += ours_now
        theirs += theirs_now
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        rounds.append(f"{statistics.median(theirs_now) / statistics.median(ours_now):.2f}x "
                      f"({statistics.median(ours_now) * 1000:.3f}/{statistics.median(theirs_now) * 1000:.3f} ms, "
                      f"load {load:.1f})")
    ours_rps = await throughput(csillag_run, args.concurrency, args.batches)
    theirs_rps = await throughput(langgraph_run, args.concurrency, args.batches)
    wall, slowest = await group_wall_time()

    def ms(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if q < 100 else max(values) * 1000

    print(f"python {sys.version.split()[0]}, langgraph {importlib.metadata.version('langgraph')}")
    print(f"topology: {' + '.join(map(str, GROUPS))} no-op async tools, {args.requests} sequential requests, "
          f"{args.clock} clock")
    print(f"csillag   per request: median {statistics.median(ours) * 1000:.3f} ms, p95 {ms(ours, 95):.3f} ms")
    print(f"langgraph per request: median {statistics.median(theirs) * 1000:.3f} ms, p95 {ms(theirs, 95):.3f} ms")
    print(f"speed-up (median): {statistics.median(theirs) / statistics.median(ours):.2f}x")
    if len(rounds) > 1:
        print("speed-up per round (csillag/langgraph median): " + "; ".join(rounds))
    print(f"throughput with {args.concurrency} concurrent: csillag {ours_rps:,.0f} req/s, "
          f"langgraph {theirs_rps:,.0f} req/s ({ours_rps / theirs_rps:.2f}x)")
    print(f"group wall time (tools sleeping 10/20/30/40 ms): median {wall * 1000:.2f} ms "
          f"= slowest + {(wall - slowest) * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))

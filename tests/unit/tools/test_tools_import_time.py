from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import json, sys, time, asyncio
started = time.perf_counter()
import tools.orchestrator
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
imported = time.perf_counter() - started
response = asyncio.run(ChatPlatform(ToolRegistry(entry_point_group=None)).handle(ChatRequest("Who defended Eger?")))
total = time.perf_counter() - started
print(json.dumps({"import_s": imported, "total_s": total, "content": response.content,
                  "pyspark": any(m == "pyspark" or m.startswith("pyspark.") for m in sys.modules)}))
"""


def test_tools_import_and_first_answer_well_under_a_second_without_pyspark():
    best = None
    for _ in range(2):  # the first run may pay for a cold file cache
        out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True)
        result = json.loads(out.stdout)
        best = result if best is None or result["total_s"] < best["total_s"] else best
    assert best["pyspark"] is False
    assert best["content"] == "I found no information about this in the knowledge base."
    assert best["total_s"] < 1.0, best

"""Issue 12 item 3: one command line. One click application; every other door (``python -m jobs.pipeline``,
``jobs/pipeline.py`` as spark-submit runs it, ``python -m tools.ask``, ``python -m api``, ``python -m jobs.summary``)
runs the same command, so the same input gives the same one line and exit code. Subprocesses are real; none of
these cases starts Spark (each stops at a check, or at ``--check``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from cli.app import cli, main
from cli.base import EXIT_OK, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "ingestion" / "samples" / "en"
CSILLAG = Path(sys.executable).parent / "csillag"
VALID = "valid stages: documents, chunks, index, mentions, entities, quotes, relations, cooccurrences, graph, neo4j"

INGESTION_FLAGS = ["--config", "conf/csillag.toml", "--lakehouse", "out/l", "--master", "local[2]", "--tool", "t",
                   "--force", "--run-id", "r-1", "--wait", "2.5", "--json", "--result-file", "out/r.json", "--quiet",
                   "--check"]
# Every flag the README, docs/api.md and docs/ingestion.md document, per command, with a value where it takes one.
DOCUMENTED = {
    ("pipeline",): ["in.txt", *INGESTION_FLAGS, "--stages", "documents,chunks"],
    ("ingest",): ["in.txt", *INGESTION_FLAGS, "--stages", "documents,chunks"],
    ("stage",): ["mentions", "in.txt", *INGESTION_FLAGS],
    ("summary",): ["out/l", "--top", "5"],
    ("status",): ["--lakehouse", "out/l", "--json", "--top", "5"],
    ("vacuum",): ["--lakehouse", "out/l", "--retention-hours", "0", "--dry-run", "--wait", "1", "--json"],
    ("ask",): ["Who?", "--lakehouse", "out/l", "--domain", "d", "--config", "c.toml", "--lang", "en", "--user", "u",
               "--session", "s", "--interactive", "--quiet"],
    ("serve",): ["--host", "0.0.0.0", "--port", "8081", "--config", "c.toml"],
    ("graph", "load"): ["--lakehouse", "out/l"],
    ("graph", "export"): ["g.gexf", "--lakehouse", "out/l", "--format", "gexf"],
    ("graph", "draw"): ["g.html", "--lakehouse", "out/l", "--top", "9", "--title", "T"],
    ("tasks",): ["--url", "http://127.0.0.1:9", "--api-key", "k", "types"],
    ("tasks", "types"): [],
    ("tasks", "start"): ["sum.v1", "--input", "{}", "--input-file", str(ROOT / "pyproject.toml"), "--wait",
                         "--timeout", "9"],
    ("tasks", "status"): ["t-1", "--wait", "--timeout", "9"],
    ("tasks", "cancel"): ["t-1"],
}


def command_at(path: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", list(DOCUMENTED), ids=" ".join)
def test_issue_12_every_documented_flag_of_each_command_is_accepted(path: tuple[str, ...]) -> None:
    # Parsing only (make_context runs no command): every documented flag is known, with the value given.
    ctx = command_at(path).make_context(" ".join(path), list(DOCUMENTED[path]))
    names = {opt: param.name for param in ctx.command.params for opt in param.opts}
    given = [a for a in DOCUMENTED[path] if a.startswith("--")]
    assert set(given) <= set(names), set(given) - set(names)
    assert all(ctx.params[names[flag]] is not None and ctx.params[names[flag]] is not False for flag in given)
    assert not ctx.args


def test_issue_12_pipeline_parses_its_flags_into_the_run() -> None:
    params = command_at(("pipeline",)).make_context("pipeline", DOCUMENTED[("pipeline",)]).params
    assert params["stages"] == ["documents", "chunks"] and params["wait_seconds"] == 2.5
    assert params["inputs"] == ("in.txt",) and params["result_file"] == Path("out/r.json")
    assert params["force"] and params["check"] and params["quiet"] and params["as_json"]


def test_issue_12_every_ingestion_flag_runs_to_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lake, result = tmp_path / "lake", tmp_path / "result.json"
    flags = ["--config", str(ROOT / "conf" / "csillag.toml"), "--lakehouse", str(lake), "--master", "local[1]",
             "--tool", "ner_ingestion", "--force", "--run-id", "r-1", "--wait", "1", "--json", "--result-file",
             str(result), "--quiet", "--check"]
    assert main(["pipeline", str(SAMPLES), *flags, "--stages", "documents"]) == EXIT_OK
    assert main(["ingest", str(SAMPLES), *flags, "--stages", "documents"]) == EXIT_OK
    assert main(["stage", "documents", str(SAMPLES), *flags]) == EXIT_OK
    assert capsys.readouterr().out == "" and not lake.exists() and not result.exists()


def _run(*argv: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CSILLAG_")} | (env or {})
    return subprocess.run(list(argv), cwd=cwd, env=environ, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["/missing/novel.txt"], {}, "csillag: input '/missing/novel.txt' does not exist; name files, folders, JSONL "
                                     "files or tables to ingest"),
        ([str(SAMPLES)], {"CSILLAG_SPARK_MASTER": "garbage"},
         "csillag: invalid setting spark.master = 'garbage': unknown Spark master 'garbage'"),
        ([str(SAMPLES), "--wait", "-3"], {}, "csillag: --wait -3: expected a number of seconds >= 0"),
        ([str(SAMPLES), "--stages", "documents,parse"], {}, f"csillag: unknown stage 'parse'; {VALID}"),
        ([str(SAMPLES), "--tool", "no_such_tool"], {}, "csillag: "),
    ],
    ids=["missing-input", "bad-setting", "negative-wait", "unknown-stage", "unknown-tool"],
)
def test_issue_12_every_door_to_the_pipeline_gives_the_same_line_and_exit_code(
    tmp_path: Path, args: list[str], env: dict[str, str], expected: str
) -> None:
    lake = tmp_path / "lake"
    doors = {
        "csillag pipeline": [str(CSILLAG), "pipeline"],
        "csillag ingest": [str(CSILLAG), "ingest"],
        "python -m jobs.pipeline": [sys.executable, "-m", "jobs.pipeline"],
        "jobs/pipeline.py": [sys.executable, str(ROOT / "jobs" / "pipeline.py")],  # as spark-submit runs it
    }
    seen = {}
    for door, command in doors.items():
        done = _run(*command, *args, "--lakehouse", str(lake), env=env)
        seen[door] = (done.returncode, done.stderr, done.stdout)
    first = seen["csillag pipeline"]
    assert first[0] == EXIT_USAGE and first[2] == ""
    lines = first[1].strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), first[1]
    assert all(outcome == first for outcome in seen.values()), seen
    assert not lake.exists()


def test_issue_12_unknown_stage_is_the_same_line_from_stage_pipeline_and_ingest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = []
    for argv in (["stage", "parse", str(SAMPLES)], ["pipeline", str(SAMPLES), "--stages", "parse"],
                 ["ingest", str(SAMPLES), "--stages", "parse"]):
        assert main(argv) == EXIT_USAGE
        lines.append(capsys.readouterr().err)
    assert lines == [f"csillag: unknown stage 'parse'; {VALID}\n"] * 3
    assert main(["pipeline", str(SAMPLES), "--stages", "documents, mention,parse"]) == EXIT_USAGE
    assert capsys.readouterr().err == f"csillag: unknown stages 'mention', 'parse'; {VALID}\n"
    done = _run(sys.executable, "-m", "jobs.stage", "parse", str(SAMPLES))
    assert (done.returncode, done.stderr) == (EXIT_USAGE, lines[0])


@pytest.mark.parametrize(
    ("module", "command"),
    [("tools.ask", "ask"), ("api", "serve"), ("jobs.summary", "summary"), ("jobs.pipeline", "pipeline"),
     ("jobs.stage", "stage")],
)
def test_issue_12_python_m_shows_the_same_help_as_the_csillag_command(module: str, command: str) -> None:
    alone = _run(sys.executable, "-m", module, "--help")
    inside = _run(str(CSILLAG), command, "--help")
    assert alone.returncode == inside.returncode == 0, alone.stderr + inside.stderr
    assert alone.stdout == inside.stdout
    assert alone.stdout.startswith(f"Usage: csillag {command} [OPTIONS]")


def test_issue_12_ask_options_are_those_of_both_former_commands() -> None:
    options = {opt for param in command_at(("ask",)).params for opt in param.opts}
    assert {"--interactive", "--lang", "--user", "--lakehouse", "--domain", "--config", "--quiet",
            "--session"} <= options


def test_issue_12_other_doors_give_the_csillag_commands_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    pairs = [
        ([sys.executable, "-m", "jobs.summary", str(missing)], [str(CSILLAG), "summary", str(missing)],
         f"csillag: lakehouse {missing} does not exist; run the pipeline first\n", EXIT_USAGE),
        ([sys.executable, "-m", "api"], [str(CSILLAG), "serve"],
         "csillag: no API key: set the environment variable CSILLAG_API_API_KEY before starting the API\n", EXIT_USAGE),
        ([sys.executable, "-m", "tools.ask"], [str(CSILLAG), "ask"],
         "csillag: a question is required (or --interactive)\n", EXIT_USAGE),
        ([sys.executable, "-m", "tools.ask", "Who?", "--lakehouse", str(missing)],
         [str(CSILLAG), "ask", "Who?", "--lakehouse", str(missing)],
         f"csillag: lakehouse {missing} does not exist; ingest a corpus into it first: csillag ingest PATH… "
         f"--lakehouse {missing}\n", 1),
    ]
    for alone, inside, line, code in pairs:
        first, second = _run(*alone), _run(*inside)
        assert (first.returncode, first.stderr) == (second.returncode, second.stderr) == (code, line), (alone, first)


def test_issue_12_command_config_wins_over_the_groups_and_the_environment(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text('config_version = 1\n[spark]\nmaster = "local[1]"\n', encoding="utf-8")
    bad.write_text('config_version = 1\n[spark]\nmaster = "local[two]"\n', encoding="utf-8")
    check = ["pipeline", str(SAMPLES), "--lakehouse", str(tmp_path / "lake"), "--check"]
    assert main(["--config", str(good), *check, "--config", str(bad)]) == EXIT_USAGE
    assert "'local[two]'" in capsys.readouterr().err
    assert main(["--config", str(bad), *check]) == EXIT_USAGE  # the group's --config reaches the command
    assert "'local[two]'" in capsys.readouterr().err
    assert main(["--config", str(bad), *check, "--config", str(good)]) == EXIT_OK
    assert main([*check, "--config", str(good), "--master", "local[two]"]) == EXIT_USAGE  # a flag beats the file
    assert "'local[two]'" in capsys.readouterr().err


def test_issue_12_no_product_module_parses_arguments_with_argparse() -> None:
    users = [
        str(path.relative_to(ROOT))
        for package in ("cli", "jobs", "ingestion", "graph", "tools", "settings", "api")
        for path in (ROOT / package).rglob("*.py")
        if "import argparse" in path.read_text(encoding="utf-8")
    ]
    assert users == []

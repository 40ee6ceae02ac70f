"""The job entry points: arguments, settings errors and exit codes (no Spark is started by these)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.base import EXIT_USAGE
from jobs import pipeline, stage


def test_stage_job_unknown_stage_lists_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert stage.main(["nonsense", "some/input"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown stage 'nonsense'" in err
    assert "documents, chunks, index, mentions, entities, quotes, relations, cooccurrences, graph" in err


def test_pipeline_job_unknown_stage_in_subset_fails_listing_valid_ones(tmp_path: Path) -> None:
    from ingestion.errors import UnknownStageError
    from ingestion.pipeline import select_stages

    with pytest.raises(UnknownStageError, match="valid stages: documents, chunks"):
        select_stages(["documents", "mention"])


def test_pipeline_job_invalid_setting_stops_at_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CSILLAG_SPARK_MASTER", "local[two]")
    assert pipeline.main([str(tmp_path), "--lakehouse", str(tmp_path / "lake")]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "spark.master" in err[0] and "'local[two]'" in err[0] and "spark://HOST:PORT" in err[0]
    assert not (tmp_path / "lake").exists()


def test_pipeline_job_unknown_tool_lists_ingestion_tools(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert pipeline.main([str(tmp_path), "--tool", "no_such_tool"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "no_such_tool" in err


def test_pipeline_job_tool_defaults_to_the_ingestion_tool_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CSILLAG_INGESTION_TOOL", "tool_from_settings")
    assert pipeline.main([str(tmp_path), "--lakehouse", str(tmp_path / "lake")]) == EXIT_USAGE
    assert "'tool_from_settings'" in capsys.readouterr().err
    assert not (tmp_path / "lake").exists()


def test_pipeline_job_without_inputs_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert pipeline.main([]) == EXIT_USAGE
    assert "no inputs" in capsys.readouterr().err


def test_pipeline_job_builds_the_named_tool_with_injected_settings(tmp_path: Path) -> None:
    from ingestion.domains.egri_ingestion import EgriCsillagokNERIngestionTool
    from jobs.common import build_tool
    from settings.config import load_settings

    settings = load_settings(lakehouse={"root": tmp_path})
    tool = build_tool("egri_csillagok_ner_ingestion", settings)
    assert isinstance(tool, EgriCsillagokNERIngestionTool)
    spec = tool.domain_spec()
    # Gazetteer first, csillag's Hungarian model for everything else (issue 15).
    assert spec.language == "hu" and spec.nlp.model == "hu_nerkor" and spec.nlp.patterns

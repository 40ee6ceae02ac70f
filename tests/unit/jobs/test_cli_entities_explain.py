"""``csillag entities explain NAME``: the trace of an entity, recomputed from a lakehouse's mentions and chunks
(real Delta tables written with delta-rs)."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from deltalake import write_deltalake

from cli.app import cli
from tests.unit.ingestion.resolution.crafted import kutuzov_lakehouse as _lakehouse


@pytest.fixture(autouse=True)
def _no_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("CSILLAG_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no conf/csillag.toml: the default settings


def test_explain_prints_which_rule_joined_which_forms(tmp_path: Path) -> None:
    lake = _lakehouse(tmp_path / "lake")
    result = CliRunner().invoke(cli, ["entities", "explain", "kutuzov", "--lakehouse", str(lake)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert re.fullmatch(r"Michael Ilarionovich Kutuzov \(PERSON, ent_[0-9a-f]{16}\)", lines[0])
    assert lines[1] == "  forms: Count Kutuzov, Kutuzov, Michael Ilarionovich Kutuzov, Prince Kutuzov"
    # "Prince Kutuzov" (twice) is the more mentioned of the two men's titles; the bare surname and the other title
    # join it (in the order of their groups' keys: no title before a man's), then it joins the one full name that
    # holds it
    assert lines[2:] == [
        "  1. same_name_titles: Kutuzov -> Prince Kutuzov",
        "  2. same_name_titles: Count Kutuzov -> Prince Kutuzov",
        "  3. partial_names: Count Kutuzov, Kutuzov, Prince Kutuzov -> Michael Ilarionovich Kutuzov",
    ]


def test_explain_a_name_of_no_entity_exits_1(tmp_path: Path) -> None:
    lake = _lakehouse(tmp_path / "lake")
    result = CliRunner().invoke(cli, ["entities", "explain", "Bagration", "--lakehouse", str(lake)])
    assert result.exit_code == 1
    assert "'Bagration' names no entity" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["entities", "explain", "Kutuzov", "--lakehouse", str(empty)])
    assert result.exit_code == 2 and "has no mentions table" in result.output


def test_explain_refuses_an_unknown_rule_of_the_settings_in_one_line(tmp_path: Path) -> None:
    lake = _lakehouse(tmp_path / "lake")
    config = tmp_path / "csillag.toml"
    config.write_text('[ingestion]\ndisabled_resolution_rules = ["nowhere"]\n')
    result = CliRunner().invoke(
        cli, ["--config", str(config), "entities", "explain", "Kutuzov", "--lakehouse", str(lake)])
    assert result.exit_code == 2
    assert result.stderr.startswith("csillag: unknown resolution rule 'nowhere'; valid rules: alias_table")
    assert len(result.stderr.splitlines()) == 1


def test_explanation_prints_each_form_on_one_line_once() -> None:
    from ingestion.explain import render_explanation
    from tools.ingestion import EntityExplanation, ResolutionStep

    found = EntityExplanation(
        scope="d7", entity_id="ent_1", name="Fred\nKinney", label="PERSON",
        aliases=["Fred", "Fred\nKinney", "Fred Kinney", "Mr. Kinney"],
        steps=[ResolutionStep(rule="name_key", forms=["Fred\nKinney", "Fred Kinney"]),
               ResolutionStep(rule="partial_names", forms=["Mr.  Kinney"], into=["Fred\nKinney", "Fred Kinney"])],
    )
    assert render_explanation(found).splitlines() == [
        "Fred Kinney (PERSON, ent_1) in document d7",
        "  forms: Fred, Fred Kinney, Mr. Kinney",
        "  1. name_key: Fred Kinney",
        "  2. partial_names: Mr. Kinney -> Fred Kinney",
    ]


DEDALUS = ("Stephen Dedalus was a boy and he was small. Mr Dedalus looked at Stephen. Stephen smiled at Mr Dedalus. "
           "Mr Dedalus sang and Stephen listened. Stephen slept, he dreamt, he woke. Mr Dedalus laughed.")


def _dedalus_lakehouse(root: Path) -> Path:
    """A father ("Mr Dedalus") said three times in one sentence with his son ("Stephen"): mentions with their
    sentence ids, as the mentions stage writes them."""
    rows = []
    for name in ("Stephen Dedalus", "Mr Dedalus", "Stephen"):
        for match in re.finditer(rf"{name}(?! Dedalus)", DEDALUS):
            if name == "Stephen" and DEDALUS.startswith("Stephen Dedalus", match.start()):
                continue
            sentence = DEDALUS.count(". ", 0, match.start())
            rows.append({"doc_id": "d1", "chunk_id": "c1", "sentence_id": f"c1:s{sentence}", "start": match.start(),
                         "end": match.end(), "text": name, "label": "PERSON", "ent_id": ""})
    write_deltalake(str(root / "mentions"), pa.Table.from_pylist(rows))
    write_deltalake(str(root / "chunks"), pa.Table.from_pylist(
        [{"chunk_id": "c1", "doc_id": "d1", "unit_id": "u1", "start": 0, "text": DEDALUS}]))
    return root


def test_explain_reads_the_names_said_in_one_sentence_as_the_stage_does(tmp_path: Path) -> None:
    lake = _dedalus_lakehouse(tmp_path / "lake")
    result = CliRunner().invoke(cli, ["entities", "explain", "stephen", "--lakehouse", str(lake)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    # the father said beside the son in three sentences is kept apart (said_together): the son's forms are his own
    assert result.output.splitlines()[1] == "  forms: Stephen, Stephen Dedalus"
    father = CliRunner().invoke(cli, ["entities", "explain", "mr dedalus", "--lakehouse", str(lake)],
                                catch_exceptions=False)
    assert father.output.splitlines()[1] == "  forms: Mr Dedalus"

"""Typed settings: precedence, secrets, and errors that name the field and the accepted values."""

from __future__ import annotations

from pathlib import Path

import pytest

from settings.config import load_settings
from tools.errors import ConfigError


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_config_precedence_explicit_over_env_over_file_over_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = _write(
        tmp_path / "c.toml",
        'config_version = 1\n[spark]\nmaster = "local[3]"\napp_name = "from-file"\n'
        "[ingestion]\nchunk_max_chars = 900\n",
    )
    monkeypatch.setenv("CSILLAG_SPARK_MASTER", "local[2]")
    settings = load_settings(conf, ingestion={"chunk_max_chars": 700})
    assert settings.spark.master == "local[2]"  # env beats file
    assert settings.spark.app_name == "from-file"  # file beats default
    assert settings.ingestion.chunk_max_chars == 700  # explicit beats file
    assert settings.ingestion.chunk_min_chars == 200  # default


def test_config_yaml_file_and_config_env_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = _write(tmp_path / "c.yaml", "config_version: 1\ningestion:\n  cooccurrence_window: chunk\n")
    monkeypatch.setenv("CSILLAG_CONFIG", str(conf))
    assert load_settings().ingestion.cooccurrence_window == "chunk"


def test_config_invalid_value_names_field_value_and_accepted_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSILLAG_INGESTION_COOCCURRENCE_WINDOW", "page")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "ingestion.cooccurrence_window" in str(err.value)
    assert "'page'" in str(err.value) and "'sentence', 'paragraph', 'turns' or 'chunk'" in str(err.value)
    assert err.value.field == "ingestion.cooccurrence_window"


def test_config_unknown_setting_in_file_is_refused(tmp_path: Path) -> None:
    conf = _write(tmp_path / "c.toml", 'config_version = 1\n[spark]\nmastr = "local"\n')
    with pytest.raises(ConfigError, match="unknown setting 'spark.mastr'"):
        load_settings(conf)


SECRETS = [("neo4j", "password"), ("llm", "api_key"), ("api", "api_key")]


@pytest.mark.parametrize(("section", "name"), SECRETS, ids=lambda v: v)
def test_config_secret_in_file_is_refused(tmp_path: Path, section: str, name: str) -> None:
    conf = _write(tmp_path / "c.toml", f'config_version = 1\n[{section}]\n{name} = "hunter22"\n')
    with pytest.raises(ConfigError, match=f"CSILLAG_{section.upper()}_{name.upper()}"):
        load_settings(conf)


@pytest.mark.parametrize(("section", "name"), SECRETS, ids=lambda v: v)
def test_config_secret_from_environment(monkeypatch: pytest.MonkeyPatch, section: str, name: str) -> None:
    monkeypatch.setenv(f"CSILLAG_{section.upper()}_{name.upper()}", "s3cret-pw")
    settings = load_settings()
    assert getattr(getattr(settings, section), name).get_secret_value() == "s3cret-pw"
    assert "s3cret-pw" not in repr(settings) and "s3cret-pw" not in str(settings.model_dump())


def test_config_wrong_version_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unsupported config_version 7"):
        load_settings(_write(tmp_path / "c.toml", "config_version = 7\n"))
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "absent.toml")
    with pytest.raises(ConfigError, match="not valid"):
        load_settings(_write(tmp_path / "bad.toml", "config_version = = 1\n"))

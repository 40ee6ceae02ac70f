"""Issue 38: the API does not start with a guessable key — a blank, one-character or short ``CSILLAG_API_API_KEY``
(under ``api.server.MIN_API_KEY_LENGTH``, 16 characters), or one padded with white space that no client could send,
is refused at start-up with one line, by ``csillag serve`` and by the uvicorn factory alike."""

from __future__ import annotations

import pytest

from api.app import create_app_from_env
from api.server import check_serving_settings
from cli.app import main as cli_main
from cli.base import EXIT_USAGE
from settings.config import load_settings
from tools.errors import ConfigError


@pytest.mark.parametrize(
    ("key", "why"),
    [(" ", "no API key: set the environment variable CSILLAG_API_API_KEY"),
     ("k", "the API key in CSILLAG_API_API_KEY is too short (length 1); at least 16 characters are needed"),
     ("fifteen-chars-k", "is too short (length 15); at least 16 characters are needed"),
     (" 0123456789abcdef ", "begins or ends with white space")],
)
def test_issue_38_serve_refuses_a_blank_short_or_padded_key_in_one_line(
    key: str, why: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CSILLAG_API_API_KEY", key)

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the API started with the key {key!r}")

    monkeypatch.setattr("uvicorn.run", started)
    assert cli_main(["serve"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("csillag: ") and why in err[0], err
    if len(key.strip()) > 1:
        assert key.strip() not in err[0]  # the key itself is never echoed
    with pytest.raises(ConfigError) as refused:
        create_app_from_env()  # `uvicorn api.app:create_app_from_env --factory` starts nothing either
    assert why in str(refused.value)


def test_issue_38_a_key_of_the_minimum_length_is_accepted() -> None:
    check_serving_settings(load_settings(api={"api_key": "0123456789abcdef"}))

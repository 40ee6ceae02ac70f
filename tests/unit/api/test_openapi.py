from __future__ import annotations

from api.openapi import SPEC_FILE, generate_spec, render_spec


def test_openapi_checked_in_file_matches_the_code():
    generated = render_spec(generate_spec())
    assert SPEC_FILE.exists(), "docs/openapi.json is missing: run `.venv/bin/python -m api.openapi`"
    assert SPEC_FILE.read_text(encoding="utf-8") == generated, (
        "docs/openapi.json is out of date: regenerate it with `.venv/bin/python -m api.openapi`"
    )


def test_openapi_every_route_but_health_declares_the_key():
    spec = generate_spec()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            schemes = {name for requirement in operation.get("security", []) for name in requirement}
            if path == "/health":
                assert not schemes
            else:
                assert schemes == {"APIKeyHeader", "HTTPBearer"}, (method, path)

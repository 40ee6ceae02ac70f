"""Issue 38: one parser of lakehouse roots (``graph.roots.parse_root``) refuses every name the clients would read
differently from csillag — Spark's S3A and delta-rs percent-decode a URI, drop its query and fragment and fold ``.``,
``..`` and ``//``; boto3 and pyarrow take the key as written — and the mistyped forms that used to become odd local
folders. Each form is refused by the storage, by the settings (``lakehouse.root``, ``api.allowed_roots``) alike.
The API's and the command line's sides: tests/unit/api/ and tests/unit/jobs/test_issue_38_lakehouse_uri.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.lakehouse import Lakehouse
from graph.roots import RootName, parse_root
from settings.config import load_settings
from settings.errors import ConfigError

HOSTILE = [
    ("s3a://bucket/api/%2e%2e/lh", "percent-escapes are not allowed"),
    ("s3a://bucket/api/%2E%2E/lh", "percent-escapes are not allowed"),
    ("s3a://bucket/api%2flh", "percent-escapes are not allowed"),
    ("hdfs://nn:8020/api/%2e%2e/lh", "percent-escapes are not allowed"),
    ("s3a://bucket/api/lh?versionId=1", "a query or fragment"),
    ("s3a://bucket/api/lh#frag", "a query or fragment"),
    ("s3a://bucket/api/./lh", "'.' is not allowed"),
    ("s3a://bucket/api//lh", "an empty segment ('//') is not allowed"),
    ("s3a://bucket/api/lh/..", "'..' is not allowed"),
    ("s3a://bucket/api/lh/.", "'.' is not allowed"),
    ("s3a://bucket/api/lh//", "an empty segment ('//') is not allowed"),
    ("file:///srv/api/%2e%2e/lh", "percent-escapes are not allowed"),
    (" s3a://bucket/lh", "begins or ends with white space"),
    ("s3a://bucket/lh\t", "begins or ends with white space"),
    ("s3a://bucket/l\nh", "contains a control character"),
    ("s3a:/bucket/lh", "write '://' after the scheme; accepted: a path, file:///PATH, s3a://BUCKET/PATH"),
    ("s3a:bucket/lh", "write '://' after the scheme"),
    ("gs:/bucket/lh", "write '://' after the scheme"),
    ("file://otherhost/srv/lh", "names the host 'otherhost'; a file:// lakehouse is on this machine"),
    ("file://", "the lakehouse root is empty"),
    ("", "the lakehouse root is empty"),
    ("  ", "the lakehouse root is empty"),
]


@pytest.mark.parametrize(("root", "why"), HOSTILE)
def test_issue_38_every_hostile_root_is_refused_by_the_storage_naming_it(root: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        Lakehouse.for_root(root)
    message = str(refused.value)
    assert why in message, message
    assert (root.strip() or repr(root)) in message or repr(root) in message, message


@pytest.mark.parametrize(("root", "why"), HOSTILE)
def test_issue_38_every_hostile_root_is_refused_by_the_settings(root: str, why: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings(lakehouse={"root": root})
    assert f"invalid setting lakehouse.root = {root!r}: " in str(refused.value) and why in str(refused.value)
    with pytest.raises(ConfigError, match="api.allowed_roots"):
        load_settings(api={"allowed_roots": [root]})


def test_issue_38_an_empty_root_never_speaks_of_dot() -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings(lakehouse={"root": ""})
    assert "'.'" not in str(refused.value) and "the lakehouse root is empty" in str(refused.value)


@pytest.mark.parametrize(
    ("root", "parsed"),
    [("file://localhost/srv/lh", RootName("file", "", "/srv/lh")), ("file:///srv/lh/", RootName("file", "", "/srv/lh")),
     ("s3://bucket/api/lh/", RootName("s3a", "bucket", "api/lh")), ("s3a://bucket", RootName("s3a", "bucket", "")),
     ("hdfs://nn:8020/api/lh", RootName("hdfs", "nn:8020", "api/lh")),
     ("relative/../lh", RootName("", "", "relative/../lh")), ("lake:2024", RootName("", "", "lake:2024"))],
)
def test_issue_38_accepted_roots_keep_their_meaning(root: str, parsed: RootName) -> None:
    # a path is the file system's to resolve; one trailing slash is dropped; file://localhost is this machine
    assert parse_root(root) == parsed


def test_issue_38_file_uri_of_localhost_is_the_local_path(tmp_path: Path) -> None:
    uri = f"file://localhost{tmp_path}/lake"
    assert Lakehouse.for_root(uri).local == tmp_path.resolve() / "lake"
    assert load_settings(lakehouse={"root": uri}).lakehouse.root == tmp_path / "lake"  # not the folder "localhost/…"


def test_issue_38_uri_roots_contain_by_segments() -> None:
    root = parse_root("s3a://bucket/api")
    assert root.contains(parse_root("s3://bucket/api/lh")) and root.contains(parse_root("s3a://bucket/api/"))
    assert not root.contains(parse_root("s3a://bucket/api2/lh"))
    assert not root.contains(parse_root("s3a://other/api/lh"))
    assert not root.contains(parse_root("hdfs://bucket/api/lh"))

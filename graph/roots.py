"""Lakehouse root names: the one parser of a root as written (a setting, ``--lakehouse``, an API request, an entry of
``api.allowed_roots``), before it becomes a ``Lakehouse``.

A root is a path, ``file:///PATH`` (``file://localhost/PATH``), ``s3a://BUCKET/PATH`` (``s3://`` too) or
``hdfs://NAMENODE[:PORT]/PATH``. The clients that will use it do not read a URI alike: Spark's Hadoop connectors and
delta-rs parse it as a URL — they percent-decode it, drop a query or a fragment and fold ``.``, ``..`` and ``//`` —
while boto3, pyarrow and hdfs-native take a key as written. A URI those readings could disagree about is refused, not
interpreted, so that the name csillag checks (the API's confinement to ``api.allowed_roots``, the lock, the markers)
is the name every client writes under: no percent-escapes, no query or fragment, no ``.``, ``..`` or empty segment
(one trailing slash is dropped). A plain path is a local path, resolved by the file system as usual.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

# s3a:// is Hadoop's (and so Spark's) name for S3; s3:// is delta-rs's and the AWS tools'. Both name the same objects.
S3_SCHEMES = ("s3a", "s3")
HDFS_SCHEMES = ("hdfs",)
# Every scheme a lakehouse root may have besides a path or file://.
REMOTE_SCHEMES = S3_SCHEMES + HDFS_SCHEMES
ACCEPTED_ROOTS = "a path, file:///PATH, s3a://BUCKET/PATH, hdfs://NAMENODE[:PORT]/PATH"
_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.DOTALL)
# "s3a:/b/lh", "hdfs:nn/lh": a URI with its slashes mistyped, which pathlib would take as a folder named "s3a:"
_SCHEME_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(/?)")
# S3's rules for a bucket name (3-63 lower-case letters, digits, dots, hyphens), checked so a typo fails at start.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
# An HDFS authority: a NameNode host[:port], or an HA nameservice's name (resolved by the client's Hadoop config).
_NAMENODE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(:[0-9]{1,5})?$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class RootName:
    """A checked lakehouse root. ``scheme``: "" for a path, "file", "s3a" (``s3a://`` and ``s3://``) or "hdfs";
    ``authority``: the bucket or the NameNode ("" for a local root); ``path``: a local root's path (a ``file://``
    URI's is absolute), else the key prefix — segments joined by "/", no leading or trailing slash."""

    scheme: str
    authority: str
    path: str

    @property
    def is_local(self) -> bool:
        """Whether the root is a folder of this machine (a path or a ``file://`` URI)."""
        return self.scheme in ("", "file")

    def contains(self, other: RootName) -> bool:
        """Whether ``other`` is this remote root or lies under it, segment by segment (``s3a://b/lh`` contains
        ``s3a://b/lh/x``, not ``s3a://b/lh2``)."""
        mine = self.path.split("/") if self.path else []
        theirs = other.path.split("/") if other.path else []
        return (other.scheme, other.authority) == (self.scheme, self.authority) and theirs[: len(mine)] == mine


def is_remote(root: str | os.PathLike[str]) -> bool:
    """Whether ``root`` is written as a URI other than ``file://`` (an object store or HDFS), not a local path."""
    match = _URI.match(os.fspath(root))
    return match is not None and match.group(1).lower() != "file"


def parse_root(root: str | os.PathLike[str]) -> RootName:
    """``root`` checked and split; see the module's docstring for the rules.

    Raises:
        ValueError: an empty or white-space-padded value, a control character, a mistyped or unsupported scheme, a
            percent-escape, query or fragment in a URI, a ``.``, ``..`` or empty segment in its path, a
            ``file://`` URI of another host, a bad bucket name or NameNode; the message names the value and what
            is accepted.
    """
    text = os.fspath(root)
    if not text.strip():
        raise ValueError(f"the lakehouse root is empty ({text!r}); accepted: {ACCEPTED_ROOTS}")
    if text != text.strip():
        raise ValueError(f"{text!r} begins or ends with white space; a lakehouse root is used exactly as written")
    if _CONTROL.search(text):
        raise ValueError(f"{text!r} contains a control character")
    match = _URI.match(text)
    if match is None:
        _refuse_mistyped_uri(text)
        return RootName("", "", text)
    scheme, rest = match.group(1).lower(), match.group(2)
    if scheme != "file" and scheme not in REMOTE_SCHEMES:
        raise ValueError(f"{scheme}:// is not supported ({text}); accepted: {ACCEPTED_ROOTS}")
    _refuse_what_stores_reinterpret(text, scheme, rest)
    authority, _, path = rest.partition("/")
    segments = _segments(text, path)
    if scheme == "file":
        _check_local_host(text, authority, rest)
        return RootName("file", "", "/" + "/".join(segments))
    if scheme in HDFS_SCHEMES:
        if not _NAMENODE.match(authority):
            raise ValueError(
                f"{text} does not name an HDFS NameNode ({authority!r}); accepted: hdfs://NAMENODE[:PORT]/PATH"
            )
        return RootName("hdfs", authority, "/".join(segments))
    if not _BUCKET.match(authority):
        raise ValueError(f"{text} does not name a valid S3 bucket ({authority!r}); accepted: s3a://BUCKET/PATH")
    return RootName("s3a", authority, "/".join(segments))


def _refuse_mistyped_uri(text: str) -> None:
    """A known scheme without its ``//`` (``s3a:/b``, ``hdfs:nn/x``), or any scheme followed by one slash."""
    match = _SCHEME_PREFIX.match(text)
    if match and (match.group(1).lower() in ("file", *REMOTE_SCHEMES) or match.group(2)):
        raise ValueError(f"{text} is not a lakehouse URI: write '://' after the scheme; accepted: {ACCEPTED_ROOTS}")


def _refuse_what_stores_reinterpret(text: str, scheme: str, rest: str) -> None:
    """Percent-escapes, a query, a fragment: Spark and delta-rs read them as URL syntax, boto3 and pyarrow don't."""
    if "?" in rest or "#" in rest:
        kept = re.split(r"[?#]", rest, maxsplit=1)[0]
        raise ValueError(
            f"{text}: a query or fragment ('?…', '#…') is not allowed in a lakehouse URI; the object stores drop it "
            f"and would write under {scheme}://{kept}"
        )
    if "%" in rest:
        raise ValueError(
            f"{text}: percent-escapes are not allowed in a lakehouse URI; Spark and delta-rs decode them (%2e%2e is "
            "'..', %2f is '/') while csillag's own files are named as written; write the path unencoded"
        )


def _segments(text: str, path: str) -> list[str]:
    """The path's segments, one trailing slash dropped; ``.``, ``..`` and empty ones refused (stores fold them)."""
    segments = path.removesuffix("/").split("/") if path else []
    for segment, what in (("..", "'..'"), (".", "'.'"), ("", "an empty segment ('//')")):
        if segment in segments:
            raise ValueError(
                f"{text}: {what} is not allowed in a lakehouse URI's path (the stores would resolve it); write the "
                "path without it"
            )
    return segments


def _check_local_host(text: str, authority: str, rest: str) -> None:
    """A ``file://`` URI names a path on this machine (``file:///PATH``, ``file://localhost/PATH``)."""
    if authority not in ("", "localhost"):
        raise ValueError(
            f"{text} names the host {authority!r}; a file:// lakehouse is on this machine: file:///PATH or "
            "file://localhost/PATH"
        )
    if not rest:
        raise ValueError(f"the lakehouse root is empty ({text!r} names no path); accepted: {ACCEPTED_ROOTS}")

"""The lakehouse root as one value (``Lakehouse``) and the storage it lives on, one backend per kind: a local folder
(``local``), an S3-compatible store (``s3``), an HDFS (``hdfs``), all behind ``backend.Backend``.

It lives in ``graph`` (the bottom layer: it imports none of our packages but ``graph.errors``, ``graph.files``,
``graph.roots`` and ``graph.settings``) so that every layer, from the chat side's readers to the ingestion stages,
uses the same one.
"""

from graph.lakehouse.backend import Backend
from graph.lakehouse.hdfs import hdfs_client_made
from graph.lakehouse.local import DELTA_UNSAFE_CHARS
from graph.lakehouse.root import Lakehouse, user_cache_root

__all__ = ["DELTA_UNSAFE_CHARS", "Backend", "Lakehouse", "hdfs_client_made", "user_cache_root"]

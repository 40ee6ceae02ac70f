"""csillag: graph package."""

import os

# delta-rs and hdfs-native log through Rust's env_logger, which reads RUST_LOG once, when deltalake is first imported:
# without a level, DataFusion's deprecation warnings (printed by every in-process Delta DELETE) reach the user's
# terminal. Errors only, unless the user's own RUST_LOG says otherwise. Every reader and writer of Delta tables imports
# this package before deltalake.
os.environ.setdefault("RUST_LOG", "error")

"""Retrieval over the lakehouse's chunks: a persisted BM25 index with a hook for dense re-ranking (issue 5)."""

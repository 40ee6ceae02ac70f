"""Retrieval over the lakehouse's chunks: a persisted BM25 index, optionally fused with dense embeddings."""

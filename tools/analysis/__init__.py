"""Platform base classes of the analysis tools: entity, page, summary, context search and RAG retrieval (issue 5)."""

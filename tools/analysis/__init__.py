"""Platform base classes of the analysis tools: entity, page, summary, question answering, context search and RAG
retrieval."""

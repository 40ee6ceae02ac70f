"""csillag: ingestion package."""

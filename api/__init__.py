"""csillag: api package."""

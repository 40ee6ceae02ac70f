"""csillag: graph package."""

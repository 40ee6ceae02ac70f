"""csillag: tools package."""

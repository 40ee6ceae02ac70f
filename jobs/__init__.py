"""csillag: jobs package."""

"""Sample documents bundled with csillag (see README.md here); read them with importlib.resources."""

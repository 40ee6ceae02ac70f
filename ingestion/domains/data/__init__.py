"""Packaged data files for the NER domains (read with importlib.resources)."""

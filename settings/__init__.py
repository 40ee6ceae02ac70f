"""Typed settings of every csillag component, and how they are loaded (file, environment, overrides).

A small package of its own: the batch side, the chat side, the API and the command line all import it, and it
imports none of them (only ``graph.settings``, the graph stores' own plain models, since ``graph`` imports nothing of
ours).
"""

from settings.config import PROJECT_ROOT, CsillagSettings, load_settings
from settings.errors import ConfigError

__all__ = ["PROJECT_ROOT", "ConfigError", "CsillagSettings", "load_settings"]

"""The ``CSILLAG_*`` environment as a settings source sees it: which variables are settings, and what went wrong.

pydantic-settings reads ``CSILLAG_<SECTION>_<FIELD>`` and silently passes over any other variable, so a typo such as
``CSILLAG_SPAKR_MASTER`` would leave the default in force without a word; and a list or table setting that is not
JSON fails with an error naming only the section. Both are answered here with one line naming the variable.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import types
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from settings.errors import ConfigError

logger = logging.getLogger(__name__)

PREFIX = "CSILLAG_"
# Variables with our prefix that are not settings but belong to the scripts, the tests, Airflow's DAG or the workers.
# The one list of them: a CSILLAG_* variable that is neither a setting nor listed here gets a "did you mean" warning.
# Find them with: grep -rhoE 'CSILLAG_[A-Z0-9_]+' --include=*.py --include=*.sh . | sort -u
NON_SETTING_VARIABLES = frozenset({
    "CSILLAG_CONFIG", "CSILLAG_ROOT", "CSILLAG_VENV", "CSILLAG_PYTHON", "CSILLAG_IVY_DIR", "CSILLAG_NO_BOOTSTRAP",
    "CSILLAG_DELTA_JARS", "CSILLAG_SPARK_ARGS_FILE", "CSILLAG_SUBMIT_ARGS", "CSILLAG_NLP_PRELOAD", "CSILLAG_API_URL",
    "CSILLAG_CORPORA_DIR",
    "CSILLAG_TEST_NEO4J", "CSILLAG_TEST_WORKERS",
    "CSILLAG_DEMO_LAKEHOUSE", "CSILLAG_DEMO_QUESTION",
    "CSILLAG_AIRFLOW_INPUTS", "CSILLAG_AIRFLOW_LAKEHOUSE", "CSILLAG_AIRFLOW_PYTHON", "CSILLAG_AIRFLOW_SCHEDULE",
    "CSILLAG_AIRFLOW_TOOL", "CSILLAG_AIRFLOW_VENV", "CSILLAG_UV",
    "CSILLAG_NEO4J_PORT", "CSILLAG_NEO4J_HTTP_PORT", "CSILLAG_NEO4J_HEAP", "CSILLAG_NEO4J_PAGECACHE",
    "CSILLAG_NEO4J_KEEP", "CSILLAG_NEO4J_HOME", "CSILLAG_NEO4J_JAVA", "CSILLAG_NEO4J_VERSION",
    "CSILLAG_NEO4J_OLD_PASSWORD", "CSILLAG_NEO4J_START_TIMEOUT", "CSILLAG_NEO4J_STOP_TIMEOUT",
    "CSILLAG_TEST_HDFS", "CSILLAG_TEST_HDFS_URI", "CSILLAG_HDFS_STATE", "CSILLAG_HDFS_PARENT_PID", "CSILLAG_HDFS_HOME",
    "CSILLAG_HDFS_HEAP", "CSILLAG_HDFS_JAVA", "CSILLAG_HDFS_START_TIMEOUT", "CSILLAG_HDFS_STOP_TIMEOUT",
})
_warned: set[str] = set()  # once per process: settings are loaded many times (API, chat tools)


def setting_variables(model: type[BaseModel]) -> dict[str, tuple[str, ...]]:
    """Every environment variable that sets a field of ``model``, with the field's path (``CSILLAG_SPARK_MASTER``)."""
    names: dict[str, tuple[str, ...]] = {}
    for section, field in model.model_fields.items():
        names[PREFIX + section.upper()] = (section,)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            for name in annotation.model_fields:
                names[f"{PREFIX}{section.upper()}_{name.upper()}"] = (section, name)
    return names


def warn_unknown_variables(model: type[BaseModel], environ: Mapping[str, str]) -> list[str]:
    """Log one warning per ``CSILLAG_*`` variable that is no setting and no script's, naming the closest setting.

    Returns the unknown names (warned about or not), for the tests.
    """
    known = setting_variables(model)
    unknown = sorted(
        name for name in environ
        if name.upper().startswith(PREFIX) and name.upper() not in known and name.upper() not in NON_SETTING_VARIABLES
    )
    for name in unknown:
        if name in _warned:
            continue
        _warned.add(name)
        close = difflib.get_close_matches(name.upper(), list(known), n=1, cutoff=0.75)
        if close:
            logger.warning("unknown environment variable %s (did you mean %s?)", name, close[0])
        else:
            logger.warning("unknown environment variable %s: no setting has this name (settings are "
                           "CSILLAG_<SECTION>_<FIELD>, e.g. CSILLAG_SPARK_MASTER)", name)
    return unknown


def _wants_json(annotation: Any) -> bool:
    """Whether pydantic-settings parses a variable for this type as JSON (lists, tables, models)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return any(_wants_json(arg) for arg in get_args(annotation) if arg is not type(None))
    return origin in (list, dict, set, frozenset, tuple) or annotation in (list, dict, set, frozenset, tuple)


def environment_json_error(model: type[BaseModel], environ: Mapping[str, str] | None = None) -> ConfigError | None:
    """The error for the first variable whose list or table setting is not valid JSON; None if there is none."""
    environ = os.environ if environ is None else environ
    known = setting_variables(model)
    for name in sorted(environ):
        path = known.get(name.upper())
        if path is None:
            continue
        field = model.model_fields[path[0]]
        annotation = field.annotation
        if len(path) == 2 and isinstance(annotation, type) and issubclass(annotation, BaseModel):
            annotation = annotation.model_fields[path[1]].annotation
        if not _wants_json(annotation):
            continue
        try:
            json.loads(environ[name])
        except ValueError:
            kind = "a JSON object, e.g. '{\"key\": \"value\"}'" if get_origin(annotation) is dict or (
                isinstance(annotation, type) and issubclass(annotation, BaseModel)
            ) else "a JSON list, e.g. '[\"/data/corpora\"]'"
            where = ".".join(path)
            return ConfigError(
                f"invalid setting {where} = {environ[name]!r} (from the environment variable {name}): not valid JSON; "
                f"expected {kind}",
                field=where,
            )
    return None

"""Which spaCy pipeline reads which language: the one table of default NER pipelines, and the models csillag ships.

``DEFAULT_PIPELINES`` maps a language code to its default pipeline and the labels kept from it. A document is only
ever read by the pipeline of its own language (``ingestion.routing``); a language without an entry gets rules only.
To make another pipeline a language's default, change (or add) its line here — e.g. an English model trained by
csillag: ``"en": LanguagePipeline("en_litbank", ENGLISH_LABELS)`` with the model in ``ingestion/models/en_litbank``.

A name in ``SHIPPED_MODELS`` is a pipeline folder under ``ingestion/models/`` (package data, so it is in the wheel
and in spark-submit.sh's code zip). ``shipped_model_path`` gives a folder spaCy can load: the package's own folder,
or — when the package is imported from a zip (``--py-files`` on a cluster) — a copy extracted once per machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

ENGLISH_LABELS = ("PERSON", "GPE", "LOC", "FAC", "ORG", "NORP")
# NerKor's MISC (titles, events, nationalities) is left out, as English leaves out WORK_OF_ART or EVENT.
HUNGARIAN_LABELS = ("PER", "LOC", "ORG")


@dataclass(frozen=True)
class LanguagePipeline:
    """A language's default NER pipeline (package, shipped name or path) and the entity labels kept from it."""

    model: str
    labels: tuple[str, ...]


DEFAULT_PIPELINES: dict[str, LanguagePipeline] = {
    # csillag's literary NER (en_core_web_sm's ner fine-tuned on LitBank + the name-label step).
    "en": LanguagePipeline("en_litbank", ENGLISH_LABELS),
    "hu": LanguagePipeline("hu_nerkor", HUNGARIAN_LABELS),
}

# Shipped pipeline name → its folder under ingestion/models/.
SHIPPED_MODELS: dict[str, str] = {"hu_nerkor": "hu_nerkor", "en_litbank": "en_litbank"}
MODELS_DIR = Path(__file__).resolve().parent / "models"  # the folder ingestion/models/, beside this module


def default_pipeline(language: str) -> LanguagePipeline | None:
    """The language's default pipeline, or None when csillag has no model for it."""
    return DEFAULT_PIPELINES.get(language)


def shipped_model_path(name: str) -> Path | None:
    """A loadable folder for the shipped pipeline ``name``; None when ``name`` is not one csillag ships."""
    folder = SHIPPED_MODELS.get(name)
    if folder is None:
        return None
    path = MODELS_DIR / folder
    if (path / "meta.json").is_file():
        return path
    return _extracted_from_zip(folder)


def shipped_model_version(name: str) -> str | None:
    """The version in the shipped pipeline ``name``'s meta.json (read in place, even inside a zip); None if unknown."""
    folder = SHIPPED_MODELS.get(name)
    if folder is None:
        return None
    meta = MODELS_DIR / folder / "meta.json"
    try:
        if meta.is_file():
            text = meta.read_text(encoding="utf-8")
        else:
            archive, inner = _zip_location(meta)
            if archive is None:
                return None
            with zipfile.ZipFile(archive) as zf:
                text = zf.read(inner).decode("utf-8")
        return meta_version(text)
    except (OSError, KeyError, ValueError):
        return None


def meta_version(meta_json: str) -> str | None:
    """The ``version`` of a spaCy pipeline's meta.json text; None when it has none."""
    version = json.loads(meta_json).get("version")
    return str(version) if version else None


def _extracted_from_zip(folder: str) -> Path | None:
    """The shipped folder copied out of the zip this package is imported from (spaCy cannot load from a zip)."""
    archive, inner = _zip_location(MODELS_DIR / folder)
    if archive is None:
        return None
    with zipfile.ZipFile(archive) as zf:
        members = [m for m in zf.namelist() if m.startswith(inner + "/") and not m.endswith("/")]
        if not members:
            return None
        digest = hashlib.sha256(
            "".join(f"{m}:{zf.getinfo(m).CRC}" for m in sorted(members)).encode("utf-8")
        ).hexdigest()[:12]
        target = Path(tempfile.gettempdir()) / f"csillag-models-{os.getuid()}" / f"{folder}-{digest}"
        if (target / "meta.json").is_file():
            return target
        staging = Path(tempfile.mkdtemp(prefix=f"{folder}-", dir=target.parent if target.parent.exists() else None))
        for member in members:
            out = staging / member[len(inner) + 1 :]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(zf.read(member))
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            staging.rename(target)  # atomic: a concurrent worker's copy either wins or this one does
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        logger.info("extracted shipped model %s to %s", folder, target)
        return target if (target / "meta.json").is_file() else None


def _zip_location(path: Path) -> tuple[Path | None, str]:
    """(zip file, member prefix) when ``path`` lies inside a zip archive, else (None, "")."""
    parts = path.parts
    for i in range(len(parts), 0, -1):
        candidate = Path(*parts[:i])
        if candidate.is_file() and zipfile.is_zipfile(candidate):
            return candidate, "/".join(parts[i:])
    return None, ""

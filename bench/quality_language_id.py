"""Benchmark: the language detector of the documents stage (``ingestion.language_id``, py3langid).

    .venv/bin/python bench/quality_language_id.py [--shared ../shared] [--lingua] [--json FILE]

Accuracy and time per text on English (LitBank's 100 originals, Gutenberg headers stripped), Hungarian (100 places
spread over the ELTE novel corpus, and Egri csillagok) and German, Russian, French (tests/data/languages, written for
csillag), at three lengths: 250-word windows (over MIN_WORDS_FOR_LANGUAGE, as a document is judged), 50-word windows
and single sentences of 5–30 words (what py3langid alone makes of texts csillag does not judge). Windows and
sentences are drawn with a fixed seed. ``--lingua`` also scores lingua-language-detector, which must be importable
(it is no dependency: 96 MB; e.g. ``pip install --target DIR`` and DIR on PYTHONPATH). Never a test: it measures and
prints; the figures are in docs/quality.md.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingestion.text import strip_gutenberg  # noqa: E402

_SENTENCE_END = re.compile(r"(?<=[.!?…»“])\s+")
Detector = Callable[[str], "str | None"]


def _sentences(text: str, rng: random.Random, k: int) -> list[str]:
    found = [s for s in _SENTENCE_END.split(re.sub(r"\s+", " ", text)) if 5 <= len(s.split()) <= 30]
    return rng.sample(found, min(k, len(found)))


def _windows(text: str, rng: random.Random, n_words: int, k: int) -> list[str]:
    words = text.split()
    if len(words) < n_words:
        return []
    return [" ".join(words[s : s + n_words]) for s in (rng.randrange(len(words) - n_words + 1) for _ in range(k))]


def samples(shared: Path, seed: int = 7) -> dict[str, dict[str, list[str]]]:
    """length → language → texts."""
    rng = random.Random(seed)
    texts: dict[str, list[str]] = {"en": [], "hu": []}
    for path in sorted((shared / "data" / "litbank" / "original").glob("*.txt")):
        texts["en"].append(strip_gutenberg(path.read_text(encoding="utf-8", errors="replace"))[0])
    parts = sorted((shared / "data" / "hu_novels").glob("hu_novels.txt.xz.part*"))
    novels = lzma.decompress(b"".join(p.read_bytes() for p in parts)).decode("utf-8")
    step = len(novels) // 100
    texts["hu"] = [novels[i * step : i * step + 40_000] for i in range(100)]
    texts["hu"].append((shared / "corpora" / "egri_csillagok.txt").read_text(encoding="utf-8"))
    for language in ("de", "ru", "fr"):
        paths = sorted((ROOT / "tests" / "data" / "languages").glob(f"{language}_*"))
        texts[language] = [path.read_text(encoding="utf-8") for path in paths]
    out: dict[str, dict[str, list[str]]] = {"250 words": {}, "50 words": {}, "sentence": {}}
    for language, group in texts.items():
        small = language in ("de", "ru", "fr")  # a few texts, whole: all of them, and more windows of each
        out["250 words"][language] = group if small else [w for t in group for w in _windows(t, rng, 250, 1)]
        out["50 words"][language] = [w for t in group[:30] for w in _windows(t, rng, 50, 5)]
        out["sentence"][language] = [s for t in group for s in _sentences(t, rng, 30 if small else 3)]
    return out


def score(detect: Detector, sets: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, object]]:
    """length → language → correct, n, ms per text, wrong answers."""
    result: dict[str, dict[str, object]] = {}
    for length, by_language in sets.items():
        for language, group in by_language.items():
            start = time.perf_counter()
            found = [detect(text) for text in group]
            ms = (time.perf_counter() - start) * 1000 / max(len(group), 1)
            wrong = Counter(str(f) for f in found if f != language)
            result.setdefault(length, {})[language] = {
                "correct": len(group) - sum(wrong.values()), "n": len(group), "ms": round(ms, 2), "wrong": dict(wrong)
            }
    return result


def main() -> None:
    """Print (and optionally write) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--lingua", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sets = samples(args.shared)
    from ingestion.language_id import _identifier, detect_language

    start = time.perf_counter()
    identifier = _identifier()
    detectors: dict[str, tuple[float, Detector]] = {
        "py3langid": (time.perf_counter() - start, lambda text: str(identifier.classify(text[:20_000])[0])),
        "csillag (ingestion.language_id.detect_language)": (0.0, detect_language),
    }
    if args.lingua:
        start = time.perf_counter()
        from lingua import LanguageDetectorBuilder

        lingua = LanguageDetectorBuilder.from_all_languages().build()
        lingua.detect_language_of("warm up")

        def by_lingua(text: str) -> str | None:
            found = lingua.detect_language_of(text[:20_000])
            return found.iso_code_639_1.name.lower() if found else None

        detectors["lingua"] = (time.perf_counter() - start, by_lingua)
    report: dict[str, dict[str, object]] = {}
    for name, (load, detect) in detectors.items():
        # csillag's own rule judges no text under MIN_WORDS_FOR_LANGUAGE words: only the long ones are scored
        scored = {"250 words": sets["250 words"]} if name.startswith("csillag") else sets
        scores = score(detect, scored)
        report[name] = {"load_s": round(load, 2), "scores": scores}
        print(f"== {name} (load {load:.2f} s)")
        for length, by_language in scores.items():
            for language, s in by_language.items():
                print(f"  {length:9} {language}: {s['correct']}/{s['n']}  {s['ms']} ms/text  wrong {s['wrong']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Build ingestion/data/given_name_sexes.tsv, the sex of common given names, from the nomquamgender dataset.

    .venv/bin/python scripts/build_given_name_sexes.py [--source PATH] [--out PATH]

``--source``: nomquamgender's ``name_data.json`` (default: the one of the installed package, ``pip install
nomquamgender==0.1.4``; or unzip its wheel, ``pip download --no-deps nomquamgender==0.1.4``). The dataset (Ian Van
Buskirk, MIT licence; ingestion/data/README.md) gives each given name the number of people counted with it over its
sources and the share of them who are women. A name is kept when it is written in plain ASCII letters, was counted
``MIN_COUNT`` times or more, and ``SHARE`` or more of its bearers are of one sex: "edward m", "charlotte f"; "jean",
"sasha" and "joan" are both, and are left out. The entities stage reads the file only where a book says nothing of a
given name's sex (``ingestion.names.common_given_name_sex``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ingestion" / "data" / "given_name_sexes.tsv"
MIN_COUNT = 1000  # people counted with the name: rarer names' shares are too noisy to trust
SHARE = 0.95  # of one sex, at least


def installed_source() -> Path:
    """The installed package's data file (exits with one line when the package is not there)."""
    try:
        import nomquamgender  # type: ignore[import-untyped]
    except ImportError:
        sys.exit("nomquamgender is not installed: pip install nomquamgender==0.1.4, or give --source name_data.json")
    return Path(nomquamgender.__file__).with_name("name_data.json")


def main(argv: list[str] | None = None) -> int:
    """Write the table; prints how many names of each sex it kept."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="nomquamgender's name_data.json")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    source = args.source or installed_source()
    if not source.is_file():
        sys.exit(f"no such file: {source}")
    data = json.loads(source.read_text(encoding="utf-8"))
    kept: dict[str, str] = {}
    for name, (_sources, count, female_share, _uncertainty) in data.items():
        if not re.fullmatch(r"[a-z]+", name) or count < MIN_COUNT:
            continue
        if female_share >= SHARE:
            kept[name] = "f"
        elif female_share <= 1 - SHARE:
            kept[name] = "m"
    lines = [f"# given name<TAB>sex (m/f); built by scripts/build_given_name_sexes.py from nomquamgender 0.1.4 "
             f"(MIT, ingestion/data/README.md): names counted {MIN_COUNT}+ times, {SHARE:.0%}+ of one sex"]
    lines += [f"{name}\t{sex}" for name, sex in sorted(kept.items())]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    men = sum(1 for sex in kept.values() if sex == "m")
    print(f"{len(kept)} names ({men} men's, {len(kept) - men} women's) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

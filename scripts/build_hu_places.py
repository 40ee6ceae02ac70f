#!/usr/bin/env python
"""Build ingestion/data/hu_places.txt, the Hungarian NER's place gazetteer, from the PyPI package ``magyar``.

    python -m venv /tmp/magyar && /tmp/magyar/bin/pip install magyar==4.2.0
    /tmp/magyar/bin/python scripts/build_hu_places.py [--out ingestion/data/hu_places.txt]

``magyar`` (Nagy Béla, MIT licence, https://github.com/kobanya/nevek) is needed only here, not by csillag. Its lists
kept: Hungary's settlements (``telepules``), the Hungarian names of settlements beyond today's borders
(``hatarontuli``: Kassa, Kolozsvár, Pozsony — the places of the older novels), the counties (``megye``), European
countries and their capitals (``orszag``), rivers (``folyo``). Only names of one word are written, as the feature is
one word's flag (``ingestion.hu_places``); a name that the package also lists as a given or family name ("Zoltán",
"Ákos" are villages too) is left out, as the word is then no evidence of a place.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ingestion" / "data" / "hu_places.txt"


def collect(magyar) -> set[str]:  # noqa: ANN001 - the package module
    """The one-word place names of the package's lists, less its personal names."""
    names: set[str] = set(magyar.telepules) | set(magyar.megye) | set(magyar.folyo)
    for table in magyar.hatarontuli:  # a list holding one dict: Hungarian name -> today's name and country
        names |= set(table)
    names |= set(magyar.orszag) | set(magyar.orszag.values())
    people = set(magyar.keresztnev_v) | set(magyar.vezeteknev)
    return {name for name in names if " " not in name and name[:1].isupper() and name not in people}


def main(argv: list[str] | None = None) -> int:
    """Write the gazetteer, one name a line, sorted; 2 when ``magyar`` is not installed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        import magyar
    except ImportError:
        print("needs the PyPI package magyar: pip install magyar==4.2.0 (in a scratch venv)", file=sys.stderr)
        return 2
    names = sorted(collect(magyar))
    args.out.write_text("\n".join(names) + "\n", encoding="utf-8")
    print(f"{len(names)} place names written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

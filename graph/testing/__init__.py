"""Test support shipped with the package, so a third graph store can be checked like ours (as Haystack ships its
document-store tests): ``graph.testing.contract`` (the contract suite; imports pytest) and
``graph.testing.fixtures`` (the small hand-made graph it is worked out on; no pytest)."""

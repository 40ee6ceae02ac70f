"""Training-data conversion and helpers for the NER models csillag trains and ships (NerKor, LitBank)."""

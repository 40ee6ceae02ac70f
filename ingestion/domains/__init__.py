"""Domain knowledge for NER: gazetteers, name inflection and per-corpus entity lists."""

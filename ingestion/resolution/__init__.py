"""Entity resolution: decide which NER surface forms name the same entity, and give each entity a stable id.

Runs on the driver over the (small) list of distinct surface forms the Spark job aggregated, as a pipeline of named
rules (``pipeline.RULES``, in the order they run; each documented where it is defined, each switchable off by its
name): the rules on single forms (``rules.forms``: which forms are names, how each is keyed and labelled), the first
groups (``rules.grouping``: the domain's alias table, then exact name keys kept apart by the sex their titles give),
the joins (``rules.joins`` and ``rules.partial``: a partial name attaches to the one full name it can belong to),
asking the rules that keep apart (``rules.apart``), and the names and labels of the entities (``rules.naming``).
Anything ambiguous stays its own entity: a missed merge costs recall, a wrong one precision, and the graph built on
top suffers more from the latter. ``resolve_traced`` and ``trace_of`` say which rule joined which forms.
"""

from ingestion.alias_table import AliasEntry, AliasTable, AliasTableError
from ingestion.resolution.evidence import TraceStep
from ingestion.resolution.forms import (
    DEITY_LABEL,
    FAMILY_LABEL,
    ResolvedEntity,
    SurfaceForm,
    addressed,
    entity_id_for,
    label_family,
)
from ingestion.resolution.pipeline import (
    RULE_NAMES,
    RULES,
    Resolution,
    Rule,
    UnknownRuleError,
    article_candidates,
    check_rules,
    opener_candidates,
    prepare,
    resolve_entities,
    resolve_traced,
    trace_of,
)

# the name the tests have long imported it by
_addressed = addressed

__all__ = [
    "AliasEntry",
    "AliasTable",
    "AliasTableError",
    "DEITY_LABEL",
    "FAMILY_LABEL",
    "RULES",
    "RULE_NAMES",
    "Resolution",
    "ResolvedEntity",
    "Rule",
    "SurfaceForm",
    "TraceStep",
    "UnknownRuleError",
    "article_candidates",
    "check_rules",
    "entity_id_for",
    "label_family",
    "opener_candidates",
    "prepare",
    "resolve_entities",
    "resolve_traced",
    "trace_of",
]

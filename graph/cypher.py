"""Every Cypher statement of the Neo4j store, as constants and small builder functions.

Rules: values always travel as parameters (``$rows``, ``$id``, ``$probes`` …); user text is never spliced into a
statement. The only parts built in Python are fixed vocabulary — labels, relationship types and property names
from the constants below — and the hop bound of a variable-length pattern, which Cypher cannot parameterise and
which is validated as a small positive ``int`` first. Loads are ``UNWIND $rows AS row MERGE … SET …`` on stable
ids, so sending the same rows twice changes nothing; ``SET n = row`` replaces every property, so a node ends up as a
fresh load would write it. What a new graph no longer has is removed by key (``DELETE_*``): the store reads the keys
it holds (``KEYS``), diffs them against the new graph in Python and deletes the difference — never ``CREATE`` then
clean up.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)

ENTITY, DOCUMENT, UNIT, CHUNK, QUOTE = "Entity", "Document", "Unit", "Chunk", "Quote"
CO_OCCURS_WITH, MENTIONED_IN, HAS_UNIT, HAS_CHUNK = "CO_OCCURS_WITH", "MENTIONED_IN", "HAS_UNIT", "HAS_CHUNK"
# (src)-[:RELATION_OF {type}]->(dst) reads "src is the TYPE of dst", as a ``relations`` row does
RELATION_OF, SAID, ADDRESSED_TO, IN_CHUNK = "RELATION_OF", "SAID", "ADDRESSED_TO", "IN_CHUNK"
MAX_HOPS_LIMIT = 10
#: ``top_entities`` metric → Entity property, the only property names ever placed into ORDER BY.
ORDER_PROPERTIES = {"pagerank": "pagerank", "degree": "degree", "mentions": "mention_count"}

SCHEMA: tuple[str, ...] = (
    f"CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:{ENTITY}) REQUIRE e.entity_id IS UNIQUE",
    f"CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:{DOCUMENT}) REQUIRE d.doc_id IS UNIQUE",
    f"CREATE CONSTRAINT unit_id IF NOT EXISTS FOR (u:{UNIT}) REQUIRE u.unit_id IS UNIQUE",
    f"CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:{CHUNK}) REQUIRE c.chunk_id IS UNIQUE",
    f"CREATE INDEX entity_community IF NOT EXISTS FOR (e:{ENTITY}) ON (e.community)",
    f"CREATE INDEX entity_label IF NOT EXISTS FOR (e:{ENTITY}) ON (e.label)",
    f"CREATE INDEX entity_pagerank IF NOT EXISTS FOR (e:{ENTITY}) ON (e.pagerank)",
    f"CREATE CONSTRAINT quote_id IF NOT EXISTS FOR (q:{QUOTE}) REQUIRE q.quote_id IS UNIQUE",
    f"CREATE INDEX quote_speaker IF NOT EXISTS FOR (q:{QUOTE}) ON (q.speaker_id)",
)
#: Schema of earlier versions that is removed again. ``mentioned_in_id`` (a relationship index on
#: ``MENTIONED_IN.mention_id``) served no query — MERGE of a mention finds it by expanding between its two bound end
#: nodes — yet its upkeep cost ~40 % of the MENTIONED_IN load time (measured on War and Peace).
RETIRED_SCHEMA: tuple[str, ...] = ("DROP INDEX mentioned_in_id IF EXISTS",)

# -- loading: one statement per node / relationship kind, each run once per batch of rows --

MERGE_DOCUMENTS = f"UNWIND $rows AS row MERGE (d:{DOCUMENT} {{doc_id: row.doc_id}}) SET d = row RETURN count(d) AS n"
MERGE_UNITS = (
    f"UNWIND $rows AS row MERGE (u:{UNIT} {{unit_id: row.unit_id}}) SET u = row "
    f"WITH u, row MATCH (d:{DOCUMENT} {{doc_id: row.doc_id}}) MERGE (d)-[:{HAS_UNIT}]->(u) RETURN count(u) AS n"
)
MERGE_CHUNKS = (
    f"UNWIND $rows AS row MERGE (c:{CHUNK} {{chunk_id: row.chunk_id}}) SET c = row "
    f"WITH c, row MATCH (u:{UNIT} {{unit_id: row.unit_id}}) MERGE (u)-[:{HAS_CHUNK}]->(c) RETURN count(c) AS n"
)
MERGE_ENTITIES = (
    f"UNWIND $rows AS row MERGE (e:{ENTITY} {{entity_id: row.entity_id}}) SET e = row RETURN count(e) AS n"
)
# Relationship rows travel as lists (``row[0]`` …), not maps: the bulk of a load is relationships, and a list of
# values packs and unpacks at about twice the speed of a map repeating its keys in every row (measured on War and
# Peace). The column order is fixed by the tuples below; ``graph.neo4j_store`` builds the rows from the same tuples.
CO_OCCURRENCE_COLUMNS = ("src_id", "dst_id", "count", "weight", "chunk_ids", "unit_ids", "window")
MENTION_COLUMNS = ("mention_id", "entity_id", "chunk_id", "start", "end", "text")
TYPED_RELATION_COLUMNS = ("src_id", "type", "dst_id", "chunk_ids", "count", "confidence")


def _at(columns: tuple[str, ...], name: str) -> str:
    """``row[i]``: the position of column ``name`` in a list-shaped row."""
    return f"row[{columns.index(name)}]"


def _set_from_row(var: str, columns: tuple[str, ...], names: tuple[str, ...]) -> str:
    return ", ".join(f"{var}.{name} = {_at(columns, name)}" for name in names)


_C, _M = CO_OCCURRENCE_COLUMNS, MENTION_COLUMNS
MERGE_CO_OCCURRENCES = (
    f"UNWIND $rows AS row "
    f"MATCH (a:{ENTITY} {{entity_id: {_at(_C, 'src_id')}}}) MATCH (b:{ENTITY} {{entity_id: {_at(_C, 'dst_id')}}}) "
    f"MERGE (a)-[r:{CO_OCCURS_WITH}]->(b) "
    f"SET {_set_from_row('r', _C, _C[2:])} RETURN count(r) AS n"
)
MERGE_MENTIONS = (
    f"UNWIND $rows AS row "
    f"MATCH (e:{ENTITY} {{entity_id: {_at(_M, 'entity_id')}}}) MATCH (c:{CHUNK} {{chunk_id: {_at(_M, 'chunk_id')}}}) "
    f"MERGE (e)-[m:{MENTIONED_IN} {{mention_id: {_at(_M, 'mention_id')}}}]->(c) "
    f"SET {_set_from_row('m', _M, ('start', 'end', 'text'))} RETURN count(m) AS n"
)

_T = TYPED_RELATION_COLUMNS
MERGE_TYPED_RELATIONS = (
    f"UNWIND $rows AS row "
    f"MATCH (a:{ENTITY} {{entity_id: {_at(_T, 'src_id')}}}) MATCH (b:{ENTITY} {{entity_id: {_at(_T, 'dst_id')}}}) "
    f"MERGE (a)-[r:{RELATION_OF} {{type: {_at(_T, 'type')}}}]->(b) "
    f"SET {_set_from_row('r', _T, ('chunk_ids', 'count', 'confidence'))} RETURN count(r) AS n"
)
# A quotation is a node (its text is long, and it has a speaker and addressees); its rows are maps with the
# ``quotes`` columns plus ``search_text`` (``graph.ranking.quote_key``). One whose chunk is not loaded is skipped.
MERGE_QUOTES = (
    f"UNWIND $rows AS row MATCH (c:{CHUNK} {{chunk_id: row.chunk_id}}) "
    f"MERGE (q:{QUOTE} {{quote_id: row.quote_id}}) SET q = row MERGE (q)-[:{IN_CHUNK}]->(c) RETURN count(q) AS n"
)
# rows: [quote_id, entity_id]
MERGE_SAID = (
    f"UNWIND $rows AS row MATCH (q:{QUOTE} {{quote_id: row[0]}}) MATCH (e:{ENTITY} {{entity_id: row[1]}}) "
    f"MERGE (e)-[s:{SAID}]->(q) RETURN count(s) AS n"
)
MERGE_ADDRESSED_TO = (
    f"UNWIND $rows AS row MATCH (q:{QUOTE} {{quote_id: row[0]}}) MATCH (e:{ENTITY} {{entity_id: row[1]}}) "
    f"MERGE (q)-[a:{ADDRESSED_TO}]->(e) RETURN count(a) AS n"
)

# -- removing what a new graph no longer has: read every key, diff in Python, delete the difference by key --

#: kind -> the statement returning the keys the server holds, one row per item, in the shape ``graph.sync`` uses.
KEYS: dict[str, str] = {
    "documents": f"MATCH (d:{DOCUMENT}) RETURN [d.doc_id] AS key",
    "units": f"MATCH (u:{UNIT}) RETURN [u.unit_id] AS key",
    "chunks": f"MATCH (c:{CHUNK}) RETURN [c.chunk_id] AS key",
    "entities": f"MATCH (e:{ENTITY}) RETURN [e.entity_id] AS key",
    "relations": f"MATCH (a:{ENTITY})-[:{CO_OCCURS_WITH}]->(b:{ENTITY}) RETURN [a.entity_id, b.entity_id] AS key",
    "typed_relations": (
        f"MATCH (a:{ENTITY})-[r:{RELATION_OF}]->(b:{ENTITY}) RETURN [a.entity_id, r.type, b.entity_id] AS key"
    ),
    "quotes": f"MATCH (q:{QUOTE}) RETURN [q.quote_id] AS key",
    # a mention is keyed by its whole identity: re-resolved to another entity it is another relationship
    "mentions": (
        f"MATCH (e:{ENTITY})-[m:{MENTIONED_IN}]->(c:{CHUNK}) RETURN [m.mention_id, e.entity_id, c.chunk_id] AS key"
    ),
}
DELETE_MENTIONS = (
    f"UNWIND $rows AS row MATCH (:{ENTITY} {{entity_id: row[1]}})-[m:{MENTIONED_IN} {{mention_id: row[0]}}]->"
    f"(:{CHUNK} {{chunk_id: row[2]}}) DELETE m RETURN count(m) AS n"
)
DELETE_CO_OCCURRENCES = (
    f"UNWIND $rows AS row MATCH (:{ENTITY} {{entity_id: row[0]}})-[r:{CO_OCCURS_WITH}]->"
    f"(:{ENTITY} {{entity_id: row[1]}}) DELETE r RETURN count(r) AS n"
)
DELETE_TYPED_RELATIONS = (
    f"UNWIND $rows AS row MATCH (:{ENTITY} {{entity_id: row[0]}})-[r:{RELATION_OF} {{type: row[1]}}]->"
    f"(:{ENTITY} {{entity_id: row[2]}}) DELETE r RETURN count(r) AS n"
)
DELETE_QUOTES = f"UNWIND $rows AS row MATCH (q:{QUOTE} {{quote_id: row[0]}}) DETACH DELETE q RETURN count(q) AS n"
DELETE_DOCUMENTS = f"UNWIND $rows AS row MATCH (d:{DOCUMENT} {{doc_id: row[0]}}) DETACH DELETE d RETURN count(d) AS n"
DELETE_UNITS = f"UNWIND $rows AS row MATCH (u:{UNIT} {{unit_id: row[0]}}) DETACH DELETE u RETURN count(u) AS n"
DELETE_CHUNKS = f"UNWIND $rows AS row MATCH (c:{CHUNK} {{chunk_id: row[0]}}) DETACH DELETE c RETURN count(c) AS n"
DELETE_ENTITIES = (
    f"UNWIND $rows AS row MATCH (e:{ENTITY} {{entity_id: row[0]}}) DETACH DELETE e RETURN count(e) AS n"
)
#: kind -> the statement deleting items of that kind by the keys ``KEYS`` returns.
DELETE: dict[str, str] = {
    "mentions": DELETE_MENTIONS,
    "relations": DELETE_CO_OCCURRENCES,
    "typed_relations": DELETE_TYPED_RELATIONS,
    "quotes": DELETE_QUOTES,
    "chunks": DELETE_CHUNKS,
    "units": DELETE_UNITS,
    "documents": DELETE_DOCUMENTS,
    "entities": DELETE_ENTITIES,
}
# A chunk that moved to another unit (or a unit to another document) keeps its id; MERGE then adds the new
# structural link beside the old one, which these remove.
PRUNE_STRUCTURE: tuple[str, ...] = (
    f"MATCH (d:{DOCUMENT})-[h:{HAS_UNIT}]->(u:{UNIT}) WHERE d.doc_id <> u.doc_id DELETE h RETURN count(h) AS n",
    f"MATCH (u:{UNIT})-[h:{HAS_CHUNK}]->(c:{CHUNK}) WHERE u.unit_id <> c.unit_id DELETE h RETURN count(h) AS n",
    # a quotation keeps its id when its speaker, addressees or chunk change: its properties say which links hold
    f"MATCH (q:{QUOTE})-[i:{IN_CHUNK}]->(c:{CHUNK}) WHERE q.chunk_id <> c.chunk_id DELETE i RETURN count(i) AS n",
    f"MATCH (e:{ENTITY})-[s:{SAID}]->(q:{QUOTE}) WHERE q.speaker_id IS NULL OR q.speaker_id <> e.entity_id "
    "DELETE s RETURN count(s) AS n",
    f"MATCH (q:{QUOTE})-[a:{ADDRESSED_TO}]->(e:{ENTITY}) WHERE NOT e.entity_id IN coalesce(q.addressee_ids, []) "
    "DELETE a RETURN count(a) AS n",
)

CLEAR = (
    f"MATCH (n) WHERE n:{ENTITY} OR n:{DOCUMENT} OR n:{UNIT} OR n:{CHUNK} OR n:{QUOTE} "
    "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"
)

# Subqueries use the scoped ``CALL (n) { … }`` form of Neo4j 5.23+ (the project pins 5.26 LTS in scripts/neo4j.sh);
# the older ``CALL { WITH n … }`` draws a deprecation warning on every call there.

# -- queries --

FIND_CANDIDATES = (
    f"MATCH (e:{ENTITY}) WHERE ($label IS NULL OR e.label = $label) "
    "AND any(k IN e.search_keys WHERE any(p IN $probes WHERE k CONTAINS p)) "
    "RETURN e.entity_id AS entity_id, e.canonical_name AS canonical_name, e.label AS label, "
    "e.mention_count AS mention_count, e.search_keys AS keys"
)
GET_ENTITY = f"MATCH (e:{ENTITY} {{entity_id: $id}}) RETURN properties(e) AS e"
NEIGHBOURS = (
    f"MATCH (e:{ENTITY} {{entity_id: $id}})-[r:{CO_OCCURS_WITH}]-(n:{ENTITY}) "
    "RETURN n.entity_id AS id, n.canonical_name AS name, n.label AS label, r.count AS count, r.weight AS weight, "
    "r.chunk_ids AS chunk_ids, r.unit_ids AS unit_ids "
    "ORDER BY weight DESC, count DESC, id LIMIT $limit"
)
HOPS = (
    f"UNWIND $pairs AS pair MATCH (a:{ENTITY} {{entity_id: pair[0]}})-[r:{CO_OCCURS_WITH}]-"
    f"(b:{ENTITY} {{entity_id: pair[1]}}) RETURN pair[0] AS u, pair[1] AS v, r.count AS count, r.weight AS weight, "
    "r.chunk_ids AS chunk_ids"
)
PASSAGES = (
    f"UNWIND $chunk_ids AS cid MATCH (c:{CHUNK} {{chunk_id: cid}}) OPTIONAL MATCH (u:{UNIT} {{unit_id: c.unit_id}}) "
    "RETURN c.chunk_id AS chunk_id, c.doc_id AS doc_id, c.unit_id AS unit_id, u.unit_title AS unit_title, "
    "c.start AS start, c.end AS end, c.text AS text"
)
MENTIONS = (
    f"MATCH (e:{ENTITY} {{entity_id: $id}})-[m:{MENTIONED_IN}]->(c:{CHUNK}) "
    "WITH c, collect({start: m.start, end: m.end, text: m.text}) AS spans "
    "ORDER BY c.doc_id, c.chunk_index, c.chunk_id LIMIT $limit "
    f"OPTIONAL MATCH (u:{UNIT} {{unit_id: c.unit_id}}) "
    "RETURN c.chunk_id AS chunk_id, c.doc_id AS doc_id, c.unit_id AS unit_id, u.unit_title AS unit_title, "
    "c.start AS start, c.end AS end, c.text AS text, spans"
)
TIMELINE_MENTIONS = (
    f"MATCH (:{ENTITY} {{entity_id: $id}})-[:{MENTIONED_IN}]->(c:{CHUNK}) RETURN c.unit_id AS unit_id, count(*) AS n"
)
TIMELINE_MEETINGS = (
    f"MATCH (:{ENTITY} {{entity_id: $id}})-[r:{CO_OCCURS_WITH}]-(o:{ENTITY}) UNWIND r.chunk_ids AS cid "
    f"MATCH (c:{CHUNK} {{chunk_id: cid}}) RETURN c.unit_id AS unit_id, o.entity_id AS id, o.canonical_name AS name"
)
UNITS_BY_ID = f"UNWIND $ids AS uid MATCH (u:{UNIT} {{unit_id: uid}}) RETURN properties(u) AS u"
STATS = (
    f"CALL () {{ MATCH (e:{ENTITY}) RETURN count(e) AS entities, "
    "count(DISTINCT CASE WHEN e.community >= 0 THEN e.community END) AS communities } "
    f"CALL () {{ MATCH ()-[r:{CO_OCCURS_WITH}]->() RETURN count(r) AS relations }} "
    f"CALL () {{ MATCH (d:{DOCUMENT}) RETURN count(d) AS documents }} "
    f"CALL () {{ MATCH (u:{UNIT}) RETURN count(u) AS units }} "
    f"CALL () {{ MATCH (c:{CHUNK}) RETURN count(c) AS chunks }} "
    f"CALL () {{ MATCH ()-[m:{MENTIONED_IN}]->() RETURN count(m) AS mentions }} "
    f"CALL () {{ MATCH ()-[r:{RELATION_OF}]->() RETURN count(r) AS typed_relations }} "
    f"CALL () {{ MATCH (q:{QUOTE}) RETURN count(q) AS quotations }} "
    "RETURN entities, relations, documents, units, chunks, mentions, communities, typed_relations, quotations"
)
RELATIVES = (
    f"MATCH (s:{ENTITY})-[r:{RELATION_OF}]->(:{ENTITY} {{entity_id: $id}}) WHERE $types IS NULL OR r.type IN $types "
    "RETURN s.entity_id AS id, s.canonical_name AS name, s.label AS label, r.type AS type, r.count AS count, "
    "r.confidence AS confidence, r.chunk_ids AS chunk_ids "
    "ORDER BY confidence DESC, count DESC, type, id LIMIT $limit"
)
RELATIONS_BETWEEN = (
    f"MATCH (:{ENTITY} {{entity_id: $a}})-[r:{RELATION_OF}]->(:{ENTITY} {{entity_id: $b}}) "
    "RETURN r.type AS type, r.count AS count, r.confidence AS confidence, r.chunk_ids AS chunk_ids"
)
QUOTATIONS = (
    f"MATCH (q:{QUOTE}) WHERE ($speaker IS NULL OR q.speaker_id = $speaker) "
    "AND ($addressee IS NULL OR $addressee IN q.addressee_ids) "
    "RETURN properties(q) AS q ORDER BY q.doc_id, q.start, q.quote_id LIMIT $limit"
)
FIND_QUOTATIONS = (
    f"MATCH (q:{QUOTE}) WHERE q.search_text CONTAINS $needle "
    "RETURN properties(q) AS q ORDER BY q.doc_id, q.start, q.quote_id LIMIT $limit"
)
ENTITY_REFS = (
    f"UNWIND $ids AS eid MATCH (e:{ENTITY} {{entity_id: eid}}) "
    "RETURN e.entity_id AS entity_id, e.canonical_name AS canonical_name, e.label AS label"
)
LABEL_COUNTS = f"MATCH (e:{ENTITY}) RETURN e.label AS label, count(*) AS n"


def top_entities(by: str) -> str:
    """The ``top_entities`` query ordered by the property behind ``by`` (a key of ``ORDER_PROPERTIES``)."""
    prop = ORDER_PROPERTIES[by]  # a KeyError here is a bug: callers validate ``by`` first
    return (
        f"MATCH (e:{ENTITY}) WHERE $label IS NULL OR e.label = $label "
        f"RETURN properties(e) AS e ORDER BY e.{prop} DESC, e.entity_id LIMIT $limit"
    )


def shortest_path_edges(max_hops: int) -> str:
    """The distinct edges of all shortest ``$a``–``$b`` paths of at most ``max_hops`` hops (the shortest-path DAG)."""
    if type(max_hops) is not int or not 1 <= max_hops <= MAX_HOPS_LIMIT:  # spliced below, so checked here again
        raise ValueError(f"max_hops must be an int in 1..{MAX_HOPS_LIMIT}, got {max_hops!r}")
    return (
        f"MATCH (a:{ENTITY} {{entity_id: $a}}), (b:{ENTITY} {{entity_id: $b}}) "
        f"MATCH p = allShortestPaths((a)-[:{CO_OCCURS_WITH}*..{max_hops}]-(b)) "
        "UNWIND relationships(p) AS r WITH DISTINCT r "
        "RETURN startNode(r).entity_id AS u, endNode(r).entity_id AS v, r.weight AS weight"
    )

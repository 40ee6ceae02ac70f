"""One small hand-made graph, as frames shaped like the lakehouse tables, for the store contract suite (no pytest).

One document, two units (chapters), eight chunks. Which entities each chunk mentions is written out below in text
order; the co-occurrence edges, their weights and the entities' metrics (pagerank, community) are written by hand as
the graph stage would have produced them. Every expected answer in ``contract.py`` is worked out by hand from these
tables (the working is in the comments there), never from the stores' code. ``changed_graph`` is the same graph
after a corpus change, for the writer tests.

Entities (id: name [aliases], label, mentions):
  ent_01 Nikolai Rostov [Nikolai, Nicholas Rostov] PERSON 8     ent_07 Dobó Katica [Katica] PERSON 2
  ent_02 Ilya Rostov [Count Rostov] PERSON 3                    ent_08 Moscow [Moskva] GPE 3
  ent_03 Natasha Rostova [Natasha] PERSON 4                     ent_09 Eger [Egri vár] GPE 2
  ent_04 Pierre Bezukhov [Pierre, Bezúkhov] PERSON 4            ent_10 Kutuzov [] PERSON 3
  ent_05 Andrei Bolkonsky [Prince Andrei] PERSON 3              ent_11 Rostov Regiment [] ORG 2
  ent_06 Dobó István [István] PERSON 2                          ent_12 Bogucharovo [] GPE 1 (no edges)

Typed relations ("src is the TYPE of dst", each with its inverse) and quotations are written by hand too
(``TYPED_RELATIONS``, ``QUOTES``); the quotations' texts are not spans of the chunks: only their chunk is used.
"""

from __future__ import annotations

import random

import pandas as pd

from graph.model import ChunkNode, CoOccurrence, DocumentNode, EntityNode, GraphData, UnitNode

DOC = "doc_test0000000000"
UNITS = [f"{DOC}:u0000", f"{DOC}:u0001"]
CHUNK_IDS = [f"{DOC}:c{i:05d}" for i in range(8)]

ENTITIES = [
    # id, canonical name, label, aliases, pagerank, community
    ("ent_01", "Nikolai Rostov", "PERSON", ["Nikolai", "Nicholas Rostov"], 0.20, 0),
    ("ent_02", "Ilya Rostov", "PERSON", ["Count Rostov"], 0.09, 0),
    ("ent_03", "Natasha Rostova", "PERSON", ["Natasha"], 0.11, 0),
    ("ent_04", "Pierre Bezukhov", "PERSON", ["Pierre", "Bezúkhov"], 0.10, 0),
    ("ent_05", "Andrei Bolkonsky", "PERSON", ["Prince Andrei"], 0.09, 0),
    ("ent_06", "Dobó István", "PERSON", ["István"], 0.08, 1),
    ("ent_07", "Dobó Katica", "PERSON", ["Katica"], 0.06, 1),
    ("ent_08", "Moscow", "GPE", ["Moskva"], 0.07, 0),
    ("ent_09", "Eger", "GPE", ["Egri vár"], 0.07, 1),
    ("ent_10", "Kutuzov", "PERSON", [], 0.07, 0),
    ("ent_11", "Rostov Regiment", "ORG", [], 0.04, 0),
    ("ent_12", "Bogucharovo", "GPE", [], 0.02, 2),
]

# chunk index -> (unit index, text, [(entity id, surface text)] in text order)
CHUNKS = [
    (0, "Nikolai Rostov rode to Moscow with Count Rostov. Nikolai was glad.",
     [("ent_01", "Nikolai Rostov"), ("ent_08", "Moscow"), ("ent_02", "Count Rostov"), ("ent_01", "Nikolai")]),
    (0, "Natasha Rostova laughed at Nikolai while Ilya Rostov watched.",
     [("ent_03", "Natasha Rostova"), ("ent_01", "Nikolai"), ("ent_02", "Ilya Rostov")]),
    (0, "Pierre met Natasha and Nikolai in Moscow.",
     [("ent_04", "Pierre"), ("ent_03", "Natasha"), ("ent_01", "Nikolai"), ("ent_08", "Moscow")]),
    (0, "Prince Andrei spoke with Pierre about Natasha. "
        "Far away, Dobó István and Dobó Katica walked the walls of Eger.",
     [("ent_05", "Prince Andrei"), ("ent_04", "Pierre"), ("ent_03", "Natasha"), ("ent_06", "Dobó István"),
      ("ent_07", "Dobó Katica"), ("ent_09", "Eger")]),
    (1, "Kutuzov left Moscow. The Rostov Regiment cheered Nikolai and Count Rostov.",
     [("ent_10", "Kutuzov"), ("ent_08", "Moscow"), ("ent_11", "Rostov Regiment"), ("ent_01", "Nikolai"),
      ("ent_02", "Count Rostov")]),
    (1, "Natasha, Pierre and Andrei Bolkonsky talked of Nikolai and of Bogucharovo.",
     [("ent_03", "Natasha"), ("ent_04", "Pierre"), ("ent_05", "Andrei Bolkonsky"), ("ent_01", "Nikolai"),
      ("ent_12", "Bogucharovo")]),
    (1, "Kutuzov praised Prince Andrei; Pierre and Nikolai listened.",
     [("ent_10", "Kutuzov"), ("ent_05", "Prince Andrei"), ("ent_04", "Pierre"), ("ent_01", "Nikolai")]),
    (1, "The Rostov Regiment and Kutuzov heard from Eger: István and Katica held the castle. Nikolai Rostov listened.",
     [("ent_11", "Rostov Regiment"), ("ent_10", "Kutuzov"), ("ent_09", "Eger"), ("ent_06", "István"),
      ("ent_07", "Katica"), ("ent_01", "Nikolai Rostov")]),
]

# src, dst, count, weight, chunk indexes (both entities are mentioned in each of these chunks)
EDGES = [
    ("ent_01", "ent_02", 4, 0.50, [0, 1, 4]),
    ("ent_01", "ent_03", 3, 0.40, [1, 5]),
    ("ent_01", "ent_04", 2, 0.20, [2]),
    ("ent_01", "ent_05", 1, 0.10, [6]),
    ("ent_01", "ent_08", 2, 0.25, [0, 4]),
    ("ent_01", "ent_10", 2, 0.40, [6, 7]),
    ("ent_01", "ent_11", 1, 0.25, [7]),
    ("ent_02", "ent_03", 2, 0.30, [1]),
    ("ent_02", "ent_08", 1, 0.25, [0]),
    ("ent_02", "ent_11", 1, 0.25, [4]),
    ("ent_03", "ent_04", 3, 0.45, [2, 3, 5]),
    ("ent_03", "ent_05", 2, 0.35, [5]),
    ("ent_04", "ent_05", 2, 0.40, [3, 6]),
    ("ent_04", "ent_08", 1, 0.10, [2]),
    ("ent_05", "ent_10", 2, 0.30, [6]),
    ("ent_06", "ent_07", 5, 0.90, [3, 7]),
    ("ent_06", "ent_09", 4, 0.60, [3, 7]),
    ("ent_07", "ent_09", 2, 0.30, [7]),
    ("ent_08", "ent_10", 1, 0.10, [4]),
    ("ent_09", "ent_10", 1, 0.05, [7]),
]


# src, type, dst, count, confidence, chunk indexes; ent_99 is in no table of entities, so its row is never loaded
TYPED_RELATIONS = [
    ("ent_02", "parent", "ent_01", 1, 0.6, [0]), ("ent_01", "child", "ent_02", 1, 0.6, [0]),
    ("ent_02", "parent", "ent_03", 2, 0.84, [1]), ("ent_03", "child", "ent_02", 2, 0.84, [1]),
    ("ent_01", "sibling", "ent_03", 0, 0.5, [0, 1]), ("ent_03", "sibling", "ent_01", 0, 0.5, [0, 1]),
    ("ent_04", "spouse", "ent_03", 1, 0.7, [5]), ("ent_03", "spouse", "ent_04", 1, 0.7, [5]),
    ("ent_05", "engaged", "ent_03", 1, 0.7, [3]), ("ent_03", "engaged", "ent_05", 1, 0.7, [3]),
    ("ent_07", "child", "ent_06", 1, 0.6, [3, 7]), ("ent_06", "parent", "ent_07", 1, 0.6, [3, 7]),
    ("ent_99", "friend", "ent_01", 1, 0.5, [4]),
]
# number, chunk index, start, text, speaker, addressees, attribution; ent_99 is no entity of the graph
QUOTES = [
    (1, 0, 10, "“Moscow at last!”", "ent_01", ["ent_02"], "explicit"),
    (2, 1, 80, "“You are laughing at me, Natasha.”", "ent_01", ["ent_03"], "implicit"),
    (3, 2, 130, "“Welcome to Moscow, Pierre.”", "ent_03", ["ent_04"], "explicit"),
    (6, 3, 200, "“At last.”", "ent_99", ["ent_04", "ent_99"], "explicit"),
    (4, 5, 400, "“Nikolai is coming home!”", None, [], "none"),
    (5, 7, 600, "“Hold the castle, Katica!”", "ent_06", ["ent_07"], "anaphoric"),
]


def _layout() -> tuple[str, list[tuple[int, int]]]:
    """The document text (chunks joined by blank lines) and each chunk's (start, end) in it."""
    spans, parts, cursor = [], [], 0
    for _, text, _ in CHUNKS:
        spans.append((cursor, cursor + len(text)))
        parts.append(text)
        cursor += len(text) + 2
    return "\n\n".join(parts), spans


def frames() -> dict[str, pd.DataFrame]:
    """The lakehouse tables of the small graph: graph_nodes, graph_edges, documents, chunks, mentions, …"""
    text, spans = _layout()
    documents = pd.DataFrame([{
        "doc_id": DOC, "source": "tests/fixture.txt", "title": "A Test Novel", "language": "en", "text": text,
        "n_chars": len(text), "n_words": len(text.split()), "metadata": {"author": "nobody"},
    }])
    chunks = pd.DataFrame([
        {
            "chunk_id": CHUNK_IDS[i], "doc_id": DOC, "chunk_index": i, "unit_id": UNITS[unit], "unit_index": unit,
            "unit_kind": "chapter", "unit_title": f"CHAPTER {'I' * (unit + 1)}", "part_title": "BOOK ONE",
            "start": spans[i][0], "end": spans[i][1], "text": chunk_text, "n_words": len(chunk_text.split()),
        }
        for i, (unit, chunk_text, _) in enumerate(CHUNKS)
    ])
    mention_rows, resolved = [], []
    seen: dict[str, list[int]] = {}
    for i, (_, chunk_text, mentioned) in enumerate(CHUNKS):
        cursor = 0
        for entity_id, surface in mentioned:
            local = chunk_text.index(surface, cursor)
            cursor = local + len(surface)
            start = spans[i][0] + local
            mention_id = f"{CHUNK_IDS[i]}:m{start}"
            mention_rows.append({
                "mention_id": mention_id, "doc_id": DOC, "chunk_id": CHUNK_IDS[i], "start": start,
                "end": start + len(surface), "text": surface, "label": "X",
            })
            resolved.append({"mention_id": mention_id, "entity_id": entity_id, "doc_id": DOC, "chunk_id": CHUNK_IDS[i]})
            seen.setdefault(entity_id, []).append(i)
    degree: dict[str, int] = {}
    weighted: dict[str, float] = {}
    for src, dst, _, weight, _ in EDGES:
        for end in (src, dst):
            degree[end] = degree.get(end, 0) + 1
            weighted[end] = weighted.get(end, 0.0) + weight
    nodes = pd.DataFrame([
        {
            "entity_id": eid, "canonical_name": name, "label": label, "aliases": aliases,
            "mention_count": len(seen[eid]), "doc_count": 1,
            "first_chunk_id": CHUNK_IDS[min(seen[eid])], "last_chunk_id": CHUNK_IDS[max(seen[eid])],
            "first_unit_id": UNITS[CHUNKS[min(seen[eid])][0]], "last_unit_id": UNITS[CHUNKS[max(seen[eid])][0]],
            "degree": degree.get(eid, 0), "weighted_degree": weighted.get(eid, 0.0), "pagerank": pagerank,
            "community": community,
        }
        for eid, name, label, aliases, pagerank, community in ENTITIES
    ])
    edges = pd.DataFrame([
        {
            "src_id": src, "dst_id": dst, "count": count, "weight": weight,
            "chunk_ids": [CHUNK_IDS[i] for i in sorted(idx)],
            "unit_ids": sorted({UNITS[CHUNKS[i][0]] for i in idx}), "window": "sentence",
        }
        for src, dst, count, weight, idx in EDGES
    ])
    relations = pd.DataFrame([
        {"src_id": src, "type": type_, "dst_id": dst, "chunk_ids": [CHUNK_IDS[i] for i in idx], "count": count,
         "confidence": confidence}
        for src, type_, dst, count, confidence, idx in TYPED_RELATIONS
    ])
    quotes = pd.DataFrame([
        {"quote_id": f"{DOC}:q{start}", "doc_id": DOC, "chunk_id": CHUNK_IDS[chunk], "start": start,
         "end": start + len(text), "text": text, "speaker_id": speaker, "addressee_ids": addressees,
         "attribution": attribution}
        for _, chunk, start, text, speaker, addressees, attribution in QUOTES
    ])
    return {
        "graph_nodes": nodes, "graph_edges": edges, "documents": documents, "chunks": chunks,
        "mentions": pd.DataFrame(mention_rows), "mention_entities": pd.DataFrame(resolved), "relations": relations,
        "quotes": quotes,
    }


def small_graph() -> GraphData:
    """The small graph as ``GraphData``."""
    tables = frames()
    return GraphData.from_frames(
        nodes=tables["graph_nodes"], edges=tables["graph_edges"], documents=tables["documents"],
        chunks=tables["chunks"], mention_entities=tables["mention_entities"], mentions=tables["mentions"],
        relations=tables["relations"], quotes=tables["quotes"],
    )


def changed_graph() -> GraphData:
    """The small graph after its corpus changed, as a rerun of the pipeline would load it: Bogucharovo (ent_12) is
    gone with its one mention, so is the pair ent_06–ent_07, Andrei Bolkonsky (ent_05) is renamed "Andrei
    Bolkonski", the mention "Count Rostov" of chunk 0 is resolved to Nikolai Rostov (ent_01), not Ilya (ent_02),
    the engagement of ent_05 and ent_03 is no longer read (both rows go), the quotation at 400 is gone, and the one at
    80 is now Natasha's (ent_03) to Nikolai (ent_01)."""
    graph = small_graph()
    moved = next(m for m in graph.mentions if m.chunk_id == CHUNK_IDS[0] and m.text == "Count Rostov")
    return graph.model_copy(update={
        "entities": [
            e.model_copy(update={"canonical_name": "Andrei Bolkonski"}) if e.entity_id == "ent_05" else e
            for e in graph.entities if e.entity_id != "ent_12"
        ],
        "relations": [r for r in graph.relations if (r.src_id, r.dst_id) != ("ent_06", "ent_07")],
        "mentions": [
            m.model_copy(update={"entity_id": "ent_01"}) if m is moved else m
            for m in graph.mentions if m.entity_id != "ent_12"
        ],
        "typed_relations": [r for r in graph.typed_relations if r.type != "engaged"],
        "quotes": [
            q.model_copy(update={"speaker_id": "ent_03", "addressee_ids": ["ent_01"]}) if q.start == 80 else q
            for q in graph.quotes if q.start != 400
        ],
    })


def random_graph(seed: int) -> GraphData:
    """A random graph (60 entities, ~150 edges, weights from a few values so that ties happen)."""
    rng = random.Random(seed)
    ids = [f"ent_{i:03d}" for i in range(60)]
    doc, unit, chunk = "doc_r", "doc_r:u0000", "doc_r:c00000"
    pairs = {tuple(sorted(rng.sample(ids, 2))) for _ in range(170)}
    return GraphData(
        entities=[EntityNode(entity_id=i, canonical_name=f"Person {i}", label="PERSON") for i in ids],
        relations=[
            CoOccurrence(src_id=a, dst_id=b, count=rng.randint(1, 3), weight=rng.choice([0.25, 0.5, 0.75, 1.0]),
                         chunk_ids=[chunk], unit_ids=[unit])
            for a, b in sorted(pairs)
        ],
        documents=[DocumentNode(doc_id=doc)],
        units=[UnitNode(unit_id=unit, doc_id=doc, unit_index=0)],
        chunks=[ChunkNode(chunk_id=chunk, doc_id=doc, chunk_index=0, unit_id=unit, start=0, end=1, text="x")],
    )

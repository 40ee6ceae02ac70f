"""Exports of the small fixture graph: files that read back with the right counts, a real PNG, an HTML page."""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import pytest

from graph.export import draw_png, render_html, top_subgraph, write_gexf, write_graphml, write_html
from graph.testing.fixtures import small_graph


def test_write_graphml_reads_back(tmp_path: Path) -> None:
    path = write_graphml(small_graph(), tmp_path / "out" / "graph.graphml")
    back = nx.read_graphml(path)
    assert (back.number_of_nodes(), back.number_of_edges()) == (12, 20)
    assert back.nodes["ent_06"]["canonical_name"] == "Dobó István"
    assert back.nodes["ent_04"]["aliases"] == "Pierre; Bezúkhov"
    assert back.edges["ent_06", "ent_07"]["weight"] == pytest.approx(0.9)
    assert back.nodes["ent_01"]["community"] == 0


def test_write_gexf_reads_back(tmp_path: Path) -> None:
    back = nx.read_gexf(write_gexf(small_graph(), tmp_path / "graph.gexf"))
    assert (back.number_of_nodes(), back.number_of_edges()) == (12, 20)


def test_top_subgraph_by_pagerank() -> None:
    # pagerank: E1 .20, E3 .11, E4 .10, E2 = E5 .09 -> top 4 is E1, E3, E4 and E2 (id breaks the tie)
    sub = top_subgraph(small_graph(), 4)
    assert sorted(sub.nodes) == ["ent_01", "ent_02", "ent_03", "ent_04"]
    # fixture edges among them: 01-02, 01-03, 01-04, 02-03, 03-04
    assert sub.number_of_edges() == 5


def test_draw_png_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    path = draw_png(small_graph(), tmp_path / "top.png", top_n=12)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as image:
        image.verify()
        assert image.format == "PNG"
        assert image.size[0] > 300 and image.size[1] > 300


def test_render_html_is_self_contained(tmp_path: Path) -> None:
    page = render_html(small_graph(), top_n=5, title="War & Peace")
    assert page.startswith("<!DOCTYPE html>")
    assert len(re.findall(r"<circle ", page)) == 5
    # top 5: E1, E3, E4, E2, E5; edges among them: 01-02 01-03 01-04 01-05 02-03 03-04 03-05 04-05
    assert len(re.findall(r"<line ", page)) == 8
    assert "War &amp; Peace" in page
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    path = write_html(small_graph(), tmp_path / "top.html")
    assert "Dobó István" in path.read_text(encoding="utf-8")


# Names a book could hold: XML specials, quotes, backticks, mathtext's $, an escape character (U+001B), a bell, bidi
# overrides and isolates (legal XML: kept), and a lone surrogate.
NASTY_NAMES = [
    'Tom <& "Jerry"',
    "O'Brien `rm -rf`",
    "Cash $^_$ Bill",  # mathtext would fail to parse this
    "Esc\x1b[31mRed\x1b[0m",
    "Bell\x07 and\x0bform\x0cfeed",
    "\u202eRTL override\u202c and \u2067isolate\u2069",
    "Lone \ud800 surrogate and \ufffe\uffff",
    "Tab\there\nnewline",
]


def nasty_graph():
    graph = small_graph()
    renamed = [
        entity.model_copy(
            update={"canonical_name": NASTY_NAMES[i % len(NASTY_NAMES)], "aliases": [NASTY_NAMES[-1 - i % 8]]}
        )
        for i, entity in enumerate(graph.entities)
    ]
    return graph.model_copy(update={"entities": renamed})


def _expected_xml_text(name: str) -> str:
    return "".join(
        "\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or 0xD800 <= ord(c) <= 0xDFFF or c in "\ufffe\uffff" else c
        for c in name
    )


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_issue_11_exports_with_any_name_read_back(tmp_path: Path, fmt: str) -> None:
    graph = nasty_graph()
    if fmt == "graphml":
        back = nx.read_graphml(write_graphml(graph, tmp_path / "g.graphml"))
        names = {n: back.nodes[n]["canonical_name"] for n in back.nodes}
    else:
        back = nx.read_gexf(write_gexf(graph, tmp_path / "g.gexf"))
        names = {n: back.nodes[n]["canonical_name"] for n in back.nodes}
    assert (back.number_of_nodes(), back.number_of_edges()) == (12, 20)
    for entity in graph.entities:
        assert names[entity.entity_id] == _expected_xml_text(entity.canonical_name)
    # what XML can carry arrives unchanged: specials, quotes, backticks, $ and the bidi controls
    assert names["ent_01"] == 'Tom <& "Jerry"' and names["ent_03"] == "Cash $^_$ Bill"
    assert names["ent_06"] == "\u202eRTL override\u202c and \u2067isolate\u2069"
    assert names["ent_04"] == "Esc\ufffd[31mRed\ufffd[0m"


def test_issue_11_png_draws_names_with_dollars_and_control_characters(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    path = draw_png(nasty_graph(), tmp_path / "nasty.png", top_n=12, title="Cost: $^_$ \x1b")
    with Image.open(path) as image:
        image.verify()
        assert image.format == "PNG"


def test_issue_11_html_escapes_every_name() -> None:
    page = render_html(nasty_graph(), top_n=12, title="<b>&</b>")
    assert "<b>&</b>" not in page and "&lt;b&gt;&amp;&lt;/b&gt;" in page
    assert "Tom &lt;&amp; &quot;Jerry&quot;" in page and "<&" not in page
    assert "O&#x27;Brien `rm -rf`" in page


def test_typed_relations_are_attributes_of_their_pairs_edges(tmp_path: Path) -> None:
    """The fixture's typed relations (graph/testing/fixtures.py TYPED_RELATIONS) read back from both files: each
    pair's rows in both directions, the highest confidence; ent_99's row (no entity) is left out; ent_06 and ent_07
    are related and co-occur, ent_01 and ent_03 likewise."""
    for back in (
        nx.read_graphml(write_graphml(small_graph(), tmp_path / "graph.graphml")),
        nx.read_gexf(write_gexf(small_graph(), tmp_path / "graph.gexf")),
    ):
        related = {tuple(sorted((u, v))): d["relations"] for u, v, d in back.edges(data=True) if "relations" in d}
        assert related == {
            ("ent_01", "ent_02"): "ent_01 child ent_02; ent_02 parent ent_01",
            ("ent_02", "ent_03"): "ent_02 parent ent_03; ent_03 child ent_02",
            ("ent_01", "ent_03"): "ent_01 sibling ent_03; ent_03 sibling ent_01",
            ("ent_03", "ent_04"): "ent_03 spouse ent_04; ent_04 spouse ent_03",
            ("ent_03", "ent_05"): "ent_03 engaged ent_05; ent_05 engaged ent_03",
            ("ent_06", "ent_07"): "ent_06 parent ent_07; ent_07 child ent_06",
        }
        assert back.edges["ent_02", "ent_03"]["relation_confidence"] == pytest.approx(0.84)
        assert back.edges["ent_06", "ent_07"]["weight"] == pytest.approx(0.9)  # the co-occurrence is kept


def test_a_related_pair_that_never_co_occurs_gets_an_edge_of_its_relations_only(tmp_path: Path) -> None:
    graph = small_graph()
    apart = graph.model_copy(
        update={"relations": [r for r in graph.relations if (r.src_id, r.dst_id) != ("ent_06", "ent_07")]}
    )
    back = nx.read_graphml(write_graphml(apart, tmp_path / "apart.graphml"))
    assert back.edges["ent_06", "ent_07"] == {
        "relations": "ent_06 parent ent_07; ent_07 child ent_06",
        "relation_confidence": pytest.approx(0.6),
    }
    # the pictures draw co-occurrences only
    assert not top_subgraph(apart, 12).has_edge("ent_06", "ent_07")

"""Looking at the graph: GraphML / GEXF files (for Gephi) and a picture of the top entities (PNG and an HTML page).

The picture shows the ``top_n`` entities by PageRank and the co-occurrences among them: node area follows PageRank,
colour follows community, edge width follows weight. The layout is networkx's spring layout with a fixed seed, so
the same graph always gives the same picture. The HTML page is one self-contained file with an inline SVG (no
script, no network): open it in any browser; hovering a node or an edge shows its numbers.

Names come from the books and may hold anything. XML 1.0 forbids most control characters (and lone surrogates,
U+FFFE, U+FFFF) even escaped, so GraphML and GEXF get them replaced by U+FFFD — otherwise networkx and Gephi cannot
read the file back. Bidi controls are legal XML and stay. The PNG's labels get the same replacement (the font
renderer refuses lone surrogates) and matplotlib's mathtext (``$…$``) is switched off, so a ``$`` in a name is a
dollar sign and not a parse error.

matplotlib is imported only by ``draw_png`` (an optional dependency: ``pip install matplotlib``).
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path
from typing import Any

import networkx as nx

from graph.model import GraphData

logger = logging.getLogger(__name__)

LAYOUT_SEED = 7
_PALETTE = [  # colour-blind-friendly (Okabe–Ito, then Tol's muted), by community number modulo its length
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#332288", "#88CCEE", "#44AA99",
    "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499",
]
_OTHER = "#BBBBBB"  # entities without a community (-1)
# Characters XML 1.0 does not allow (its Char production), escaped or not.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def community_colour(community: int) -> str:
    """The colour of a community in every picture."""
    return _OTHER if community < 0 else _PALETTE[community % len(_PALETTE)]


def to_networkx(graph: GraphData, *, typed: bool = True) -> nx.Graph:
    """The entity graph with file-friendly attributes: lists joined with ``"; "``, no ``None`` values.

    GraphML and GEXF hold only scalar attributes, hence the joined lists (aliases, chunk ids, unit ids). With
    ``typed``, the typed relations between two entities (``relations`` rows, both directions) are attributes of
    their pair's edge: ``relations``, each written "SRC TYPE DST" (read "src is the TYPE of dst", entity ids) and
    joined with ``"; "``, and ``relation_confidence``, the highest of theirs; a pair related but never together in
    the co-occurrence window gets an edge of its own with these two attributes only.
    """
    result = nx.Graph()
    for entity in sorted(graph.entities, key=lambda e: e.entity_id):
        result.add_node(entity.entity_id, **_scalars(entity.model_dump(exclude={"entity_id"})))
    for edge in sorted(graph.relations, key=lambda r: (r.src_id, r.dst_id)):
        if edge.src_id in result and edge.dst_id in result:
            result.add_edge(edge.src_id, edge.dst_id, **_scalars(edge.model_dump(exclude={"src_id", "dst_id"})))
    if typed:
        _add_typed_relations(result, graph)
    return result


def _add_typed_relations(result: nx.Graph, graph: GraphData) -> None:
    """The typed relations of ``graph`` between entities of ``result``, as attributes of their pairs' edges."""
    by_pair: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for row in graph.typed_relations:
        if row.src_id in result and row.dst_id in result:
            pair = (min(row.src_id, row.dst_id), max(row.src_id, row.dst_id))
            by_pair.setdefault(pair, []).append((f"{row.src_id} {row.type} {row.dst_id}", row.confidence))
    for (a, b), rows in sorted(by_pair.items()):
        if not result.has_edge(a, b):
            result.add_edge(a, b)
        result.edges[a, b]["relations"] = "; ".join(sorted(text for text, _ in rows))
        result.edges[a, b]["relation_confidence"] = max(confidence for _, confidence in rows)


def _scalars(values: dict[str, Any]) -> dict[str, Any]:
    return {
        key: "; ".join(map(str, value)) if isinstance(value, list) else value
        for key, value in values.items()
        if value is not None
    }


def xml_text(value: str) -> str:
    """``value`` with every character XML 1.0 forbids replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", value)


def _xml_safe(graph: nx.Graph) -> nx.Graph:
    """A copy of ``graph`` whose node ids and string attributes are all legal XML text."""
    def clean(values: dict[str, Any]) -> dict[str, Any]:
        return {key: xml_text(v) if isinstance(v, str) else v for key, v in values.items()}

    safe = nx.Graph()
    safe.add_nodes_from((xml_text(str(n)), clean(attrs)) for n, attrs in graph.nodes(data=True))
    safe.add_edges_from((xml_text(str(u)), xml_text(str(v)), clean(attrs)) for u, v, attrs in graph.edges(data=True))
    return safe


def write_graphml(graph: GraphData, path: Path) -> Path:
    """Write the entity graph as GraphML; returns the path.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nx.write_graphml(_xml_safe(to_networkx(graph)), path)
    return path


def write_gexf(graph: GraphData, path: Path) -> Path:
    """Write the entity graph as GEXF (Gephi's format); returns the path.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nx.write_gexf(_xml_safe(to_networkx(graph)), path)
    return path


def top_subgraph(graph: GraphData, top_n: int = 40) -> nx.Graph:
    """The ``top_n`` connected entities by PageRank (ties: id) and the co-occurrences among them.

    Entities without any co-occurrence are left out: a picture of relations has nothing to say about them.
    """
    if top_n < 1:
        raise ValueError(f"top_n must be at least 1, got {top_n!r}")
    full = to_networkx(graph, typed=False)
    connected = [n for n in full.nodes if full.degree(n) > 0]
    chosen = sorted(connected, key=lambda n: (-full.nodes[n].get("pagerank", 0.0), n))[:top_n]
    return full.subgraph(chosen).copy()


def _layout(sub: nx.Graph) -> dict[str, tuple[float, float]]:
    """Positions in [0, 1]², deterministic."""
    if sub.number_of_nodes() == 0:
        return {}
    if sub.number_of_nodes() == 1:
        return {next(iter(sub.nodes)): (0.5, 0.5)}
    # uniform springs: weighted ones pull strong pairs on top of each other and hide their labels
    raw = nx.spring_layout(sub, weight=None, k=2.0 / sub.number_of_nodes() ** 0.5, seed=LAYOUT_SEED, iterations=300)
    xs, ys = [p[0] for p in raw.values()], [p[1] for p in raw.values()]
    span_x, span_y = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    return {n: ((x - min(xs)) / span_x, (y - min(ys)) / span_y) for n, (x, y) in raw.items()}


def _sizes(sub: nx.Graph, smallest: float, largest: float) -> dict[str, float]:
    ranks = {n: float(sub.nodes[n].get("pagerank", 0.0)) for n in sub.nodes}
    low, high = min(ranks.values(), default=0.0), max(ranks.values(), default=0.0)
    spread = (high - low) or 1.0
    return {n: smallest + (largest - smallest) * (r - low) / spread for n, r in ranks.items()}


def draw_png(graph: GraphData, path: Path, *, top_n: int = 40, title: str = "") -> Path:
    """Draw the top entities' network to a PNG file; returns the path."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on a server
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("draw_png needs matplotlib: pip install 'matplotlib>=3.8'") from exc
    sub = top_subgraph(graph, top_n)
    positions = _layout(sub)
    sizes = _sizes(sub, 80.0, 1600.0)
    figure, axes = plt.subplots(figsize=(12, 9), dpi=100)
    try:
        top_weight = max((d["weight"] for _, _, d in sub.edges(data=True)), default=1.0) or 1.0
        for u, v, data in sub.edges(data=True):
            (x1, y1), (x2, y2) = positions[u], positions[v]
            axes.plot([x1, x2], [y1, y2], color="#888888", alpha=0.5, zorder=1,
                      linewidth=0.5 + 4.0 * data["weight"] / top_weight)
        nodes = list(sub.nodes)
        axes.scatter(
            [positions[n][0] for n in nodes], [positions[n][1] for n in nodes], s=[sizes[n] for n in nodes],
            c=[community_colour(int(sub.nodes[n].get("community", -1))) for n in nodes], edgecolors="white",
            linewidths=1.0, zorder=2,
        )
        for n in nodes:
            # the font renderer takes no lone surrogates and draws no control characters: the XML-safe text
            axes.annotate(xml_text(str(sub.nodes[n].get("canonical_name", n))), positions[n], fontsize=8,
                          ha="center", va="bottom", xytext=(0, 7), textcoords="offset points", zorder=3,
                          parse_math=False)
        heading = xml_text(title) or f"Top {len(nodes)} entities (size: PageRank, colour: community)"
        axes.set_title(heading, parse_math=False)
        axes.set_axis_off()
        axes.margins(0.08)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, format="png", bbox_inches="tight")
    finally:
        plt.close(figure)
    return path


def render_html(graph: GraphData, *, top_n: int = 40, title: str = "") -> str:
    """A self-contained HTML page with an inline SVG of the top entities' network."""
    sub = top_subgraph(graph, top_n)
    width, height, margin = 1000, 750, 60
    positions = {
        n: (margin + x * (width - 2 * margin), margin + (1 - y) * (height - 2 * margin))
        for n, (x, y) in _layout(sub).items()
    }
    radii = _sizes(sub, 5.0, 28.0)
    top_weight = max((d["weight"] for _, _, d in sub.edges(data=True)), default=1.0) or 1.0
    heading = html.escape(title or f"Top {sub.number_of_nodes()} entities")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{heading}</title>",
        "<style>body{font-family:sans-serif;margin:1em}svg{border:1px solid #ddd;background:#fff}"
        "line{stroke:#888;stroke-opacity:.5}circle{stroke:#fff;stroke-width:1.5}circle:hover{stroke:#000}"
        "text{font-size:11px;pointer-events:none}</style></head><body>",
        f"<h1>{heading}</h1><p>Circle area: PageRank · colour: community · line width: co-occurrence weight. "
        "Hover for numbers.</p>",
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
    ]
    for u, v, data in sorted(sub.edges(data=True), key=lambda e: (e[0], e[1])):
        (x1, y1), (x2, y2) = positions[u], positions[v]
        tip = html.escape(
            f"{sub.nodes[u].get('canonical_name', u)} – {sub.nodes[v].get('canonical_name', v)}: "
            f"count {data.get('count', '')}, weight {data['weight']:.3f}"
        )
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke-width="{0.5 + 5.0 * data["weight"] / top_weight:.2f}"><title>{tip}</title></line>'
        )
    for n in sorted(sub.nodes):
        x, y = positions[n]
        attrs = sub.nodes[n]
        name = html.escape(str(attrs.get("canonical_name", n)))
        tip = html.escape(
            f"{attrs.get('canonical_name', n)} ({attrs.get('label', '')}): pagerank {attrs.get('pagerank', 0.0):.4f}, "
            f"degree {attrs.get('degree', 0)}, mentions {attrs.get('mention_count', 0)}, "
            f"community {attrs.get('community', -1)}"
        )
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radii[n]:.1f}" '
            f'fill="{community_colour(int(attrs.get("community", -1)))}"><title>{tip}</title></circle>'
        )
        parts.append(f'<text x="{x:.1f}" y="{y - radii[n] - 3:.1f}" text-anchor="middle">{name}</text>')
    parts.append("</svg></body></html>")
    return "\n".join(parts)


def write_html(graph: GraphData, path: Path, *, top_n: int = 40, title: str = "") -> Path:
    """Write ``render_html`` to a file; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(graph, top_n=top_n, title=title), encoding="utf-8")
    return path

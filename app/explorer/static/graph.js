// The neighbourhood graph, drawn and laid out by Cytoscape.js (npm, served from /explorer/vendor/).

import cytoscape from "./vendor/cytoscape/cytoscape.esm.mjs";

// Size by importance (app/domain/model.py's levels, lowest first).
const IMPORTANCE_SIZE = { TRIVIAL: 14, NORMAL: 20, IMPORTANT: 28, FACT: 34, IDENTITY: 40, MUST_REMEMBER: 46 };
// Structural relationships (protected: never decayed or pruned) are dashed; learned ones solid.
const STRUCTURAL = new Set(["HIERARCHY", "DEPENDENCY", "TEMPORAL"]);

const STYLE = [
  {
    selector: "node",
    style: {
      label: "data(label)",
      "font-size": 9,
      "text-wrap": "ellipsis",
      "text-max-width": 110,
      color: "#333",
      width: "data(size)",
      height: "data(size)",
      // Activation 0 (cold, blue) -> 1 (hot, red).
      "background-color": "mapData(activation, 0, 1, #3b6fd6, #e0452b)",
      "border-width": 1,
      "border-color": "#fff",
    },
  },
  { selector: "node.superseded", style: { "background-color": "#b5b5b5", color: "#999", "border-style": "dashed" } },
  { selector: "node.centre", style: { "border-width": 3, "border-color": "#222" } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#f2b705" } },
  {
    selector: "edge",
    style: {
      width: "mapData(weight, 0, 1, 1, 6)",
      "line-color": "#9aa6b2",
      "curve-style": "bezier",
      "target-arrow-shape": "triangle",
      "target-arrow-color": "#9aa6b2",
      "arrow-scale": 0.6,
    },
  },
  { selector: "edge.structural", style: { "line-style": "dashed", "line-color": "#5a6470", width: 1.5 } },
];

function nodeData(item) {
  return {
    group: "nodes",
    data: {
      id: item.id,
      label: item.summary || item.label || item.id,
      type: item.type,
      activation: item.activation ?? 0,
      importance: item.importance,
      size: IMPORTANCE_SIZE[item.importance] ?? 20,
    },
    classes: item.superseded || item.superseded_by ? "superseded" : "",
  };
}

function edgeData(edge) {
  const structural = STRUCTURAL.has(edge.type) || edge.properties?.protected;
  return {
    group: "edges",
    data: {
      id: `${edge.source_id}|${edge.type}|${edge.target_id}`,
      source: edge.source_id,
      target: edge.target_id,
      type: edge.type,
      weight: edge.properties?.weight ?? 1,
    },
    classes: structural ? "structural" : "learned",
  };
}

export class NeighbourhoodGraph {
  constructor(container, { onSelect }) {
    this.cy = cytoscape({ container, style: STYLE, elements: [], wheelSensitivity: 0.3, minZoom: 0.2, maxZoom: 3 });
    this.cy.on("tap", "node", (event) => onSelect(event.target.id()));
  }

  // Draw `centre` (a node view) and its neighbourhood (a /related answer with edges); resolves once
  // the laid-out graph's first frame is drawn.
  show(centre, neighbourhood) {
    this.cy.elements().remove();
    this.add(centre, neighbourhood);
    this.cy.getElementById(centre.id).addClass("centre");
    return this.layout();
  }

  // Add a node's neighbourhood to what is drawn (expanding on click).
  expand(centre, neighbourhood) {
    const before = this.cy.nodes().length;
    this.add(centre, neighbourhood);
    return before === this.cy.nodes().length ? Promise.resolve() : this.layout();
  }

  add(centre, neighbourhood) {
    const fresh = (el) => this.cy.getElementById(el.data.id).empty();
    const nodes = [centre, ...neighbourhood.items].map(nodeData).filter(fresh);
    this.cy.add(nodes);
    const edges = (neighbourhood.edges || []).map(edgeData).filter(fresh);
    this.cy.add(edges);
  }

  layout() {
    return new Promise((resolve) => {
      const layout = this.cy.layout({ name: "cose", animate: false, randomize: false, nodeDimensionsIncludeLabels: false });
      layout.one("layoutstop", () => requestAnimationFrame(() => resolve()));
      layout.run();
    });
  }

  get nodeCount() { return this.cy.nodes().length; }
  get edgeCount() { return this.cy.edges().length; }
  select(id) {
    this.cy.nodes().unselect();
    this.cy.getElementById(id).select();
  }
}

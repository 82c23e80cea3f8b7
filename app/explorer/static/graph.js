// The neighbourhood graph, drawn and laid out by Cytoscape.js (npm, served from /explorer/vendor/).

import cytoscape from "./vendor/cytoscape/cytoscape.esm.mjs";

// Size by importance (app/domain/model.py's levels, lowest first).
const IMPORTANCE_SIZE = { TRIVIAL: 14, NORMAL: 20, IMPORTANT: 28, FACT: 34, IDENTITY: 40, MUST_REMEMBER: 46 };
// Structural relationships (protected: never decayed or pruned) are dashed; learned ones solid.
const STRUCTURAL = new Set(["HIERARCHY", "DEPENDENCY", "TEMPORAL"]);
// Node type by shape (app/domain/model.py's nine types); the legend draws the same shapes.
export const TYPE_SHAPES = {
  Person: "ellipse", Dialogue: "round-rectangle", Knowledge: "diamond", Experience: "star", Episode: "rectangle",
  Concept: "hexagon", Task: "triangle", File: "pentagon", Document: "octagon",
};
// Activation colour, relative to the nodes shown: the least activated blue, the most red. Fresh data has
// every node near 1 (nothing decayed yet), so an absolute scale painted everything red.
export const COLD = "#3b6fd6";
export const HOT = "#e0452b";

const STYLE = [
  {
    selector: "node",
    style: {
      label: "", // only on hover, and for the focused node and its neighbours (below)
      shape: "data(shape)",
      "font-size": 9,
      "text-wrap": "ellipsis",
      "text-max-width": 110,
      color: "#333",
      width: "data(size)",
      height: "data(size)",
      "background-color": `mapData(heat, 0, 1, ${COLD}, ${HOT})`,
      "border-width": 1,
      "border-color": "#fff",
    },
  },
  { selector: "node.labelled, node.hovered", style: { label: "data(label)", "z-index": 10 } },
  { selector: "node.hovered", style: { "font-size": 11, "text-background-color": "#fff", "text-background-opacity": 0.85 } },
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
      shape: TYPE_SHAPES[item.type] ?? "ellipse",
      activation: item.activation ?? 0,
      heat: 0.5,
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
  // `onChange({types, activation: {min, max}})` after every change of what is drawn (the legend).
  constructor(container, { onSelect, onChange = () => {} }) {
    this.cy = cytoscape({ container, style: STYLE, elements: [], wheelSensitivity: 0.3, minZoom: 0.2, maxZoom: 3 });
    this.onChange = onChange;
    this.cy.on("tap", "node", (event) => onSelect(event.target.id()));
    this.cy.on("mouseover", "node", (event) => event.target.addClass("hovered"));
    this.cy.on("mouseout", "node", (event) => event.target.removeClass("hovered"));
  }

  // Draw `centre` (a node view) and its neighbourhood (a /related answer with edges); resolves once
  // the laid-out graph's first frame is drawn.
  show(centre, neighbourhood) {
    this.cy.elements().remove();
    this.add(centre, neighbourhood);
    this.cy.getElementById(centre.id).addClass("centre");
    this.focus(centre.id);
    return this.layout();
  }

  // Add a node's neighbourhood to what is drawn (expanding on click).
  expand(centre, neighbourhood) {
    const before = this.cy.nodes().length;
    this.add(centre, neighbourhood);
    this.focus(centre.id); // its new neighbours get their labels too
    return before === this.cy.nodes().length ? Promise.resolve() : this.layout();
  }

  add(centre, neighbourhood) {
    const fresh = (el) => this.cy.getElementById(el.data.id).empty();
    const nodes = [centre, ...neighbourhood.items].map(nodeData).filter(fresh);
    this.cy.add(nodes);
    const edges = (neighbourhood.edges || []).map(edgeData).filter(fresh);
    this.cy.add(edges);
    this.rescale();
  }

  // Heat 0..1: each node's activation between the least and the most activated node shown.
  rescale() {
    const nodes = this.cy.nodes();
    const values = nodes.map((node) => node.data("activation"));
    const min = Math.min(...values);
    const max = Math.max(...values);
    nodes.forEach((node) => node.data("heat", max > min ? (node.data("activation") - min) / (max - min) : 0.5));
    const types = [...new Set(nodes.map((node) => node.data("type")))].sort();
    this.onChange({ types, activation: { min, max } });
  }

  // Labels for the focused node and its neighbours only (the others on hover).
  focus(id) {
    this.cy.nodes().removeClass("labelled");
    this.cy.getElementById(id).closedNeighborhood().nodes().addClass("labelled");
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
    this.focus(id);
  }
}

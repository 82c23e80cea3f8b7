// The graph's legend: node types by the shapes graph.js draws them with, and the activation colour scale
// over the nodes shown (its least and most activated values).

import { element } from "./charts.js";
import { COLD, HOT, TYPE_SHAPES } from "./graph.js";

const SVG = "http://www.w3.org/2000/svg";
const SIZE = 16;

function polygon(sides, rotation = -Math.PI / 2, inner = null) {
  const c = SIZE / 2;
  const points = [];
  const count = inner ? sides * 2 : sides;
  for (let i = 0; i < count; i += 1) {
    const r = inner && i % 2 ? inner : c - 1;
    const angle = rotation + (2 * Math.PI * i) / count;
    points.push(`${(c + r * Math.cos(angle)).toFixed(1)},${(c + r * Math.sin(angle)).toFixed(1)}`);
  }
  return ["polygon", { points: points.join(" ") }];
}

// Each Cytoscape shape of TYPE_SHAPES as an SVG element of the legend.
const SHAPES = {
  ellipse: ["circle", { cx: SIZE / 2, cy: SIZE / 2, r: SIZE / 2 - 1 }],
  rectangle: ["rect", { x: 1, y: 2, width: SIZE - 2, height: SIZE - 4 }],
  "round-rectangle": ["rect", { x: 1, y: 2, width: SIZE - 2, height: SIZE - 4, rx: 3 }],
  diamond: polygon(4),
  triangle: polygon(3),
  pentagon: polygon(5),
  hexagon: polygon(6, 0),
  octagon: polygon(8, Math.PI / 8),
  star: polygon(5, -Math.PI / 2, 2.8),
};

export function shapeIcon(shape) {
  const icon = document.createElementNS(SVG, "svg");
  icon.setAttribute("width", SIZE);
  icon.setAttribute("height", SIZE);
  icon.setAttribute("viewBox", `0 0 ${SIZE} ${SIZE}`);
  icon.setAttribute("class", "shape");
  icon.setAttribute("data-shape", shape);
  const [tag, attributes] = SHAPES[shape] ?? SHAPES.ellipse;
  const drawn = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) drawn.setAttribute(name, value);
  icon.append(drawn);
  return icon;
}

// Enough decimals to tell the two ends apart (fresh nodes differ in the third or fourth decimal).
function ends(min, max) {
  const spread = max - min;
  const digits = spread > 0 ? Math.min(6, Math.max(2, Math.ceil(-Math.log10(spread)) + 1)) : 2;
  return [min.toFixed(digits), max.toFixed(digits)];
}

// `types`: the node types drawn; `activation`: the least and most activation drawn.
export function graphLegend({ types, activation }) {
  const entries = types.map((type) => element("li", { "data-type": type }, shapeIcon(TYPE_SHAPES[type] ?? "ellipse"), type));
  const scale = element("span", { class: "scale" });
  scale.style.background = `linear-gradient(to right, ${COLD}, ${HOT})`;
  const [low, high] = Number.isFinite(activation.min) ? ends(activation.min, activation.max) : ["", ""];
  const range = [element("span", { class: "min" }, low), scale, element("span", { class: "max" }, high)];
  return [
    element("ul", { class: "types" }, entries),
    element("p", { class: "activation", "data-min": activation.min, "data-max": activation.max },
      "activation ", ...range, " (least to most activated node shown)"),
  ];
}

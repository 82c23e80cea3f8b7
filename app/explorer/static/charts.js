// Small drawings without a library: a recall card's score parts as bars, and a decay curve as SVG.

const SVG = "http://www.w3.org/2000/svg";

export function element(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") el.className = value;
    else if (name.startsWith("data-") || name === "title" || name === "role") el.setAttribute(name, value);
    else el[name] = value;
  }
  for (const child of children.flat()) {
    if (child != null) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

function svg(tag, attributes = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  return el;
}

// `explain` holds the parts of a card's score (text, vector, activation, recency, ...): one bar each,
// scaled to the largest part of the card, the value written beside it.
export function scoreBars(explain) {
  const parts = Object.entries(explain || {}).filter(([, value]) => typeof value === "number");
  const largest = Math.max(1e-9, ...parts.map(([, value]) => Math.abs(value)));
  const rows = parts.flatMap(([name, value]) => {
    const bar = element("span", { class: value < 0 ? "bar negative" : "bar" });
    bar.style.width = `${(100 * Math.abs(value)) / largest}%`;
    return [element("dt", {}, name), element("dd", {}, bar, element("span", { class: "value" }, value.toFixed(3)))];
  });
  return element("dl", { class: "explain" }, rows);
}

// The projected activation (GET …/nodes/{id}/decay) with the soft-forget threshold as a red line.
export function decayChart(curve, width = 320, height = 120) {
  const pad = 24;
  const hours = curve.points.at(-1).hours || 1;
  const x = (h) => pad + ((width - 2 * pad) * h) / hours;
  const y = (a) => height - pad - (height - 2 * pad) * Math.min(1, Math.max(0, a));
  const chart = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "decay", role: "img" });
  chart.append(svg("line", { x1: pad, y1: y(0), x2: width - pad, y2: y(0), class: "axis" }));
  chart.append(svg("line", { x1: pad, y1: y(0), x2: pad, y2: y(1), class: "axis" }));
  const threshold = svg("line", {
    x1: pad, x2: width - pad, y1: y(curve.soft_forget_threshold), y2: y(curve.soft_forget_threshold),
    class: "soft-forget",
  });
  chart.append(threshold);
  const path = curve.points.map((p, i) => `${i ? "L" : "M"}${x(p.hours).toFixed(1)},${y(p.activation).toFixed(1)}`);
  chart.append(svg("path", { d: path.join(" "), class: "curve", "data-points": curve.points.length }));
  const label = (text, tx, ty, anchor = "start") => {
    const t = svg("text", { x: tx, y: ty, "text-anchor": anchor });
    t.textContent = text;
    chart.append(t);
  };
  label("1", pad - 4, y(1) + 4, "end");
  label("0", pad - 4, y(0) + 4, "end");
  label(`${Math.round(hours / 24)} d`, width - pad, height - 6, "end");
  label("now", pad, height - 6);
  label(`soft-forget ${curve.soft_forget_threshold}`, width - pad, y(curve.soft_forget_threshold) - 4, "end");
  return chart;
}

// When the curve first falls below the threshold, in days (null: not within the projection).
export function forgottenInDays(curve) {
  const below = curve.points.find((p) => p.activation < curve.soft_forget_threshold);
  return below ? below.hours / 24 : null;
}

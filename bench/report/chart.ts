// Inline SVG charts: per benchmark, the ratio of every pair as a dot, the median as a grey line
// and the goal as a dashed line (green when met, red when not). No scripts, no external files.
import { fmt } from "../core/run.js";
import type { BenchResult } from "../core/types.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export const chartW = 380;
export const chartH = 190;

/** One chart as an <svg> element (or a <g> placed at x,y when nested in a grid). */
export function ratioChart(r: BenchResult, at?: { x: number; y: number }): string {
  const pad = { l: 44, r: 12, t: 34, b: 26 };
  const w = chartW - pad.l - pad.r;
  const h = chartH - pad.t - pad.b;
  const ratios = r.pairs.map((p) => p.ratio).filter(Number.isFinite);
  const goal = r.goalValue;
  const top = Math.max(...ratios, goal ?? 0, 0.001) * 1.2;
  const y = (v: number) => pad.t + h - (v / top) * h;
  const x = (i: number) => pad.l + (ratios.length <= 1 ? w / 2 : (i / (ratios.length - 1)) * w);
  const colour = r.pass === undefined ? "#888" : r.pass ? "#1a7f37" : "#cf222e";
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${chartW}" height="${chartH}" fill="#fff" stroke="#ddd"/>`);
  parts.push(`<text x="8" y="15" font-size="12" font-weight="bold">${esc(r.name)} ${r.pass === undefined ? "" : r.pass ? "✓" : "✗"}</text>`);
  parts.push(`<text x="8" y="28" font-size="10" fill="#555">${esc(r.title.slice(0, 64))}</text>`);
  // Axis with three ticks: 0, half, top.
  for (const v of [0, top / 2, top]) {
    parts.push(`<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`);
    parts.push(`<text x="${pad.l - 4}" y="${y(v) + 3}" font-size="9" text-anchor="end" fill="#777">${fmt(v)}</text>`);
  }
  if (goal !== undefined) {
    parts.push(`<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(goal)}" y2="${y(goal)}" stroke="${colour}" stroke-dasharray="5 3" stroke-width="1.5"/>`);
    parts.push(`<text x="${pad.l + w}" y="${y(goal) - 3}" font-size="9" text-anchor="end" fill="${colour}">goal ${esc(r.goal.op)} ${fmt(goal)}</text>`);
  }
  if (r.ratio) parts.push(`<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(r.ratio.median)}" y2="${y(r.ratio.median)}" stroke="#999"/>`);
  if (ratios.length > 1) parts.push(`<polyline fill="none" stroke="#0969da" stroke-width="1" points="${ratios.map((v, i) => `${x(i)},${y(v)}`).join(" ")}"/>`);
  ratios.forEach((v, i) => {
    parts.push(`<circle cx="${x(i)}" cy="${y(v)}" r="3.5" fill="#0969da"><title>pair ${i + 1}: ${fmt(v)}</title></circle>`);
    parts.push(`<text x="${x(i)}" y="${pad.t + h + 14}" font-size="9" text-anchor="middle" fill="#777">${i + 1}</text>`);
  });
  if (r.error) parts.push(`<text x="${pad.l}" y="${pad.t + h / 2}" font-size="11" fill="#cf222e">failed: ${esc(r.error.split("\n")[0].slice(0, 50))}</text>`);
  const label = r.ratio ? `ratio median ${fmt(r.ratio.median)} (${r.better === "higher" ? "higher" : "lower"} is better)` : "";
  parts.push(`<text x="${pad.l}" y="${chartH - 4}" font-size="9" fill="#555">pair →   ${esc(label)}</text>`);
  const body = parts.join("");
  return at
    ? `<g transform="translate(${at.x},${at.y})">${body}</g>`
    : `<svg xmlns="http://www.w3.org/2000/svg" width="${chartW}" height="${chartH}" viewBox="0 0 ${chartW} ${chartH}" font-family="sans-serif">${body}</svg>`;
}

/** All charts in one SVG, two per row: the picture for the README. */
export function chartGrid(results: BenchResult[]): string {
  const cols = 2;
  const rows = Math.ceil(results.length / cols);
  const gap = 8;
  const W = cols * chartW + (cols - 1) * gap;
  const H = rows * chartH + (rows - 1) * gap;
  const cells = results.map((r, i) => ratioChart(r, { x: (i % cols) * (chartW + gap), y: Math.floor(i / cols) * (chartH + gap) }));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">${cells.join("")}</svg>\n`;
}

// A self-contained HTML report: charts first (a person looks at a chart before reading a table),
// then the summary table, then every pair with both CPUs and details.
import { fmt, type RunReport } from "../core/run.js";
import { mark } from "../core/stats.js";
import type { Measurement } from "../core/types.js";
import { ratioChart } from "./chart.js";
import { machineLine } from "./machine.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function cell(m: Measurement, unit: string): string {
  const server = m.serverCpuPct ? `server ${Math.round(m.serverCpuPct)}%${m.serverCpuUsPerOp ? ` = ${fmt(m.serverCpuUsPerOp)} µs/op` : ""}` : "";
  const cpu = [m.clientCpuPct ? `client ${Math.round(m.clientCpuPct)}%` : "", server].filter(Boolean).join(", ");
  const detail = Object.entries(m.detail ?? {}).map(([k, v]) => `${k} ${typeof v === "number" ? fmt(v) : v}`).join(", ");
  return `<td>${fmt(m.value)} ${esc(unit)}<br><small>${esc([cpu && `CPU ${cpu}`, detail].filter(Boolean).join(" · "))}</small></td>`;
}

export function html(rep: RunReport): string {
  const charts = rep.results.map((r) => `<figure>${ratioChart(r)}</figure>`).join("\n");
  const summary = rep.results
    .map((r) =>
      r.ratio && r.api && r.anchor
        ? `<tr><td>${esc(r.title)}</td><td>${fmt(r.api.median)} ${esc(r.unit)}</td><td>${fmt(r.anchor.median)} ${esc(r.unit)}</td><td><b>${fmt(r.ratio.median)}</b> (${fmt(r.ratio.min)}–${fmt(r.ratio.max)})</td><td>${r.cpuRatio ? fmt(r.cpuRatio.median) : "–"}</td><td>${r.judgedBy === "cpu" ? `server CPU/op ≤ ${r.goalValue === undefined ? "?" : fmt(r.goalValue)} (client saturated; figure: ${esc(r.goal.text)})` : `${esc(r.goal.text)}${r.goalValue !== undefined && r.goal.relativeTo ? ` (${r.goal.op} ${fmt(r.goalValue)})` : ""}`}</td><td>${mark(r.pass)}</td></tr>`
        : `<tr><td>${esc(r.title)}</td><td colspan="6">failed: ${esc((r.error ?? "").split("\n")[0])}</td></tr>`,
    )
    .join("\n");
  const details = rep.results
    .map(
      (r) => `<h3>${esc(r.name)}: ${esc(r.title)}</h3><p>anchor: ${esc(r.anchorTitle)}</p>
<ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>
${r.error ? `<pre>${esc(r.error)}</pre>` : ""}
<table><tr><th>pair</th><th>kapi</th><th>anchor</th><th>ratio</th><th>server CPU/op ratio</th></tr>
${r.pairs.map((p, i) => `<tr><td>${i + 1}</td>${cell(p.api, r.unit)}${cell(p.anchor, r.unit)}<td>${fmt(p.ratio)}</td><td>${p.cpuRatio ? fmt(p.cpuRatio) : "–"}</td></tr>`).join("\n")}</table>`,
    )
    .join("\n");
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>kapi bench ${esc(rep.startedAt)}</title>
<style>body{font-family:sans-serif;margin:2em;max-width:1200px}figure{display:inline-block;margin:4px}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}small{color:#666}</style>
</head><body>
<h1>kapi bench</h1>
<p>${esc(machineLine(rep.machine))}<br><code>${esc(rep.command)}</code> · ${esc(rep.startedAt)} · ${rep.options.pairs} pairs × ${rep.options.durationMs} ms</p>
<p>Each chart: the ratio kapi/anchor of every pair (dots), its median (grey) and the goal (dashed; green when the median meets it, red when not).</p>
${charts}
<h2>Summary</h2>
<table><tr><th>benchmark</th><th>kapi (median)</th><th>anchor (median)</th><th>ratio median (min–max)</th><th>server CPU/op ratio</th><th>goal</th><th></th></tr>
${summary}</table>
<h2>Pairs</h2>
${details}
</body></html>
`;
}

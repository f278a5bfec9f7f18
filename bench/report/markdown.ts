// The README-ready table (bench/results/LATEST.md): figures, ratios, goals, machine, command.
import { fmt, type RunReport } from "../core/run.js";
import { mark } from "../core/stats.js";
import { machineLine } from "./machine.js";

export function markdown(rep: RunReport, chartFile?: string): string {
  const lines: string[] = [];
  lines.push(`Every figure is kapi's divided by an anchor's measured in the same run, alternately (kapi, anchor, kapi, anchor, … ${rep.options.pairs} pairs of ${rep.options.durationMs / 1000} s runs); the ratio columns are the median and range over the pairs. Server CPU/op ratio: kapi's server CPU per operation over the anchor's (throughput cases); it is the judged figure, against the goal said of CPU, when the load client passed 90% of a core.`);
  lines.push("");
  lines.push("| benchmark | kapi (median) | anchor (median) | ratio median (min–max) | server CPU/op ratio | goal | | load client CPU (max) |");
  lines.push("|---|---:|---:|---:|---:|---|:-:|---:|");
  for (const r of rep.results) {
    if (!r.ratio || !r.api || !r.anchor) {
      lines.push(`| ${r.title} | failed | | | | ${r.goal.text} | – | |`);
      continue;
    }
    const byCpu = r.judgedBy === "cpu";
    const goal = byCpu ? `server CPU/op ≤ ${r.goalValue === undefined ? "?" : fmt(r.goalValue)} (figure: ${r.goal.text})` : r.goal.relativeTo && r.goalValue !== undefined ? `${r.goal.text} (${r.goal.op} ${fmt(r.goalValue)})` : r.goal.text;
    const cpu = r.clientCpuPctMax ? `${Math.round(r.clientCpuPctMax)}%` : "–";
    const ratio = `${byCpu ? fmt(r.ratio.median) : `**${fmt(r.ratio.median)}**`} (${fmt(r.ratio.min)}–${fmt(r.ratio.max)})`;
    const cpuRatio = r.cpuRatio ? `${byCpu ? `**${fmt(r.cpuRatio.median)}**` : fmt(r.cpuRatio.median)} (${fmt(r.cpuRatio.min)}–${fmt(r.cpuRatio.max)})` : "–";
    lines.push(`| ${r.title} | ${fmt(r.api.median)} ${r.unit} | ${fmt(r.anchor.median)} ${r.unit} | ${ratio} | ${cpuRatio} | ${goal} | ${mark(r.pass)} | ${cpu} |`);
  }
  lines.push("");
  lines.push("Anchors:");
  lines.push("");
  for (const r of rep.results) lines.push(`- **${r.name}**: ${r.anchorTitle}`);
  const notes = rep.results.flatMap((r) => [...r.notes.map((n) => `- ${r.name}: ${n}`), ...(r.error ? [`- ${r.name}: FAILED: ${r.error.split("\n")[0]}`] : [])]);
  if (notes.length) lines.push("", "Notes:", "", ...notes);
  if (chartFile) lines.push("", `![ratio per pair, per benchmark, with its goal](${chartFile})`);
  lines.push("");
  lines.push(`Machine: ${machineLine(rep.machine)}.`);
  lines.push("");
  lines.push(`Command: \`${rep.command}\` (${rep.startedAt}).`);
  return lines.join("\n") + "\n";
}

// Writes one run's files: <date>.json and <date>.html (git-ignored), and LATEST.md + LATEST.svg
// (committed: the README's Performance section points at them). The full run before is kept as
// PREVIOUS.md + PREVIOUS.svg, committed too, for comparison.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunReport } from "../core/run.js";
import { chartGrid } from "./chart.js";
import { html } from "./html.js";
import { markdown } from "./markdown.js";

/** `latest`: also refresh LATEST.md/.svg (full runs only, so a partial run never shrinks the table). */
export function writeReports(rep: RunReport, dir: string, latest: boolean): string[] {
  mkdirSync(dir, { recursive: true });
  const stamp = rep.startedAt.replace(/:/g, "-").replace(/\.\d+Z$/, "Z");
  const files = [join(dir, `${stamp}.json`), join(dir, `${stamp}.html`)];
  writeFileSync(files[0], JSON.stringify(rep, null, 2) + "\n");
  writeFileSync(files[1], html(rep));
  if (latest) {
    if (existsSync(join(dir, "LATEST.md"))) {
      writeFileSync(join(dir, "PREVIOUS.md"), readFileSync(join(dir, "LATEST.md"), "utf8").replaceAll("(LATEST.svg)", "(PREVIOUS.svg)"));
      if (existsSync(join(dir, "LATEST.svg"))) renameSync(join(dir, "LATEST.svg"), join(dir, "PREVIOUS.svg"));
    }
    files.push(join(dir, "LATEST.svg"), join(dir, "LATEST.md"));
    writeFileSync(files[2], chartGrid(rep.results));
    writeFileSync(files[3], markdown(rep, "LATEST.svg"));
  }
  return files;
}

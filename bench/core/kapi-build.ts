// Which kapi the bench runs: the built bundle (what users run: `npm run bench` builds first) when
// it is newer than every source file, else the source through the tsx loader, which measures the
// current tree but adds tsx's per-closure helper (7–13% of a GET's CPU in process).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

export interface KapiBuild {
  /** The file to load or run, under `root`. */
  file: string;
  /** True when it is the built bundle. */
  built: boolean;
  /** One line for the bench's output: what runs, and why when it is not the build. */
  note: string;
}

/** `entry`: "dist/bundle/index.js" (the library) or "dist/bundle/kapi.cjs" (the command line). */
export function kapiBuild(root: string, entry: "dist/bundle/index.js" | "dist/bundle/kapi.cjs", source: string): KapiBuild {
  const dist = join(root, entry);
  if (!existsSync(dist)) return { file: join(root, source), built: false, note: `kapi: ${source} via tsx (no ${entry}: run npm run build)` };
  if (newestMtime(join(root, "src")) > statSync(dist).mtimeMs) return { file: join(root, source), built: false, note: `kapi: ${source} via tsx (${entry} is older than src/: run npm run build)` };
  return { file: dist, built: true, note: `kapi: ${entry}` };
}

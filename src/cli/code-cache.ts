// Runs one of kapi's CommonJS bundles (scripts/bundle.mjs: the command line's, loaded by `kapi`,
// and the library's, loaded by the package entry where Node can require ES modules) from a V8
// code cache. Without one, every start parses the ~2 MB bundle and compiles each function
// start-up calls (measured on Node 20: ~65 ms of ~260 ms of CPU to the first /readyz 200). Node 22's
// compile cache (module.enableCompileCache) is made when a module is compiled, so it holds little
// more than the top level; this one is made after the code has run a while (a server has
// started), so it holds the bytecode of everything start-up ran.
//
// One cache per bundle build, place and command (`kapi serve` and `kapi cel` run different code;
// two checkouts or installs of one build each have their own: Node 20's V8 keeps the file name a
// cache was made under, so every stack trace and profile would name the other place), kept
// where Node keeps its own (NODE_COMPILE_CACHE, else the temp directory) in a directory only this
// user may write, and skipped as Node skips its own under NODE_DISABLE_COMPILE_CACHE. A cache V8
// refuses (another Node, other flags) is replaced.
import { readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { codePathsRun } from "../server/code-paths.js";
import { ownedCacheDir, pruneOtherBuilds, readOwned, writeOwned } from "../server/owned-cache-dir.js";

/** The cache is written this long after the command starts (a server is serving by then), or at exit if sooner. */
const writeAfterMs = 1500;

export interface CachedRun {
  /** The CommonJS bundle to run: ASCII only (read as latin1), no #! line. */
  file: string;
  /** Names this build of it (a hash of its content, made by the build). */
  build: string;
  /** The command it runs (`serve`, `cel`, …): each has its own cache. */
  command: string;
  /** When the cache is written (default: 1.5 s after the start, or at exit if sooner). */
  writeAfterMs?: number;
  /** Told when the code is compiled and when it has run (the start-up trace's marks). */
  phase?(name: string): void;
}

/** What became of the cache: none kept, one used, or one to be written (none yet, or V8 refused it). */
export type CacheOutcome = { cache: "off" } | { cache: "used" | "writing"; path: string };

const buildSlot = Symbol.for("kapi.bundle-build");

/**
 * The build of the bundle this process runs (what the prepared bootstrap objects are kept per:
 * src/server/prepared-bootstrap.ts), or undefined from the source tree. A global: the bundle
 * holds its own copy of this module.
 */
export function runningBuild(): string | undefined {
  const b = (globalThis as Record<symbol, unknown>)[buildSlot];
  return typeof b === "string" ? b : undefined;
}

/** Runs `run.file` as a CommonJS module, through the code cache when there is one: its exports, and what became of the cache. */
export function runCommonJs(run: CachedRun): { exports: unknown; cache: CacheOutcome } {
  const dir = ownedCacheDir();
  const command = /^[a-z][a-z-]{0,31}$/.test(run.command) ? run.command : "other";
  const cachePath = dir ? join(dir, `${run.build}-${placeOf(run.file)}-${process.version}-${process.arch}-${command}.cache`) : undefined;
  const cachedData = cachePath ? readOwned(cachePath) : undefined;
  const source = readFileSync(run.file, "latin1");
  const script = new Script(Module.wrap(source), { filename: run.file, ...(cachedData ? { cachedData } : {}) });
  const accepted = cachedData !== undefined && !script.cachedDataRejected;
  run.phase?.(`kapi's code read and compiled (${accepted ? "from the code cache" : "no code cache"})`);
  if (cachePath) {
    // The start-up paths the cache was made on (src/server/code-paths.ts): one in use is written
    // again, with this start's code too, only by a start down a path it was not made on.
    const pathsFile = `${cachePath}.paths`;
    const covered = accepted ? madeOn(pathsFile) : [];
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      const ran = codePathsRun();
      if (accepted && ran.every((p) => covered.includes(p))) return;
      // When it cannot be written, the next start makes one.
      if (writeOwned(cachePath, script.createCachedData())) writeOwned(pathsFile, JSON.stringify([...new Set([...covered, ...ran])].sort()));
      // A build's first cache: the files of builds not run for a while go.
      if (!accepted) pruneOtherBuilds(dir!, run.build);
    };
    setTimeout(write, run.writeAfterMs ?? writeAfterMs).unref();
    process.once("exit", write);
  }
  (globalThis as Record<symbol, unknown>)[buildSlot] = run.build;
  const mod = new Module(run.file);
  mod.filename = run.file;
  const require = createRequire(run.file);
  (script.runInThisContext() as (...args: unknown[]) => void).call(mod.exports, mod.exports, require, mod, run.file, dirname(run.file));
  run.phase?.("kapi's code evaluated");
  if (!cachePath) return { exports: mod.exports, cache: { cache: "off" } };
  return { exports: mod.exports, cache: { cache: accepted ? "used" : "writing", path: cachePath } };
}

/** The start-up paths a cache was made on, as its side file lists them (none when unreadable). */
/** A short name of where the bundle is (FNV-1a of its path): no hashing module to load before kapi's code. */
export function placeOf(file: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

function madeOn(pathsFile: string): string[] {
  try {
    const list = JSON.parse(readOwned(pathsFile)?.toString("utf8") ?? "[]") as unknown;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

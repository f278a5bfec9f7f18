import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ranCodePath } from "../server/code-paths.js";
import { placeOf, runCommonJs, type CachedRun } from "./code-cache.js";

const run = (r: CachedRun) => runCommonJs(r).cache;

let dir: string;
let saved: NodeJS.ProcessEnv;
const waitFor = async (p: string) => {
  for (let i = 0; i < 200 && !existsSync(p); i++) await new Promise((r) => setTimeout(r, 10));
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kapi-code-cache-"));
  saved = { ...process.env };
  process.env.NODE_COMPILE_CACHE = join(dir, "cache");
  delete process.env.NODE_DISABLE_COMPILE_CACHE;
});
afterEach(() => {
  process.env = saved;
  rmSync(dir, { recursive: true, force: true });
});

function bundle(body: string): string {
  const file = join(dir, "bundle.cjs");
  writeFileSync(file, `"use strict";\n${body}\n`);
  return file;
}

describe("runCommonJs", () => {
  it("runs the file as a CommonJS module (exports, require, __filename), writes a cache and uses it on the next run", async () => {
    const file = bundle(`globalThis.kapiCodeCacheTest = { file: __filename, path: require("node:path").basename(__filename), exportsIsModuleExports: exports === module.exports };`);
    const first = run({ file, build: "b1", command: "serve", writeAfterMs: 0 });
    expect((globalThis as { kapiCodeCacheTest?: unknown }).kapiCodeCacheTest).toEqual({ file, path: "bundle.cjs", exportsIsModuleExports: true });
    expect(first.cache).toBe("writing");
    const path = (first as { path: string }).path;
    expect(path).toContain(join(dir, "cache"));
    expect(path).toContain(`b1-${placeOf(file)}-${process.version}-${process.arch}-serve.cache`);
    await waitFor(path);
    expect(readFileSync(path).length).toBeGreaterThan(0);
    expect(run({ file, build: "b1", command: "serve", writeAfterMs: 0 })).toEqual({ cache: "used", path });
    // Another command, another build: a cache of their own.
    expect(run({ file, build: "b1", command: "cel", writeAfterMs: 0 }).cache).toBe("writing");
    expect(run({ file, build: "b2", command: "serve", writeAfterMs: 0 }).cache).toBe("writing");
  });

  it("gives the same build at another place a cache of its own", () => {
    // Node 20's V8 keeps the file name a cache was made under: a shared cache would make every
    // stack trace and profile of one checkout name the other.
    const here = bundle(`globalThis.kapiCodeCachePlace = 1;`);
    const elsewhere = join(dir, "elsewhere", "bundle.cjs");
    mkdirSync(dirname(elsewhere));
    writeFileSync(elsewhere, readFileSync(here));
    const a = run({ file: here, build: "b", command: "serve", writeAfterMs: 60_000 }) as { path: string };
    const b = run({ file: elsewhere, build: "b", command: "serve", writeAfterMs: 60_000 }) as { path: string };
    expect(a.path).not.toBe(b.path);
    expect(placeOf(here)).toMatch(/^[0-9a-f]{8}$/);
    expect(placeOf(here)).not.toBe(placeOf(elsewhere));
  });

  it("replaces a cache V8 refuses", async () => {
    // (A source this process compiled before would come from V8's in-process cache, never reading the file.)
    const file = bundle(`globalThis.kapiCodeCacheRefused = ${Date.now()};`);
    const path = join(dir, "cache", `kapi-${process.getuid?.() ?? 0}`, `b-${placeOf(file)}-${process.version}-${process.arch}-serve.cache`);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, Buffer.from("not a code cache"));
    expect(run({ file, build: "b", command: "serve", writeAfterMs: 0 })).toEqual({ cache: "writing", path });
    for (let i = 0; i < 200 && readFileSync(path).toString() === "not a code cache"; i++) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(path).toString()).not.toBe("not a code cache");
  });

  it("gives back the module's exports and tells its phases", () => {
    const file = bundle(`module.exports = { answer: 42, file: __filename };`);
    const phases: string[] = [];
    const out = runCommonJs({ file, build: "b", command: "library", writeAfterMs: 60_000, phase: (p) => void phases.push(p) });
    expect(out.exports).toEqual({ answer: 42, file });
    expect(phases).toEqual(["kapi's code read and compiled (no code cache)", "kapi's code evaluated"]);
  });

  it("keeps no cache under NODE_DISABLE_COMPILE_CACHE, or in a directory others can write", () => {
    const file = bundle(`globalThis.kapiCodeCacheOff = 1;`);
    process.env.NODE_DISABLE_COMPILE_CACHE = "1";
    expect(run({ file, build: "b", command: "serve" })).toEqual({ cache: "off" });
    delete process.env.NODE_DISABLE_COMPILE_CACHE;
    const uid = process.getuid?.() ?? 0;
    const shared = join(dir, "cache", `kapi-${uid}`);
    run({ file, build: "b", command: "serve", writeAfterMs: 60_000 });
    chmodSync(shared, 0o777);
    expect(run({ file, build: "b", command: "serve" })).toEqual({ cache: "off" });
  });

  it("names the cache of an odd command 'other'", () => {
    const file = bundle(`globalThis.kapiCodeCacheOdd = 1;`);
    const out = run({ file, build: "b", command: "../../etc", writeAfterMs: 60_000 }) as { path: string };
    expect(out.path.endsWith("-other.cache")).toBe(true);
  });

  it("writes a cache in use again, with the start's paths added, only after a start down a path it was not made on", async () => {
    const slot = Symbol.for("kapi.code-paths");
    const g = globalThis as Record<symbol, unknown>;
    const file = bundle(`globalThis.kapiCodeCachePaths = ${Date.now()};`);
    const withPaths = async (paths: string[]) => {
      delete g[slot];
      for (const p of paths) ranCodePath(p);
      const out = run({ file, build: "b", command: "serve", writeAfterMs: 0 }) as { cache: string; path: string };
      await new Promise((r) => setTimeout(r, 30));
      return out;
    };
    try {
      const first = await withPaths(["sqlite restart"]);
      expect(first.cache).toBe("writing");
      await waitFor(`${first.path}.paths`);
      expect(JSON.parse(readFileSync(`${first.path}.paths`, "utf8"))).toEqual(["sqlite restart"]);
      // Marked, to see whether a start writes the cache again.
      writeFileSync(`${first.path}.paths`, JSON.stringify(["sqlite restart", "x"]));
      // Each write replaces the file (a new inode).
      const written = statSync(first.path).ino;
      expect((await withPaths(["sqlite restart"])).cache).toBe("used");
      expect(JSON.parse(readFileSync(`${first.path}.paths`, "utf8"))).toEqual(["sqlite restart", "x"]);
      expect(statSync(first.path).ino).toBe(written);
      expect((await withPaths(["memory first start"])).cache).toBe("used");
      expect(JSON.parse(readFileSync(`${first.path}.paths`, "utf8"))).toEqual(["memory first start", "sqlite restart", "x"]);
      expect(statSync(first.path).ino).not.toBe(written);
    } finally {
      delete g[slot];
    }
  });
});

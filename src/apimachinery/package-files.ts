// What ships with kapi, reached at run time: its dependencies, loaded on first use, and data files
// beside its code. Start-up time is a feature: each of yaml, jose, re2js, @peculiar/x509 and
// better-sqlite3 costs milliseconds to tens of milliseconds to load, and most servers (and every
// first request) need few of them. Files are found by walking up from the caller, so one lookup
// serves the source tree, the compiled tree and the bundle, whose files sit at different depths.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package `name`, required on the first call (after `before`, a package it needs loaded first). */
export function lazyPackage<T>(name: string, before?: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const req = createRequire(import.meta.url);
      if (before) req(before);
      loaded = req(name) as T;
    }
    return loaded;
  };
}

/** The path of `relative` in the nearest directory at or above `fromUrl`'s that holds it. */
export function packageFile(fromUrl: string, relative: string): string | undefined {
  for (let dir = dirname(fileURLToPath(fromUrl)); ; dir = dirname(dir)) {
    const p = join(dir, relative);
    if (existsSync(p)) return p;
    if (dirname(dir) === dir) return undefined;
  }
}

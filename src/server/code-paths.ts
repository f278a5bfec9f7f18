// Which of start-up's code paths this process ran: a first start into an empty store or a
// restart, each storage backend, and whether a client connected (the request path). The command
// line's V8 code cache (src/cli/code-cache.ts) holds the bytecode of what the start that wrote it
// had run, and a start down another path compiles that path's code itself, cold (a first start
// after a cache a restart wrote: ~5 ms more in its bootstrap alone). The cache is written again,
// with both, by a start down a path it was not made on. A global: the entry's bundle and the
// server's hold a copy of this module each.
const slot = Symbol.for("kapi.code-paths");

function paths(): Set<string> {
  const g = globalThis as Record<symbol, Set<string> | undefined>;
  return (g[slot] ??= new Set<string>());
}

/** Notes that this process ran start-up path `name`. */
export function ranCodePath(name: string): void {
  paths().add(name);
}

/** The start-up paths this process ran so far. */
export function codePathsRun(): string[] {
  return [...paths()].sort();
}

// Polling for what no event announces to a test: another process's state (a replica's log, an
// etcd member's leadership, a kapi child's objects). In-process controllers are waited on with
// settle() instead (settle.ts).

/** Resolves with the first value `probe` gives that is neither undefined nor false; throws after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms: number, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

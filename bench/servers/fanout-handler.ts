// The serialize-once fan-out (the watch anchor's whole work, shared by bench/servers/fanout.ts and
// bench/watch-fanout-cpu.ts): GET ?watch=1 registers a chunked stream; a POST decodes the object,
// serializes one watch event ONCE and writes the same buffer to every watcher, cutting off a
// watcher with too much unsent data (kapi's bound, 16 MiB).
import type { BareExchange } from "./listen.js";

const maxPending = 16 * 1024 * 1024;

export interface FanoutOptions {
  /** Whether a POST to this path is an event for the watchers (else it is only answered). */
  fansOut(path: string): boolean;
  /** Bytes added to each object (an annotation), to compare at kapi's event size. */
  pad?: number;
}

export function fanoutHandler(o: FanoutOptions): { handle: (ex: BareExchange) => void; watchers: Set<BareExchange> } {
  const watchers = new Set<BareExchange>();
  let rv = 1;
  const handle = (ex: BareExchange) => {
    if (ex.method === "GET" && ex.path.includes("watch=1")) {
      watchers.add(ex);
      ex.onClose(() => watchers.delete(ex));
      ex.head(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
      return;
    }
    void ex.body().then((raw) => {
      const obj = JSON.parse(raw.toString("utf8"));
      if (o.pad) obj.metadata.annotations = { ...obj.metadata.annotations, pad: "x".repeat(o.pad) };
      obj.metadata = { ...obj.metadata, resourceVersion: String(++rv), uid: `uid-${rv}`, creationTimestamp: new Date().toISOString() };
      const created = JSON.stringify(obj);
      if (o.fansOut(ex.path)) {
        const event = Buffer.from(`{"type":"ADDED","object":${created}}\n`);
        for (const w of watchers) {
          w.write(event);
          if (w.pending() > maxPending) w.end();
        }
      }
      ex.head(201, { "content-type": "application/json" });
      ex.end(Buffer.from(created));
    });
  };
  return { handle, watchers };
}

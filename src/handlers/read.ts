// GET one object, LIST a collection. A JSON list served from the watch cache is assembled from
// each object's memoised bytes (list-json.ts), written as they are, not re-serialised per request;
// a large one is streamed as the client takes it.
import { applyListDefaults, parseListOptions, validateListOptions } from "../registry/list-options.js";
import { writeBytes, writeJsonPieces } from "../http/respond.js";
import type { ResourceRequest } from "./context.js";
import type { GotJson } from "../registry/store.js";
import { jsonListPieces } from "./list-json.js";
import { negotiateRead, writeList, writeOne } from "./output.js";

/**
 * The request's signal for a read that may wait: only one at a resourceVersion ("0" never waits;
 * no resourceVersion is a consistent read) waits for the store to reach it. Only then is the
 * signal made — making one costs more than the rest of a GET's way through the filters.
 */
function signalIfWaiting(r: ResourceRequest, rv: string | null | undefined): AbortSignal | undefined {
  return rv && rv !== "0" ? r.signal : undefined;
}

export function handleGet(r: ResourceRequest): Promise<void> {
  try {
    const n = negotiateRead(r);
    const rv = r.ex.query.get("resourceVersion");
    if (!n.target && !r.pretty && n.codec.mediaType === "application/json") {
      // The hot path: plain JSON straight from the stored bytes — from the watch cache, with no
      // promise of its own, when the cache can answer at once.
      const got = r.store.getJson(r.info.namespace, r.info.name, rv, signalIfWaiting(r, rv));
      if (got instanceof Promise) return got.then((g) => writeGot(r, n, g));
      writeGot(r, n, got);
      return answered;
    }
    return r.store.get(r.info.namespace, r.info.name, rv, signalIfWaiting(r, rv)).then((obj) => writeOne(r, n, 200, obj));
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Settled: what a handler that answered without waiting returns (one promise for all of them). */
const answered = Promise.resolve();

function writeGot(r: ResourceRequest, n: ReturnType<typeof negotiateRead>, got: GotJson): void {
  if ("json" in got) writeBytes(r.ex, 200, got.json, "application/json", { warnings: r.warnings });
  else writeOne(r, n, 200, got.obj);
}

export async function handleList(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const opts = parseListOptions(r.ex.query);
  const watchList = r.parts.gates.enabled("WatchList");
  applyListDefaults(opts, watchList);
  validateListOptions(opts, watchList);
  const list = await r.store.list(r.info.namespace, opts, signalIfWaiting(r, opts.resourceVersion));
  if (list.entries && !n.target && !r.pretty && n.codec.mediaType === "application/json") {
    await writeJsonPieces(r.ex, 200, jsonListPieces(r.type, list, list.entries), { warnings: r.warnings });
    return;
  }
  writeList(r, n, list);
}

// GET one object, LIST a collection. A JSON list served from the watch cache is assembled from
// each object's memoised JSON (made once per object version and apiVersion, shared by every list
// and watch), not re-serialised per request.
import { applyListDefaults, parseListOptions, validateListOptions } from "../registry/list-options.js";
import { servedObject, type ListResult } from "../registry/list.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Entry } from "../storage/cacher/types.js";
import { writeBytes } from "../http/respond.js";
import type { ResourceRequest } from "./context.js";
import { negotiateRead, withoutTypeMeta, writeList, writeOne } from "./output.js";

/**
 * The request's signal for a read that may wait: only one at a resourceVersion ("0" never waits;
 * no resourceVersion is a consistent read) waits for the store to reach it. Only then is the
 * signal made — making one costs more than the rest of a GET's way through the filters.
 */
function signalIfWaiting(r: ResourceRequest, rv: string | null | undefined): AbortSignal | undefined {
  return rv && rv !== "0" ? r.signal : undefined;
}

export async function handleGet(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const rv = r.ex.query.get("resourceVersion");
  if (!n.target && !r.pretty && n.codec.mediaType === "application/json") {
    // The hot path: plain JSON straight from the stored bytes.
    const got = await r.store.getJson(r.info.namespace, r.info.name, rv, signalIfWaiting(r, rv));
    if ("json" in got) writeBytes(r.ex, 200, Buffer.from(got.json + "\n"), "application/json", { warnings: r.warnings });
    else writeOne(r, n, 200, got.obj);
    return;
  }
  writeOne(r, n, 200, await r.store.get(r.info.namespace, r.info.name, rv, signalIfWaiting(r, rv)));
}

export async function handleList(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const opts = parseListOptions(r.ex.query);
  const watchList = r.parts.gates.enabled("WatchList");
  applyListDefaults(opts, watchList);
  validateListOptions(opts, watchList);
  const list = await r.store.list(r.info.namespace, opts, signalIfWaiting(r, opts.resourceVersion));
  if (list.entries && !n.target && !r.pretty && n.codec.mediaType === "application/json") {
    writeBytes(r.ex, 200, jsonListBytes(r.type, list, list.entries), "application/json", { warnings: r.warnings });
    return;
  }
  writeList(r, n, list);
}

/** The same bytes jsonCodec.encode would give for the list object, from per-item memoised JSON. */
function jsonListBytes(t: ResourceType, list: ListResult, entries: Entry<KObject>[]): Buffer {
  const metadata: Record<string, unknown> = { resourceVersion: list.resourceVersion };
  if (list.continue) metadata.continue = list.continue;
  if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
  const key = `json|${t.apiVersion}`;
  const typeMeta = `{"kind":${JSON.stringify(t.kind)},"apiVersion":${JSON.stringify(t.apiVersion)},`;
  const parts: string[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    let s = e.memo.get(key) as string | undefined;
    if (s === undefined) {
      s = JSON.stringify(servedObject(t, e.object, e.modRevision));
      e.memo.set(key, s);
    }
    // Items of a typed list carry no kind/apiVersion (as upstream); the memoised JSON (shared with
    // watch events, which do carry them) starts with exactly that prefix, so it is cut off.
    parts[i] = s.startsWith(typeMeta) ? "{" + s.slice(typeMeta.length) : JSON.stringify(withoutTypeMeta(JSON.parse(s) as KObject));
  }
  const head = `{"kind":${JSON.stringify(t.listKind)},"apiVersion":${JSON.stringify(t.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
  return Buffer.from(head + parts.join(",") + "]}\n");
}

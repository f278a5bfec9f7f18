// LIST: the resourceVersion × resourceVersionMatch × paging table of the spec, selectors, and
// consistent paging through continue tokens.
import { badRequest, expired } from "../apimachinery/errors.js";
import { unsupportedFieldError } from "../apimachinery/fields.js";
import { StorageError, type KeyValue } from "../storage/interface.js";
import { decodeFromStorage } from "./codec.js";
import { decodeContinue, encodeContinue } from "./continue-token.js";
import type { ListOptions } from "./list-options.js";
import { tooOldError } from "./list-options.js";
import type { KObject } from "./object.js";
import { storagePrefix, type ResourceType } from "./resource-type.js";
import { parseResourceVersion } from "./resource-version.js";
import type { GenericStore } from "./store.js";

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** The fields a field selector may name for this type (upstream: per-type field label conversion). */
export function objectFields(t: ResourceType, obj: KObject): Record<string, string> {
  const f: Record<string, string> = { "metadata.name": obj.metadata.name ?? "" };
  if (t.namespaced) f["metadata.namespace"] = obj.metadata.namespace ?? "";
  return Object.assign(f, t.strategy.selectableFields(obj));
}

export function checkFieldSelector(t: ResourceType, opts: ListOptions): void {
  const sample = objectFields(t, { metadata: {} });
  for (const r of opts.fieldSelector.requirements()) {
    if (!(r.field in sample)) throw badRequest(unsupportedFieldError(r.field));
  }
}

export function matchesSelectors(t: ResourceType, opts: ListOptions, obj: KObject): boolean {
  if (!opts.labelSelector.isEmpty() && !opts.labelSelector.matches(obj.metadata.labels)) return false;
  if (!opts.fieldSelector.isEmpty() && !opts.fieldSelector.matches(objectFields(t, obj))) return false;
  return true;
}

export async function listObjects(store: GenericStore, t: ResourceType, ns: string, opts: ListOptions): Promise<ListResult> {
  checkFieldSelector(t, opts);
  const prefix = storagePrefix(t, ns);
  const rv = parseResourceVersion(opts.resourceVersion);
  let readAt: number | undefined; // undefined = current
  let after = "";
  if (opts.continueToken) {
    if (rv !== undefined && rv !== 0) throw badRequest("specifying resource version is not allowed when using continue");
    const c = decodeContinue(opts.continueToken);
    readAt = c.rv;
    after = c.after;
  } else if (rv !== undefined && rv !== 0) {
    const exact = opts.resourceVersionMatch === "Exact" || (opts.resourceVersionMatch === "" && opts.limit > 0);
    if (exact) readAt = rv;
    else await store.waitForRevision(rv); // NotOlderThan: current state once we have reached rv
  }
  if (readAt !== undefined) {
    const current = await store.currentRevision();
    if (readAt > current) readAt = await store.waitForRevision(readAt).then(() => readAt);
  }

  const filtering = !opts.labelSelector.isEmpty() || !opts.fieldSelector.isEmpty();
  const items: KObject[] = [];
  let revision = 0;
  let lastKey = "";
  let more = false;
  let remaining = 0;
  // Fetch in pages until `limit` matching objects are found (selectors may drop many).
  const page = opts.limit > 0 ? Math.max(opts.limit, filtering ? 500 : opts.limit) : 0;
  let startAfter = after ? prefix + after : undefined;
  for (;;) {
    let res;
    try {
      res = await store.storage.range(prefix, { revision: readAt, startAfter, limit: page || undefined });
    } catch (e) {
      if (e instanceof StorageError && e.code === "Compacted") {
        throw opts.continueToken
          ? expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
          : tooOldError();
      }
      throw e;
    }
    revision = res.revision;
    readAt = res.revision; // every further page reads the same snapshot
    let stoppedEarly = false;
    for (let i = 0; i < res.items.length; i++) {
      const kv: KeyValue = res.items[i];
      const obj = decodeFromStorage(kv, t);
      lastKey = kv.key;
      if (!filtering || matchesSelectors(t, opts, obj)) items.push(obj);
      if (opts.limit > 0 && items.length >= opts.limit) {
        more = i < res.items.length - 1 || res.more;
        remaining = res.items.length - 1 - i + res.remaining;
        stoppedEarly = true;
        break;
      }
    }
    if (stoppedEarly || !res.more || res.items.length === 0) break;
    startAfter = lastKey;
  }
  const out: ListResult = { items, resourceVersion: String(revision) };
  if (more) {
    out.continue = encodeContinue(revision, lastKey.slice(prefix.length));
    if (!filtering) out.remainingItemCount = remaining;
  }
  return out;
}

// A JSON list served from the watch cache, assembled from encoded bytes: serialize once, serve
// many. Each cached entry (one object at one resourceVersion) keeps its encoding as a list item in
// its memo, made by the first list that reaches it and shared by every later list until the
// object changes (a new entry). A page is then the list envelope plus a copy of each item's bytes:
// no per-request JSON.stringify, string join or UTF-8 encoding of the page.
//
// Filled lazily: caches only informers read, and objects no list has reached, hold no bytes.
import type { KObject } from "../apimachinery/object.js";
import { servedObject, type ListResult } from "../registry/list.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Entry } from "../storage/cacher/types.js";
import { withoutTypeMeta } from "./output.js";

const comma = 0x2c;
const tail = Buffer.from("]}\n");

/**
 * The entry's bytes as an item of a list of `t` (upstream: items of a typed list carry no kind
 * or apiVersion), memoised on the entry. Lists in the stored version only: a webhook-converted
 * type's list is converted per page and never comes here.
 */
export function listItemBytes(t: ResourceType, e: Entry<KObject>, key = memoKey(t)): Buffer {
  const memo = e.memo;
  let b = memo.get(key) as Buffer | undefined;
  if (b === undefined) {
    b = Buffer.from(JSON.stringify(withoutTypeMeta(servedObject(t, e.object, e.modRevision))));
    memo.set(key, b);
  }
  return b;
}

/** The memo's key: per apiVersion, as a cache shared by a group-resource's versions holds each version's bytes. */
function memoKey(t: ResourceType): string {
  return `list-item-json|${t.apiVersion}`;
}

/** The same bytes jsonCodec.encode gives for the list object (and a newline), from each item's memoised bytes. */
export function jsonListBytes(t: ResourceType, list: ListResult, entries: readonly Entry<KObject>[]): Buffer {
  const metadata: Record<string, unknown> = { resourceVersion: list.resourceVersion };
  if (list.continue) metadata.continue = list.continue;
  if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
  const head = Buffer.from(`{"kind":${JSON.stringify(t.listKind)},"apiVersion":${JSON.stringify(t.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`);
  const items: Buffer[] = new Array(entries.length);
  let size = head.length + Math.max(0, entries.length - 1) + tail.length;
  const key = memoKey(t);
  for (let i = 0; i < entries.length; i++) size += (items[i] = listItemBytes(t, entries[i]!, key)).length;
  const out = Buffer.allocUnsafe(size);
  out.set(head, 0);
  let at = head.length;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = comma;
    out.set(items[i]!, at);
    at += items[i]!.length;
  }
  out.set(tail, at);
  return out;
}

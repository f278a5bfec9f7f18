// A JSON list served from the watch cache, from encoded bytes: serialize once, serve many. Each
// cached entry (one object at one resourceVersion) keeps its encoding as a list item in its memo,
// made by the first list that reaches it and shared by every later list until the object changes
// (a change is a new entry). A page is the list envelope and those bytes, written as they are: no
// per-request JSON.stringify, join, UTF-8 encoding, or page-sized copy.
//
// Filled lazily: caches only informers read, and objects no list has reached, hold no bytes. The
// memos keep bytes within the process's budget (storage/cacher/memo-budget.ts); past it, a list
// encodes the items it needs for itself, and streams them (http/stream-body.ts).
import type { KObject } from "../apimachinery/object.js";
import { servedObject, type ListResult } from "../registry/list.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Entry } from "../storage/cacher/types.js";
import { withoutTypeMeta } from "./output.js";

const tail = Buffer.from("]}\n");

/**
 * The entry's bytes as an item of a list of `t` after another item: a comma, then the object
 * (upstream: items of a typed list carry no kind or apiVersion), memoised on the entry. Lists in
 * the stored version only: a webhook-converted type's list is converted per page and never comes here.
 */
function itemAfterComma(t: ResourceType, e: Entry<KObject>, key: string): Buffer {
  const memo = e.memo;
  let b = memo.get(key) as Buffer | undefined;
  if (b === undefined) {
    b = Buffer.from("," + JSON.stringify(withoutTypeMeta(servedObject(t, e.object, e.modRevision))));
    memo.set(key, b);
  }
  return b;
}

/**
 * The pieces of the bytes jsonCodec.encode gives for the list object (and its newline), made as
 * they are taken: the envelope's head, each item's memoised bytes (views, not copies), and the
 * envelope's tail. Taken one by one, a large list never has all its items' bytes alive at once
 * (the memos keep only what their budget allows). Each call starts again from the first piece.
 */
export function jsonListPieces(t: ResourceType, list: ListResult, entries: readonly Entry<KObject>[]): () => Iterable<Buffer> {
  return function* () {
    const metadata: Record<string, unknown> = { resourceVersion: list.resourceVersion };
    if (list.continue) metadata.continue = list.continue;
    if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
    yield Buffer.from(`{"kind":${JSON.stringify(t.listKind)},"apiVersion":${JSON.stringify(t.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`);
    // Per apiVersion: a cache holds its group-resource in every served version.
    const key = `list-item-json|${t.apiVersion}`;
    for (let i = 0; i < entries.length; i++) {
      const b = itemAfterComma(t, entries[i]!, key);
      yield i === 0 ? b.subarray(1) : b;
    }
    yield tail;
  };
}

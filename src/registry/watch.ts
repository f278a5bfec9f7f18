// WATCH from the watch cache: start semantics of the spec's watch table and of streaming lists.
//
//   sendInitialEvents   resourceVersion   start
//   unset               unset             state at the backend's current revision, then changes
//   unset               "0"               state at the cache's revision (any), then changes
//   unset               N                 changes after exactly N (no synthetic events)
//   true                unset / "0" / N   state at current / any / not older than N, then the
//                                         initial-events-end BOOKMARK (if bookmarks allowed)
//   false               unset / "0" / N   changes after current / the cache's revision / N
//
// A revision the cache has not reached is waited for (then CacheError TooLarge: 504); one older
// than its history is CacheError TooOld (410 Expired), sent as an ERROR event inside the opened
// stream.
import type { WatchSink } from "../storage/cacher/cache-watcher.js";
import type { WatchStart } from "../storage/cacher/watch-cache.js";
import { cacheSpec, checkFieldSelector, predicateFor, type ObjectCacher } from "./list.js";
import type { ListOptions } from "./list-options.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";
import { parseResourceVersion } from "./resource-version.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export const initialEventsEndAnnotation = "k8s.io/initial-events-end";

export interface ActiveWatch {
  stop(): void;
  /** The sink's consumer drained: continue delivering. */
  resume(): void;
}

/** What a watch's events are handed to (the watch handler's response). */
export type ObjectWatchSink = WatchSink<KObject>;

export interface PreparedWatch {
  /**
   * Register with the cache and start delivering to `sink` synchronously (so the response head
   * must already be sent). Returns the watch, or the error to send as an ERROR event.
   */
  begin(sink: ObjectWatchSink): ActiveWatch | { error: unknown };
}

export function bookmarkObject(t: ResourceType, rv: number, annotations?: Record<string, string>): KObject {
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (annotations) metadata.annotations = annotations;
  return { kind: t.kind, apiVersion: t.apiVersion, metadata };
}

/** Everything that may fail with a plain HTTP error happens here, before the stream opens. */
export async function prepareWatch(cacher: ObjectCacher, t: ResourceType, ns: string, opts: ListOptions): Promise<PreparedWatch> {
  checkFieldSelector(t, opts);
  const requested = parseResourceVersion(opts.resourceVersion);
  const pred = predicateFor(t, ns, opts);
  const cache = await cacher.get(cacheSpec(t));
  let start: WatchStart;
  const sie = opts.sendInitialEvents;
  if (requested === undefined) {
    const rev = await cache.syncToStorage();
    start = sie === false ? { from: "revision", revision: rev } : { from: "state", initialEventsEnd: sie === true && opts.allowWatchBookmarks };
  } else if (requested === 0) {
    start = sie === false ? { from: "revision", revision: cache.revision } : { from: "state", initialEventsEnd: sie === true && opts.allowWatchBookmarks };
  } else {
    await cache.waitUntilFresh(requested);
    start = sie === true ? { from: "state", initialEventsEnd: opts.allowWatchBookmarks } : { from: "revision", revision: requested };
  }
  return {
    begin(sink) {
      try {
        const w = cache.watch(pred, sink, start, opts.allowWatchBookmarks);
        return { stop: () => w.stop(), resume: () => w.resume() };
      } catch (e) {
        return { error: e };
      }
    },
  };
}

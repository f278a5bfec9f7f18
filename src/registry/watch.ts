// WATCH over the storage watch: start semantics of the spec's watch table, selector
// transitions (leaving the selector is DELETED, entering is ADDED), bookmarks, and the
// streaming-list initial-events-end bookmark.
import { ApiError } from "../apimachinery/errors.js";
import { StorageError, type WatchEvent } from "../storage/interface.js";
import { decodeFromStorage } from "./codec.js";
import { checkFieldSelector, matchesSelectors } from "./list.js";
import type { ListOptions } from "./list-options.js";
import type { KObject } from "./object.js";
import { storagePrefix, type ResourceType } from "./resource-type.js";
import { parseResourceVersion } from "./resource-version.js";
import type { GenericStore } from "./store.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchSink {
  send(type: WatchEventType, object: unknown): void;
  /** The stream ended from the server side (error already sent if any). */
  close(): void;
}

export interface ActiveWatch {
  stop(): void;
}

export const bookmarkIntervalMs = 10_000;

export function bookmarkObject(t: ResourceType, rv: number, annotations?: Record<string, string>): KObject {
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (annotations) metadata.annotations = annotations;
  return { apiVersion: t.apiVersion, kind: t.kind, metadata };
}

export function expiredWatchStatus(requested: number, oldest: number): Record<string, unknown> {
  return new ApiError(410, "Expired", `too old resource version: ${requested} (${oldest})`).toStatus();
}

export async function startWatch(store: GenericStore, t: ResourceType, ns: string, opts: ListOptions, sink: WatchSink): Promise<ActiveWatch> {
  checkFieldSelector(t, opts);
  const prefix = storagePrefix(t, ns);
  const requested = parseResourceVersion(opts.resourceVersion);
  const initialEvents = opts.sendInitialEvents ?? (requested === undefined || requested === 0);
  let startRev: number;
  const initial: KObject[] = [];
  if (initialEvents) {
    if (requested && requested > 0) await store.waitForRevision(requested);
    const res = await store.storage.range(prefix);
    startRev = res.revision;
    for (const kv of res.items) {
      const obj = decodeFromStorage(kv, t);
      if (matchesSelectors(t, opts, obj)) initial.push(obj);
    }
  } else {
    startRev = requested!;
    const current = await store.currentRevision();
    if (startRev > current) await store.waitForRevision(startRev);
  }

  let stopped = false;
  let lastRev = startRev;
  for (const obj of initial) sink.send("ADDED", obj);
  if (opts.sendInitialEvents && opts.allowWatchBookmarks) {
    sink.send("BOOKMARK", bookmarkObject(t, startRev, { "k8s.io/initial-events-end": "true" }));
  }

  const onEvent = (ev: WatchEvent) => {
    if (stopped) return;
    lastRev = ev.revision;
    const obj = decodeFromStorage(ev.kv, t);
    obj.metadata.resourceVersion = String(ev.revision);
    const prev = ev.prevKv ? decodeFromStorage(ev.prevKv, t) : undefined;
    const nowMatches = matchesSelectors(t, opts, obj);
    const prevMatches = prev ? matchesSelectors(t, opts, prev) : false;
    if (ev.type === "delete") {
      if (prevMatches || (!prev && nowMatches)) sink.send("DELETED", obj);
      return;
    }
    if (!prev) {
      if (nowMatches) sink.send("ADDED", obj);
    } else if (nowMatches && prevMatches) sink.send("MODIFIED", obj);
    else if (nowMatches) sink.send("ADDED", obj);
    else if (prevMatches) sink.send("DELETED", obj);
  };

  let watcher: { stop(): void } | undefined;
  try {
    watcher = store.storage.watch(prefix, { afterRevision: startRev }, onEvent, (err) => {
      if (stopped) return;
      if (err instanceof StorageError && err.code === "Compacted") sink.send("ERROR", expiredWatchStatus(startRev, store.storage.compactedRevision()));
      else sink.send("ERROR", new ApiError(500, "InternalError", `Internal error occurred: ${err.message}`).toStatus());
      stop();
      sink.close();
    });
  } catch (e) {
    if (e instanceof StorageError && e.code === "Compacted") {
      sink.send("ERROR", expiredWatchStatus(startRev, store.storage.compactedRevision()));
      sink.close();
      return { stop() {} };
    }
    throw e;
  }

  const timers: NodeJS.Timeout[] = [];
  if (opts.allowWatchBookmarks) {
    // A bookmark promises "everything up to here was sent", so it carries the last revision
    // delivered on this stream (the watch cache can do better: it knows the whole prefix).
    timers.push(setInterval(() => {
      if (!stopped) sink.send("BOOKMARK", bookmarkObject(t, lastRev));
    }, bookmarkIntervalMs));
  }
  if (opts.timeoutSeconds && opts.timeoutSeconds > 0) {
    timers.push(setTimeout(() => {
      stop();
      sink.close();
    }, opts.timeoutSeconds * 1000));
  }
  function stop() {
    if (stopped) return;
    stopped = true;
    for (const tm of timers) clearTimeout(tm);
    watcher?.stop();
  }
  return { stop };
}

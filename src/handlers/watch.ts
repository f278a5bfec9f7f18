// WATCH: a long-lived stream of {type, object} events in the negotiated encoding.
//
// Encode once: each delivery from the cache carries a memo shared by every watcher that gets the
// same event; the bytes for (media type, apiVersion) are made by the first watcher and reused by
// all others. Table output is per watcher (rows depend on the request), so it is not memoised.
//
// Backpressure: when the response stops draining, the cache watcher is told to pause; it holds a
// bounded queue and, past it, ends the watch: an ERROR event (429) then the end of the stream.
import { ApiError } from "../apimachinery/errors.js";
import type { Codec } from "../encoding/codec.js";
import { applyListDefaults, parseListOptions, validateListOptions } from "../registry/list-options.js";
import { servedObject } from "../registry/list.js";
import type { KObject } from "../apimachinery/object.js";
import { convertsOnRead, type ResourceType } from "../registry/resource-type.js";
import { servedOne } from "../registry/conversion.js";
import { bookmarkObject, initialEventsEndAnnotation } from "../registry/watch.js";
import type { Delivery } from "../storage/cacher/types.js";
import type { ResourceRequest } from "./context.js";
import { negotiateRead } from "./output.js";
import { tableRow } from "./table.js";
import { toApiError } from "./errors.js";
import { warningHeader } from "../http/respond.js";
import type { WatchEnding } from "../http/watch-tap.js";
import { Deadlines, type Deadline } from "./watch-deadlines.js";
import { ResponseSink } from "./watch-sink.js";

/** Upstream --min-request-timeout default: watches without timeoutSeconds last 1800–3600 s. */
const defaultMinRequestTimeoutSeconds = 1800;

/** Every watch's timeout, on one timer for the process (each entry carries its own watch's end). */
const deadlines = new Deadlines();

export async function handleWatch(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const opts = parseListOptions(r.ex.query);
  const watchList = r.parts.gates.enabled("WatchList");
  applyListDefaults(opts, watchList);
  validateListOptions(opts, watchList);
  const prepared = await r.store.watch(r.info.namespace, opts);
  if (r.ctx.signal.aborted) return; // the client left while the watch was prepared: start nothing

  const ex = r.ex;
  const t = r.type;
  const table = n.target?.as === "Table" ? n.target : undefined;
  const contentType = table ? `application/json;as=Table;v=${table.version};g=meta.k8s.io` : n.codec.streamContentType;
  let firstTableEvent = true;
  let timer: Deadline | undefined;
  const end = () => {
    if (sink.ended) return;
    sink.ended = true;
    timer?.cancel();
    sink.active?.stop();
    r.parts.streams.delete(handle);
    ex.end();
  };
  const handle = { stop: end };
  // The memo is per delivery, shared by every watcher of the group-resource: keys carry the
  // apiVersion, so each version's object (converted once per version) and bytes are made once.
  const memoKey = internedKey(`${n.codec.mediaType}|${t.apiVersion}`);
  // Each event is counted once per watcher it is sent to (upstream's watch event metrics).
  const sent = r.parts.watchMetrics?.seriesOf(t.group, t.version, t.resource);
  const sink = new ResponseSink(
    ex,
    memoKey,
    sent,
    (d) => encodeDelivery(n.codec, t, d),
    watchList ? () => watchListSent(r) : undefined,
    (reason) => {
      // A watcher that fell behind is told so before its stream ends: its client resumes from
      // the last resourceVersion it received (429 makes client-go back off and watch again).
      if (reason === "slow" && !sink.ended) ex.write(n.codec.encodeWatchEvent("ERROR", slowWatcherStatus()));
      end();
    },
    Number(opts.resourceVersion) || 0,
  );
  // The request's signal aborts when the client goes away (handled just below) or when the
  // server cancels the request; either way the stream ends.
  r.ctx.signal.addEventListener("abort", () => (ex.closed ? undefined : end()), { once: true });
  ex.onClose(() => {
    sink.ended = true;
    timer?.cancel();
    sink.active?.stop();
    r.parts.streams.delete(handle);
  });
  ex.head(200, { "content-type": contentType, "cache-control": "no-cache, private", ...(r.warnings.length > 0 ? { warning: warningHeader(r.warnings) } : {}) });
  // Flush the head now (upstream flushes too): clients wait for it before reading events.
  ex.write("");

  const bytesOf = (d: Delivery<KObject>, converted?: KObject): Buffer => {
    if (table && d.type !== "BOOKMARK") {
      const row = tableRow(r, table.version, converted ?? servedObject(t, d.entry!.object, d.revision), firstTableEvent);
      firstTableEvent = false;
      return n.codec.encodeWatchEvent(d.type, row);
    }
    let b = d.memo.get(memoKey) as Buffer | undefined;
    if (!b) {
      b = encodeDelivery(n.codec, t, d, converted);
      d.memo.set(memoKey, b);
    }
    return b;
  };
  // A test harness's tap (src/testing/) hears of each event and may end the watch early.
  const tap = r.ctx.watchTap;
  const deliver = (d: Delivery<KObject>, converted?: KObject): boolean => {
    const ok = sink.sendBytes(d, bytesOf(d, converted));
    if (tap) endEarly(tap.sent({ type: d.type, name: d.entry?.object.metadata?.name, namespace: d.entry?.object.metadata?.namespace, resourceVersion: String(d.revision) }));
    return ok;
  };
  const endEarly = (ending: WatchEnding | undefined): void => {
    if (!ending || sink.ended) return;
    if (ending.end === "error") {
      if (ending.bookmark && opts.allowWatchBookmarks) {
        ex.write(n.codec.encodeWatchEvent("BOOKMARK", bookmarkObject(t, sink.lastRevision)));
        tap!.sent({ type: "BOOKMARK", resourceVersion: String(sink.lastRevision) });
      }
      ex.write(n.codec.encodeWatchEvent("ERROR", ending.status.toStatus()));
      tap!.sent({ type: "ERROR" });
    }
    end();
  };
  if (tap?.begin) {
    // A bookmark sent before any event carries the revision the watch starts from.
    if (!sink.lastRevision) sink.lastRevision = await r.store.currentRevision();
    endEarly(tap.begin());
    if (sink.ended) return;
  }

  // Webhook-converted types: events are converted (once per delivery and version, see
  // convertedOf) and written in order through a chain; the cache watcher pauses while conversions
  // are pending beyond a bound, as it does for a response that does not drain.
  const converting = convertsOnRead(t);
  const convKey = internedKey(`converted|${t.apiVersion}`);
  const convertedOf = (d: Delivery<KObject>): Promise<KObject> => {
    let p = d.memo.get(convKey) as Promise<KObject> | undefined;
    if (!p) {
      p = servedOne(t, servedObject(t, d.entry!.object, d.revision));
      p.catch(() => undefined);
      d.memo.set(convKey, p);
    }
    return p;
  };
  let chain: Promise<void> = Promise.resolve();
  let pausedForConversion = false;
  const maxPendingConversions = 64;
  // Tables, conversion and a tap take the handler's path; everything else stays in the sink.
  if (table || converting || tap) {
    sink.special = (d) => {
      if (!converting || (d.type === "BOOKMARK" && sink.pending === 0)) return deliver(d);
      sink.pending++;
      const conversion = d.type === "BOOKMARK" ? undefined : convertedOf(d);
      chain = chain.then(async () => {
        let obj: KObject | undefined;
        try {
          obj = conversion ? await conversion : undefined;
        } catch (e) {
          sink.pending--;
          if (!sink.ended) ex.write(n.codec.encodeWatchEvent("ERROR", toApiError(e).toStatus()));
          end();
          return;
        }
        sink.pending--;
        if (sink.ended) return;
        deliver(d, obj);
        if (pausedForConversion && sink.pending === 0 && !sink.waitingForDrain) {
          pausedForConversion = false;
          sink.active?.resume();
        }
      });
      if (sink.pending < maxPendingConversions && !sink.waitingForDrain) return true;
      pausedForConversion = true;
      return false;
    };
  }
  const result = prepared.begin(sink);
  // The initial events went out with begin (those a slow client held back wait in the watcher):
  // the seat flow control holds for the watch's initialization is free again.
  r.ctx.watchInitialized?.();
  if ("error" in result) {
    if (!sink.ended) ex.write(n.codec.encodeWatchEvent("ERROR", toApiError(result.error).toStatus()));
    tap?.sent({ type: "ERROR" });
    end();
    return;
  }
  sink.active = result;
  if (sink.ended) {
    result.stop();
    return;
  }
  r.parts.streams.add(handle);
  // Without timeoutSeconds, a random time from --min-request-timeout to twice it, so that watches
  // begun together do not all reconnect together; 0 means none.
  const min = r.parts.minRequestTimeoutSeconds ?? defaultMinRequestTimeoutSeconds;
  // A negative timeoutSeconds has run out already: upstream's timer fires at once.
  const asked = opts.timeoutSeconds ?? 0;
  const seconds = asked !== 0 ? Math.max(asked, 0) : min * (1 + Math.random());
  if (seconds > 0 || asked < 0) timer = deadlines.after(seconds * 1000, end);
}

function encodeDelivery(codec: Codec, t: ResourceType, d: Delivery<KObject>, converted?: KObject): Buffer {
  if (d.type === "BOOKMARK") {
    return codec.encodeWatchEvent("BOOKMARK", bookmarkObject(t, d.revision, d.initialEventsEnd ? { [initialEventsEndAnnotation]: "true" } : undefined));
  }
  return codec.encodeWatchEvent(d.type, converted ?? servedObject(t, d.entry!.object, d.revision));
}

// Every watcher of an event looks its bytes up in the same memo: with one string object per key
// (not one per watch) the lookup compares pointers instead of reading each watch's own copy.
const interned = new Map<string, string>();
function internedKey(k: string): string {
  let s = interned.get(k);
  if (s === undefined) interned.set(k, (s = k));
  return s;
}

function slowWatcherStatus(): Record<string, unknown> {
  return new ApiError(429, "TooManyRequests", "the watch was closed because the client did not keep up with its events; watch again from the last resourceVersion received", { retryAfterSeconds: 1 }).toStatus();
}

/** Upstream's watch-list latency: from the request's arrival to its initial-events-end bookmark, by the request's scope. */
function watchListSent(r: ResourceRequest): void {
  const scope = r.info.name ? "resource" : r.info.namespace ? "namespace" : "cluster";
  r.parts.watchMetrics?.initialEventsSent(r.type.group, r.type.version, r.type.resource, scope, (Date.now() - r.ctx.receivedAt) / 1000);
}

// WATCH: a long-lived stream of {type, object} events in the negotiated encoding. A client that
// does not keep up is cut off once its unsent bytes pass a bound, never buffered without limit.
import { ApiError } from "../apimachinery/errors.js";
import { parseListOptions, validateListOptions } from "../registry/list-options.js";
import type { KObject } from "../registry/object.js";
import { startWatch, type WatchEventType } from "../registry/watch.js";
import type { ResourceRequest } from "./context.js";
import { negotiateRead } from "./output.js";
import { tableRow } from "./table.js";

/** Unsent bytes a watcher may hold before it is ended (as upstream ends a blocked watcher). */
export const maxPendingWatchBytes = 16 * 1024 * 1024;

export async function handleWatch(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const opts = parseListOptions(r.ex.query);
  validateListOptions(opts, r.parts.gates.enabled("WatchList"));
  const ex = r.ex;
  let headerSent = false;
  let ended = false;
  let firstTableEvent = true;
  const contentType = n.target ? `application/json;as=Table;v=${n.target.version};g=meta.k8s.io` : n.codec.streamContentType;
  const sendHead = () => {
    if (headerSent) return;
    headerSent = true;
    ex.head(200, { "content-type": contentType, "cache-control": "no-cache, private" });
  };
  const end = () => {
    if (ended) return;
    ended = true;
    active?.stop();
    r.parts.streams.delete(handle);
    sendHead();
    ex.end();
  };
  const handle = { stop: end };
  let active: { stop(): void } | undefined;
  const sink = {
    send(type: WatchEventType, object: unknown) {
      if (ended) return;
      sendHead();
      let payload = object;
      if (n.target?.as === "Table" && type !== "ERROR" && type !== "BOOKMARK") {
        payload = tableRow(r, n.target.version, object as KObject, firstTableEvent);
        firstTableEvent = false;
      }
      ex.write(n.codec.encodeWatchEvent(type, payload));
      if (ex.pending() > maxPendingWatchBytes) end();
    },
    close: end,
  };
  ex.onClose(() => {
    ended = true;
    active?.stop();
    r.parts.streams.delete(handle);
  });
  try {
    active = await startWatch(r.parts.store, r.type, r.info.namespace, opts, sink);
  } catch (e) {
    if (!headerSent) throw e;
    sink.send("ERROR", (e instanceof ApiError ? e : new ApiError(500, "InternalError", String(e))).toStatus());
    end();
    return;
  }
  if (ended) active.stop();
  else {
    r.parts.streams.add(handle);
    sendHead();
  }
}

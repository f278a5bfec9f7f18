// The request every write of a handler is made for, as the store takes it: who asked (for
// admission), the request's cancellation, its Warning header entries (strategies may add to
// them), its audit annotate() (admission plugins add to the request's event) and its latency trackers (webhook
// time, left out of the latency SLI).
import type { WriteOptions, WriteRequest } from "../registry/write-options.js";
import { latencyTrackers } from "../http/context.js";
import type { ResourceRequest } from "./context.js";

export function writeRequest(r: ResourceRequest): WriteRequest {
  const { user, warnings, ctx } = r;
  // The signal is a getter: making one costs more than the filters of a request, and most writes
  // never wait on anything that reads it.
  return {
    user,
    warnings,
    annotate: (key, value, level) => ctx.annotate(key, value, level),
    latency: latencyTrackers(r.ctx),
    get signal() {
      return r.signal;
    },
    cancelReason: () => r.ctx.cancelReason,
  };
}

export function writeOptions<O extends WriteOptions>(r: ResourceRequest, opts: O): O {
  return { ...opts, request: writeRequest(r) };
}

// What every write of a request passes to the store besides its own options: who asked (for
// admission) and the request's cancellation.
import type { WriteOptions } from "../registry/store.js";
import type { ResourceRequest } from "./context.js";

export function writeOptions<O extends WriteOptions>(r: ResourceRequest, opts: O): O {
  return { ...opts, user: r.user, signal: r.signal };
}

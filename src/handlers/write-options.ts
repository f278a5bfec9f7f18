// What every write of a request passes to the store besides its own options: who asked (for
// admission), the request's cancellation, its Warning header entries (strategies may add to
// them) and the admission request the write's admission calls share.
import { newAdmissionRequest, type WriteOptions } from "../registry/write-options.js";
import type { ResourceRequest } from "./context.js";

export function writeOptions<O extends WriteOptions>(r: ResourceRequest, opts: O): O {
  // The signal is a getter: making one costs more than the filters of a request, and most writes
  // never wait on anything that reads it.
  return Object.defineProperty({ ...opts, user: r.user, warnings: r.warnings, ...(r.ctx.audit ? { auditAnnotations: r.ctx.audit.annotations } : {}), admissionRequest: newAdmissionRequest() }, "signal", { get: () => r.signal, enumerable: true }) as O;
}

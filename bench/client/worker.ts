// The load-client process. Forked by the bench driver so that generating load never competes
// with the driver's own work, and so its CPU use (reported with every result) shows whether the
// client, rather than the server, was the limit.
import { serveIpc } from "../core/child.js";
import { runClosed } from "./closed.js";
import { runList, runStringify } from "./list.js";
import { runOpen } from "./open.js";
import type { RawRequest, RawResponse } from "./protocol.js";
import { openH2 } from "./transport.js";
import { runWatch } from "./watch.js";

serveIpc({
  closed: runClosed,
  open: runOpen,
  list: runList,
  stringify: runStringify,
  watch: runWatch,
  async request(q: RawRequest): Promise<RawResponse> {
    const c = await openH2(q.target);
    try {
      const r = await c.request(q.method, q.path, q.body === undefined ? undefined : Buffer.from(q.body), true);
      return { status: r.status, contentType: r.contentType ?? "", body: new Uint8Array(r.body!) };
    } finally {
      c.close();
    }
  },
});

// Anchor for watch fan-out: the simplest correct fan-out server. GET ?watch=1 registers a
// chunked stream; a POST to .../pods decodes the object, serializes one watch event ONCE and
// writes the same buffer to every watcher, cutting off a watcher with too much unsent data
// (kapi's bound, 16 MiB). Anything kapi does beyond this is overhead.
import { serveIpc } from "../core/child.js";
import { servingCredsFromCertDir } from "../core/tls.js";
import { listenBare, type BareExchange } from "./listen.js";

const maxPending = 16 * 1024 * 1024;
const watchers = new Set<BareExchange>();
let rv = 1;

serveIpc({
  async start(o: { certDir: string }) {
    const { url } = await listenBare(servingCredsFromCertDir(o.certDir), (ex) => {
      if (ex.method === "GET" && ex.path.includes("watch=1")) {
        watchers.add(ex);
        ex.onClose(() => watchers.delete(ex));
        ex.head(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
        return;
      }
      void ex.body().then((raw) => {
        const obj = JSON.parse(raw.toString("utf8"));
        obj.metadata = { ...obj.metadata, resourceVersion: String(++rv), uid: `uid-${rv}`, creationTimestamp: new Date().toISOString() };
        const created = JSON.stringify(obj);
        if (ex.path.endsWith("/pods")) {
          const event = Buffer.from(`{"type":"ADDED","object":${created}}\n`);
          for (const w of watchers) {
            w.write(event);
            if (w.pending() > maxPending) w.end();
          }
        }
        ex.head(201, { "content-type": "application/json" });
        ex.end(Buffer.from(created));
      });
    });
    return { url };
  },
  watchers: () => watchers.size,
});

// Two connections joined by a proxy live and die together (upstream's UpgradeAwareHandler):
// once either is closed or ended, both are destroyed and the join is over.
import type { Duplex } from "node:stream";

/**
 * Ties `client` and `backend` together; `done` runs once, when both are closed. `backendEnded`
 * runs first when the backend ends its side (a last word to the client). Returns the closer.
 */
export function closeTogether(client: Duplex, backend: Duplex, done: () => void, backendEnded?: () => void): () => void {
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    backend.destroy();
    client.destroy();
    done();
  };
  backend.on("error", () => undefined);
  client.on("error", () => undefined);
  client.once("close", close);
  backend.once("close", close);
  client.once("end", () => setImmediate(close));
  backend.once("end", () => {
    if (!closed) backendEnded?.();
    setImmediate(close);
  });
  return close;
}

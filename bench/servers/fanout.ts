// Anchor for watch fan-out: the simplest correct fan-out server (fanout-handler.ts): each pod
// event serialized ONCE and the same buffer written to every watcher. Anything kapi does beyond
// this is overhead.
import { serveIpc } from "../core/child.js";
import { servingCredsFromCertDir } from "../core/tls.js";
import { fanoutHandler } from "./fanout-handler.js";
import { listenBare } from "./listen.js";

// The pad is set after start (setPad): the watch case measures kapi's event size first.
const options = { fansOut: (path: string) => path.endsWith("/pods"), pad: 0 };
const { handle, watchers } = fanoutHandler(options);

serveIpc({
  async start(o: { certDir: string }) {
    const { url } = await listenBare(servingCredsFromCertDir(o.certDir), handle);
    return { url };
  },
  watchers: () => watchers.size,
  setPad: (bytes: number) => {
    options.pad = bytes;
    return true;
  },
});

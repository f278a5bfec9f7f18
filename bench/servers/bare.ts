// Anchor for GET and p99: a bare node:http2 server (HTTP/1.1 too) with kapi's TLS, answering
// every request with the exact bytes kapi answered for the object. Nothing can be cheaper
// in Node over this TLS, so kapi's figure divided by this one is what the API machinery costs.
import { serveIpc } from "../core/child.js";
import { servingCredsFromCertDir } from "../core/tls.js";
import { listenBare } from "./listen.js";

export interface BareStart {
  certDir: string;
  body: Uint8Array;
  contentType: string;
}

serveIpc({
  async start(o: BareStart) {
    const body = Buffer.from(o.body);
    const headers = { "content-type": o.contentType, "content-length": body.length };
    const { url } = await listenBare(servingCredsFromCertDir(o.certDir), (ex) => {
      ex.head(200, headers);
      ex.end(body);
    });
    return { url };
  },
});

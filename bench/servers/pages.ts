// Anchor for LIST: a bare node:http2 server (HTTP/1.1 too) with kapi's TLS, answering each page
// request of a paged traversal with the exact bytes kapi served for it (captured once by the
// load client, continue tokens included, so the client follows the same pages). Nothing can be
// cheaper in Node over this TLS: kapi's traversal time over this one is what serving a list costs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serveIpc } from "../core/child.js";
import { servingCredsFromCertDir } from "../core/tls.js";
import { listenBare } from "./listen.js";

export interface PagesStart {
  certDir: string;
  /** Written by the load client's listVerify: manifest.json ([{ path, file }]) and the pages. */
  pagesDir: string;
}

serveIpc({
  async start(o: PagesStart) {
    const manifest = JSON.parse(readFileSync(join(o.pagesDir, "manifest.json"), "utf8")) as { path: string; file: string }[];
    // Keyed by the request's :path exactly as the client sends it (collection, limit, continue).
    const pages = new Map(manifest.map((p) => [p.path, readFileSync(join(o.pagesDir, p.file))]));
    const notFound = Buffer.from('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}\n');
    const { url } = await listenBare(servingCredsFromCertDir(o.certDir), (ex) => {
      const body = pages.get(ex.path);
      // The headers kapi sends with a list (src/http/respond.ts).
      ex.head(body ? 200 : 404, { "content-type": "application/json", "cache-control": "no-cache, private", "content-length": (body ?? notFound).length });
      ex.end(body ?? notFound);
    });
    return { url, pages: pages.size };
  },
});

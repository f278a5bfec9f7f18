// kapi in its own process, so the load client, the anchors and the bench driver never share its
// event loop. Loaded from the built bundle, as users run it, unless the source is newer (then from
// source, via the tsx loader): bench/core/kapi-build.ts.
// The kapi tree is an argument (default: this checkout), so a baseline checkout can be measured
// with the same harness: `--kapi-root /path/to/other/kapi`.
import { pathToFileURL } from "node:url";
import type { KapiServer, ServerOptions, startServer as StartServer } from "../../src/index.js";
import { serveIpc } from "../core/child.js";
import { kapiBuild } from "../core/kapi-build.js";

export interface KapiStart {
  /** Root of the kapi checkout to run (its built dist/bundle/index.js, or its src/index.ts). */
  kapiRoot: string;
  storage: "memory" | "sqlite" | "etcd3";
  dataDir: string;
  /** Shared across servers so certificates are generated once per bench run, not per server. */
  certDir: string;
  /** More ServerOptions (plain data), e.g. authorizationMode and tokenAuthFile for get-authz. */
  options?: Partial<ServerOptions>;
}

let server: KapiServer | undefined;

serveIpc(
  {
    async start(o: KapiStart) {
      const kapi = kapiBuild(o.kapiRoot, "dist/bundle/index.js", "src/index.ts");
      const { startServer } = (await import(pathToFileURL(kapi.file).href)) as { startServer: typeof StartServer };
      server = await startServer({ storage: o.storage, dataDir: o.dataDir, port: 0, journal: false, faults: false, options: { ...o.options, certDir: o.certDir } });
      return { url: server.url, kubeconfig: server.kubeconfig, loaded: kapi.note };
    },
  },
  async () => {
    await server?.stop();
  },
);

// TLS material shared by kapi, the bare anchors and the load client: the anchors serve with
// kapi's own certificate and verify clients against its client CA, so TLS costs are identical.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface ClientCreds {
  ca: string;
  cert: string;
  key: string;
}

export interface ServingCreds {
  cert: string;
  key: string;
  clientCA: string;
}

export function clientCredsFromKubeconfig(kubeconfig: string): ClientCreds {
  const kc = parse(kubeconfig);
  const d = (s: string) => Buffer.from(s, "base64").toString("utf8");
  return {
    ca: d(kc.clusters[0].cluster["certificate-authority-data"]),
    cert: d(kc.users[0].user["client-certificate-data"]),
    key: d(kc.users[0].user["client-key-data"]),
  };
}

/** kapi's generated serving pair and client CA, as written into its cert dir. */
export function servingCredsFromCertDir(certDir: string): ServingCreds {
  const r = (f: string) => readFileSync(join(certDir, f), "utf8");
  return { cert: r("apiserver.crt"), key: r("apiserver.key"), clientCA: r("client-ca.crt") };
}

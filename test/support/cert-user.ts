// A user of a test server identified by a client certificate from the server's client CA (CN =
// user name, O = groups), with a kubeconfig of its own for kubectl.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { createLeaf } from "../../src/authn/certs.js";
import type { Credentials, TestServer } from "./client.js";

export interface CertUser {
  creds: Credentials;
  kubeconfig: string;
}

/** `dataDir` is the server's (its pki/client-ca.* sign the certificate); `dir` gets the kubeconfig. */
export async function certUser(s: TestServer, dataDir: string, dir: string, name: string, groups: string[] = []): Promise<CertUser> {
  const pki = join(dataDir, "pki");
  const ca = { certPem: readFileSync(join(pki, "client-ca.crt"), "utf8"), keyPem: readFileSync(join(pki, "client-ca.key"), "utf8") };
  const leaf = await createLeaf(ca, { commonName: name, organizations: groups, usage: "client" });
  const b64 = (x: string) => Buffer.from(x).toString("base64");
  const kubeconfig = join(dir, `${name.replace(/[^a-z0-9-]/gi, "_")}.kubeconfig`);
  writeFileSync(
    kubeconfig,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "kapi", cluster: { server: s.url, "certificate-authority-data": b64(s.admin.ca) } }],
      users: [{ name: "u", user: { "client-certificate-data": b64(leaf.certPem), "client-key-data": b64(leaf.keyPem) } }],
      contexts: [{ name: "u", context: { cluster: "kapi", user: "u" } }],
      "current-context": "u",
    }),
  );
  return { creds: { ca: s.admin.ca, cert: leaf.certPem, key: leaf.keyPem }, kubeconfig };
}

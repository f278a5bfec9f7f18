// A kubeconfig for the admin user, embedding the serving CA and a client certificate.
import { stringify } from "yaml";

export interface KubeconfigInput {
  server: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  name?: string;
  user?: string;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

export function renderKubeconfig(k: KubeconfigInput): string {
  const name = k.name ?? "kapi";
  const user = k.user ?? "kapi-admin";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: k.server, "certificate-authority-data": b64(k.caPem) } }],
    users: [{ name: user, user: { "client-certificate-data": b64(k.clientCertPem), "client-key-data": b64(k.clientKeyPem) } }],
    contexts: [{ name, context: { cluster: name, user } }],
    "current-context": name,
    preferences: {},
  });
}

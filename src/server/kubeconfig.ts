// A kubeconfig for the admin user, embedding the serving CA and a client certificate.

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
  // Written by hand (a fixed shape, JSON-quoted scalars) so start-up needs no YAML library.
  const q = JSON.stringify;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${q(name)}`,
    "  cluster:",
    `    server: ${q(k.server)}`,
    `    certificate-authority-data: ${b64(k.caPem)}`,
    "users:",
    `- name: ${q(user)}`,
    "  user:",
    `    client-certificate-data: ${b64(k.clientCertPem)}`,
    `    client-key-data: ${b64(k.clientKeyPem)}`,
    "contexts:",
    `- name: ${q(name)}`,
    "  context:",
    `    cluster: ${q(name)}`,
    `    user: ${q(user)}`,
    `current-context: ${q(name)}`,
    "preferences: {}",
    "",
  ].join("\n");
}

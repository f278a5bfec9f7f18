// A namespace as upstream's e2e framework hands one out: created, and ready once the root CA
// publisher has put kube-root-ca.crt in it, so tests that count what a namespace holds count a
// settled state (the ConfigMap included, as on any cluster).
import { req, type EmbeddedTestServer } from "./client.js";

/** Settles the controllers, then kube-root-ca.crt must be in `ns` (the publisher reacts to the namespace). */
export async function waitForRootCA(s: EmbeddedTestServer, ns: string): Promise<void> {
  await s.settle();
  const r = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
  if (r.status !== 200) throw new Error(`kube-root-ca.crt is not in ${ns} once settled: ${r.status}`);
}

export async function createNamespace(s: EmbeddedTestServer, ns: string): Promise<void> {
  const r = await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } });
  if (r.status !== 201) throw new Error(`creating namespace ${ns}: ${r.status} ${r.text}`);
  await waitForRootCA(s, ns);
}

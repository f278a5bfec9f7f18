// A namespace as upstream's e2e framework hands one out: created, and ready once the root CA
// publisher has put kube-root-ca.crt in it, so tests that count what a namespace holds count a
// settled state (the ConfigMap included, as on any cluster).
import { req, type TestServer } from "./client.js";

export async function waitForRootCA(s: TestServer, ns: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`kube-root-ca.crt did not appear in ${ns}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function createNamespace(s: TestServer, ns: string): Promise<void> {
  const r = await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } });
  if (r.status !== 201) throw new Error(`creating namespace ${ns}: ${r.status} ${r.text}`);
  await waitForRootCA(s, ns);
}

// /metrics: Prometheus text with kube-apiserver's request and storage metrics, per server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  // ConfigMaps are counted below: no root CA publisher adds kube-root-ca.crt at a moment of its own.
  const options = { controllers: ["*", "-root-ca-cert-publisher"] };
  [a, b] = await Promise.all([startTestServer({ storage: "memory", options }), startTestServer({ storage: "memory", options })]);
  // Each server makes two ConfigMaps of its own in kube-system at start (legacy token tracking,
  // extension-apiserver-authentication), by controllers: startServer() has settled them, so they are there.
  for (const s of [a, b]) {
    for (const name of ["kube-apiserver-legacy-service-account-token-tracking", "extension-apiserver-authentication"]) expect((await req(s, "GET", `/api/v1/namespaces/kube-system/configmaps/${name}`)).status).toBe(200);
  }
});
afterAll(async () => Promise.all([a?.stop(), b?.stop()]));

/** The value of the sample of `name` whose labels include all of `want` (undefined if none). */
function sample(text: string, name: string, want: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(want).every(([k, v]) => labels[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe("/metrics", () => {
  it("counts each server's own requests and objects", async () => {
    await req(a, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "m1" } } });
    await req(a, "GET", "/api/v1/namespaces/default/configmaps");
    await req(a, "GET", "/api/v1/namespaces/default/configmaps/nope");
    const ma = await req(a, "GET", "/metrics");
    expect(ma.status).toBe(200);
    expect(String(ma.headers["content-type"])).toContain("text/plain");
    const cm = { group: "", version: "v1", resource: "configmaps", component: "apiserver", dry_run: "" };
    expect(sample(ma.text, "apiserver_request_total", { ...cm, verb: "POST", scope: "resource", code: "201" })).toBe(1);
    expect(sample(ma.text, "apiserver_request_total", { ...cm, verb: "LIST", scope: "namespace", code: "200" })).toBe(1);
    expect(sample(ma.text, "apiserver_request_total", { ...cm, verb: "GET", scope: "resource", code: "404" })).toBe(1);
    expect(sample(ma.text, "apiserver_storage_objects", { resource: "configmaps" })).toBe(3);
    expect(sample(ma.text, "apiserver_storage_objects", { resource: "namespaces" })).toBe(4);
    expect(ma.text).toContain("apiserver_request_duration_seconds_bucket");
    const mb = await req(b, "GET", "/metrics");
    expect(sample(mb.text, "apiserver_request_total", { ...cm, verb: "POST" })).toBeUndefined();
    expect(sample(mb.text, "apiserver_storage_objects", { resource: "configmaps" })).toBe(2);
  });

  it("needs credentials under npm start's configuration", async () => {
    const s = await startTestServer({ storage: "memory", options: { authenticationConfig: "config/local-authentication.yaml" } });
    try {
      expect((await req(s, "GET", "/metrics", { creds: s.anonymous })).status).toBe(401);
      expect((await req(s, "GET", "/metrics")).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});

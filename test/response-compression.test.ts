// Response compression follows the APIResponseCompression gate (on by default in 1.34): large
// responses are gzipped for clients that accept gzip, small ones never, and with the gate off
// nothing is, whatever Accept-Encoding says.
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { constants as h2 } from "node:http2";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { h2session, req, startTestServer, type TestServer } from "./support/client.js";

const namespace = "default";
const cmPath = `/api/v1/namespaces/${namespace}/configmaps`;
// The bulk ConfigMaps alone (the namespace also holds kube-root-ca.crt).
const labelSelector = "bulk=yes";
const listPath = `${cmPath}?labelSelector=${encodeURIComponent(labelSelector)}`;

/** About 1.1 MiB of ConfigMaps in one list. */
async function fillMiB(s: TestServer): Promise<void> {
  for (let i = 0; i < 11; i++) {
    const r = await req(s, "POST", cmPath, { body: { metadata: { name: `bulk-${i}`, labels: { bulk: "yes" } }, data: { v: "x".repeat(100 * 1024) } } });
    expect(r.status).toBe(201);
  }
}

function coreApi(s: TestServer): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

/** One HTTP/2 GET; the raw headers and body as received (nothing decompressed). */
async function h2get(s: TestServer, path: string, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  const session = h2session(s);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ [h2.HTTP2_HEADER_PATH]: path, ...headers });
      const chunks: Buffer[] = [];
      let got: Record<string, unknown> = {};
      stream.on("response", (h) => (got = h));
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => resolve({ headers: got, body: Buffer.concat(chunks) }));
      stream.on("error", reject);
      stream.end();
    });
  } finally {
    session.close();
  }
}

describe("with APIResponseCompression on (the default)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await fillMiB(s);
  });
  afterAll(async () => s?.stop());

  it("gzips a 1 MiB list for a client that accepts gzip, over HTTP/1.1 and HTTP/2", async () => {
    const one = await req(s, "GET", listPath, { headers: { "accept-encoding": "gzip" } });
    expect(one.headers["content-encoding"]).toBe("gzip");
    expect(one.headers["vary"]).toContain("Accept-Encoding");
    expect(JSON.parse(gunzipSync(one.body).toString()).items).toHaveLength(11);
    const two = await h2get(s, listPath, { "accept-encoding": "deflate, gzip" });
    expect(two.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(two.body).toString()).items).toHaveLength(11);
  });

  it("does not gzip small responses, nor for clients that do not name the bare gzip token", async () => {
    const small = await req(s, "GET", `${cmPath}/bulk-0`, { headers: { "accept-encoding": "gzip" } });
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.json.metadata.name).toBe("bulk-0");
    for (const accept of ["", "identity", "x-gzip", "gzip;q=1", "deflate, br"]) {
      const r = await req(s, "GET", listPath, { headers: { "accept-encoding": accept } });
      expect(r.headers["content-encoding"], accept).toBeUndefined();
      expect(r.json.items, accept).toHaveLength(11);
    }
  });

  it("serves @kubernetes/client-node a gzipped list it reads as usual", async () => {
    const r = await coreApi(s).listNamespacedConfigMapWithHttpInfo({ namespace, labelSelector });
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect(r.data.items).toHaveLength(11);
  });
});

describe("with --feature-gates=APIResponseCompression=false", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ options: { featureGates: "APIResponseCompression=false" } });
    await fillMiB(s);
  });
  afterAll(async () => s?.stop());

  it("sends a 1 MiB list uncompressed whatever Accept-Encoding says, over HTTP/1.1 and HTTP/2", async () => {
    const one = await req(s, "GET", listPath, { headers: { "accept-encoding": "gzip" } });
    expect(one.headers["content-encoding"]).toBeUndefined();
    expect(one.body.length).toBeGreaterThan(1024 * 1024);
    expect(one.json.items).toHaveLength(11);
    const two = await h2get(s, listPath, { "accept-encoding": "gzip, deflate" });
    expect(two.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(two.body.toString()).items).toHaveLength(11);
  });

  it("sends large discovery documents uncompressed too", async () => {
    const openapi = await req(s, "GET", "/openapi/v2", { headers: { "accept-encoding": "gzip", accept: "application/json" } });
    expect(openapi.status).toBe(200);
    expect(openapi.body.length).toBeGreaterThan(128 * 1024);
    expect(openapi.headers["content-encoding"]).toBeUndefined();
  });

  it("serves @kubernetes/client-node an uncompressed list", async () => {
    const r = await coreApi(s).listNamespacedConfigMapWithHttpInfo({ namespace, labelSelector });
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(r.data.items).toHaveLength(11);
  });
});

// Request limits against a real server with real clients: --request-timeout on a write held up by
// a slow admission webhook (504 with upstream's Status, and the write never made), the request
// body limit and the JSON patch limits (413 and 422 as upstream), and --min-request-timeout
// (watches without timeoutSeconds end between it and twice it).
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allow, startAdmissionWebhookServer, type AdmissionWebhookServer } from "../src/admission/webhook/server.testkit.js";
import { req, startTestServer, watchEvents, type EmbeddedTestServer, type RawResponse } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
// Upstream's timeout filter encodes the Status struct itself: no kind or apiVersion, plain text.
const timeoutStatus = { status: "Failure", reason: "Timeout", code: 504, message: "Timeout: request did not complete within the allotted timeout" };

function kubeconfigFile(s: EmbeddedTestServer): string {
  const path = join(mkdtempSync(join(tmpdir(), "kapi-limits-")), "kubeconfig");
  writeFileSync(path, s.kubeconfig);
  return path;
}

describe("--request-timeout on a write held up by a slow admission webhook", () => {
  let s: EmbeddedTestServer;
  let hooks: AdmissionWebhookServer;
  let core: k8s.CoreV1Api;
  let kubeconfig: string;
  const ns = "slow";

  beforeAll(async () => {
    s = await startTestServer({ options: { requestTimeoutMs: 1500 } });
    hooks = await startAdmissionWebhookServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    kubeconfig = kubeconfigFile(s);
    expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status).toBe(201);
    // Ignore: a webhook that fails would let the write through, so only the deadline can stop it.
    hooks.on("/slow", (r) => ({ ...allow(r), delayMs: String(r.request.name).startsWith("late") ? 5000 : 0 }));
    const vwc = {
      metadata: { name: "slow" },
      webhooks: [
        {
          name: "slow.example.com",
          clientConfig: { url: hooks.url("/slow"), caBundle: hooks.caBundle },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 10,
          failurePolicy: "Ignore",
        },
      ],
    };
    expect((await req(s, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", { body: vwc })).status).toBe(201);
    await s.settle();
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: "probe" } } })).status).toBe(201);
    expect(hooks.seen.some((x) => x.review.request.name === "probe")).toBe(true);
  });
  afterAll(async () => {
    await s?.stop();
    await hooks?.close();
  });

  it("answers 504 with upstream's Status at the deadline, to raw HTTPS, client-node and kubectl", async () => {
    const t0 = Date.now();
    const raw = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: "late-raw" } } });
    const took = Date.now() - t0;
    expect(raw.status).toBe(504);
    expect(raw.json).toEqual({ ...timeoutStatus, metadata: {}, details: {} });
    expect(raw.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(4500); // long before the webhook would answer

    const err = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "late-client-node" } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(k8s.ApiException);
    expect((err as k8s.ApiException<string>).code).toBe(504);
    expect(JSON.parse((err as k8s.ApiException<string>).body)).toMatchObject(timeoutStatus);

    if (kubectlBin) {
      const k = await kubectl(kubectlBin, kubeconfig, ["create", "configmap", "late-kubectl", "-n", ns]);
      expect(k.code).not.toBe(0);
      // client-go cannot decode a Status without kind from a text/plain body: kubectl says what it says to kube-apiserver.
      expect(k.stderr).toContain("the server was unable to return a response in the time allotted, but may still be processing the request (post configmaps)");
    }
    // Each counted as a termination in self-defence (the probe before them was not).
    const page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
    expect(page.families.get("apiserver_request_terminations_total")?.help).toMatch(/^\[ALPHA\] /);
    const terminated = page.find("apiserver_request_terminations_total", { verb: "POST", group: "", version: "v1", resource: "configmaps", subresource: "", scope: "resource", component: "apiserver", code: "504" });
    expect(terminated.map((x) => x.value)).toEqual([kubectlBin ? 3 : 2]);
  });

  it("leaves none of the timed-out writes made, and the server serving", async () => {
    // A write and a read after the timed-out ones: their abandoned handlers had every chance to write.
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: "marker" } } })).status).toBe(201);
    const names = (await core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata!.name);
    expect(names).toContain("marker");
    expect(names.filter((n) => n!.startsWith("late"))).toEqual([]);
  });
});

/** A body sent in chunks without Content-Length (the limit holds for streamed bodies too). */
function postChunked(s: EmbeddedTestServer, path: string, chunks: Buffer[]): Promise<RawResponse> {
  const url = new URL(path, s.url);
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      { method: "POST", hostname: url.hostname, port: url.port, path: url.pathname, headers: { "content-type": "application/json" }, ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key, agent: false },
      (res) => {
        const got: Buffer[] = [];
        res.on("data", (c) => got.push(c));
        res.on("end", () => {
          const body = Buffer.concat(got);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString(), json: JSON.parse(body.toString()) });
        });
      },
    );
    r.on("error", reject);
    for (const c of chunks) r.write(c);
    r.end();
  });
}

describe("request body and JSON patch limits", () => {
  let s: EmbeddedTestServer;
  let kubeconfig: string;
  const tooLarge = { kind: "Status", status: "Failure", reason: "RequestEntityTooLarge", code: 413, message: "Request entity too large: limit is 3145728" };

  beforeAll(async () => {
    s = await startTestServer();
    kubeconfig = kubeconfigFile(s);
    expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "target" }, data: { a: "x".repeat(1000) } } })).status).toBe(201);
  });
  afterAll(async () => s?.stop());

  it("refuses a body over 3 MiB with 413, declared or streamed, and takes one just under", async () => {
    const over = { metadata: { name: "big" }, data: { a: "x".repeat(3 * 1024 * 1024) } };
    const declared = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: over });
    expect(declared.status).toBe(413);
    expect(declared.json).toMatchObject(tooLarge);
    const streamed = await postChunked(s, "/api/v1/namespaces/default/configmaps", [Buffer.from(JSON.stringify(over).slice(0, 2_000_000)), Buffer.from(JSON.stringify(over).slice(2_000_000))]);
    expect(streamed.status).toBe(413);
    expect(streamed.json).toMatchObject(tooLarge);
    // A body the limit takes (ConfigMap's own rules keep its data under 1 MiB, annotations under 256 KiB).
    const under = Buffer.from(JSON.stringify({ metadata: { name: "under", annotations: { a: "y".repeat(200_000) } }, data: { a: "x".repeat(800_000) } }));
    expect(under.length).toBeLessThan(3 * 1024 * 1024);
    expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: under })).status).toBe(201);
  });

  it("refuses an oversized manifest sent by kubectl with upstream's message", async () => {
    if (!kubectlBin) return;
    const manifest = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big-kubectl", namespace: "default" }, data: { a: "x".repeat(3 * 1024 * 1024) } });
    const k = await kubectl(kubectlBin, kubeconfig, ["create", "-f", "-"], manifest);
    expect(k.code).not.toBe(0);
    expect(k.stderr).toContain("Request entity too large: limit is 3145728");
  });

  it("refuses a JSON patch of more than 10000 operations with 413 (kubectl), and takes 10000", async () => {
    const ops = (n: number) => Array.from({ length: n }, () => ({ op: "test", path: "/metadata/name", value: "target" }));
    const over = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/target", { body: ops(10_001), headers: { "content-type": "application/json-patch+json" } });
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({ reason: "RequestEntityTooLarge", message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001" });
    const at = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/target", { body: ops(10_000), headers: { "content-type": "application/json-patch+json" } });
    expect(at.status).toBe(200);
    // A missing object is reported first, as upstream applies the patch to what it read.
    const missing = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/none", { body: ops(10_001), headers: { "content-type": "application/json-patch+json" } });
    expect(missing.status).toBe(404);
    if (kubectlBin) {
      const file = join(mkdtempSync(join(tmpdir(), "kapi-patch-")), "patch.json");
      writeFileSync(file, JSON.stringify(ops(10_001)));
      const k = await kubectl(kubectlBin, kubeconfig, ["patch", "configmap", "target", "-n", "default", "--type=json", `--patch-file=${file}`]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain("The allowed maximum operations in a JSON patch is 10000, got 10001");
    }
  });

  it("refuses copies that grow the object past 3 MiB with upstream's 422, storing nothing", async () => {
    // Thirteen copies of a 300 KB map add 3.9 MB, over the 3 MiB the copies of one patch may add.
    const copies = Array.from({ length: 13 }, (_, i) => ({ op: "copy", from: "/data", path: `/metadata/annotations/c${i}` }));
    const before = await req(s, "GET", "/api/v1/namespaces/default/configmaps/target");
    const r = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/target", {
      body: [{ op: "add", path: "/metadata/annotations", value: {} }, { op: "add", path: "/data/b", value: "y".repeat(300_000) }, ...copies],
      headers: { "content-type": "application/json-patch+json" },
    });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: "Invalid", code: 422, message: "the server rejected our request due to an error in our request" });
    const after = await req(s, "GET", "/api/v1/namespaces/default/configmaps/target");
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
  });
});

describe("--min-request-timeout", () => {
  let s: EmbeddedTestServer;
  beforeAll(async () => {
    s = await startTestServer({ options: { minRequestTimeoutSeconds: 1 } });
  });
  afterAll(async () => s?.stop());

  it("ends a watch without timeoutSeconds after a random time between it and twice it; timeoutSeconds wins", async () => {
    const durations = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const t0 = Date.now();
        await watchEvents(s, "/api/v1/namespaces/default/configmaps?watch=true", () => false, 6000);
        return Date.now() - t0;
      }),
    );
    for (const d of durations) {
      expect(d).toBeGreaterThanOrEqual(950);
      expect(d).toBeLessThan(2600);
    }
    // Four draws of one uniform time coinciding to the millisecond would mean no randomness.
    expect(new Set(durations).size).toBeGreaterThan(1);
    const t0 = Date.now();
    await watchEvents(s, "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=3", () => false, 6000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2950);
  });
});

// stop() with clients still connected: client-node's requests and watch, a keep-alive HTTPS agent
// holding an idle pooled connection, an HTTP/2 session left open. stop() ends them all and returns
// in milliseconds, not after a fallback timeout.
import * as k8s from "@kubernetes/client-node";
import { connect as h2connect } from "node:http2";
import { Agent, request } from "node:https";
import { describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/client.js";

function getWith(agent: Agent, s: TestServer, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, s.url);
    const r = request({ hostname: url.hostname, port: url.port, path, agent, ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    r.on("error", reject);
    r.end();
  });
}

function h2Get(s: TestServer, path: string): Promise<{ status: number; closed: Promise<void> }> {
  const session = h2connect(s.url, { ca: s.admin.ca, cert: s.admin.cert, key: s.admin.key });
  session.on("error", () => undefined);
  const closed = new Promise<void>((r) => session.once("close", () => r()));
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":path": path });
    stream.on("response", (h) => {
      stream.resume();
      stream.on("end", () => resolve({ status: Number(h[":status"]), closed }));
    });
    stream.on("error", reject);
  });
}

describe("stop() with connected clients", () => {
  it("returns in milliseconds, ending pooled keep-alive connections, HTTP/2 sessions and watches", async () => {
    const s = await startTestServer({ storage: "memory" });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "before-stop" } } });
    expect((await core.listNamespacedConfigMap({ namespace: "default" })).items.length).toBeGreaterThan(0);

    let watchEnded!: () => void;
    const watchDone = new Promise<void>((r) => (watchEnded = r));
    const events: string[] = [];
    await new k8s.Watch(kc).watch("/api/v1/namespaces/default/configmaps", {}, (type) => events.push(type), () => watchEnded());
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "seen-by-watch" } } });
    await expect.poll(() => events.length).toBeGreaterThan(0);

    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    expect(await Promise.all([getWith(agent, s, "/api/v1/namespaces"), getWith(agent, s, "/api")])).toEqual([200, 200]);
    const pooled = () => Object.values(agent.freeSockets).flat().length;
    const idleSockets = pooled();
    expect(idleSockets).toBeGreaterThan(0); // idle, kept for reuse: what made stop() wait before
    const h2 = await h2Get(s, "/version");
    expect(h2.status).toBe(200);

    const t0 = performance.now();
    await s.stop();
    const ms = performance.now() - t0;
    console.log(`stop() with a watch, ${idleSockets} pooled keep-alive connection(s) and an HTTP/2 session: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(500);
    await watchDone;
    await h2.closed;
    agent.destroy();
  });
});

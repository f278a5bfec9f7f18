// What one validating admission webhook costs a write: POSTs of ConfigMaps into a namespace that
// one no-op ValidatingWebhookConfiguration selects (every create makes kapi call a loopback HTTPS
// webhook with its own CA, AdmissionReview v1, answer "allowed"), against the same POSTs into a
// namespace no webhook selects, on the SAME kapi server (sqlite, durable) in the same run, with the
// `create` case's load shape (HTTP/2, ctx.opts.connections connections, one request in flight
// each). The webhook server runs in the bench process (as a real webhook runs beside the cluster).
// Notes add 300 sequential creates each way (one at a time: the per-write latency a webhook adds).
// The goal, half a plain create's rate, is kapi's own bar (the issue sets none): a webhook round
// trip on loopback should not cost more than the write itself.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Target } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { fillTemplate, NAME, SEQ } from "../fixtures.js";
import { makeCert } from "../../src/authn/pki.testkit.js";

const hooked = "bench-webhooked";
const plain = "bench-plain";
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
/** Sequential creates each way (fewer in --quick runs, which check the harness, not the figure). */
const sequentialCount = (ctx: BenchContext) => (ctx.opts.durationMs >= 1000 ? 300 : 20);

function configMap(ns: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: NAME, namespace: ns, labels: { app: "shop-web", tier: "frontend" }, annotations: { "bench/seq": SEQ } },
    data: { "app.properties": "log.level=info\ncache.url=redis://cache.shop.svc.cluster.local:6379/0\n" },
  });
}

/** A no-op validating webhook: answers every review "allowed", echoing its uid. */
async function startNoopWebhook(): Promise<{ url: string; caBundle: string; calls: () => number; close(): Promise<void> }> {
  const ca = await makeCert({ commonName: "bench-webhook-ca" });
  const cert = await makeCert({ commonName: "bench-webhook", issuer: ca, usage: "server", dnsNames: ["localhost"], ips: ["127.0.0.1"] });
  let calls = 0;
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      calls++;
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { apiVersion: string; request: { uid: string } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/validate`,
    caBundle: Buffer.from(ca.certPem).toString("base64"),
    calls: () => calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function post(ctx: BenchContext, t: Target, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await ctx.client.request({ target: t, method: "POST", path, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: r.status, text: Buffer.from(r.body).toString("utf8") };
}

/**
 * `n` creates one after another in each namespace, alternating (so drift in the machine's load
 * and in fsync times hits both alike); the mean time of one create in each, in ms.
 */
async function sequentialMs(ctx: BenchContext, t: Target, n: number): Promise<{ hooked: number; plain: number }> {
  const total: Record<string, number> = { [hooked]: 0, [plain]: 0 };
  for (let i = 0; i < n; i++) {
    for (const ns of i % 2 === 0 ? [hooked, plain] : [plain, hooked]) {
      const t0 = performance.now();
      const r = await post(ctx, t, cmPath(ns), fillTemplate(configMap(ns), `seq-${i}`, String(i)));
      total[ns] += performance.now() - t0;
      if (r.status !== 201) throw new Error(`create-webhook: sequential POST in ${ns}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    }
  }
  return { hooked: total[hooked]! / n, plain: total[plain]! / n };
}

async function setup(ctx: BenchContext): Promise<Session> {
  const hook = await startNoopWebhook();
  let kapi: ServerHandle | undefined;
  try {
    kapi = await ctx.startKapi();
    const t = kapi.target;
    for (const ns of [hooked, plain]) {
      const r = await post(ctx, t, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      if (r.status !== 201) throw new Error(`create-webhook: namespace ${ns}: HTTP ${r.status}`);
    }
    const cfg = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "bench-noop" },
      webhooks: [
        {
          name: "noop.bench.kapi.dev",
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": hooked } },
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          failurePolicy: "Fail",
        },
      ],
    };
    const made = await post(ctx, t, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", cfg);
    if (made.status !== 201) throw new Error(`create-webhook: configuration: HTTP ${made.status}: ${made.text.slice(0, 300)}`);
    // The webhook must really be called (and only in its namespace) before anything is timed.
    const deadline = performance.now() + 10_000;
    for (let i = 0; hook.calls() === 0; i++) {
      if (performance.now() > deadline) throw new Error("create-webhook: the webhook was never called");
      await post(ctx, t, `${cmPath(hooked)}?dryRun=All`, fillTemplate(configMap(hooked), `probe-${i}`));
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = hook.calls();
    await post(ctx, t, cmPath(plain), fillTemplate(configMap(plain), "probe"));
    if (hook.calls() !== before) throw new Error("create-webhook: the webhook was called for the plain namespace");
    const sequential = sequentialCount(ctx);
    const { hooked: seqHooked, plain: seqPlain } = await sequentialMs(ctx, t, sequential);
    const server = kapi;
    const run = async (ns: string, prefix: string) => {
      const { value: r, serverCpuPct } = await server.cpuDuring(() =>
        ctx.client.closed({
          target: server.target,
          proto: "h2",
          connections: ctx.opts.connections,
          perConnection: 1,
          durationMs: ctx.opts.durationMs,
          request: { op: "post", path: cmPath(ns), template: configMap(ns), prefix },
        }),
      );
      if (r.requests === 0) throw new Error(`create-webhook: POST in ${ns}: no request succeeded (${r.errors} errors; ${r.firstError})`);
      return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 });
    };
    return {
      api: (pair) => run(hooked, `wh-${pair}`),
      anchor: (pair) => run(plain, `pl-${pair}`),
      close: async () => {
        await server.stop();
        await hook.close();
      },
      notes: [
        `storage ${ctx.opts.storage}; one ValidatingWebhookConfiguration (failurePolicy Fail, timeoutSeconds 10), a no-op loopback HTTPS webhook in the bench process`,
        `${sequential} sequential creates each way, alternating (one in flight): ${seqHooked.toFixed(2)} ms each with the webhook, ${seqPlain.toFixed(2)} ms without (${(1000 / seqHooked).toFixed(0)} vs ${(1000 / seqPlain).toFixed(0)} creates/s)`,
      ],
    };
  } catch (e) {
    await kapi?.stop();
    await hook.close();
    throw e;
  }
}

export const createWebhook: BenchCase = {
  name: "create-webhook",
  title: "create ConfigMaps through one no-op validating webhook, 64 concurrent, durable",
  anchorTitle: "ConfigMap creates no webhook selects, on the same kapi server",
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 0.5, text: "≥ 0.5" },
  setup,
};

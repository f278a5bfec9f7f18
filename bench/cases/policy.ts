// What a ValidatingAdmissionPolicy costs a create: POSTs of ConfigMaps into a namespace bound by
// one policy of three CEL validations (all passing, so every one is evaluated), against POSTs of
// the same ConfigMaps into a namespace no binding selects, on the SAME kapi server (sqlite,
// durable) in the same run, with the `create` case's load shape (HTTP/2, ctx.opts.connections
// connections, one request in flight each). The goal, 0.8 of the unbound rate, is kapi's own bar
// (the issue sets none): three small expressions should cost far less than the durable write.
import type { Target } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { NAME, SEQ } from "../fixtures.js";

const bound = "vap-bound";
const unbound = "vap-unbound";
const vapPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const bindingPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

export const policyExpressions = [
  "object.metadata.labels['tier'] == 'frontend'",
  "size(object.data) <= 16",
  "object.data.all(k, size(k) < 64 && size(object.data[k]) < 4096)",
];

function policy(): Record<string, unknown> {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "bench-configmaps" },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }] },
      validations: policyExpressions.map((expression) => ({ expression })),
    },
  };
}

function binding(): Record<string, unknown> {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: "bench-configmaps" },
    spec: { policyName: "bench-configmaps", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": bound } } } },
  };
}

function configMap(ns: string, tier = "frontend"): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: NAME, namespace: ns, labels: { app: "shop-web", tier }, annotations: { "bench/seq": SEQ } },
    data: { "app.properties": "log.level=info\ncache.url=redis://cache.shop.svc.cluster.local:6379/0\n", "feature.flags": "a=1,b=0,c=1" },
  });
}

async function post(ctx: BenchContext, t: Target, path: string, body: string): Promise<{ status: number; text: string }> {
  const r = await ctx.client.request({ target: t, method: "POST", path, body });
  return { status: r.status, text: Buffer.from(r.body).toString("utf8") };
}

interface Shape {
  connections: (ctx: BenchContext) => number;
  /** A fixed number of creates per run (the sequential case), else ctx.opts.durationMs of them. */
  maxRequests?: number;
}

async function setup(ctx: BenchContext, shape: Shape): Promise<Session> {
  const kapi: ServerHandle = await ctx.startKapi();
  try {
    for (const ns of [bound, unbound]) {
      const r = await post(ctx, kapi.target, "/api/v1/namespaces", JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }));
      if (r.status !== 201) throw new Error(`create-vap: namespace ${ns}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    }
    for (const [path, body] of [[vapPath, policy()], [bindingPath, binding()]] as const) {
      const r = await post(ctx, kapi.target, path, JSON.stringify(body));
      if (r.status !== 201) throw new Error(`create-vap: POST ${path}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    }
    // The policy must really run: a ConfigMap breaking the first expression is refused once the binding is in effect.
    const t0 = performance.now();
    for (let i = 0; ; i++) {
      const bad = await post(ctx, kapi.target, cmPath(bound), configMap(bound, "backend").replaceAll(NAME, `bench-bad-${i}`).replaceAll(SEQ, "0"));
      if (bad.status === 422 && bad.text.includes("ValidatingAdmissionPolicy 'bench-configmaps' with binding 'bench-configmaps' denied request")) break;
      if (performance.now() - t0 > 5000) throw new Error(`create-vap: the policy did not take effect in 5 s (last: HTTP ${bad.status}: ${bad.text.slice(0, 300)})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const tookEffectMs = performance.now() - t0;
    // Both paths warm before the pairs (untimed): the first timed run is the policy side, and a
    // cold server (JIT, sqlite pages) would otherwise count against it.
    for (const ns of [bound, unbound, bound, unbound]) {
      await ctx.client.closed({ target: kapi.target, proto: "h2", connections: shape.connections(ctx), perConnection: 1, durationMs: Math.min(ctx.opts.durationMs, 1500), request: { op: "post", path: cmPath(ns), template: configMap(ns), prefix: `warm-${ns}-${performance.now() | 0}` } });
    }
    const run = async (ns: string, prefix: string) => {
      const { value: r, serverCpuPct } = await kapi.cpuDuring(() =>
        ctx.client.closed({
          target: kapi.target,
          proto: "h2",
          connections: shape.connections(ctx),
          perConnection: 1,
          durationMs: shape.maxRequests ? 600_000 : ctx.opts.durationMs,
          ...(shape.maxRequests ? { maxRequests: shape.maxRequests } : {}),
          request: { op: "post", path: cmPath(ns), template: configMap(ns), prefix },
        }),
      );
      if (r.requests === 0) throw new Error(`create-vap: POST ${cmPath(ns)}: no request succeeded (${r.errors} errors; ${r.firstError})`);
      return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 });
    };
    return {
      api: (pair) => run(bound, `vap-${pair}`),
      anchor: (pair) => run(unbound, `free-${pair}`),
      close: () => kapi.stop(),
      notes: [
        `storage ${ctx.opts.storage}; one ValidatingAdmissionPolicy of ${policyExpressions.length} validations (${policyExpressions.join("; ")}) bound to namespace ${bound}; in effect ${Math.round(tookEffectMs)} ms after its binding was written (a breaking ConfigMap refused, 422)`,
      ],
    };
  } catch (e) {
    await kapi.stop();
    throw e;
  }
}

export const createVap: BenchCase = {
  name: "create-vap",
  title: `create ConfigMaps under one ValidatingAdmissionPolicy of ${policyExpressions.length} CEL validations, 64 concurrent, durable`,
  anchorTitle: "ConfigMap creates in a namespace no binding selects, on the same kapi server",
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 0.8, text: "≥ 0.8" },
  setup: (ctx) => setup(ctx, { connections: (c) => c.opts.connections }),
};

/** The same, one request at a time over one HTTP/2 connection, 300 creates per run: the latency a policy adds. */
export const createVapSequential: BenchCase = {
  name: "create-vap-seq",
  title: `300 sequential ConfigMap creates under one ValidatingAdmissionPolicy of ${policyExpressions.length} CEL validations, durable`,
  anchorTitle: "300 sequential ConfigMap creates in a namespace no binding selects, on the same kapi server",
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 0.8, text: "≥ 0.8" },
  setup: (ctx) => setup(ctx, { connections: () => 1, maxRequests: 300 }),
};

// What a custom resource's create costs next to a built-in's: POSTs of a namespaced custom
// resource whose CRD (apiextensions.k8s.io/v1, one version, structural schema) carries five CEL
// validation rules (x-kubernetes-validations), against POSTs of ConfigMaps with a request body of
// the same size, on the SAME kapi server (sqlite, durable) in the same run, with the `create`
// case's load shape (HTTP/2, ctx.opts.connections connections, one request in flight each).
// The goal, half a ConfigMap create's rate, is kapi's own bar (the issue sets none): five CEL rules,
// schema validation, pruning and defaulting should not cost more than the write itself.
import type { Target } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { fillTemplate, NAME, SEQ } from "../fixtures.js";

const group = "bench.kapi.dev";
const plural = "webapps";
const kind = "WebApp";
const crdName = `${plural}.${group}`;
const namespace = "default";
const crPath = `/apis/${group}/v1/namespaces/${namespace}/${plural}`;
const cmPath = `/api/v1/namespaces/${namespace}/configmaps`;
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** The five rules on .spec (bounded by maxItems / maxLength / maxProperties, as upstream's cost estimate wants). */
export const celRules = [
  { rule: "self.replicas <= self.maxReplicas", message: "replicas must not exceed maxReplicas" },
  { rule: "self.name.startsWith('app-')", message: "name must start with app-" },
  { rule: "self.ports.all(p, p > 0 && p < 65536)", message: "every port must be in 1..65535" },
  { rule: "has(self.tls) ? self.tls.secretName != '' : true", message: "tls needs a secretName" },
  { rule: "self.labels.exists(k, k == 'tier')", message: "labels must include tier" },
];

function crd(): Record<string, unknown> {
  const str = (maxLength: number) => ({ type: "string", maxLength });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: "webapp", kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  required: ["name", "image", "replicas", "maxReplicas", "ports", "labels"],
                  properties: {
                    name: str(63),
                    image: str(256),
                    replicas: { type: "integer", minimum: 0 },
                    maxReplicas: { type: "integer", minimum: 1 },
                    ports: { type: "array", maxItems: 16, items: { type: "integer", format: "int32" } },
                    tls: { type: "object", required: ["secretName"], properties: { secretName: str(253), hosts: { type: "array", maxItems: 8, items: str(253) } } },
                    labels: { type: "object", maxProperties: 16, additionalProperties: str(63) },
                    env: {
                      type: "array",
                      maxItems: 32,
                      items: { type: "object", required: ["name"], properties: { name: str(128), value: str(1024) } },
                    },
                  },
                  "x-kubernetes-validations": celRules,
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** A custom resource that passes every rule (placeholders for the load client's name and sequence). */
function webApp(name: string, seq: string, spec?: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name, namespace, labels: { app: "shop-web", tier: "frontend" }, annotations: { "bench/seq": seq } },
    spec: {
      name: "app-shop-web",
      image: "registry.example.com/shop/web:1.27.3",
      replicas: 3,
      maxReplicas: 10,
      ports: [8080, 8443, 9090],
      tls: { secretName: "shop-web-tls", hosts: ["shop.example.com", "www.shop.example.com"] },
      labels: { tier: "frontend", team: "shop", env: "production" },
      env: [
        { name: "LOG_LEVEL", value: "info" },
        { name: "CACHE_URL", value: "redis://cache.shop.svc.cluster.local:6379/0" },
      ],
      ...spec,
    },
  };
}

/** A ConfigMap whose serialized request body is `bytes` long (padded in one data value). */
function configMap(bytes: number): string {
  const cm = (pad: string) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: NAME, namespace, labels: { app: "shop-web", tier: "frontend" }, annotations: { "bench/seq": SEQ } },
      data: { "app.properties": "log.level=info\ncache.url=redis://cache.shop.svc.cluster.local:6379/0\n", padding: pad },
    });
  return cm("x".repeat(Math.max(0, bytes - cm("").length)));
}

async function post(ctx: BenchContext, t: Target, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await ctx.client.request({ target: t, method: "POST", path, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: r.status, text: Buffer.from(r.body).toString("utf8") };
}

/** Until the CRD is Established and its resource answers a LIST with 200; the time it took. */
async function untilServed(ctx: BenchContext, t: Target): Promise<number> {
  const t0 = performance.now();
  const deadline = t0 + 30_000;
  let last = "";
  for (;;) {
    const c = await ctx.client.request({ target: t, method: "GET", path: `${crdPath}/${crdName}` });
    const conditions = c.status === 200 ? ((JSON.parse(Buffer.from(c.body).toString("utf8")) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []) : [];
    const established = conditions.some((x) => x.type === "Established" && x.status === "True");
    if (established) {
      const l = await ctx.client.request({ target: t, method: "GET", path: `${crPath}?limit=1` });
      if (l.status === 200) return performance.now() - t0;
      last = `LIST ${crPath}: HTTP ${l.status}`;
    } else last = `CRD ${crdName}: HTTP ${c.status}, conditions ${JSON.stringify(conditions)}`;
    if (performance.now() > deadline) throw new Error(`create-cr-cel: ${crdName} not served after 30 s (${last})`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function setup(ctx: BenchContext): Promise<Session> {
  const kapi: ServerHandle = await ctx.startKapi();
  try {
    const made = await post(ctx, kapi.target, crdPath, crd());
    if (made.status !== 201) throw new Error(`create-cr-cel: create CRD: HTTP ${made.status}: ${made.text.slice(0, 300)}`);
    const servedMs = await untilServed(ctx, kapi.target);
    // The rules must really run on create: one object breaking each of two rules is refused (422).
    const bad = await post(ctx, kapi.target, crPath, webApp("bench-bad", "0", { name: "shop-web", replicas: 11 }));
    if (bad.status !== 422 || !bad.text.includes("name must start with app-") || !bad.text.includes("replicas must not exceed maxReplicas"))
      throw new Error(`create-cr-cel: an object breaking two CEL rules answered HTTP ${bad.status} (want 422 naming both): ${bad.text.slice(0, 300)}`);
    const crTemplate = JSON.stringify(webApp(NAME, SEQ));
    const cmTemplate = configMap(crTemplate.length);
    // One of each, untimed: both paths warm, and their stored sizes for the notes.
    const sizes: number[] = [];
    for (const [path, tpl] of [[crPath, crTemplate], [cmPath, cmTemplate]] as const) {
      const r = await post(ctx, kapi.target, path, fillTemplate(tpl, "bench-probe", "0"));
      if (r.status !== 201) throw new Error(`create-cr-cel: POST ${path}: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
      sizes.push(Buffer.byteLength(r.text));
    }
    const run = async (path: string, template: string, prefix: string) => {
      const { value: r, serverCpuPct } = await kapi.cpuDuring(() =>
        ctx.client.closed({
          target: kapi.target,
          proto: "h2",
          connections: ctx.opts.connections,
          perConnection: 1,
          durationMs: ctx.opts.durationMs,
          request: { op: "post", path, template, prefix },
        }),
      );
      if (r.requests === 0) throw new Error(`create-cr-cel: POST ${path}: no request succeeded (${r.errors} errors; ${r.firstError})`);
      return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 });
    };
    return {
      api: (pair) => run(crPath, crTemplate, `cr-${pair}`),
      anchor: (pair) => run(cmPath, cmTemplate, `cm-${pair}`),
      close: () => kapi.stop(),
      notes: [
        `storage ${ctx.opts.storage}; CRD ${crdName} (1 version, structural schema, ${celRules.length} CEL rules on .spec) served ${Math.round(servedMs)} ms after its create; an object breaking two rules is refused (422)`,
        `request body: custom resource ${Buffer.byteLength(crTemplate) - NAME.length - SEQ.length} bytes + name, ConfigMap ${Buffer.byteLength(cmTemplate) - NAME.length - SEQ.length} bytes + name; as stored and returned: ${sizes[0]} and ${sizes[1]} bytes`,
      ],
    };
  } catch (e) {
    await kapi.stop();
    throw e;
  }
}

export const createCrCel: BenchCase = {
  name: "create-cr-cel",
  title: `create custom resources (CRD with ${celRules.length} CEL validation rules), 64 concurrent, durable`,
  anchorTitle: "ConfigMap creates of the same request size on the same kapi server",
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 0.5, text: "≥ 0.5" },
  setup,
};

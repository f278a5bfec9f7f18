// Aggregated discovery of the extension servers (upstream: kube-aggregator's discovery manager).
// Each service-backed APIService's version document is fetched from its backend — GET /apis in
// apidiscovery.k8s.io/v2, or, when the backend does not answer that, GET /apis/<group>/<version>
// converted — as system:kube-aggregator, and cached: refreshed when the APIService changes and
// every minute. A fetch that fails keeps the last document marked Stale (an empty one when there
// is none yet); a fetched one is Current.
import type { ExternalDiscovery, ExternalGroupVersion } from "../discovery/external.js";
import { backendGet, type ProxyClientCert } from "./backend-get.js";
import { localGroupPriority } from "./priorities.js";
import type { ProxyTable, RemoteGroupVersion } from "./proxy-table.js";
import type { AggregatorResolver } from "./service-resolver.js";

const refreshMs = 60_000;
const fetchTimeoutMs = 10_000;
const maxDiscoveryBytes = 64 << 20;
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

type Obj = Record<string, any>;

/** upstream's ConvertGroupVersionIntoToDiscovery: an APIResourceList's entries as APIResourceDiscovery. */
export function resourcesFromList(list: Obj): Obj[] {
  const entries: Obj[] = Array.isArray(list.resources) ? list.resources : [];
  const out: Obj[] = [];
  const byName = new Map<string, Obj>();
  for (const r of entries.filter((e) => !String(e.name).includes("/"))) {
    const d: Obj = { resource: r.name, responseKind: { group: r.group ?? "", version: r.version ?? "", kind: r.kind }, scope: r.namespaced ? "Namespaced" : "Cluster" };
    if (r.singularName) d.singularResource = r.singularName;
    d.verbs = r.verbs ?? [];
    if (r.shortNames?.length) d.shortNames = r.shortNames;
    if (r.categories?.length) d.categories = r.categories;
    byName.set(r.name, d);
    out.push(d);
  }
  for (const r of entries.filter((e) => String(e.name).includes("/"))) {
    const [parent, sub] = String(r.name).split("/", 2);
    const p = byName.get(parent!);
    if (!p) continue;
    (p.subresources ??= []).push({ subresource: sub, responseKind: { group: r.group ?? "", version: r.version ?? "", kind: r.kind }, verbs: r.verbs ?? [] });
  }
  return out;
}

export interface RemoteDiscoveryDeps {
  table: ProxyTable;
  resolve(): AggregatorResolver | undefined;
  proxyClientCert(): ProxyClientCert | undefined;
}

export class RemoteDiscovery implements ExternalDiscovery {
  private readonly documents = new Map<string, Obj>();
  /** APIService name → its backend's OpenAPI v3 index entry of its group version. */
  private readonly openapi = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Bumped by every refresh: an older fetch's answer is dropped. */
  private readonly generation = new Map<string, number>();

  constructor(private readonly d: RemoteDiscoveryDeps) {}

  start(): void {
    this.unsubscribe = this.d.table.subscribe(() => this.refreshAll());
    this.timer = setInterval(() => this.refreshAll(), refreshMs);
    this.timer.unref();
    this.refreshAll();
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
  }

  groupVersions(): readonly ExternalGroupVersion[] {
    return this.d.table.all().map((r) => ({
      group: r.group,
      version: r.version,
      groupPriorityMinimum: r.groupPriorityMinimum,
      versionPriority: r.versionPriority,
      name: r.name,
      discovery: this.documents.get(r.name) ?? { version: r.version, freshness: "Stale" },
    }));
  }

  openapiPaths(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const r of this.d.table.all()) {
      const url = this.openapi.get(r.name);
      if (url) out[`apis/${r.group}/${r.version}`] = url;
    }
    return out;
  }

  localGroupPriority(group: string): number {
    return localGroupPriority(group);
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private refreshAll(): void {
    const names = new Set(this.d.table.all().map((r) => r.name));
    for (const name of [...this.documents.keys()]) if (!names.has(name)) this.documents.delete(name);
    for (const name of [...this.openapi.keys()]) if (!names.has(name)) this.openapi.delete(name);
    this.changed();
    for (const r of this.d.table.all()) void this.refresh(r);
  }

  private async refresh(r: RemoteGroupVersion): Promise<void> {
    const gen = (this.generation.get(r.name) ?? 0) + 1;
    this.generation.set(r.name, gen);
    const [fetched, openapiURL] = await Promise.all([this.fetch(r).catch(() => undefined), this.fetchOpenAPIEntry(r).catch(() => undefined)]);
    if (this.generation.get(r.name) !== gen || this.d.table.route(r.group, r.version)?.name !== r.name) return;
    const last = this.documents.get(r.name);
    const next = fetched ? { ...fetched, version: r.version, freshness: "Current" } : { ...(last ?? { version: r.version }), freshness: "Stale" };
    const openapiChanged = openapiURL !== undefined && openapiURL !== this.openapi.get(r.name);
    if (openapiChanged) this.openapi.set(r.name, openapiURL);
    if (JSON.stringify(next) === JSON.stringify(last) && !openapiChanged) return;
    this.documents.set(r.name, next);
    this.changed();
  }

  /** How the aggregator's own requests reach r's backend: its TLS settings, as system:kube-aggregator. */
  private async connection(r: RemoteGroupVersion, resolve: AggregatorResolver) {
    return {
      target: await resolve(r.service.namespace, r.service.name, r.service.port),
      insecure: r.insecureSkipTLSVerify === true,
      ...(r.caBundle ? { ca: Buffer.from(r.caBundle, "base64").toString("utf8") } : {}),
      serverName: `${r.service.name}.${r.service.namespace}.svc`,
      clientCert: this.d.proxyClientCert(),
      user: { name: "system:kube-aggregator", groups: [] as string[] },
      timeoutMs: fetchTimeoutMs,
      maxBytes: maxDiscoveryBytes,
    };
  }

  /** The backend's OpenAPI v3 index entry of r's group version (its URL is served here too, proxied). */
  private async fetchOpenAPIEntry(r: RemoteGroupVersion): Promise<string | undefined> {
    const resolve = this.d.resolve();
    if (!r.available || !resolve) return undefined;
    const res = await backendGet({ ...(await this.connection(r, resolve)), path: "/openapi/v3", accept: "application/json" });
    if (res.status !== 200) return undefined;
    const url = (JSON.parse(res.body.toString("utf8")) as Obj).paths?.[`apis/${r.group}/${r.version}`]?.serverRelativeURL;
    return typeof url === "string" ? url : undefined;
  }

  /** The backend's APIVersionDiscovery of r's version (without freshness), or undefined when it cannot be had. */
  private async fetch(r: RemoteGroupVersion): Promise<Obj | undefined> {
    const resolve = this.d.resolve();
    if (!r.available || !resolve) return undefined;
    const common = await this.connection(r, resolve);
    const agg = await backendGet({ ...common, path: "/apis", accept: aggregatedAccept });
    if (agg.status === 200 && /as=APIGroupDiscoveryList/.test(agg.contentType)) {
      const doc = JSON.parse(agg.body.toString("utf8")) as Obj;
      const group = (doc.items ?? []).find((g: Obj) => g?.metadata?.name === r.group);
      const version = (group?.versions ?? []).find((v: Obj) => v?.version === r.version);
      const { freshness: _f, ...rest } = version ?? { version: r.version };
      return rest;
    }
    const legacy = await backendGet({ ...common, path: `/apis/${r.group}/${r.version}`, accept: "application/json" });
    if (legacy.status !== 200) return undefined;
    return { version: r.version, resources: resourcesFromList(JSON.parse(legacy.body.toString("utf8")) as Obj) };
  }
}

// Service references of webhooks (admission and CRD conversion) resolved to an address to dial.
// kapi runs without kube-proxy, so a Service's cluster IP leads nowhere: like kube-apiserver with
// --enable-aggregator-routing (upstream: proxy.ResolveEndpoint), the reference is resolved
// through the Service to one of its ready endpoints — from its EndpointSlices, else from its
// Endpoints object — with the service port mapped to the endpoint's port of the same name. An
// ExternalName service dials its external name. TLS is still checked against
// `<name>.<namespace>.svc` (the caller keeps that host in the URL).
//
// Errors carry the text upstream's dial reports (`service "x" not found`, `no endpoints available
// for service "x"`, ...); the caller prefixes them with `Post "<url>": `.
import { goQuote } from "../apimachinery/go-quote.js";
import type { KObject } from "../apimachinery/object.js";
import type { DialTarget } from "./client.js";

/** Resolves (namespace, name, service port) to the host and port to dial; throws with upstream's text. */
export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<DialTarget>;

/** What the resolver reads. */
export interface ServiceSource {
  service(namespace: string, name: string): Promise<KObject | undefined>;
  /** The EndpointSlices of a service (label kubernetes.io/service-name). */
  endpointSlices(namespace: string, service: string): Promise<KObject[]>;
  endpoints(namespace: string, name: string): Promise<KObject | undefined>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

export const serviceNameLabel = "kubernetes.io/service-name";

export function endpointServiceResolver(source: ServiceSource): ServiceResolver {
  return async (namespace, name, port) => {
    const svc = await source.service(namespace, name);
    if (!svc) throw new Error(`service ${goQuote(name)} not found`);
    const spec = obj(svc.spec);
    const type = str(spec.type) || "ClusterIP";
    if (type === "ExternalName") return { host: str(spec.externalName), port };
    if (type !== "ClusterIP" && type !== "NodePort" && type !== "LoadBalancer") throw new Error(`unsupported service type ${goQuote(type)}`);
    const svcPort = arr(spec.ports).find((p) => p.port === port);
    if (!svcPort) throw new Error(`no service port ${port} found for service ${goQuote(name)}`);
    const portName = str(svcPort.name);
    const candidates = fromSlices(await source.endpointSlices(namespace, name), portName);
    if (candidates.length === 0) candidates.push(...fromEndpoints(await source.endpoints(namespace, name), portName));
    if (candidates.length === 0) throw new Error(`no endpoints available for service ${goQuote(name)}`);
    // Any ready endpoint will do; spreading the calls keeps one bad backend from taking all of them.
    return candidates[Math.floor(Math.random() * candidates.length)]!;
  };
}

/** Ready addresses of the slices whose port list has the service port's name. */
function fromSlices(slices: KObject[], portName: string): DialTarget[] {
  const out: DialTarget[] = [];
  for (const slice of slices) {
    const s = slice as unknown as Obj;
    const p = arr(s.ports).find((x) => str(x.name) === portName);
    if (!p || typeof p.port !== "number") continue;
    for (const ep of arr(s.endpoints)) {
      if (obj(ep.conditions).ready === false) continue;
      const address = arr(ep.addresses)[0] as unknown;
      if (typeof address === "string" && address) out.push({ host: address, port: p.port });
    }
  }
  return out;
}

/** Ready addresses (not notReadyAddresses) of the subsets with a port of that name. */
function fromEndpoints(ep: KObject | undefined, portName: string): DialTarget[] {
  const out: DialTarget[] = [];
  for (const subset of arr((ep as unknown as Obj | undefined)?.subsets)) {
    const p = arr(subset.ports).find((x) => str(x.name) === portName);
    if (!p || typeof p.port !== "number") continue;
    for (const a of arr(subset.addresses)) if (str(a.ip)) out.push({ host: str(a.ip), port: p.port });
  }
  return out;
}

/** The reads this source needs of a synced informer (registry/synced-informer-lookup.ts gives one). */
export interface SyncedObjects {
  get(namespace: string, name: string): KObject | undefined;
  list(namespace?: string): KObject[];
}

/**
 * A ServiceSource over the server's shared informers. `informer` returns the synced informer of
 * a type (started on first use, waited for once), or undefined when it is not served; it is a
 * function so that this client does not import the registry, which sits above it.
 */
export function informerServiceSource(informer: (group: string, version: string, resource: string) => Promise<SyncedObjects | undefined>): ServiceSource {
  return {
    async service(namespace, name) {
      return (await informer("", "v1", "services"))?.get(namespace, name);
    },
    async endpointSlices(namespace, service) {
      const i = await informer("discovery.k8s.io", "v1", "endpointslices");
      return (i?.list(namespace) ?? []).filter((s) => s.metadata.labels?.[serviceNameLabel] === service);
    },
    async endpoints(namespace, name) {
      return (await informer("", "v1", "endpoints"))?.get(namespace, name);
    },
  };
}

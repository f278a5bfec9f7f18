// The Available condition of every APIService (upstream: kube-aggregator's local and remote
// AvailableConditionControllers). A local one is Available with reason Local. A service-backed
// one is checked in upstream's order, each failure with upstream's reason and message: the
// Service exists (ServiceNotFound); a ClusterIP service listens on the port (ServicePortError),
// has EndpointSlices (EndpointsNotFound) and one of them a ready endpoint with the port's name
// (MissingEndpoints); then the backend answers GET /apis/<group>/<version> with a 2xx within 5 s
// as system:kube-aggregator in system:masters (FailedDiscoveryCheck; five tries at once, one
// success is enough). Otherwise Available with reason Passed. The status is written only when it
// changed; service-backed APIServices are checked again every 30 s (a backend can die without an
// event) and a failed check is retried with a short backoff.
import type { KObject } from "../apimachinery/object.js";
import { deepEqual } from "../apimachinery/json-value.js";
import { goQuote } from "../apimachinery/go-quote.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import { itemExponentialRateLimiter } from "../controller-runtime/rate-limiter.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { localAvailableCondition, withCondition, type APIServiceCondition } from "../types/apiservice-conditions.js";
import { serviceNameLabel } from "../webhook/service-resolver.js";
import { apiServiceType, isObj, specOf, str, updateAPIService, type APIServiceSpec } from "./apiservices.js";
import { backendGet, backendURL, type ProxyClientCert } from "./backend-get.js";
import type { AggregatorResolver } from "./service-resolver.js";
import { nowTimestamp } from "../apimachinery/object.js";
import type { AggregatorAvailabilityMetrics } from "../observability/aggregator-metrics.js";

export interface AvailabilityDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  resolve: AggregatorResolver;
  proxyClientCert: ProxyClientCert | undefined;
  /** Told of every changed availability (upstream logs it). */
  log?(msg: string): void;
  /** The aggregator_unavailable_apiservice families, fed by every sync. */
  metrics?: AggregatorAvailabilityMetrics;
}

const resyncMs = 30_000;
const attempts = 5;
const discoveryTimeoutMs = 5_000;

class CheckFailed extends Error {}

type Verdict = Omit<APIServiceCondition, "type" | "lastTransitionTime">;
const unavailable = (reason: string, message: string): Verdict => ({ status: "False", reason, message });

export function startAvailability(d: AvailabilityDeps): Controller | undefined {
  const t = apiServiceType(d.types);
  const servicesType = d.types.get("", "v1", "services");
  const slicesType = d.types.get("discovery.k8s.io", "v1", "endpointslices");
  if (!t) return undefined;
  const apiServices = d.informers.forType(t);
  const services = servicesType ? d.informers.forType(servicesType) : undefined;
  const slices = slicesType ? d.informers.forType(slicesType) : undefined;

  /** The service-backed APIServices naming a service (namespace/name). */
  const namesFor = (namespace: string, name: string): string[] =>
    apiServices.list().filter((a) => {
      const s = specOf(a).service;
      return s?.namespace === namespace && s.name === name;
    }).map((a) => a.metadata.name!);

  async function discoveryCheck(name: string, spec: APIServiceSpec): Promise<string | undefined> {
    const svc = spec.service!;
    const one = async (): Promise<string | undefined> => {
      let target;
      try {
        target = await d.resolve(svc.namespace, svc.name, svc.port);
      } catch (e) {
        return (e as Error).message;
      }
      const path = name === "v1." ? `/api/${spec.version}` : `/apis/${spec.group}/${spec.version}`;
      const url = backendURL(target, path);
      try {
        const res = await backendGet({ target, path, insecure: true, clientCert: d.proxyClientCert, user: { name: "system:kube-aggregator", groups: ["system:masters"] }, timeoutMs: discoveryTimeoutMs, maxBytes: 1 << 20 });
        if (res.status < 200 || res.status >= 300) return `failing or missing response from ${url}: bad status from ${url}: ${res.status}`;
        return undefined;
      } catch (e) {
        return `failing or missing response from ${url}: ${(e as Error).message}`;
      }
    };
    const results = await Promise.all(Array.from({ length: attempts }, one));
    return results.includes(undefined) ? undefined : results[results.length - 1];
  }

  async function verdictFor(name: string, spec: APIServiceSpec): Promise<Verdict> {
    const ref = spec.service!;
    const where = `service/${ref.name} in ${goQuote(ref.namespace)}`;
    const service = services?.get(ref.namespace, ref.name);
    if (!service) return unavailable("ServiceNotFound", `${where} is not present`);
    const sspec = isObj(service.spec) ? service.spec : {};
    if ((str(sspec.type) || "ClusterIP") === "ClusterIP") {
      const port = (Array.isArray(sspec.ports) ? sspec.ports : []).find((p: any) => p?.port === ref.port);
      if (!port) return unavailable("ServicePortError", `${where} is not listening on port ${ref.port}`);
      const portName = str(port.name);
      const own = (slices?.list(ref.namespace) ?? []).filter((s) => s.metadata.labels?.[serviceNameLabel] === ref.name);
      if (own.length === 0) return unavailable("EndpointsNotFound", `cannot find endpointslices for ${where}`);
      const active = own.some((s: any) => {
        const ready = (Array.isArray(s.endpoints) ? s.endpoints : []).some((e: any) => e?.conditions?.ready !== false);
        return ready && (Array.isArray(s.ports) ? s.ports : []).some((p: any) => typeof p?.name === "string" && p.name === portName && typeof p.port === "number");
      });
      if (!active) return unavailable("MissingEndpoints", `endpointslices for ${where} have no addresses with port name ${goQuote(portName)}`);
    }
    const failure = await discoveryCheck(name, spec);
    if (failure !== undefined) throw new CheckFailed(failure);
    return { status: "True", reason: "Passed", message: "all checks passed" };
  }

  async function writeCondition(name: string, original: KObject, next: APIServiceCondition): Promise<void> {
    const conditions = ((original.status as any)?.conditions ?? []) as APIServiceCondition[];
    const merged = withCondition(conditions, next);
    const old = conditions.find((c) => c.type === "Available");
    // Upstream sets the gauge on every sync, written or not, and counts a change once written.
    d.metrics?.observe(name, next.status === "True");
    if (deepEqual(merged, conditions)) return;
    if (old?.status !== next.status || old.reason !== next.reason || old.message !== next.message) d.log?.(`kapi: APIService ${name} availability: ${old?.status ?? "Unknown"} → ${next.status} (${next.reason}: ${next.message})`);
    await updateAPIService(d.stores, t!, name, "status", (o) => {
      const now = ((o.status as any)?.conditions ?? []) as APIServiceCondition[];
      o.status = { ...(isObj(o.status) ? o.status : {}), conditions: withCondition(now, next) };
    });
    d.metrics?.transitioned(name, old?.status === "True", next.status === "True", next.reason);
  }

  async function sync(name: string): Promise<void> {
    const original = apiServices.get("", name);
    if (!original) return void d.metrics?.forget(name);
    const spec = specOf(original);
    if (!spec.service) return writeCondition(name, original, localAvailableCondition());
    let verdict: Verdict;
    let failed: CheckFailed | undefined;
    try {
      verdict = await verdictFor(name, spec);
    } catch (e) {
      if (!(e instanceof CheckFailed)) throw e;
      failed = e;
      verdict = unavailable("FailedDiscoveryCheck", e.message);
    }
    await writeCondition(name, original, { type: "Available", ...verdict, lastTransitionTime: nowTimestamp() });
    // A failed discovery check is retried soon, besides the resync (upstream requeues it).
    if (failed) throw failed;
  }

  const byService = (o: KObject) => namesFor(o.metadata.namespace ?? "", o.metadata.name!);
  const bySlice = (o: KObject) => namesFor(o.metadata.namespace ?? "", o.metadata.labels?.[serviceNameLabel] ?? "");
  const name = (o: KObject) => o.metadata.name!;
  return runController({
    name: "apiservice-availability",
    watches: [
      { informer: apiServices, added: name, updated: (_o, n) => name(n), deleted: name },
      ...(services ? [{ informer: services, added: byService, updated: (o: KObject, n: KObject) => [...byService(o), ...byService(n)], deleted: byService }] : []),
      ...(slices ? [{ informer: slices, added: bySlice, updated: (o: KObject, n: KObject) => [...bySlice(o), ...bySlice(n)], deleted: bySlice }] : []),
    ],
    reconcile: sync,
    resync: { everyMs: resyncMs, keys: () => apiServices.list().filter((a) => specOf(a).service).map(name) },
    retry: itemExponentialRateLimiter(5, resyncMs),
  });
}

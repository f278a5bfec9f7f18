// The aggregator's boot-sequence health checks, named and ordered as kube-apiserver 1.34 lists
// them in /healthz, /livez and /readyz: its post-start hooks (kube-aggregator's
// NewWithDelegate and PrepareRun, kube-apiserver's kube-apiserver-autoregistration) and
// autoregister-completion, which fails until every local APIService registered at start for a
// served built-in group version has been seen Available at least once.
import type { KObject } from "../apimachinery/object.js";
import type { HealthCheck } from "../observability/health.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { apiServiceType, isAvailable } from "./apiservices.js";
import { builtinAPIServiceNames } from "./autoregister.js";

export interface AggregatorBootChecks {
  checks: HealthCheck[];
  /** Stops following the APIServices (the server stops). */
  stop(): void;
}

const hookNotFinished = "not finished";
const hook = (name: string, done: () => boolean = () => true): HealthCheck => ({ name: `poststarthook/${name}`, check: () => (done() ? undefined : hookNotFinished) });

/** Go's sort.Strings: byte order, not locale order. */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function aggregatorBootChecks(d: { types: TypeRegistry; informers: InformerFactory; proxyClientCert: boolean }): AggregatorBootChecks {
  const t = apiServiceType(d.types);
  if (!t) return { checks: [], stop: () => undefined };
  const informer = d.informers.forType(t);
  // Decided once, at start, as upstream's list: a group version served later is not waited for.
  const pending = new Set(builtinAPIServiceNames(d.types));
  // Events, not a look at check time: seen Available once is enough, as upstream's informer handler.
  let remove: (() => void) | undefined;
  const seen = (o: KObject) => {
    if (!pending.has(o.metadata.name!) || !isAvailable(o)) return;
    pending.delete(o.metadata.name!);
    if (pending.size === 0) remove?.();
  };
  if (pending.size > 0) remove = informer.addHandler({ added: seen, updated: (_old, o) => seen(o) });
  // The registration and discovery controllers' hooks return once the APIServices are listed.
  const listed = () => informer.hasSynced();
  return {
    checks: [
      ...(d.proxyClientCert ? [hook("aggregator-reload-proxy-client-cert")] : []),
      hook("start-kube-aggregator-informers"),
      hook("apiservice-status-local-available-controller"),
      hook("apiservice-status-remote-available-controller"),
      hook("apiservice-registration-controller", listed),
      hook("apiservice-discovery-controller", listed),
      hook("kube-apiserver-autoregistration"),
      { name: "autoregister-completion", check: () => (pending.size === 0 ? undefined : `missing APIService: [${[...pending].sort(byteOrder).join(" ")}]`) },
      hook("apiservice-openapi-controller"),
      hook("apiservice-openapiv3-controller"),
    ],
    stop: () => remove?.(),
  };
}

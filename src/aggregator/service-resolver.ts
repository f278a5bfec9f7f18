// Where an APIService's service reference leads (upstream: kube-aggregator's resolvers over
// k8s.io/apiserver's ResolveCluster / ResolveEndpoint). By default the Service's cluster IP is
// dialed — an ExternalName service's external name, which is how a test reaches a backend on
// `localhost`; with --enable-aggregator-routing one of its ready endpoints (an ExternalName
// service is then refused, as upstream). The `kubernetes` service of `default` on 443 is this
// server itself (upstream's loopback resolver).
import { goQuote } from "../apimachinery/go-quote.js";
import { endpointServiceResolver, type ServiceSource } from "../webhook/service-resolver.js";
import type { DialTarget } from "../webhook/client.js";
import { isObj, str } from "./apiservices.js";

export type AggregatorResolver = (namespace: string, name: string, port: number) => Promise<DialTarget>;

export interface ResolverOptions {
  source: ServiceSource;
  endpointRouting: boolean;
  /**
   * This server's own address (the loopback route of default/kubernetes:443), asked at each use:
   * with --secure-port=0 the port is known only once the server listens.
   */
  loopback(): DialTarget;
}

export function aggregatorResolver({ source, endpointRouting, loopback }: ResolverOptions): AggregatorResolver {
  const viaEndpoints = endpointServiceResolver(source);
  return async (namespace, name, port) => {
    if (namespace === "default" && name === "kubernetes" && port === 443) return loopback();
    const svc = await source.service(namespace, name);
    if (!svc) throw new Error(`service ${goQuote(name)} not found`);
    const spec = isObj(svc.spec) ? svc.spec : {};
    const type = str(spec.type) || "ClusterIP";
    if (endpointRouting) {
      if (type === "ExternalName") throw new Error(`unsupported service type ${goQuote(type)}`);
      return viaEndpoints(namespace, name, port);
    }
    if (type === "ClusterIP" && str(spec.clusterIP) === "None") throw new Error(`cannot route to service with ClusterIP "None"`);
    if (type === "ClusterIP" || type === "LoadBalancer" || type === "NodePort") {
      const p = (Array.isArray(spec.ports) ? spec.ports : []).find((x: unknown) => isObj(x) && x.port === port);
      if (!p) throw new Error(`no service port ${port} found for service ${goQuote(name)}`);
      return { host: str(spec.clusterIP), port };
    }
    if (type === "ExternalName") return { host: str(spec.externalName), port };
    throw new Error(`unsupported service type ${goQuote(type)}`);
  };
}

/** host:port as Go's net.JoinHostPort writes it. */
export const joinHostPort = (t: DialTarget) => (t.host.includes(":") ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`);

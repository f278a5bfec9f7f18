// The aggregation layer (upstream: kube-aggregator inside kube-apiserver): its flags, the
// front-proxy client certificate, and its controllers — the automanaged APIServices, their
// availability and the extension-apiserver-authentication ConfigMap (src/aggregator).
import { existsSync, readFileSync } from "node:fs";
import { startAuthenticationConfigMap, type ClusterAuthenticationInfo } from "../../aggregator/authentication-configmap.js";
import { ensureBuiltinAPIServices, startAutoregister } from "../../aggregator/autoregister.js";
import { startAvailability } from "../../aggregator/availability.js";
import { aggregatorBootChecks, type AggregatorBootChecks } from "../../aggregator/boot-checks.js";
import { AggregatorAvailabilityMetrics } from "../../observability/aggregator-metrics.js";
import type { ProxyClientCert } from "../../aggregator/backend-get.js";
import { aggregatorResolver, type AggregatorResolver } from "../../aggregator/service-resolver.js";
import { aggregatorProxy } from "../../aggregator/proxy-handler.js";
import { ProxyTable } from "../../aggregator/proxy-table.js";
import { RemoteDiscovery } from "../../aggregator/remote-discovery.js";
import type { ExternalDiscovery } from "../../discovery/external.js";
import type { Controller } from "../../controller-runtime/controller.js";
import { syncedInformerLookup } from "../../registry/synced-informer-lookup.js";
import { informerServiceSource } from "../../webhook/service-resolver.js";
import { boolFlag, type FlagSpec } from "../flag-spec.js";
import type { ServerOptions } from "../options.js";
import type { CoreParts, FeatureModule } from "./feature-module.js";

const flags: readonly FlagSpec[] = [
  { name: "proxy-client-cert-file", kind: "string", default: "", help: "Client certificate the aggregator presents to extension API servers when it proxies a request or checks their availability. It should be signed by the CA of --requestheader-client-ca-file, which extension servers read from the kube-system/extension-apiserver-authentication ConfigMap.", apply: (o, v) => (o.proxyClientCertFile = v || undefined) },
  { name: "proxy-client-key-file", kind: "string", default: "", help: "Private key of --proxy-client-cert-file.", apply: (o, v) => (o.proxyClientKeyFile = v || undefined) },
  { name: "enable-aggregator-routing", kind: "bool", default: "false", help: "Send aggregated requests to an endpoint IP of the APIService's Service rather than to its cluster IP.", apply: (o, v) => (o.enableAggregatorRouting = boolFlag("enable-aggregator-routing", v)) },
];

function readProxyClientCert(o: ServerOptions): ProxyClientCert | undefined {
  if (!o.proxyClientCertFile || !o.proxyClientKeyFile) return undefined;
  return { cert: readFileSync(o.proxyClientCertFile, "utf8"), key: readFileSync(o.proxyClientKeyFile, "utf8") };
}

/** What this server tells extension servers about authenticating its requests. */
function authenticationInfo(o: ServerOptions, clientCA: string): ClusterAuthenticationInfo {
  const caFile = o.requestheaderClientCAFile;
  if (!caFile || !existsSync(caFile)) return { clientCA };
  return {
    clientCA,
    requestHeader: {
      clientCA: readFileSync(caFile, "utf8"),
      usernameHeaders: o.requestheaderUsernameHeaders ?? [],
      uidHeaders: o.requestheaderUIDHeaders ?? [],
      groupHeaders: o.requestheaderGroupHeaders ?? [],
      extraHeaderPrefixes: o.requestheaderExtraHeadersPrefix ?? [],
      allowedNames: o.requestheaderAllowedNames ?? [],
    },
  };
}

export interface AggregatorFeature extends FeatureModule {
  /** The extension servers' group versions, for discovery to list (known once the server is set up). */
  readonly discovery: ExternalDiscovery;
}

export function aggregatorFeature(): AggregatorFeature {
  const table = new ProxyTable();
  let resolver: AggregatorResolver | undefined;
  let proxyClientCert: ProxyClientCert | undefined;
  const discovery = new RemoteDiscovery({ table, resolve: () => resolver, proxyClientCert: () => proxyClientCert });
  const metrics = new AggregatorAvailabilityMetrics();
  let bootChecks: AggregatorBootChecks | undefined;
  return {
    name: "aggregator",
    flags,
    discovery,
    setup({ options, tls, servingPort }) {
      proxyClientCert = readProxyClientCert(options);
      const info = authenticationInfo(options, tls.clientCA);
      const resolverFor = (core: CoreParts) =>
        (resolver ??= aggregatorResolver({
          source: informerServiceSource(syncedInformerLookup(core.informers, core.types)),
          endpointRouting: options.enableAggregatorRouting === true,
          loopback: () => ({ host: "127.0.0.1", port: servingPort() }),
        }));
      return {
        bootstrap: (core) => ensureBuiltinAPIServices(core),
        // Every replica proxies, so every replica follows the APIServices.
        replicaControllers(core) {
          resolverFor(core);
          const following = table.follow(core.types, core.informers);
          discovery.start();
          return following ? [following] : [];
        },
        stop: () => {
          discovery.stop();
          bootChecks?.stop();
        },
        bootSequenceChecks: (core) => (bootChecks = aggregatorBootChecks({ ...core, proxyClientCert: proxyClientCert !== undefined })).checks,
        registerMetrics: (m) => m.register(...metrics.families),
        delegatedPaths: () => [aggregatorProxy({ table, resolve: () => resolver, proxyClientCert })],
        controllers(core: CoreParts): Controller[] {
          const resolve = resolverFor(core);
          const started = [
            startAutoregister(core),
            startAvailability({ ...core, resolve, proxyClientCert, log: core.log, metrics }),
            startAuthenticationConfigMap({ ...core, info }),
          ];
          return started.filter((c): c is Controller => c !== undefined);
        },
      };
    },
  };
}

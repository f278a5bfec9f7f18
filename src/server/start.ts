// Assembles one server instance from its options: the core (storage, types, store, informers,
// the authorizer and admission chains, health, routes and the listener) and the features that
// plug into it (src/server/features/: authentication methods, authorization modes, admission
// plugins, controllers, subresources, non-resource handlers).
import { mkdirSync, writeFileSync } from "node:fs";
import { isIPv6 } from "node:net";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { anonymousAuthenticator } from "../authn/anonymous.js";
import { unionAuthenticator } from "../authn/union.js";
import { checkAuthorizationFlags, setupAuthorization, type AuthorizationSetup } from "../authz/modes.js";
import { FeatureGates } from "../apimachinery/feature-gates.js";
import { parseRuntimeConfig } from "../types/runtime-config.js";
import { jsonCodec, yamlCodec } from "../encoding/codec.js";
import { cborCodec } from "../encoding/cbor.js";
import { CodecSet } from "../encoding/negotiate.js";
import type { ServerParts } from "../handlers/context.js";
import { healthEndpoints, metricsEndpoint, versionEndpoint } from "./endpoints.js";
import type { KObject } from "../apimachinery/object.js";
import { storageKey } from "../registry/resource-type.js";
import { GenericStore } from "../registry/store.js";
import { admissionChain } from "../admission/chain.js";
import { DeferredAdmission } from "../admission/deferred-admission.js";
import type { AdmissionPlugin } from "../registry/admission.js";
import { releaseCachesOfRetiredTypes } from "../registry/cache-release.js";
import { NamespaceStates } from "../registry/namespace-states.js";
import { InformerFactory } from "../registry/informer-factory.js";
import { builtinTypeRegistry } from "../types/register.js";
import { featureStrategies } from "./feature-strategies.js";
import type { Storage } from "../storage/interface.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { SqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { Cacher } from "../storage/cacher/cacher.js";
import type { WatchCacheOptions } from "../storage/cacher/watch-cache.js";
import { builtinResources } from "../types/builtin-resources.js";
import { kubernetesService, serviceRanges } from "../types/allocation/service.js";
import { buildHandlerChain } from "./chain.js";
import { maxInFlightFilter } from "./filters/max-in-flight.js";
import { isLongRunning } from "./long-running.js";
import { createRouter } from "./router.js";
import { renderKubeconfig } from "./kubeconfig.js";
import { createListener } from "./listener.js";
import type { ServerOptions } from "./options.js";
import { ServerMetrics } from "../observability/metrics.js";
import { setupTls } from "./tls-setup.js";
import { extraCodecs } from "./extensions.js";
import { reviewHandlers } from "../handlers/reviews.js";
import { toApiError } from "../handlers/errors.js";
import { checkFeatureFlags, setUpFeatures, type CoreParts } from "./features/feature-module.js";
import { serverFeatures } from "./features/index.js";

export interface RunningServer {
  url: string;
  port: number;
  /** Admin kubeconfig (YAML text). */
  kubeconfig: string;
  /** Where it was written, when it was. */
  kubeconfigPath?: string;
  parts: ServerParts;
  /** The storage backend under the store (tests that must reach past the API, e.g. to corrupt a value). */
  storage: Storage;
  /** Graceful: readyz fails, wait shutdown delay, stop accepting, finish in-flight, close store. */
  stop(): Promise<void>;
}

const defaultNamespaces = ["default", "kube-system", "kube-public", "kube-node-lease"];
/** The garbage collector starts this long after the server listens (see garbageCollectorFeature). */
const controllersOnceServingDelayMs = 250;

/** Library-only tuning (no kube-apiserver flag): watch cache and storage history windows, for tests. */
export interface CacheTuning {
  watchCache?: Partial<WatchCacheOptions>;
  storageHistoryWindowMs?: number;
}

/** Library-only extension points (no kube-apiserver flag). */
export interface EmbeddingOptions extends CacheTuning {
  /** In-process admission plugins, run after the built-in ones (a test suite's own policies). */
  admissionPlugins?: AdmissionPlugin[];
}

export async function startApiServer(o: ServerOptions & EmbeddingOptions): Promise<RunningServer> {
  const t0 = Date.now();
  const gates = FeatureGates.parse(o.featureGates);
  const types = builtinTypeRegistry(parseRuntimeConfig(o.runtimeConfig, builtinResources), featureStrategies);
  const modules = serverFeatures();
  // Every flag is checked before anything is opened: a refused start leaves nothing behind.
  checkAuthorizationFlags(o);
  checkFeatureFlags(modules, o, gates);
  const persistent = o.storageBackend === "sqlite";
  if (persistent || o.writeKubeconfig) mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const certDir = o.certDir ?? (persistent || o.writeKubeconfig ? join(o.dataDir, "pki") : undefined);
  const tls = await setupTls(o, certDir);
  // The core is made once storage opens; what a feature builds now reaches it on use.
  let core: CoreParts | undefined;
  const coreParts = () => core ?? assertNever("the server's core was used before storage opened");
  const features = setUpFeatures(modules, { options: o, gates, tls, certDir, core: coreParts, log: o.log });

  const historyWindowMs = o.storageHistoryWindowMs;
  const storage: Storage = persistent ? SqliteStorage.open({ path: join(o.dataDir, "kapi.db"), historyWindowMs }) : new MemoryStorage({ historyWindowMs });
  let stopping = false;
  let bootstrapped = false;
  const nsType = types.get("", "v1", "namespaces")!;
  const ranges = serviceRanges(o.serviceClusterIPRange, o.serviceNodePortRange); // validates the flags
  const cacher = new Cacher<KObject>(storage, { ...(historyWindowMs ? { windowMs: historyWindowMs } : {}), ...o.watchCache });
  const informers = new InformerFactory(cacher, types, (e) => o.log(`kapi: an informer handler failed: ${(e as Error)?.stack ?? String(e)}`));
  // Admission plugins read through the store: the store comes first, the chain is bound below.
  const admission = new DeferredAdmission();
  const store: GenericStore = new GenericStore(storage, admission, {
    serviceClusterIPRange: o.serviceClusterIPRange,
    serviceNodePortRange: o.serviceNodePortRange,
  });
  core = { store, types, informers, ensure: bootstrapObjectWriter(storage, store), log: o.log };
  // Authorization (src/authz/modes.ts): the chain from the flags or --authorization-config, with
  // the modes the features provide (RBAC, Node).
  let authz: AuthorizationSetup;
  try {
    authz = setupAuthorization(o, features.authorizationModes(core), { authorizeWithSelectors: gates.enabled("AuthorizeWithSelectors"), log: o.log });
  } catch (e) {
    informers.stop();
    cacher.stop();
    await storage.close();
    throw e;
  }
  const authorizer = authz.authorizer;
  // A namespace the informer lacks (not synced yet, or newer than it) is read live through the store.
  const namespaces = new NamespaceStates(informers.metadataFor(nsType), store, nsType);
  admission.bind(admissionChain(features.admissionPlugins({ ...core, namespaces, gates, authorizer: () => authorizer })));
  const parts: ServerParts = {
    store,
    cacher,
    types,
    gates,
    // CBOR is served (and accepted) only behind its gate, as upstream.
    codecs: new CodecSet([jsonCodec, yamlCodec, ...extraCodecs(), ...(gates.enabled("CBORServingAndStorage") ? [cborCodec] : [])]),
    streams: new Set(),
    minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
    authorizer,
  };

  // A group-resource that stops being served (or changes shape) takes its watch cache with it.
  const releaseCaches = releaseCachesOfRetiredTypes(types, parts.cacher);

  // Bootstrap objects, created only when missing; the writes of a batch share one commit.
  await Promise.all(defaultNamespaces.map((name) => core!.ensure(nsType, "", { metadata: { name } } as KObject)));
  await Promise.all([core.ensure(types.get("", "v1", "services"), "default", kubernetesService(ranges, o.securePort || 443) as KObject), ...features.bootstrap(core)]);
  bootstrapped = true;
  features.startControllers(core);
  let gcTimer: NodeJS.Timeout | undefined;
  /** Stops the features and their controllers, the informers and the watch caches. */
  const stopBackground = () => {
    clearTimeout(gcTimer);
    authz.stop();
    features.stop();
    releaseCaches();
    informers.stop();
    cacher.stop();
  };

  const health = healthEndpoints({
    storage: { name: "etcd", check: async () => storage.currentRevision().then(() => undefined, (e: Error) => e.message) },
    bootstrapped: () => bootstrapped,
    stopping: () => stopping,
    startedAt: Date.now(),
    livezGracePeriodMs: o.livezGracePeriodMs,
  });
  const metrics = new ServerMetrics(async () => {
    const counts = new Map<string, number>();
    for (const t of types.all()) {
      if (t.virtual) continue;
      const name = t.group ? `${t.resource}.${t.group}` : t.resource;
      if (!counts.has(name)) counts.set(name, await storage.count(t.keyPrefix));
    }
    return counts;
  });
  features.registerMetrics(metrics);
  const authenticate = unionAuthenticator(features.authenticators(core), features.anonymous ?? anonymousAuthenticator({ enabled: false }), { apiAudiences: features.apiAudiences });
  const handle = buildHandlerChain({
    toApiError,
    codecs: parts.codecs,
    metrics,
    requestTimeoutMs: o.requestTimeoutMs,
    isLongRunning,
    authenticate,
    authorizer,
    authorizeWithSelectors: gates.enabled("AuthorizeWithSelectors"),
    flowControl: maxInFlightFilter({ readOnly: o.maxRequestsInflight, mutating: o.maxMutatingRequestsInflight }, isLongRunning),
    router: createRouter({
      parts,
      nonResource: [health, versionEndpoint, metricsEndpoint(metrics), ...features.nonResource(parts)],
      special: reviewHandlers(authorizer, authenticate),
      declared: features.subresources,
    }),
  });
  const listener = createListener({ cert: tls.serving.cert, key: tls.serving.key, clientCA: features.tlsClientCA ?? tls.clientCA }, handle, {
    compressResponses: gates.enabled("APIResponseCompression"),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      listener.server.once("error", reject);
      listener.server.listen(o.securePort, o.bindAddress, () => resolve());
    });
  } catch (e) {
    // Nothing started here may outlive a server that could not listen (e.g. port in use).
    stopBackground();
    await storage.close();
    throw e;
  }
  gcTimer = setTimeout(() => features.startControllersOnceServing(core!), controllersOnceServingDelayMs);
  const port = (listener.server.address() as AddressInfo).port;
  const host = o.bindAddress === "0.0.0.0" || o.bindAddress === "" ? "127.0.0.1" : o.bindAddress === "::" ? "::1" : o.bindAddress;
  const url = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  const kubeconfig = renderKubeconfig({ server: url, caPem: tls.servingCA, clientCertPem: tls.admin.certPem, clientKeyPem: tls.admin.keyPem });
  let kubeconfigPath: string | undefined;
  if (o.writeKubeconfig) {
    kubeconfigPath = join(o.dataDir, "admin.kubeconfig");
    writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
  }
  metrics.addTextSource(() => authz.metrics.text());
  setImmediate(() => void metrics.load()); // off the start-up path
  o.log(`kapi: serving on ${url} (storage ${o.storageBackend}${persistent ? ` in ${o.dataDir}` : ""}) in ${Date.now() - t0} ms`);
  if (kubeconfigPath) o.log(`kapi: admin kubeconfig: ${kubeconfigPath}`);

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      if (o.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, o.shutdownDelayMs));
      const closed = new Promise<void>((r) => listener.server.close(() => r()));
      for (const s of [...parts.streams]) s.stop();
      stopBackground();
      await Promise.race([listener.idle(), new Promise((r) => setTimeout(r, 60_000))]);
      // Idle HTTP/2 sessions and keep-alive sockets would hold close() open: end them now.
      await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
      await storage.close();
    })());
  return { url, port, kubeconfig, kubeconfigPath, parts, storage, stop };
}

function assertNever(message: string): never {
  throw new Error(message);
}

/** Creates a bootstrap object when it is missing (a raw read first: no admission for what exists). */
function bootstrapObjectWriter(storage: Storage, store: GenericStore): CoreParts["ensure"] {
  return async (t, ns, obj) => {
    if (!t || (await storage.get(storageKey(t, ns, obj.metadata.name!)))) return;
    await store.create(t, ns, obj, { dryRun: false }).catch((e) => {
      if (e?.reason !== "AlreadyExists") throw e;
    });
  };
}

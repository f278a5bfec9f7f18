// Assembles one server instance from its options: storage, types, store, controllers,
// authentication, authorization, health, routes and the listener.
import { mkdirSync, writeFileSync } from "node:fs";
import { isIPv6 } from "node:net";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { anonymousAuthenticator } from "../authn/anonymous.js";
import { loadAuthenticationConfig } from "../authn/authentication-config.js";
import type { Authenticator } from "../authn/authenticator.js";
import { jwtAuthentication } from "../authn/jwt-authenticator/index.js";
import { tokenFileAuthenticator } from "../authn/token-file.js";
import { unionAuthenticator } from "../authn/union.js";
import { setupServiceAccounts } from "../authn/serviceaccount/setup.js";
import { controllerEnabled, defaultControllers, resourceQuotaController, validatingAdmissionPolicyStatusController } from "../controllers/controllers-flag.js";
import { authenticationMethods } from "../authn/methods.js";
import { checkAuthorizationFlags, setupAuthorization, type AuthorizationSetup, type ModeFactories } from "../authz/modes.js";
import { setupRbac, type RbacSetup } from "../authz/rbac/setup.js";
import { createNodeAuthorizer, type RunningNodeAuthorizer } from "../authz/node/index.js";
import type { Authorizer } from "../authz/authorizer.js";
import { reconcileBootstrapPolicy } from "../authz/bootstrap-policy/index.js";
import { FeatureGates } from "../apimachinery/feature-gates.js";
import { parseRuntimeConfig } from "../types/runtime-config.js";
import { startNamespaceController } from "../controllers/namespace.js";
import { startCRDControllers } from "../controllers/crd/index.js";
import { startGarbageCollector } from "../controllers/garbage-collector.js";
import { startResourceQuotaController } from "../controllers/resourcequota/controller.js";
import { startTypeCheckingStatus } from "../admission/policy/validating/status-controller.js";
import { startBootstrapTokens } from "../controllers/bootstrap/index.js";
import { jsonCodec, yamlCodec } from "../encoding/codec.js";
import { cborCodec } from "../encoding/cbor.js";
import { CodecSet } from "../encoding/negotiate.js";
import type { ServerParts } from "../handlers/context.js";
import { healthEndpoints, metricsEndpoint, versionEndpoint } from "./endpoints.js";
import type { KObject } from "../apimachinery/object.js";
import { storageKey, type ResourceType } from "../registry/resource-type.js";
import { GenericStore } from "../registry/store.js";
import { admissionChain } from "../admission/chain.js";
import type { AdmissionPlugin } from "../registry/admission.js";
import { buildAdmissionPlugins, enabledAdmissionPlugins } from "../admission/plugins.js";
import { loadAdmissionConfiguration } from "../admission/flags.js";
import { systemPriorityClasses } from "../admission/builtin/system-priority-classes.js";
import { startStorageProtection } from "../controllers/storage-protection.js";
import { startRootCAPublishing } from "../controllers/root-ca-publisher.js";
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
import { extraNonResourceHandlers, extraCodecs } from "./extensions.js";
import { reviewHandlers } from "../handlers/reviews.js";
import { scaleHandlers } from "../handlers/scale.js";
import { evictionHandlers } from "../handlers/pod-eviction.js";
import { bindingHandlers } from "../handlers/pod-binding.js";
import { podConnectHandlers, podLogHandlers } from "../handlers/pod-connect.js";
import { toApiError } from "../handlers/errors.js";
import { startCrdServing } from "../apiextensions/serving.js";

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
const gcStartDelayMs = 250;

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

/** The modes other modules provide (RBAC, Node): each added here by its module. */
/** The modes built from this server's own parts (their informers); the others need only flags. */
function authorizationModeFactories(rbac: RbacSetup, node: () => Authorizer): ModeFactories {
  return { rbac: () => rbac.authorizer, node };
}

export async function startApiServer(o: ServerOptions & EmbeddingOptions): Promise<RunningServer> {
  const t0 = Date.now();
  const gates = FeatureGates.parse(o.featureGates);
  const types = builtinTypeRegistry(parseRuntimeConfig(o.runtimeConfig, builtinResources), featureStrategies);
  // Authorization flags are checked before anything is opened; the chain is built below.
  checkAuthorizationFlags(o);
  enabledAdmissionPlugins(o); // unknown or overlapping plugin names fail here, before anything opens
  // RBAC: authorizer (index over its informers), escalation guard (in every mode, as upstream),
  // aggregation controller.
  const rbac = setupRbac({
    parts: () => ({ store, types, informers }),
    log: o.log,
    prewarm: o.authorizationMode.includes("RBAC") || o.authorizationConfig !== undefined,
  });
  const authnConfig = o.authenticationConfig ? loadAuthenticationConfig(o.authenticationConfig) : undefined;
  if (authnConfig?.anonymous && !o.anonymousAuth) {
    throw new Error("--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file");
  }
  // OIDC flags or the configuration file's jwt authenticators (validated here, before anything starts).
  const jwt = jwtAuthentication(o, authnConfig);
  const persistent = o.storageBackend === "sqlite";
  if (persistent || o.writeKubeconfig) mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const certDir = o.certDir ?? (persistent || o.writeKubeconfig ? join(o.dataDir, "pki") : undefined);
  const tls = await setupTls(o, certDir);
  // Service accounts: keys, authenticator, serviceaccounts/token, OIDC discovery, controllers.
  const serviceAccounts = setupServiceAccounts(o, { parts: () => ({ store, types, informers }), certDir, rootCA: tls.servingCA, log: o.log });
  // Request header, x509 and token webhook methods (their files are read and checked here).
  const methods = authenticationMethods(o, tls.clientCA, { gates, apiAudiences: serviceAccounts.config.apiAudiences, log: o.log });

  const historyWindowMs = o.storageHistoryWindowMs;
  const storage: Storage = persistent ? SqliteStorage.open({ path: join(o.dataDir, "kapi.db"), historyWindowMs }) : new MemoryStorage({ historyWindowMs });
  let stopping = false;
  let bootstrapped = false;
  const nsType = types.get("", "v1", "namespaces")!;
  const ranges = serviceRanges(o.serviceClusterIPRange, o.serviceNodePortRange); // validates the flags
  const cacher = new Cacher<KObject>(storage, { ...(historyWindowMs ? { windowMs: historyWindowMs } : {}), ...o.watchCache });
  const informers = new InformerFactory(cacher, types, (e) => o.log(`kapi: an informer handler failed: ${(e as Error)?.stack ?? String(e)}`));
  // Authorization (src/authz/modes.ts): the chain from the flags or --authorization-config; RBAC
  // and Node plug in through their factories (src/authz/rbac, src/authz/node).
  let authz: AuthorizationSetup;
  // The Node authorizer keeps a graph over its informers: made only when a mode asks for it.
  let nodeAuthorizer: RunningNodeAuthorizer | undefined;
  try {
    authz = setupAuthorization(o, authorizationModeFactories(rbac, () => (nodeAuthorizer = createNodeAuthorizer({ informers, types, gates }))), { authorizeWithSelectors: gates.enabled("AuthorizeWithSelectors"), log: o.log });
  } catch (e) {
    informers.stop();
    cacher.stop();
    await storage.close();
    throw e;
  }
  const authorizer = authz.authorizer;
  const nsInformer = informers.metadataFor(nsType);
  // A namespace the informer lacks (not synced yet, or newer than it) is read live through the
  // store (declared next): start-up does not wait for the informer.
  const namespaces: NamespaceStates = new NamespaceStates(nsInformer, { get: (t, ns, name) => store.get(t, ns, name) }, nsType);
  // The admission chain every write passes; NamespaceLifecycle is its first built-in plugin.
  const admissionConfiguration = loadAdmissionConfiguration(o.admissionControlConfigFile);
  const namedPlugins = buildAdmissionPlugins(o, {
    parts: () => ({ store, types, informers }),
    namespaces,
    authorizer: () => authorizer,
    gates,
    flags: o,
    configuration: (name) => admissionConfiguration.get(name),
    log: o.log,
  });
  // The escalation guard first: upstream checks escalation in RBAC storage, before admission.
  const admission = admissionChain([rbac.escalationGuard(() => authorizer), ...namedPlugins, ...(o.admissionPlugins ?? [])]);
  const store: GenericStore = new GenericStore(storage, admission, {
    serviceClusterIPRange: o.serviceClusterIPRange,
    serviceNodePortRange: o.serviceNodePortRange,
  });
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
  const ensure = async (t: ResourceType | undefined, ns: string, obj: KObject) => {
    if (!t || (await storage.get(storageKey(t, ns, obj.metadata.name!)))) return;
    await store.create(t, ns, obj, { dryRun: false }).catch((e) => {
      if (e?.reason !== "AlreadyExists") throw e;
    });
  };
  await Promise.all(defaultNamespaces.map((name) => ensure(nsType, "", { metadata: { name } } as KObject)));
  await Promise.all([
    ensure(types.get("", "v1", "services"), "default", kubernetesService(ranges, o.securePort || 443) as KObject),
    // The default RBAC objects, whenever the RBAC API is served (whatever the authorization modes).
    reconcileBootstrapPolicy({ store, types, log: o.log, gates }),
    ...systemPriorityClasses.map((pc) => ensure(types.get("scheduling.k8s.io", "v1", "priorityclasses"), "", structuredClone(pc))),
  ]);
  bootstrapped = true;
  // Custom resources: every established CRD is served (src/apiextensions/serving.ts).
  const controllers = [startCrdServing({ types, informers, store, log: o.log }), startNamespaceController({ store, types, informers }), ...serviceAccounts.startControllers(o.controllers ?? defaultControllers), ...rbac.startControllers(o.controllers ?? defaultControllers), ...startCRDControllers({ store, types, informers, log: o.log }, o.controllers ?? defaultControllers), ...startStorageProtection({ store, types, informers }, o.controllers ?? defaultControllers), ...startRootCAPublishing({ store, types, informers, rootCA: tls.servingCA }, o.controllers ?? defaultControllers)];
  if (types.get("", "v1", "resourcequotas") && controllerEnabled(resourceQuotaController, o.controllers ?? defaultControllers)) controllers.push(startResourceQuotaController({ store, types, informers, log: o.log }));
  const vapStatus = controllerEnabled(validatingAdmissionPolicyStatusController, o.controllers ?? defaultControllers) ? startTypeCheckingStatus({ store, types, informers }, o.log) : undefined;
  if (vapStatus) controllers.push(vapStatus);
  let gcTimer: NodeJS.Timeout | undefined;
  /** Stops the controllers, the informers and the watch caches. */
  const stopBackground = () => {
    clearTimeout(gcTimer);
    jwt.stop();
    authz.stop();
    for (const p of namedPlugins) p.stop?.();
    for (const c of controllers) c.stop();
    releaseCaches();
    nodeAuthorizer?.stop();
    informers.stop();
    cacher.stop();
  };

  // Union order as upstream: request header, x509, token methods, the token webhook last.
  const authenticators: Authenticator[] = [...methods.leading];
  if (o.tokenAuthFile) authenticators.push(tokenFileAuthenticator(o.tokenAuthFile));
  authenticators.push(serviceAccounts.authenticator);
  // Bootstrap tokens: the authenticator (--enable-bootstrap-token-auth) and the token cleaner and
  // bootstrap signer controllers (--controllers).
  const bootstrapTokens = startBootstrapTokens(o, { store, types, informers, log: o.log });
  authenticators.push(...bootstrapTokens.authenticators);
  controllers.push(...bootstrapTokens.controllers);
  // JWT after service accounts and bootstrap tokens, before the token webhook (upstream's order).
  authenticators.push(...jwt.authenticators);
  authenticators.push(...methods.trailing);
  const anon = authnConfig?.anonymous
    ? anonymousAuthenticator({ enabled: authnConfig.anonymous.enabled, paths: authnConfig.anonymous.paths })
    : anonymousAuthenticator({ enabled: o.anonymousAuth });

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
  jwt.registerMetrics(metrics);
  const authenticate = unionAuthenticator(authenticators, anon, { apiAudiences: serviceAccounts.config.apiAudiences });
  const special = reviewHandlers(authorizer, authenticate);
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
      nonResource: [health, versionEndpoint, metricsEndpoint(metrics), ...extraNonResourceHandlers(parts), ...serviceAccounts.nonResource],
      special,
      declared: new Map([["scale", scaleHandlers], ["token", serviceAccounts.tokenHandlers], ["eviction", evictionHandlers], ["binding", bindingHandlers],
        ["log", podLogHandlers], ["exec", podConnectHandlers("exec")], ["attach", podConnectHandlers("attach")], ["portforward", podConnectHandlers("portforward")],
      ]),
    }),
  });
  const listener = createListener({ cert: tls.serving.cert, key: tls.serving.key, clientCA: methods.tlsClientCA }, handle, {
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
  // The garbage collector loads every stored type's cache to build its graph: it starts once the
  // server is serving, so a large store does not delay readiness (its informers list the caches'
  // current state, so changes made meanwhile are not missed).
  gcTimer = setTimeout(() => controllers.push(startGarbageCollector({ store, types, informers })), gcStartDelayMs);
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

// Assembles one server instance from its options: the core (storage, types, store, informers,
// the admission chain, the filters, the router and the listener) and the features that plug into
// it (src/server/features/: flags, authentication methods, the authorizer chain and its modes,
// admission plugins, bootstrap objects, controllers, REST storages, non-resource handlers).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { unionAuthenticator } from "../authn/union.js";
import { FeatureGates } from "../apimachinery/feature-gates.js";
import { parseRuntimeConfig } from "../types/runtime-config.js";
import { jsonCodec, yamlCodec, type Codec } from "../encoding/codec.js";
import { CodecSet } from "../encoding/negotiate.js";
import type { ServerParts } from "../handlers/context.js";
import type { ObjectCacher } from "../registry/list.js";
import { admissionChain } from "../admission/chain.js";
import type { AdmissionPlugin } from "../registry/admission.js";
import { releaseCachesOfRetiredTypes } from "../registry/cache-release.js";
import { NamespaceStates } from "../registry/namespace-states.js";
import { builtinTypeRegistry } from "../types/register.js";
import type { Storage } from "../storage/interface.js";
import { builtinResources } from "../types/builtin-resources.js";
import { buildHandlerChain, type ChainConfig } from "./chain.js";
import { maxInFlightFilter } from "./filters/max-in-flight.js";
import { isLongRunning } from "./long-running.js";
import { createRouter } from "./router.js";
import { createListener } from "./listener.js";
import type { ServerOptions } from "./options.js";
import { deprecatedApiGauge, ServerMetrics } from "../observability/metrics.js";
import { setupTls } from "./tls-setup.js";
import { builtinStorages } from "../handlers/rest/builtin-storages.js";
import { toApiError } from "../handlers/errors.js";
import { checkFeatureFlags, featureStrategiesOf, setUpFeatures, type ServerLifecycle } from "./features/feature-module.js";
import { controllerActivity, type ControllerActivity } from "./controllers-idle.js";
import { startControllerManager, type ControllerManager } from "./controller-manager.js";
import { leaderElectionOn } from "./features/leader-election.js";
import { openCore, type CacheTuning, type OpenCore } from "./core.js";
import { checkEncryptionFlags } from "./encryption-at-rest.js";
import { adminKubeconfig, gracefulStop, listen } from "./serve.js";
import { OpenStreams } from "./open-streams.js";
import { serverFeatures } from "./features/index.js";
import { startupTrace } from "../observability/startup-trace.js";
import { ranCodePath } from "./code-paths.js";
import type { PreparedBootstrap } from "./prepared-bootstrap.js";
import type { Controller } from "../controller-runtime/controller.js";

/**
 * A running server. Whether its in-process controllers have work at hand (./controllers-idle.ts):
 * `controllersIdle()` now, `whenControllersIdle()` once they have none — what a test kit's
 * settle() waits on.
 */
export interface RunningServer extends ControllerActivity {
  url: string;
  port: number;
  /** Admin kubeconfig (YAML text). */
  kubeconfig: string;
  /** Where it was written, when it was. */
  kubeconfigPath?: string;
  /** The server's parts, and the watch caches under the store (tests that look at a cache). */
  parts: ServerParts & { cacher: ObjectCacher };
  /** The storage backend under the store (tests that must reach past the API, e.g. to corrupt a value). */
  storage: Storage;
  /** The in-process controllers running now (the test kit names the busy ones, and waits on their retries). */
  controllers(): readonly Controller[];
  /** Starts now the controllers otherwise started a little after the server listens (the garbage collector). */
  startDelayedControllers(): void;
  /** Under --leader-elect: this replica's candidate identity and whether it runs the controller manager's controllers. */
  election?: ControllerManager["election"];
  /** Graceful: readyz fails, wait shutdown delay, stop accepting, finish in-flight, close store. */
  stop(): Promise<void>;
}

/** The garbage collector starts this long after the server listens, or after this replica starts leading (see garbageCollectorFeature). */
const controllersOnceServingDelayMs = 250;

/**
 * prom-client (tens of ms to import) is loaded this long after the server listens, so its loading
 * does not delay the first requests (readiness probes, a test's first call); a scrape before
 * then loads it at once, and what was recorded meanwhile is kept (ServerMetrics).
 */
const metricsLoadDelayMs = 250;

export type { CacheTuning };

/** Library-only extension points (no kube-apiserver flag). */
export interface EmbeddingOptions extends CacheTuning {
  /** In-process admission plugins, run after the built-in ones (a test suite's own policies). */
  admissionPlugins?: AdmissionPlugin[];
  /** A test harness's filters (call journal, fault injection): see ChainConfig.harness. */
  harness?: ChainConfig["harness"];
  /**
   * The stored state to start from, in place of the bootstrap objects, when the store is empty:
   * written in one transaction, in the order given (a test process's later servers start from a
   * copy of the state its first one reached; see src/testing/initial-state.ts).
   */
  initialState?: readonly { key: string; value: string }[];
  /** Bootstrap objects' stored forms kept from an earlier start, used when the store is empty (./prepared-bootstrap.ts). */
  preparedBootstrap?: PreparedBootstrap;
  /**
   * Runs once the server listens and its controllers run, before /readyz reports ready and before
   * the start resolves (a snapshot to load, fixtures to create); a failure stops the server and
   * fails the start.
   */
  whenStarted?: (server: RunningServer) => Promise<void>;
}

export async function startApiServer(o: ServerOptions & EmbeddingOptions): Promise<RunningServer> {
  const t0 = Date.now();
  const trace = startupTrace(process.env.KAPI_STARTUP_TRACE === "1");
  const gates = FeatureGates.parse(o.featureGates);
  const modules = serverFeatures();
  const types = builtinTypeRegistry(parseRuntimeConfig(o.runtimeConfig, builtinResources), featureStrategiesOf(modules));
  // Every flag is checked before anything is opened: a refused start leaves nothing behind.
  checkFeatureFlags(modules, o, gates);
  checkEncryptionFlags(o);
  trace.mark("types and flag checks");
  const persistent = o.storageBackend === "sqlite";
  if (persistent || o.writeKubeconfig) mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const certDir = o.certDir ?? (persistent || o.writeKubeconfig ? join(o.dataDir, "pki") : undefined);
  const tls = await setupTls(o, certDir);
  trace.mark("TLS material (load or generate)");
  // Features read their files now (a bad one refuses the start); the core they use later opens next.
  let opened: OpenCore | undefined;
  let boundPort: number | undefined;
  const features = setUpFeatures(modules, { options: o, gates, tls, certDir, core: () => opened ?? fail("the server's core was used before storage opened"), servingPort: () => boundPort ?? o.securePort, log: o.log });
  trace.mark("feature setup (files, authenticators)");
  // Made before the core: storage, stores and admission record into it.
  const metrics = new ServerMetrics({
    storage: { countObjects: () => opened!.countObjects(), sizes: () => opened!.storageSizes() },
    showHiddenMetricsForVersion: o.showHiddenMetricsForVersion,
    disabledMetrics: o.disabledMetrics,
  });
  const core = (opened = await openCore(o, types, gates, metrics));
  trace.mark("storage open, caches, store");
  // The chain reads its configuration file: a bad one refuses the start, closing what opened.
  const authorizer = await closingOnFailure(core, () => features.authorizer(core).authorizer);
  // A namespace the informer lacks (not synced yet, or newer than it) is read live through the store.
  const nsType = types.get("", "v1", "namespaces")!;
  const namespaces = new NamespaceStates(core.informers.metadataFor(nsType), core.stores.for(nsType));
  core.admission.bind(admissionChain(features.admissionPlugins({ ...core, namespaces, gates, authorizer: () => authorizer, metrics }), metrics.admission));
  const streams = new OpenStreams();
  const parts = serverParts(core, { gates, authorizer, codecs: features.codecs, minRequestTimeoutSeconds: o.minRequestTimeoutSeconds, streams, watchMetrics: metrics.watch, requestPathMetrics: metrics.requestPath });
  // A group-resource that stops being served (or changes shape) takes its watch cache with it.
  const releaseCaches = releaseCachesOfRetiredTypes(types, core.cacher);
  trace.mark("authorizer and admission chains");

  // Bootstrap objects, created only when missing; the writes of a batch share one commit.
  let bootstrapped = false;
  let startHooksDone = !o.whenStarted;
  const emptyStore = (await core.storage.currentRevision()) === 0;
  ranCodePath(`${o.storageBackend} ${emptyStore ? "first start" : "restart"}`);
  if (o.initialState && emptyStore) {
    await core.storage.transaction(o.initialState.map(({ key, value }) => ({ kind: "create", key, value })));
  } else if (o.preparedBootstrap) {
    const kept = o.preparedBootstrap;
    // Into an empty store nothing stored can act on a bootstrap object yet: an earlier start's
    // stored forms hold. A restart does not reconcile again a batch stored as a reconciliation
    // with nothing to do left it.
    const forms = emptyStore ? (core.stores.preparedForms = kept.load()) : undefined;
    const reconciled = emptyStore ? undefined : (core.stores.reconciledBatches = kept.loadReconciled());
    try {
      await features.bootstrap(core, nsType);
    } finally {
      core.stores.preparedForms = undefined;
      core.stores.reconciledBatches = undefined;
    }
    if (forms) kept.save(forms);
    if (reconciled) kept.saveReconciled(reconciled);
  } else await features.bootstrap(core, nsType);
  bootstrapped = true;
  trace.mark("bootstrap objects");
  features.startReplicaControllers(core);
  const manager = startControllerManager({ features, core, election: leaderElectionOn(o) ? o.leaderElection : undefined, onceServingDelayMs: controllersOnceServingDelayMs, log: o.log });
  trace.mark("controllers started");
  let stopping = false;
  let metricsLoad: NodeJS.Timeout | undefined;
  let draining = false;
  /** Stops the features and their controllers, the informers and the watch caches. */
  const stopBackground = () => {
    clearTimeout(metricsLoad);
    manager.stop();
    features.stop();
    core.encryption.stop();
    releaseCaches();
    core.informers.stop();
    core.cacher.stop();
  };

  const lifecycle: ServerLifecycle = {
    startedAt: Date.now(),
    bootstrapped: () => bootstrapped && startHooksDone,
    bootSequence: features.bootSequenceChecks(core),
    stopping: () => stopping,
    checkStorage: () => storageHealth(core.storage, o.etcd.healthcheckTimeoutMs),
    ...(core.storage.health ? { checkStorageReadiness: () => core.storage.health!(o.etcd.readycheckTimeoutMs) } : {}),
    storageOverrides: core.storageOverrides.map((s) => ({
      check: () => storageHealth(s, o.etcd.healthcheckTimeoutMs),
      checkReadiness: () => storageHealth(s, o.etcd.readycheckTimeoutMs),
    })),
  };
  features.registerMetrics(metrics);
  const authenticate = unionAuthenticator(features.authenticators(core), features.anonymous, { apiAudiences: features.apiAudiences });
  const serving = { parts, authorizer, authenticate, metrics, lifecycle };
  const priorityAndFairness = features.flowControl(core);
  const handle = buildHandlerChain({
    toApiError,
    codecs: parts.codecs,
    metrics,
    requestTimeoutMs: o.requestTimeoutMs,
    isLongRunning,
    authenticate,
    authorizer,
    authorizeWithSelectors: gates.enabled("AuthorizeWithSelectors"),
    audit: features.audit,
    flowControl: priorityAndFairness ?? maxInFlightFilter({ readOnly: o.maxRequestsInflight, mutating: o.maxMutatingRequestsInflight }, isLongRunning, metrics),
    priorityAndFairness: priorityAndFairness !== undefined,
    shutdown: { draining: () => draining, sendRetryAfter: o.shutdownSendRetryAfter },
    goawayChance: o.goawayChance,
    harness: o.harness,
    router: createRouter({ parts, nonResource: features.nonResource(serving), delegated: features.delegatedPaths(serving), storages: builtinStorages(features.storages(serving)), deprecatedRequest: deprecatedApiGauge(metrics) }),
  });
  const listener = createListener({ cert: tls.serving.cert, key: tls.serving.key, clientCA: features.tlsClientCA ?? tls.clientCA }, handle, {
    compressResponses: gates.enabled("APIResponseCompression"),
  });
  // Go's server logs "TLS handshake error from ..." for these; upstream counts each.
  listener.server.on("tlsClientError", () => metrics.requestPath.tlsHandshakeFailed());
  // A start whose clients came early also has the request path's code in the command line's code
  // cache (src/cli/code-cache.ts): a cache made by a start nobody asked anything compiles the
  // handshake, the filters and the handlers cold at every later start's first request.
  listener.server.once("secureConnection", () => ranCodePath("request served"));
  trace.mark("handler chain, router, listener");
  const { url, port } = await listen(listener, o, async () => {
    stopBackground();
    await features.audit?.shutdown();
    await core.storage.close();
  });
  trace.mark("listen");
  boundPort = port;
  manager.serving();
  const activity = controllerActivity({ controllers: () => features.controllers(), informers: core.informers, later: manager.later });
  const { kubeconfig, kubeconfigPath } = adminKubeconfig(o, url, tls);
  metricsLoad = setTimeout(() => void metrics.load(), metricsLoadDelayMs).unref();
  o.log(`kapi: serving on ${url} (storage ${o.storageBackend}${persistent ? ` in ${o.dataDir}` : ""}) in ${Date.now() - t0} ms`);
  if (kubeconfigPath) o.log(`kapi: admin kubeconfig: ${kubeconfigPath}`);
  trace.mark("admin kubeconfig");
  const stop = gracefulStop({
    listener,
    shutdownDelayMs: o.shutdownDelayMs,
    watchTerminationGraceMs: o.shutdownWatchTerminationGraceMs,
    sendRetryAfter: o.shutdownSendRetryAfter,
    markStopping: () => (stopping = true),
    markDraining: () => (draining = true),
    streams,
    stopBackground,
    drainAudit: () => features.audit?.shutdown(),
    closeStorage: () => core.storage.close(),
  });
  const running: RunningServer = { url, port, kubeconfig, kubeconfigPath, parts, storage: core.storage, stop, ...activity, controllers: () => features.controllers(), startDelayedControllers: () => manager.startNow(), ...(manager.election ? { election: manager.election } : {}) };
  if (o.whenStarted) {
    try {
      await o.whenStarted(running);
    } catch (e) {
      await stop();
      throw e;
    }
    startHooksDone = true;
    trace.mark("start hooks (a test kit: snapshot or manifests, settle, initial state)");
  }
  trace.done();
  return running;
}

/** What every handler is handed: the core's stores and types, the encodings, the authorizer chain. */
function serverParts(core: OpenCore, p: Pick<ServerParts, "gates" | "authorizer" | "minRequestTimeoutSeconds" | "streams" | "watchMetrics" | "requestPathMetrics"> & { codecs: readonly Codec[] }): ServerParts & { cacher: ObjectCacher } {
  const { stores, cacher, types } = core;
  return { stores, cacher, types, gates: p.gates, codecs: new CodecSet([jsonCodec, yamlCodec, ...p.codecs]), streams: p.streams, minRequestTimeoutSeconds: p.minRequestTimeoutSeconds, authorizer: p.authorizer, watchMetrics: p.watchMetrics, requestPathMetrics: p.requestPathMetrics };
}

async function closingOnFailure<T>(core: OpenCore, build: () => T): Promise<T> {
  try {
    return build();
  } catch (e) {
    await core.close();
    throw e;
  }
}

function fail(message: string): never {
  throw new Error(message);
}

/** The storage health check: a remote backend (etcd) checks itself within `timeoutMs`. */
function storageHealth(storage: OpenCore["storage"] | Storage, timeoutMs: number): Promise<string | undefined> {
  if (storage.health) return storage.health(timeoutMs);
  return storage.currentRevision().then(() => undefined, (e: Error) => e.message);
}

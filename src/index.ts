// kapi as a library: start a real API server inside a test runner.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultOptions, type ServerOptions } from "./server/options.js";
import { startApiServer } from "./server/start.js";
import { preparedBootstrapFile } from "./server/prepared-bootstrap.js";
import { runningBuild } from "./cli/code-cache.js";
import type { AdmissionPlugin } from "./registry/admission.js";
import { TestHarness } from "./testing/harness.js";
import type { FaultInjector } from "./testing/faults.js";
import type { Journal, JournalEntry, JournalMatch, JournalOptions, JournalPredicate, WaitOptions } from "./testing/journal.js";
import { apiServerControllers } from "./controller-runtime/controllers-flag.js";
import { readManifests } from "./testing/manifests.js";
import { readSnapshotFile, type Snapshot } from "./testing/snapshot-format.js";
import { startTestKit, type StartContent, type TestKit } from "./testing/test-kit.js";
import { initialStateCopy, initialStateKey, keepInitialState } from "./testing/initial-state.js";

export interface StartOptions {
  /** "memory" (default when no dataDir), "sqlite", or "etcd3" (with options.etcdServers). */
  storage?: "memory" | "sqlite" | "etcd3";
  /** Where SQLite, certificates and admin.kubeconfig live; a temp dir when omitted for sqlite. */
  dataDir?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  bindAddress?: string;
  /**
   * --authorization-mode: default AlwaysAllow (kube-apiserver's default); `["Node", "RBAC"]` for the
   * secure setup `npm start` uses. The admin kubeconfig is in system:masters, allowed by every mode.
   */
  authorizationMode?: string[];
  /** --authorization-config: an AuthorizationConfiguration file, instead of `authorizationMode`. */
  authorizationConfig?: string;
  /** Any other kube-apiserver option. */
  options?: Partial<ServerOptions>;
  /** In-process admission plugins, run after the built-in ones on every write. */
  admissionPlugins?: AdmissionPlugin[];
  /** The call journal (default on; `{ capacity }` bounds it); false leaves it out of the request path. */
  journal?: boolean | JournalOptions;
  /** Fault injection (default on); false leaves it out of the request path. */
  faults?: boolean;
  /**
   * Which in-process controllers run: all (default); `false` for none of the controller manager's
   * (raw API behaviour: a deleted namespace stays Terminating, dependents stay); or a list of
   * --controllers names (`["garbage-collector-controller", "namespace-controller"]`, `-name`
   * turns one off). kube-apiserver's own CRD controllers run unless a list turns them off.
   */
  controllers?: false | string[];
  /**
   * Files or directories of YAML/JSON manifests created at start (CRDs first, once they are
   * served, then Namespaces, then the rest); part of the state reset() returns to.
   */
  manifests?: string[];
  /** A snapshot file (server.save()) restored at start, before the manifests. */
  load?: string;
}

/** A running server and its test kit (docs/testing.md): settle(), reset(), snapshots, the journal, faults. */
export interface KapiServer extends TestKit {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Admin kubeconfig (YAML). Load it with your client's kubeconfig loader. */
  kubeconfig: string;
  /** Path of the written kubeconfig, when a data dir is used. */
  kubeconfigPath?: string;
  stop(): Promise<void>;
  /** Every request and its answer (docs/testing.md, "The call journal"). */
  journal: Journal;
  /** Rules that make chosen requests fail, wait or end early (docs/testing.md, "Fault injection"). */
  faults: FaultInjector;
  /** The first journal entry, recorded or still to come, that matches; rejects after `timeout` ms. */
  waitFor(query: JournalMatch | JournalPredicate, o?: WaitOptions): Promise<JournalEntry>;
}

export async function startServer(opts: StartOptions = {}): Promise<KapiServer> {
  // Files first: a bad manifest or snapshot refuses the start before anything is opened.
  const content: StartContent = {
    ...(opts.load ? { snapshot: readSnapshotFile(opts.load) } : {}),
    ...(opts.manifests ? { manifests: readManifests(opts.manifests) } : {}),
  };
  const storage = opts.storage ?? (opts.dataDir ? "sqlite" : "memory");
  const tempDir = !opts.dataDir && storage === "sqlite" ? mkdtempSync(join(tmpdir(), "kapi-")) : undefined;
  const o: ServerOptions = {
    ...defaultOptions(),
    bindAddress: opts.bindAddress ?? "127.0.0.1",
    securePort: opts.port ?? 0,
    storageBackend: storage,
    dataDir: opts.dataDir ?? tempDir ?? "",
    writeKubeconfig: Boolean(opts.dataDir ?? tempDir),
    ...(opts.authorizationMode ? { authorizationMode: opts.authorizationMode } : {}),
    ...(opts.authorizationConfig ? { authorizationConfig: opts.authorizationConfig } : {}),
    ...(opts.controllers !== undefined ? { controllers: controllersList(opts.controllers) } : {}),
    ...opts.options,
  };
  const harness = new TestHarness({ journal: opts.journal, faults: opts.faults });
  // A later server of the same configuration in this process starts from the first one's state.
  const stateKey = initialStateKey({ options: o, admissionPlugins: (opts.admissionPlugins?.length ?? 0) > 0, content: Boolean(content.snapshot || content.manifests) });
  const initialState = initialStateCopy(stateKey);
  let kit: TestKit | undefined;
  let s;
  try {
    s = await startApiServer({
      ...o,
      admissionPlugins: opts.admissionPlugins,
      harness: harness.filters(),
      // The first one writes the bootstrap objects from the forms an earlier process of this build
      // kept (a configuration whose in-process plugins could act on them keeps none).
      ...(initialState ? { initialState } : opts.admissionPlugins?.length ? {} : { preparedBootstrap: preparedBootstrapFile(o, runningBuild()) }),
      async whenStarted(running) {
        harness.attach(running);
        kit = await startTestKit(running, content, stateKey === undefined || initialState ? undefined : (s) => keepInitialState(stateKey, s));
      },
    });
  } catch (e) {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw e;
  }
  const k = kit!;
  return {
    snapshot: () => k.snapshot(),
    restore: (snapshot) => k.restore(snapshot),
    save: (path) => k.save(path),
    reset: () => k.reset(),
    settle: (settleOpts) => k.settle(settleOpts),
    journal: harness.journal,
    faults: harness.faults,
    waitFor: (query, wo) => harness.waitFor(query, wo),
    url: s.url,
    port: s.port,
    kubeconfig: s.kubeconfig,
    kubeconfigPath: s.kubeconfigPath,
    async stop() {
      await s.stop();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** The --controllers list of a `controllers` option (kube-apiserver's own run unless the list turns them off: first mention wins). */
function controllersList(c: false | string[]): string[] {
  return c === false ? [...apiServerControllers] : [...c, ...apiServerControllers];
}

export type { ServerOptions, Snapshot };
export type { BlockedInformer, BusyController, SettleOptions } from "./testing/settle.js";
export { SettleBlockedError, SettleTimeoutError } from "./testing/settle.js";
export { SnapshotError } from "./testing/snapshot-format.js";
export { ManifestError } from "./testing/manifests.js";
export type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from "./registry/admission.js";
export type { FaultAction, FaultRule, FaultRuleInput, FiredFault, InjectableCode } from "./testing/faults.js";
export type { RequestMatch } from "./testing/request-matcher.js";
export type { Journal, JournalEntry, JournalMatch, JournalOptions, JournalPredicate, WaitOptions };
export type { FaultInjector };
export { HarnessInputError } from "./testing/input-error.js";
// What an admission plugin or a test needs: the error a plugin throws to refuse a write (the
// client gets its Status), the common Statuses, field errors for a 422, and the object, user and
// type shapes a plugin sees.
export { ApiError, alreadyExists, badRequest, conflict, forbidden, invalid, notFound, type GroupResource, type StatusCause, type StatusDetails, type StatusReason } from "./apimachinery/errors.js";
export * as field from "./apimachinery/field-errors.js";
export type { FieldError } from "./apimachinery/validation.js";
export type { KObject, ObjectMeta, OwnerReference } from "./apimachinery/object.js";
export type { UserInfo } from "./apimachinery/user.js";
export type { ResourceType } from "./registry/resource-type.js";

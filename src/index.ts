// kapi as a library: start a real API server inside a test runner.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultOptions, type ServerOptions } from "./server/options.js";
import { startApiServer } from "./server/start.js";
import type { AdmissionPlugin } from "./registry/admission.js";
import { TestHarness } from "./testing/harness.js";
import type { FaultInjector } from "./testing/faults.js";
import type { Journal, JournalEntry, JournalMatch, JournalOptions, JournalPredicate, WaitOptions } from "./testing/journal.js";

export interface StartOptions {
  /** "memory" (default when no dataDir) or "sqlite". */
  storage?: "memory" | "sqlite";
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
}

export interface KapiServer {
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
    ...opts.options,
  };
  const harness = new TestHarness({ journal: opts.journal, faults: opts.faults });
  const s = await startApiServer({ ...o, admissionPlugins: opts.admissionPlugins, harness: harness.filters() });
  harness.attach(s);
  return {
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

export type { ServerOptions };
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

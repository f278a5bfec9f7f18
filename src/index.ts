// kapi as a library: start a real API server inside a test runner.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultOptions, type ServerOptions } from "./server/options.js";
import { startApiServer } from "./server/start.js";
import type { AdmissionPlugin } from "./registry/admission.js";

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
  const s = await startApiServer({ ...o, admissionPlugins: opts.admissionPlugins });
  return {
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

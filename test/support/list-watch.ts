// Shared helpers for the list/watch integration tests: servers with watch-cache tuning and
// access to their parts (to drop every watch stream at once).
import { startApiServer, type CacheTuning, type RunningServer } from "../../src/server/start.js";
import { defaultOptions, type ServerOptions } from "../../src/server/options.js";
import type { Storage } from "../../src/storage/interface.js";
import { TestHarness } from "../../src/testing/harness.js";
import type { SettleOptions } from "../../src/testing/settle.js";
import { settleRunning } from "./settle.js";
import { withCredentials, req, type TestServer } from "./client.js";

export type PartsServer = TestServer & { parts: RunningServer["parts"]; storage: Storage; settle(opts?: SettleOptions): Promise<void> };

export async function startTuned(extra: Partial<ServerOptions> & CacheTuning = {}): Promise<PartsServer> {
  const harness = new TestHarness();
  const s = await startApiServer({
    harness: harness.filters(),
    ...defaultOptions(),
    bindAddress: "127.0.0.1",
    securePort: 0,
    storageBackend: "memory",
    dataDir: "",
    writeKubeconfig: false,
    // ConfigMaps are what these tests count and watch: the root CA publisher's kube-root-ca.crt
    // would be one more in every namespace, appearing at a moment of its own.
    controllers: ["*", "-root-ca-cert-publisher"],
    ...extra,
  });
  harness.attach(s);
  return withCredentials(Object.assign(s, { journal: harness.journal, faults: harness.faults, waitFor: harness.waitFor.bind(harness), settle: (opts?: SettleOptions) => settleRunning(s, opts) }));
}

export const cm = (name: string, labels?: Record<string, string>, data: Record<string, string> = { k: "v" }) => ({ metadata: { name, labels }, data });

export async function mkns(s: TestServer, name: string): Promise<void> {
  const r = await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name } } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${r.text}`);
}

export async function create(s: TestServer, ns: string, body: unknown): Promise<any> {
  const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return r.json;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** "TYPE name" of each watch event, for comparing event sequences. */
export const summary = (evs: any[]) => evs.map((e) => `${e.type} ${e.object.metadata?.name ?? ""}`.trim());

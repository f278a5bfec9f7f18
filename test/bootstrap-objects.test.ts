// The objects a fresh server stores (bootstrap objects and what its controllers write at start:
// RBAC default policy and its aggregation, namespaces, priority classes, service accounts, CA
// bundles, ...) stay exactly those of test/testdata/bootstrap-objects.json, dumped from a server
// before start-up was made faster, field by field except what differs on every start.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultOptions } from "../src/server/options.js";
import { startApiServer } from "../src/server/start.js";
import { settleRunning } from "./support/settle.js";

type Obj = {
  kind: string;
  metadata: Record<string, unknown> & { name: string; managedFields?: Record<string, unknown>[] };
  data?: Record<string, string>;
  status?: { conditions?: Record<string, unknown>[] };
};

/** Drops what differs on every start: identity, revision, times, the generated CA, the date of the first start. */
function comparable(o: Obj): Obj {
  const c = structuredClone(o);
  delete c.metadata.uid;
  delete c.metadata.resourceVersion;
  delete c.metadata.creationTimestamp;
  for (const m of c.metadata.managedFields ?? []) delete m.time;
  for (const cond of c.status?.conditions ?? []) delete cond.lastTransitionTime;
  if (c.kind === "ConfigMap" && c.metadata.name === "kube-root-ca.crt") c.data!["ca.crt"] = "<the serving CA>";
  if (c.kind === "ConfigMap" && c.metadata.name === "kube-apiserver-legacy-service-account-token-tracking") c.data!.since = "<the first start's date>";
  for (const cond of c.kind === "ServiceCIDR" ? (c as { status?: { conditions?: { lastTransitionTime?: string }[] } }).status?.conditions ?? [] : []) cond.lastTransitionTime = "<the start's time>";
  return c;
}

describe("bootstrap objects", () => {
  it("are stored exactly as before", async () => {
    const expected = JSON.parse(readFileSync(new URL("./testdata/bootstrap-objects.json", import.meta.url), "utf8")) as Record<string, Obj>;
    const s = await startApiServer({ ...defaultOptions(), bindAddress: "127.0.0.1", securePort: 0, storageBackend: "memory", dataDir: "", writeKubeconfig: false });
    try {
      // The start-up controllers (aggregation, service accounts, CA publisher) write after start.
      await settleRunning(s);
      const { items } = await s.storage.range("/registry/");
      const stored = Object.fromEntries(items.map((kv) => [kv.key, comparable(JSON.parse(Buffer.from(kv.value).toString("utf8")) as Obj)]));
      expect(Object.keys(stored).sort()).toEqual(Object.keys(expected).sort());
      for (const key of Object.keys(expected)) expect(stored[key], key).toEqual(expected[key]);
    } finally {
      await s.stop();
    }
  });
});

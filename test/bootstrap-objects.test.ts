// The objects a fresh server stores (bootstrap objects and what its controllers write at start:
// RBAC default policy and its aggregation, namespaces, priority classes, service accounts, CA
// bundles, the local APIServices, ...) stay exactly those of test/testdata/bootstrap-objects.json, dumped from a server
// before start-up was made faster, field by field except what differs on every start.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultOptions, type ServerOptions } from "../src/server/options.js";
import { preparedBootstrapFile } from "../src/server/prepared-bootstrap.js";
import { startApiServer, type EmbeddingOptions } from "../src/server/start.js";
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
  if (c.kind === "ConfigMap" && c.metadata.name === "extension-apiserver-authentication") c.data!["client-ca-file"] = "<the client CA>";
  for (const cond of c.kind === "ServiceCIDR" ? (c as { status?: { conditions?: { lastTransitionTime?: string }[] } }).status?.conditions ?? [] : []) cond.lastTransitionTime = "<the start's time>";
  return c;
}

const expected = JSON.parse(readFileSync(new URL("./testdata/bootstrap-objects.json", import.meta.url), "utf8")) as Record<string, Obj>;
const options = () => ({ ...defaultOptions(), bindAddress: "127.0.0.1", securePort: 0, storageBackend: "memory" as const, dataDir: "", writeKubeconfig: false });

/** Starts a server, lets its start-up controllers write, and returns what it stored (raw, by key). */
async function storedAfterStart(o: ServerOptions & EmbeddingOptions): Promise<Record<string, Obj>> {
  const s = await startApiServer(o);
  try {
    // The start-up controllers (aggregation, service accounts, CA publisher) write after start.
    await settleRunning(s);
    const { items } = await s.storage.range("/registry/");
    return Object.fromEntries(items.map((kv) => [kv.key, JSON.parse(Buffer.from(kv.value).toString("utf8")) as Obj]));
  } finally {
    await s.stop();
  }
}

function expectAsBefore(raw: Record<string, Obj>): void {
  const stored = Object.fromEntries(Object.entries(raw).map(([k, o]) => [k, comparable(o)]));
  expect(Object.keys(stored).sort()).toEqual(Object.keys(expected).sort());
  for (const key of Object.keys(expected)) expect(stored[key], key).toEqual(expected[key]);
}

describe("bootstrap objects", () => {
  it("are stored exactly as before", async () => {
    expectAsBefore(await storedAfterStart(options()));
  });

  it("are stored alike from the forms an earlier start kept, each with a uid and time of its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-prepared-"));
    try {
      const first = await storedAfterStart({ ...options(), preparedBootstrap: preparedBootstrapFile(options(), "test-build", dir) });
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      // Time-based: stored times have whole seconds, so the next start's must fall in the next one.
      // Waiting until just past that second's start (at most a second) is all it takes.
      const startedIn = Math.floor(Date.parse(first["/registry/rbac.authorization.k8s.io/clusterroles/cluster-admin"]!.metadata.creationTimestamp as string) / 1000);
      // Timers run on the monotonic clock and stamps on the wall clock: wait on the wall clock.
      while (Date.now() < (startedIn + 1) * 1000 + 20) await new Promise((r) => setTimeout(r, Math.max(1, (startedIn + 1) * 1000 + 20 - Date.now())));
      const second = await storedAfterStart({ ...options(), preparedBootstrap: preparedBootstrapFile(options(), "test-build", dir) });
      expectAsBefore(second);
      const role = "/registry/rbac.authorization.k8s.io/clusterroles/cluster-admin";
      expect(second[role]!.metadata.uid).not.toEqual(first[role]!.metadata.uid);
      expect(second[role]!.metadata.creationTimestamp).not.toEqual(first[role]!.metadata.creationTimestamp);
      const schema = second["/registry/flowcontrol.apiserver.k8s.io/flowschemas/catch-all"]!.metadata;
      expect(schema.managedFields![0]!.time).toEqual(schema.creationTimestamp);
      expect(schema.creationTimestamp).not.toEqual(first["/registry/flowcontrol.apiserver.k8s.io/flowschemas/catch-all"]!.metadata.creationTimestamp);
      expect(new Set(Object.values(second).map((o) => o.metadata.uid)).size).toBe(Object.keys(second).length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("take a kept form only for the same build, configuration and object", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-prepared-"));
    try {
      await storedAfterStart({ ...options(), preparedBootstrap: preparedBootstrapFile(options(), "test-build", dir) });
      // Mark every kept form: a start that writes one shows the mark.
      const [file] = readdirSync(dir);
      const plain = '"{\\"kind\\":';
      const mark = '"{\\"kept\\":\\"form\\",\\"kind\\":';
      const text = readFileSync(join(dir, file!), "utf8").replaceAll(plain, mark);
      writeFileSync(join(dir, file!), text);
      const marked = (raw: Record<string, Obj>) => Object.keys(raw).filter((k) => (raw[k] as { kept?: string }).kept === "form");
      const same = await storedAfterStart({ ...options(), preparedBootstrap: preparedBootstrapFile(options(), "test-build", dir) });
      expect(marked(same)).toContain("/registry/rbac.authorization.k8s.io/clusterroles/cluster-admin");
      expect(marked(same)).toContain("/registry/namespaces/kube-system");
      // Neither another build's nor another configuration's start takes them.
      expect(marked(await storedAfterStart({ ...options(), preparedBootstrap: preparedBootstrapFile(options(), "other-build", dir) }))).toEqual([]);
      const other = { ...options(), featureGates: "AllowUnsafeMalformedObjectDeletion=true" };
      expect(marked(await storedAfterStart({ ...other, preparedBootstrap: preparedBootstrapFile(other, "test-build", dir) }))).toEqual([]);
      // Nor a restart whose store holds objects already (what is stored could act on a create).
      const sqlite = { ...options(), storageBackend: "sqlite" as const, dataDir: join(dir, "data") };
      const sqliteForms = () => preparedBootstrapFile(sqlite, "test-build", join(dir, "sqlite-forms"));
      mkdirSync(join(dir, "sqlite-forms"));
      const s = await startApiServer({ ...sqlite, preparedBootstrap: sqliteForms() });
      await s.storage.delete("/registry/rbac.authorization.k8s.io/clusterroles/cluster-admin");
      await s.stop();
      const [sqliteFile] = readdirSync(join(dir, "sqlite-forms"));
      writeFileSync(join(dir, "sqlite-forms", sqliteFile!), readFileSync(join(dir, "sqlite-forms", sqliteFile!), "utf8").replaceAll(plain, mark));
      const restarted = await storedAfterStart({ ...sqlite, preparedBootstrap: sqliteForms() });
      expect(restarted["/registry/rbac.authorization.k8s.io/clusterroles/cluster-admin"]).toBeDefined();
      expect(marked(restarted)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a restart leaves the RBAC policy unreconciled only while it is stored as a reconciliation with nothing to do left it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-reconciled-"));
    const basicUser = "/registry/rbac.authorization.k8s.io/clusterroles/system:basic-user";
    const sqlite = { ...options(), storageBackend: "sqlite" as const, dataDir: join(dir, "data") };
    const kept = () => preparedBootstrapFile(sqlite, "test-build", join(dir, "kept"));
    const reconciledFile = () => readdirSync(join(dir, "kept")).find((f) => f.includes("-reconciled-"));
    /** Starts, runs `during` against the running server, stops; what was stored at the end. */
    const restart = async (during?: (s: Awaited<ReturnType<typeof startApiServer>>) => Promise<void>) => {
      const s = await startApiServer({ ...sqlite, preparedBootstrap: kept() });
      try {
        await during?.(s);
        const { items } = await s.storage.range("/registry/rbac.authorization.k8s.io/");
        return new Map(items.map((kv) => [kv.key, kv]));
      } finally {
        await s.stop();
      }
    };
    /** The role with its rules cut to one, written straight to storage (a new resourceVersion). */
    const cutRules = async (s: Awaited<ReturnType<typeof startApiServer>>) => {
      const kv = (await s.storage.get(basicUser))!;
      const role = JSON.parse(Buffer.from(kv.value).toString("utf8")) as { rules: unknown[] };
      role.rules = role.rules.slice(0, 1);
      return s.storage.update(basicUser, JSON.stringify(role), kv.modRevision);
    };
    const rulesOf = (kv: { value: Uint8Array | string } | undefined) => (JSON.parse(Buffer.from(kv!.value).toString("utf8")) as { rules: unknown[] }).rules.length;
    try {
      mkdirSync(join(dir, "kept"));
      await restart(); // the first start: everything created, nothing recorded
      expect(reconciledFile()).toBeUndefined();
      const second = await restart(); // reconciled with nothing to do: recorded
      const file = reconciledFile();
      expect(file).toBeDefined();
      const record = JSON.parse(readFileSync(join(dir, "kept", file!), "utf8")) as Record<string, [string, string, string, string][]>;
      expect(record["rbac/bootstrap-policy"]).toHaveLength(131);
      const fullRules = rulesOf(second.get(basicUser));
      expect(fullRules).toBeGreaterThan(1);
      // Changed since the record: reconciled again, the missing rules restored.
      await restart(async (s) => void (await cutRules(s)));
      expect(rulesOf((await restart()).get(basicUser))).toBe(fullRules);
      // The record is what is trusted: one naming the changed role's new resourceVersion, as a
      // reconciliation would have left it, skips the reconciliation, so the cut stays.
      let cutVersion = "";
      await restart(async (s) => void (cutVersion = String((await cutRules(s)).modRevision)));
      const path = join(dir, "kept", reconciledFile()!);
      const trusted = JSON.parse(readFileSync(path, "utf8")) as Record<string, [string, string, string, string][]>;
      for (const entry of trusted["rbac/bootstrap-policy"]!) if (entry[0] === "clusterroles" && entry[1] === "/system:basic-user") entry[3] = cutVersion;
      writeFileSync(path, JSON.stringify(trusted));
      expect(rulesOf((await restart()).get(basicUser))).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

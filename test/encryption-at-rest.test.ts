// Encryption at rest end to end (--encryption-provider-config): secrets written by kubectl are
// ciphertext in the SQLite file and read back plain; each provider round trips; upstream's key
// rotation with restarts; identity first, then encryption by rewriting; an object whose key was
// removed answers upstream's errors and is removed only by the unsafe delete (gate + permission);
// bad configuration files refuse the start in upstream's words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../src/index.js";
import { defaultOptions, type ServerOptions } from "../src/server/options.js";
import { startApiServer } from "../src/server/start.js";
import { req, withCredentials, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { runKapi } from "./support/cli.js";
import { Heard } from "./support/heard.js";
import { sqliteDriver } from "../src/storage/sqlite/drivers.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const secret = (n: number, fill: number) => Buffer.alloc(n, fill).toString("base64");
const config = (providers: string, resources = '["secrets"]') =>
  `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ${resources}\n    providers:\n${providers}`;
const aescbc = (...keys: [string, string][]) => `      - aescbc:\n          keys:\n${keys.map(([n, s]) => `            - name: ${n}\n              secret: "${s}"\n`).join("")}`;
const aesgcm = (name: string, s: string) => `      - aesgcm:\n          keys: [{ name: ${name}, secret: "${s}" }]\n`;
const secretbox = (name: string, s: string) => `      - secretbox:\n          keys: [{ name: ${name}, secret: "${s}" }]\n`;
const identity = "      - identity: {}\n";
const key1 = secret(32, 1);
const key2 = secret(32, 2);

describe("encryption at rest", () => {
  let dir: string;
  let dataDir: string;
  let configFile: string;
  let s: TestServer | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "kapi-enc-"));
    dataDir = join(dir, "data");
    configFile = join(dir, "encryption.yaml");
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** (Re)starts the server on the same SQLite data with `providers` (none: no configuration file). */
  async function restart(providers: string | undefined, options: Partial<ServerOptions> = {}): Promise<TestServer> {
    await s?.stop();
    s = undefined;
    if (providers !== undefined) writeFileSync(configFile, config(providers));
    // The server alone, not the test kit: with unreadable secrets stored, the controllers that
    // inform on secrets keep retrying and never settle (as any client's informer would).
    const running = await startApiServer({
      ...defaultOptions(),
      bindAddress: "127.0.0.1",
      securePort: 0,
      storageBackend: "sqlite",
      dataDir,
      ...(providers !== undefined ? { encryptionProviderConfig: configFile } : {}),
      ...options,
    });
    s = withCredentials(running) as unknown as TestServer;
    return s;
  }

  /** The stored values of the `resource` objects in `ns`, read from the database file itself. */
  function stored(resource: string, ns: string): Map<string, string> {
    const db = sqliteDriver().open(join(dataDir, "kapi.db"), { readonly: true });
    try {
      const table = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
      const cols = (t: string) => (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
      const log = table.find((t) => cols(t).includes("key") && cols(t).includes("value"))!;
      const rows = db.prepare(`SELECT key, value FROM ${log} WHERE key LIKE ? ORDER BY rowid`).all(`/registry/${resource}/${ns}/%`) as { key: string; value: Uint8Array | string | null }[];
      const last = new Map<string, string>();
      for (const r of rows) if (r.value !== null) last.set(r.key.slice(r.key.lastIndexOf("/") + 1), typeof r.value === "string" ? r.value : Buffer.from(r.value).toString());
      return last;
    } finally {
      db.close();
    }
  }
  const storedSecrets = (ns: string) => stored("secrets", ns);

  const k = async (args: string[], stdin?: string) => {
    const r = await kubectl(kubectlBin!, s!.kubeconfigPath!, args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };

  it.skipIf(!kubectlBin)("stores kubectl's secrets encrypted in the SQLite file and reads them back", async () => {
    await restart(aescbc(["key1", key1]) + identity);
    await k(["create", "secret", "generic", "db-pass", "--from-literal=password=hunter2-plaintext"]);
    const value = storedSecrets("default").get("db-pass")!;
    expect(value.startsWith("k8s:enc:aescbc:v1:key1:")).toBe(true);
    expect(value).not.toContain("hunter2");
    expect(value).not.toContain(Buffer.from("hunter2-plaintext").toString("base64"));
    const got = JSON.parse(await k(["get", "secret", "db-pass", "-o", "json"]));
    expect(Buffer.from(got.data.password, "base64").toString()).toBe("hunter2-plaintext");
    // Resources no rule names stay plain.
    await k(["create", "configmap", "plain", "--from-literal=k=visible-value"]);
    expect(stored("configmaps", "default").get("plain")).toContain("visible-value");
  });

  it.skipIf(!kubectlBin)("round trips each provider, and a restart reads what the last one wrote", async () => {
    for (const [name, provider] of [["aescbc", aescbc(["c", secret(16, 5)])], ["aesgcm", aesgcm("g", secret(24, 6))], ["secretbox", secretbox("s", secret(32, 7))]] as const) {
      await restart(provider);
      await k(["create", "secret", "generic", `via-${name}`, `--from-literal=v=${name}-value`]);
      expect(storedSecrets("default").get(`via-${name}`)!.startsWith(`k8s:enc:${name}:v1:`)).toBe(true);
      await restart(provider);
      const got = JSON.parse(await k(["get", "secret", `via-${name}`, "-o", "json"]));
      expect(Buffer.from(got.data.v, "base64").toString()).toBe(`${name}-value`);
      await k(["delete", "secret", `via-${name}`]);
    }
  });

  it.skipIf(!kubectlBin)("rotates keys as upstream documents: add second, restart, move first, rewrite everything, remove the old", async () => {
    await restart(aescbc(["key1", key1]));
    await k(["create", "namespace", "rot"]);
    for (const n of ["a", "b", "c"]) await k(["create", "secret", "generic", n, "-n", "rot", `--from-literal=v=${n}`]);
    expect([...storedSecrets("rot").values()].every((v) => v.startsWith("k8s:enc:aescbc:v1:key1:"))).toBe(true);
    await restart(aescbc(["key1", key1], ["key2", key2]));
    await restart(aescbc(["key2", key2], ["key1", key1]));
    // Unchanged objects are written again: they were read through a key writes no longer use.
    const all = await k(["get", "secrets", "-A", "-o", "json"]);
    await k(["replace", "-f", "-"], all);
    expect([...storedSecrets("rot").values()].every((v) => v.startsWith("k8s:enc:aescbc:v1:key2:"))).toBe(true);
    await restart(aescbc(["key2", key2]));
    const got = JSON.parse(await k(["get", "secrets", "-n", "rot", "-o", "json"]));
    expect(got.items.map((i: any) => Buffer.from(i.data.v, "base64").toString())).toEqual(["a", "b", "c"]);
  });

  it.skipIf(!kubectlBin)("encrypts plain secrets by rewriting them once a provider comes first (identity second)", async () => {
    await restart(undefined);
    await k(["create", "namespace", "plain"]);
    await k(["create", "secret", "generic", "p", "-n", "plain", "--from-literal=v=was-plain"]);
    expect(storedSecrets("plain").get("p")).toContain(Buffer.from("was-plain").toString("base64"));
    await restart(aesgcm("g1", secret(32, 9)) + identity);
    expect(JSON.parse(await k(["get", "secret", "p", "-n", "plain", "-o", "json"])).data.v).toBe(Buffer.from("was-plain").toString("base64"));
    await k(["replace", "-f", "-"], await k(["get", "secrets", "-n", "plain", "-o", "json"]));
    expect(storedSecrets("plain").get("p")!.startsWith("k8s:enc:aesgcm:v1:g1:")).toBe(true);
  });

  describe("an object no configured key can decrypt", () => {
    const tokens = () => join(dir, "tokens.csv");
    let path = "";
    let ns = "";
    const setUp = async (gate: boolean) => {
      ns = gate ? "lost" : "lost-nogate";
      path = `/api/v1/namespaces/${ns}/secrets`;
      writeFileSync(tokens(), "tok-deleter,deleter,uid-d\ntok-breaker,breaker,uid-b\n");
      await restart(aescbc(["old", key1]));
      await req(s!, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } });
      for (const n of ["gone1", "gone2"]) {
        const r = await req(s!, "POST", path, { body: { metadata: { name: n }, stringData: { v: n } } });
        expect(r.status).toBe(201);
      }
      // RBAC: both may delete secrets; only "breaker" may also do the unsafe delete.
      const rules = (verbs: string[]) => [{ apiGroups: [""], resources: ["secrets"], verbs }];
      for (const [user, verbs] of [["deleter", ["get", "list", "delete"]], ["breaker", ["get", "list", "delete", "unsafe-delete-ignore-read-errors"]]] as const) {
        await req(s!, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { body: { metadata: { name: user }, rules: rules([...verbs]) } });
        await req(s!, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
          body: { metadata: { name: user }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: user }, subjects: [{ kind: "User", name: user }] },
        });
      }
      await restart(aescbc(["new", key2]), { tokenAuthFile: tokens(), authorizationMode: ["RBAC"], featureGates: gate ? "AllowUnsafeMalformedObjectDeletion=true" : "" });
    };

    it("GET and LIST answer upstream's errors; the unsafe delete removes it for a user allowed to", async () => {
      await setUp(true);
      const get = await req(s!, "GET", `${path}/gone1`);
      expect(get.status).toBe(500);
      expect(get.json.reason).toBe("InternalError");
      expect(get.json.message).toBe(
        "Internal error occurred: StorageError: corrupt object, Code: 7, Key: /registry/secrets/lost/gone1, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: no matching key was found for the provided AES transformer",
      );
      const list = await req(s!, "GET", path);
      expect(list.status).toBe(500);
      expect(list.json).toMatchObject({ reason: "StorageReadError", message: "failed to read one or more secrets from the storage", details: { name: "list", kind: "secrets" } });
      expect(list.json.details.causes.map((c: any) => [c.reason, c.field])).toEqual([
        ["UnexpectedServerResponse", "/registry/secrets/lost/gone1"],
        ["UnexpectedServerResponse", "/registry/secrets/lost/gone2"],
      ]);
      const k1 = await kubectl(kubectlBin ?? "kubectl", s!.kubeconfigPath!, ["get", "secrets", "-n", ns]);
      if (kubectlBin) expect(k1.stderr).toContain("failed to read one or more secrets from the storage");

      const unsafe = "?ignoreStoreReadErrorWithClusterBreakingPotential=true";
      const plainDelete = await req(s!, "DELETE", `${path}/gone1`, { creds: s!.as("tok-deleter") });
      expect(plainDelete.status).toBe(500);
      expect(plainDelete.json.message).toContain("corrupt object");
      const notAllowed = await req(s!, "DELETE", `${path}/gone1${unsafe}`, { creds: s!.as("tok-deleter") });
      expect(notAllowed.status).toBe(403);
      expect(notAllowed.json.message).toMatch(/^secrets "gone1" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: /);
      const removed = await req(s!, "DELETE", `${path}/gone1${unsafe}`, { creds: s!.as("tok-breaker") });
      expect(removed.status).toBe(200);
      expect(removed.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "gone1", kind: "Secret" } });
      expect((await req(s!, "GET", `${path}/gone1`)).status).toBe(404);
      // A readable object is not for the unsafe option.
      await req(s!, "POST", path, { body: { metadata: { name: "fine" }, stringData: { v: "x" } } });
      const readable = await req(s!, "DELETE", `${path}/fine${unsafe}`, { creds: s!.as("tok-breaker") });
      expect(readable.status).toBe(422);
      expect(readable.json.message).toBe('secrets "fine" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option');
      expect((await req(s!, "DELETE", `${path}${unsafe}`)).status).toBe(422);
      // Once the last unreadable one goes, lists work again (from a cache that skips unreadable history).
      expect((await req(s!, "DELETE", `${path}/gone2${unsafe}`, { creds: s!.as("tok-breaker") })).status).toBe(200);
      const after = await req(s!, "GET", path);
      expect(after.status).toBe(200);
      expect(after.json.items.map((i: any) => i.metadata.name)).toEqual(["fine"]);
    });

    it("without the gate the option is ignored and the object stays, answering the plain transform error", async () => {
      await setUp(false);
      const get = await req(s!, "GET", `${path}/gone1`);
      expect(get.status).toBe(500);
      expect(get.json.message).toBe("Internal error occurred: no matching key was found for the provided AES transformer");
      const list = await req(s!, "GET", path);
      expect(list.json.message).toBe('Internal error occurred: unable to transform key "/registry/secrets/lost-nogate/gone1": no matching key was found for the provided AES transformer');
      const r = await req(s!, "DELETE", `${path}/gone1?ignoreStoreReadErrorWithClusterBreakingPotential=true`, { creds: s!.as("tok-breaker") });
      expect(r.status).toBe(500);
      expect(r.json.message).toBe("Internal error occurred: no matching key was found for the provided AES transformer");
    });
  });

  it("reloads a changed configuration file with --encryption-provider-config-automatic-reload, keeping the old one when the new is invalid", async () => {
    // The server's log, heard as it comes: each reload (or its refusal) is announced there once done.
    const log = new Heard<string>();
    await restart(aescbc(["r1", key1]), { encryptionProviderConfigAutomaticReload: true, encryptionConfigReloadPollMs: 50, log: log.push });
    await req(s!, "POST", "/api/v1/namespaces/default/secrets", { body: { metadata: { name: "before-reload" }, stringData: { v: "1" } } });
    writeFileSync(configFile, config(aescbc(["bad", secret(7, 1)])));
    await log.some("the refused reload", (l) => l.includes("secret is not of the expected length"));
    await req(s!, "POST", "/api/v1/namespaces/default/secrets", { body: { metadata: { name: "still-r1" }, stringData: { v: "2" } } });
    expect(storedSecrets("default").get("still-r1")!.startsWith("k8s:enc:aescbc:v1:r1:")).toBe(true);
    writeFileSync(configFile, config(secretbox("r2", key2) + aescbc(["r1", key1])));
    await log.some("the reload", (l) => l.includes("loaded new encryption provider configuration"));
    await req(s!, "POST", "/api/v1/namespaces/default/secrets", { body: { metadata: { name: "after-reload" }, stringData: { v: "3" } } });
    expect(storedSecrets("default").get("after-reload")!.startsWith("k8s:enc:secretbox:v1:r2:")).toBe(true);
    expect((await req(s!, "GET", "/api/v1/namespaces/default/secrets/before-reload")).status).toBe(200);
  });
});


describe("a bad encryption configuration refuses the start", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "kapi-enc-bad-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const startWith = async (text: string) => {
    const file = join(dir, "enc.yaml");
    writeFileSync(file, text);
    return startServer({ storage: "memory", options: { encryptionProviderConfig: file } }).then(
      async (srv) => {
        await srv.stop();
        return "started";
      },
      (e: Error) => e.message,
    );
  };

  it.each([
    ["an unknown provider", config("      - rot13: {}\n"), "resources[0].providers[0]: Invalid value: apiserver.ProviderConfiguration{AESGCM:(*apiserver.AESConfiguration)(nil)"],
    ["a key of the wrong length", config(aescbc(["k", secret(12, 1)])), 'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 12, expected one of [16 24 32]'],
    ["no resources", "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []\n", "error while parsing file: resources: Required value: at least one resources is required"],
    ["a kms provider", config("      - kms: {apiVersion: v2, name: k, endpoint: unix:///tmp/kms.sock}\n"), "error while building transformers: the kms provider is not supported by kapi"],
  ])("%s", async (_what, text, message) => {
    expect(await startWith(text)).toContain(message);
  });

  it("kapi serve exits with the message", async () => {
    const file = join(dir, "serve.yaml");
    writeFileSync(file, config(aesgcm("k", secret(5, 1))));
    const r = await runKapi(["serve", "--secure-port=0", "--bind-address=127.0.0.1", `--data-dir=${join(dir, "d")}`, `--encryption-provider-config=${file}`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("secret is not of the expected length, got 5, expected one of [16 24 32]");
    // Refused before the store opened: no database was made.
    expect(existsSync(join(dir, "d", "kapi.db"))).toBe(false);
    const noFile = await runKapi(["serve", "--storage-backend=memory", "--encryption-provider-config-automatic-reload"]);
    expect(noFile.stderr).toContain("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config");
  });
});

import { describe, expect, it } from "vitest";
import { runStorageConformance, type StorageFactory } from "../conformance.testkit.js";
import { runCachedStorageConformance } from "../cacher/cached-storage.testkit.js";
import { memoryHarness } from "../memory/memory-harness.testkit.js";
import { sqliteHarnessFor } from "../sqlite/sqlite-harness.testkit.js";
import { MemoryStorage } from "../memory/memory-storage.js";
import { CorruptValueError, type WatchEvent } from "../interface.js";
import { loadEncryptionConfiguration } from "./config.js";
import { TransformingStorage } from "./transforming-storage.js";

const key32 = Buffer.alloc(32, 7).toString("base64");
const key16 = Buffer.alloc(16, 3).toString("base64");
const config = (providers: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*.*"]
    providers:
${providers}`;
const aesgcm = (name: string, secret = key32) => `      - aesgcm:\n          keys: [{ name: ${name}, secret: "${secret}" }]\n`;
const aescbc = (name: string, secret = key32) => `      - aescbc:\n          keys: [{ name: ${name}, secret: "${secret}" }]\n`;
const identity = "      - identity: {}\n";

/** Every key encrypted: the suite's keys name no resource, so one `*.*` rule stands for all. */
const everything = (text: string) => {
  const t = loadEncryptionConfiguration(text, "test.yaml");
  return () => t.forResource({ group: "", resource: "any" });
};

function transformed(backend: StorageFactory): StorageFactory {
  return async (opts) => {
    const inner = await backend(opts);
    const wrap = (s: typeof inner.storage) => new TransformingStorage(s, everything(config(aesgcm("k1"))));
    const reopen = inner.reopen;
    return { storage: wrap(inner.storage), passTime: inner.passTime, reopen: reopen ? async () => wrap(await reopen()) : undefined, cleanup: inner.cleanup };
  };
}

runStorageConformance("aesgcm over memory", transformed(memoryHarness), { ownEventWindow: false });
runStorageConformance("aesgcm over sqlite", transformed(sqliteHarnessFor()), { ownEventWindow: false });
runCachedStorageConformance("aesgcm over memory", transformed(memoryHarness));

describe("TransformingStorage", () => {
  it("keeps ciphertext in the backend and plain values above it, for every provider", async () => {
    for (const [name, provider] of [["aescbc", aescbc("a", key16)], ["aesgcm", aesgcm("g")], ["secretbox", `      - secretbox:\n          keys: [{ name: s, secret: "${key32}" }]\n`]] as const) {
      const backend = new MemoryStorage();
      const s = new TransformingStorage(backend, everything(config(provider)));
      const created = await s.create("/registry/secrets/ns/a", '{"data":"très secret"}');
      expect(created.value).toBe('{"data":"très secret"}');
      const raw = (await backend.get("/registry/secrets/ns/a"))!.value;
      expect(raw.startsWith(`k8s:enc:${name}:v1:`)).toBe(true);
      expect(raw).not.toContain("secret\"");
      expect((await s.get("/registry/secrets/ns/a"))!.value).toBe('{"data":"très secret"}');
      expect((await s.range("/registry/secrets/")).items.map((kv) => kv.value)).toEqual(['{"data":"très secret"}']);
    }
  });

  it("binds aesgcm values to their key: a value copied under another key does not read", async () => {
    const backend = new MemoryStorage();
    const s = new TransformingStorage(backend, everything(config(aesgcm("g"))));
    await s.create("/a", "{}");
    await backend.create("/b", (await backend.get("/a"))!.value);
    await expect(s.get("/b")).rejects.toThrow("cipher: message authentication failed");
  });

  it("reads old keys as stale, refuses values no key reads, and names every one in a range", async () => {
    const backend = new MemoryStorage();
    const old = new TransformingStorage(backend, everything(config(aescbc("old"))));
    await old.create("/k/1", "one");
    await old.create("/k/2", "two");
    const rotated = new TransformingStorage(backend, everything(config(aescbc("new") + aescbc("old"))));
    expect(await rotated.get("/k/1")).toMatchObject({ value: "one", stale: true });
    await rotated.update("/k/1", "one", 0);
    expect((await rotated.get("/k/1"))!.stale).toBeUndefined();
    const withoutOld = new TransformingStorage(backend, everything(config(aescbc("new"))));
    expect((await withoutOld.get("/k/1"))!.value).toBe("one");
    const err = await withoutOld.range("/k/").catch((e) => e);
    expect(err).toBeInstanceOf(CorruptValueError);
    expect(err.values).toEqual([{ key: "/k/2", modRevision: 2, message: "no matching key was found for the provided AES transformer" }]);
    // identity first: plain values read, encrypted ones through the provider after it.
    await backend.create("/k/3", "plain");
    const identityFirst = new TransformingStorage(backend, everything(config(identity + aescbc("new"))));
    expect((await identityFirst.get("/k/3"))!.value).toBe("plain");
    expect(await identityFirst.get("/k/1")).toMatchObject({ value: "one", stale: true });
    await identityFirst.update("/k/1", "one", 0);
    expect((await backend.get("/k/1"))!.value).toBe("one");
    // An identity-only configuration refuses encrypted data in upstream's words.
    const plainOnly = new TransformingStorage(backend, everything(config(identity)));
    await expect(plainOnly.get("/k/2")).rejects.toThrow("no matching prefix found");
  });

  it("ends a watch that meets a value it cannot read", async () => {
    const backend = new MemoryStorage();
    const s = new TransformingStorage(backend, everything(config(aesgcm("g"))));
    const events: WatchEvent[] = [];
    const errors: Error[] = [];
    s.watch("/w/", { afterRevision: 0 }, (e) => events.push(e), (e) => errors.push(e));
    await s.create("/w/ok", "fine");
    await backend.create("/w/bad", "k8s:enc:aesgcm:v1:other:AAAA");
    await s.create("/w/later", "never seen");
    await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => [e.kv.key, e.kv.value])).toEqual([["/w/ok", "fine"]]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(CorruptValueError);
  });
});

// An update starts from the watch cache's object when the cache provably holds the current state
// (upstream's cacher hands GuaranteedUpdate its cached object): no storage read on the way. A
// no-op is confirmed against storage, and a write that lost a race is retried from storage.
import { afterEach, describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { Cacher } from "../storage/cacher/cacher.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { cacheSpec } from "./list.js";
import { Stores } from "./stores.js";

const types = builtinTypeRegistry((f) => f.group === "" && f.resource === "configmaps");
const configmaps = types.get("", "v1", "configmaps")!;
const admitted: string[] = [];
const allow = { admit: async (a: { operation: string }) => void admitted.push(a.operation), validate: async () => undefined };

/** A memory store that counts reads of single keys. */
class CountingStorage extends MemoryStorage {
  gets = 0;
  override get(key: string, opts?: { revision?: number }) {
    this.gets++;
    return super.get(key, opts);
  }
}

let cacher: Cacher<KObject> | undefined;
afterEach(() => cacher?.stop());

async function setup() {
  const storage = new CountingStorage();
  cacher = new Cacher<KObject>(storage);
  const store = new Stores(storage, allow, {}, cacher).for(configmaps);
  await store.create("default", { metadata: { name: "cm" }, data: { a: "1" } }, { dryRun: false });
  await cacher.get(cacheSpec(configmaps));
  storage.gets = 0;
  return { storage, store };
}

const setData = (data: Record<string, string>) => ({ subresource: "", createIfMissing: false, desired: (cur: KObject | undefined) => ({ ...cur!, data }) as KObject });

describe("an update from the watch cache", () => {
  it("reads no stored value when the cache holds the current state, and hands the caller a copy", async () => {
    const { storage, store } = await setup();
    const seen: KObject[] = [];
    const r = await store.update("default", "cm", { subresource: "", createIfMissing: false, desired: (cur) => (seen.push(cur!), { ...cur!, data: { a: "2" } } as KObject) }, { dryRun: false });
    expect(storage.gets).toBe(0);
    expect(r.object.data).toEqual({ a: "2" });
    // What the caller got was a copy stamped as a storage read: the cache's object is untouched.
    expect(seen[0]!.apiVersion).toBe("v1");
    expect(seen[0]!.kind).toBe("ConfigMap");
    seen[0]!.data = { a: "changed by the caller" };
    const cached = cacher!.serving(configmaps.keyPrefix)!.lookup(`${configmaps.keyPrefix}default/cm`)!;
    expect((cached.object as KObject & { data: unknown }).data).toEqual({ a: "2" });
    expect(cached.object).not.toBe(seen[0]);
  });

  it("confirms a no-op against storage without running the update again, and answers it as before", async () => {
    const { storage, store } = await setup();
    const before = await storage.currentRevision();
    admitted.length = 0;
    const r = await store.update("default", "cm", setData({ a: "1" }), { dryRun: false });
    expect(admitted).toEqual(["UPDATE"]);
    expect(storage.gets).toBe(1);
    expect(await storage.currentRevision()).toBe(before);
    expect(r.object.data).toEqual({ a: "1" });
  });

  it("retries from storage after a write that lost a race", async () => {
    const { storage, store } = await setup();
    let calls = 0;
    const r = await store.update(
      "default",
      "cm",
      {
        subresource: "",
        createIfMissing: false,
        desired: async (cur) => {
          // Another writer commits between this read and the write: the first attempt loses.
          if (calls++ === 0) await storage.update(`${configmaps.keyPrefix}default/cm`, JSON.stringify({ ...cur!, data: { a: "other" } }), 0);
          return { ...cur!, data: { ...(cur as KObject & { data: Record<string, string> }).data, b: "mine" } } as KObject;
        },
      },
      { dryRun: false },
    );
    expect(calls).toBe(2);
    expect(storage.gets).toBe(1);
    expect(r.object.data).toEqual({ a: "other", b: "mine" });
  });
});

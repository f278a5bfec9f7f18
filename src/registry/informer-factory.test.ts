import { afterEach, describe, expect, it } from "vitest";
import { Cacher } from "../storage/cacher/cacher.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { noAdmission } from "../admission/chain.js";
import { InformerFactory } from "./informer-factory.js";
import { cacheSpec } from "./list.js";
import type { KObject } from "../apimachinery/object.js";
import { Stores } from "./stores.js";

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

function world() {
  const storage = new MemoryStorage();
  const cacher = new Cacher<KObject>(storage);
  const types = builtinTypeRegistry((f) => f.group === "" && f.resource === "configmaps");
  const informers = new InformerFactory(cacher, types);
  const stores = new Stores(storage, noAdmission);
  const cm = types.get("", "v1", "configmaps")!;
  stops.push(() => storage.close(), () => cacher.stop(), () => informers.stop());
  const put = (name: string, data: Record<string, string> = { k: "v" }) =>
    stores.for(cm).create("ns", { metadata: { name, labels: { app: "x" }, annotations: { note: "n" } }, data } as KObject, { dryRun: false, fieldManager: "test" });
  return { storage, cacher, types, informers, stores, cm, put };
}

async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("informer factory", () => {
  it("shares one informer per type and view", () => {
    const w = world();
    expect(w.informers.metadataFor(w.cm)).toBe(w.informers.metadataFor(w.cm));
    expect(w.informers.forType(w.cm)).toBe(w.informers.forType(w.cm));
    expect(w.informers.forType(w.cm)).not.toBe(w.informers.metadataFor(w.cm));
  });

  it("gives metadata views apiVersion, kind and metadata without managedFields and annotations; full views the object", async () => {
    const w = world();
    await w.put("one");
    const meta = w.informers.metadataFor(w.cm);
    await meta.synced;
    const m = meta.get("ns", "one")!;
    expect(Object.keys(m).sort()).toEqual(["apiVersion", "kind", "metadata"]);
    expect(m.metadata).toMatchObject({ name: "one", namespace: "ns", labels: { app: "x" } });
    expect(m.metadata.uid).toBeTruthy();
    expect(m.metadata.managedFields).toBeUndefined();
    expect(m.metadata.annotations).toBeUndefined();
    const full = w.informers.forType(w.cm);
    await full.synced;
    expect(full.get("ns", "one")).toMatchObject({ data: { k: "v" }, metadata: { annotations: { note: "n" }, managedFields: [expect.objectContaining({ manager: "test" })] } });
  });

  it("moves a metadata view onto the full cache that replaces its partial one, reporting no change that did not happen", async () => {
    const w = world();
    await w.put("one");
    const meta = w.informers.metadataFor(w.cm);
    const log: string[] = [];
    meta.addHandler({
      added: (o) => log.push(`add ${o.metadata.name}`),
      updated: (_a, o) => log.push(`update ${o.metadata.name}`),
      deleted: (o) => log.push(`delete ${o.metadata.name}`),
    });
    await meta.synced;
    const partial = w.cacher.peek(w.cm.keyPrefix)!;
    // A partial cache keeps a short history, for informers resuming after a reconnect.
    const all = { prefix: w.cm.keyPrefix, namespace: "", name: "" };
    const sink = { send: () => true, closed: () => undefined };
    partial.watch(all, sink, { from: "revision", revision: 0 }, false).stop();
    // An HTTP list or watch asks for the type in full.
    const full = await w.cacher.get(cacheSpec(w.cm));
    expect(full).not.toBe(partial);
    expect(partial.isStopped).toBe(true);
    await until(() => full.watcherCount === 1, "the metadata view to watch the full cache");
    await w.put("sentinel");
    await until(() => log.includes("add sentinel"), "the sentinel");
    expect(log).toEqual(["add one", "add sentinel"]);
    full.watch(all, sink, { from: "revision", revision: 0 }, false).stop(); // the full cache has history
    expect(meta.get("ns", "sentinel")).toMatchObject({ data: { k: "v" } }); // from the full cache now
    // A metadata request does not downgrade a full cache.
    expect(await w.cacher.get({ ...cacheSpec(w.cm), partial: true })).toBe(full);
  });

  it("stops both views of a type once no version of it is served", async () => {
    const w = world();
    const meta = w.informers.metadataFor(w.cm);
    const full = w.informers.forType(w.cm);
    await Promise.all([meta.synced, full.synced]);
    w.types.remove("", "v1", "configmaps");
    expect(meta.isStopped).toBe(true);
    expect(full.isStopped).toBe(true);
    expect(w.informers.peek(w.cm.keyPrefix)).toBeUndefined();
    expect(w.informers.peek(w.cm.keyPrefix, "full")).toBeUndefined();
  });
});

// Stores hands out one store per type declaration, all over one backend.
import { describe, expect, it } from "vitest";
import { noAdmission } from "../admission/chain.js";
import { RoutedStorage } from "../storage/common/routed-storage.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { ipAddressKey } from "../types/allocation/service-claims.js";
import { builtinTypeRegistry } from "../types/register.js";
import { PreparedCreates } from "./prepared-creates.js";
import { Stores } from "./stores.js";

const types = builtinTypeRegistry((f) => f.group === "" && (f.resource === "configmaps" || f.resource === "secrets" || f.resource === "services"));
const services = types.get("", "v1", "services")!;
const configmaps = types.get("", "v1", "configmaps")!;
const secrets = types.get("", "v1", "secrets")!;

describe("Stores", () => {
  it("gives each type one store of its own, made on first use", () => {
    const stores = new Stores(new MemoryStorage(), noAdmission);
    const cm = stores.for(configmaps);
    expect(cm.type).toBe(configmaps);
    expect(stores.for(configmaps)).toBe(cm);
    expect(stores.for(secrets)).not.toBe(cm);
    expect(stores.for(secrets).type).toBe(secrets);
  });

  it("gives a type's new declaration a new store over the same objects", async () => {
    const stores = new Stores(new MemoryStorage(), noAdmission);
    await stores.for(configmaps).create("default", { metadata: { name: "kept" }, data: { a: "b" } }, { dryRun: false });
    const redeclared = { ...configmaps };
    const store = stores.for(redeclared);
    expect(store).not.toBe(stores.for(configmaps));
    expect((await store.get("default", "kept")).data).toEqual({ a: "b" });
    // Another type's store reads under its own prefix and does not see it.
    await expect(stores.for(secrets).get("default", "kept")).rejects.toMatchObject({ code: 404 });
  });

  it("creates a batch in one transaction: every stage of a create, one event per object, all or nothing", async () => {
    const storage = new MemoryStorage();
    const stores = new Stores(storage, noAdmission);
    const seen: string[] = [];
    const w = storage.watch("/registry/", { afterRevision: await storage.currentRevision() }, (ev) => seen.push(`${ev.type} ${ev.kv.key} ${ev.revision}`));
    const before = await storage.currentRevision();
    await stores.createAll(
      [
        { type: configmaps, namespace: "default", object: { metadata: { name: "a" }, data: { k: "v" } } },
        { type: secrets, namespace: "kube-system", object: { metadata: { name: "b" }, stringData: { k: "v" } } as never },
      ],
      { dryRun: false },
    );
    const a = await stores.for(configmaps).get("default", "a");
    const b = await stores.for(secrets).get("kube-system", "b");
    // What create() does: kind, identity, creation time, the type's preparation (stringData → data).
    expect([a.kind, a.metadata.namespace, typeof a.metadata.uid, typeof a.metadata.creationTimestamp]).toEqual(["ConfigMap", "default", "string", "string"]);
    expect([b.data, b.stringData, b.type]).toEqual([{ k: "dg==" }, undefined, "Opaque"]);
    expect(seen).toEqual([`put /registry/configmaps/default/a ${before + 1}`, `put /registry/secrets/kube-system/b ${before + 2}`]);

    // One that exists already: nothing of the batch is written.
    const rev = await storage.currentRevision();
    await expect(
      stores.createAll(
        [
          { type: configmaps, namespace: "default", object: { metadata: { name: "c" } } },
          { type: configmaps, namespace: "default", object: { metadata: { name: "a" } } },
        ],
        { dryRun: false },
      ),
    ).rejects.toMatchObject({ code: "KeyExists" });
    // One the type's validation refuses: its Status, nothing written.
    await expect(stores.createAll([{ type: configmaps, namespace: "default", object: { metadata: { name: "d" } } }, { type: configmaps, namespace: "default", object: { metadata: { name: "Not_Valid" } } }], { dryRun: false })).rejects.toMatchObject({ code: 422 });
    expect(await storage.currentRevision()).toBe(rev);
    await expect(stores.for(configmaps).get("default", "c")).rejects.toMatchObject({ code: 404 });
    w.stop();
  });

  // --etcd-servers-overrides: each etcd cluster commits its own writes, so a batch over two is two
  // commits and the first stays written when the second fails (the same holds for one etcd's
  // batches longer than 128 writes, stores-etcd.test.ts).
  it("a batch over two storage clusters that fails in the second: what the first wrote keeps its claims, the rest give theirs back", async () => {
    const main = new MemoryStorage();
    const other = new MemoryStorage();
    const storage = new RoutedStorage(main, [{ prefix: configmaps.keyPrefix, storage: other }]);
    const stores = new Stores(storage, noAdmission, { serviceClusterIPRange: "10.96.0.0/24" });
    await stores.for(configmaps).create("default", { metadata: { name: "taken" } }, { dryRun: false });
    const svc = (name: string) => ({ type: services, namespace: "default", object: { metadata: { name }, spec: { ports: [{ port: 80 }] } } });
    // The main cluster's writes (web) commit first; the other's (fresh, taken) are refused.
    const batch = [svc("web"), { type: configmaps, namespace: "default", object: { metadata: { name: "fresh" } } }, { type: configmaps, namespace: "default", object: { metadata: { name: "taken" } } }];
    await expect(stores.createAll(batch, { dryRun: false })).rejects.toMatchObject({ code: "KeyExists" });
    const web = await stores.for(services).get("default", "web");
    await expect(stores.for(configmaps).get("default", "fresh")).rejects.toMatchObject({ code: 404 });
    const claimed = (await main.range("/registry/networking.k8s.io/ipaddresses/")).items.map((kv) => kv.key);
    expect(claimed).toEqual([ipAddressKey((web.spec as { clusterIP: string }).clusterIP)]);

    // A batch whose second cluster refuses it before the first commits changes nothing, and gives every claim back.
    await expect(stores.createAll([{ type: configmaps, namespace: "default", object: { metadata: { name: "taken" } } }, svc("api")], { dryRun: false })).rejects.toMatchObject({ code: "KeyExists" });
    await expect(stores.for(services).get("default", "api")).rejects.toMatchObject({ code: 404 });
    expect((await main.range("/registry/networking.k8s.io/ipaddresses/")).items.map((kv) => kv.key)).toEqual(claimed);
  });

  it("writes a named batch kept by an earlier start as it was, without building it; a batch holding a shared pool's claim is never kept", async () => {
    const built: string[] = [];
    const batch = (name: string) => () => (built.push(name), [{ type: configmaps, namespace: "default", object: { metadata: { name: "a" }, data: { k: "v" } } }, { type: secrets, namespace: "default", object: { metadata: { name: "b" }, stringData: { k: "v" } } as never }]);
    const forms = new PreparedCreates();
    const first = new Stores(new MemoryStorage(), noAdmission);
    first.preparedForms = forms;
    expect(await first.createBatch("cm", batch("first"), { dryRun: false })).toBe(2);
    const stored = (await first.for(secrets).get("default", "b")) as { metadata: { uid?: string; creationTimestamp?: string }; data?: unknown };
    expect(forms.changed).toBe(true);

    const storage = new MemoryStorage();
    const again = new Stores(storage, noAdmission);
    again.preparedForms = new PreparedCreates(JSON.parse(JSON.stringify(forms)));
    expect(await again.createBatch("cm", batch("again"), { dryRun: false })).toBe(2);
    expect(built).toEqual(["first"]);
    const { items } = await storage.range("/registry/");
    expect(items.map((kv) => kv.key)).toEqual(["/registry/configmaps/default/a", "/registry/secrets/default/b"]);
    const b = (await again.for(secrets).get("default", "b")) as typeof stored;
    expect(b.metadata.uid).not.toEqual(stored.metadata.uid);
    expect({ ...b, metadata: { ...b.metadata, uid: "", creationTimestamp: "", resourceVersion: "" } }).toEqual({ ...stored, metadata: { ...stored.metadata, uid: "", creationTimestamp: "", resourceVersion: "" } });
    // Another batch's name is not that one: built and created.
    const other = new Stores(new MemoryStorage(), noAdmission);
    other.preparedForms = new PreparedCreates(JSON.parse(JSON.stringify(forms)));
    await other.createBatch("other", batch("other"), { dryRun: false });
    expect(built).toEqual(["first", "other"]);

    const withService = new PreparedCreates();
    const s = new Stores(new MemoryStorage(), noAdmission, { serviceClusterIPRange: "10.96.0.0/24" });
    s.preparedForms = withService;
    const api = { type: services, namespace: "default", object: { metadata: { name: "api" }, spec: { ports: [{ port: 80 }] } } };
    expect(await s.createBatch("svc", () => [api], { dryRun: false })).toBe(1);
    expect(withService.changed).toBe(false);
  });
});

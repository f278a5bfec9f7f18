// The controllers follow the type registry: a type served after they started is collected by the
// garbage collector and emptied by the namespace controller; a type no longer served is dropped.
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../apimachinery/errors.js";
import { admissionChain } from "../admission/chain.js";
import { namespaceLifecycle } from "../admission/namespace-lifecycle.js";
import { InformerFactory } from "../registry/informer-factory.js";
import { NamespaceStates } from "../registry/namespace-states.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import { Stores } from "../registry/stores.js";
import { Cacher } from "../storage/cacher/cacher.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { findBuiltinResource } from "../types/builtin-resources.js";
import { builtinResourceType, builtinTypeRegistry } from "../types/register.js";
import { startGarbageCollector } from "./garbage-collector.js";
import { startNamespaceController } from "./namespace.js";
import type { Controller } from "../controller-runtime/controller.js";

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

function world() {
  const storage = new MemoryStorage();
  const cacher = new Cacher<KObject>(storage);
  const types = builtinTypeRegistry((f) => f.group === "" && (f.resource === "namespaces" || f.resource === "configmaps"));
  const informers = new InformerFactory(cacher, types, (e) => {
    throw e;
  });
  const nsType = types.get("", "v1", "namespaces")!;
  const cmType = types.get("", "v1", "configmaps")!;
  const secretType = builtinResourceType(findBuiltinResource("", "v1", "secrets")!);
  const states: NamespaceStates = new NamespaceStates(informers.metadataFor(nsType), { get: (ns, name) => stores.for(nsType).get(ns, name) });
  const stores: Stores = new Stores(storage, admissionChain([namespaceLifecycle((ns) => states.get(ns))]));
  const controllers: Controller[] = [];
  stops.push(() => storage.close(), () => cacher.stop(), () => informers.stop(), () => controllers.forEach((c) => c.stop()));
  const w = { storage, cacher, types, informers, stores, nsType, cmType, secretType, controllers };
  return w;
}

const create = (stores: Stores, t: ResourceType, ns: string, name: string, owner?: KObject, extra: Partial<KObject["metadata"]> = {}) =>
  stores
    .for(t)
    .create(ns, { metadata: { name, ...extra, ...(owner ? { ownerReferences: [{ apiVersion: "v1", kind: owner.kind!, name: owner.metadata.name!, uid: owner.metadata.uid! }] } : {}) } } as KObject, { dryRun: false })
    .then((r) => r.object);

const exists = (stores: Stores, t: ResourceType, ns: string, name: string) =>
  stores.for(t).get(ns, name).then(
    () => true,
    (e) => {
      if (e instanceof ApiError && e.code === 404) return false;
      throw e;
    },
  );

async function until(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the garbage collector", () => {
  it("collects dependents of a type added after it started, and drops a type once removed", async () => {
    const w = world();
    await create(w.stores, w.nsType, "", "default");
    w.controllers.push(startGarbageCollector(w));
    w.types.add(w.secretType);

    const owner = await create(w.stores, w.cmType, "default", "owner");
    await create(w.stores, w.secretType, "default", "dep", owner);
    await w.stores.for(w.cmType).delete("default", "owner", { dryRun: false });
    await until(async () => !(await exists(w.stores, w.secretType, "default", "dep")), "the secret dependent to be collected");

    w.types.remove("", "v1", "secrets");
    expect(w.informers.peek(w.secretType.keyPrefix)).toBeUndefined();
    const owner2 = await create(w.stores, w.cmType, "default", "owner2");
    await create(w.stores, w.secretType, "default", "dep2", owner2); // stored, but its type is not served
    await create(w.stores, w.cmType, "default", "sentinel", owner2);
    await w.stores.for(w.cmType).delete("default", "owner2", { dryRun: false });
    await until(async () => !(await exists(w.stores, w.cmType, "default", "sentinel")), "the configmap sentinel to be collected");
    expect(await exists(w.stores, w.secretType, "default", "dep2")).toBe(true);
  });
});

describe("the controllers on the runtime", () => {
  it("the garbage collector is not idle until its informers listed and what they showed was worked", async () => {
    const w = world();
    await create(w.stores, w.nsType, "", "default");
    const ghost = { kind: "ConfigMap", metadata: { name: "ghost", uid: "no-such-uid" } } as KObject;
    await create(w.stores, w.cmType, "default", "orphan", ghost);
    const gc = startGarbageCollector(w);
    w.controllers.push(gc);
    expect(gc.idle()).toBe(false);
    await gc.whenIdle();
    expect(gc.idle()).toBe(true);
    expect(await exists(w.stores, w.cmType, "default", "orphan")).toBe(false);
  });
});

describe("the namespace controller", () => {
  it("deletes content of a type added after it started, then the namespace", async () => {
    const w = world();
    w.controllers.push(startNamespaceController(w));
    w.types.add(w.secretType);
    await create(w.stores, w.nsType, "", "doomed");
    await create(w.stores, w.secretType, "doomed", "s");
    await create(w.stores, w.cmType, "doomed", "c");
    await w.stores.for(w.nsType).delete("", "doomed", { dryRun: false });
    await until(async () => !(await exists(w.stores, w.nsType, "", "doomed")), "the namespace to go");
    expect(await exists(w.stores, w.secretType, "doomed", "s")).toBe(false);
    expect(await exists(w.stores, w.cmType, "doomed", "c")).toBe(false);
  });

  it("keeps a namespace while content with a finalizer remains", async () => {
    const w = world();
    w.controllers.push(startNamespaceController(w));
    await create(w.stores, w.nsType, "", "held");
    await create(w.stores, w.cmType, "held", "pinned", undefined, { finalizers: ["example.com/hold"] });
    await create(w.stores, w.cmType, "held", "plain");
    await w.stores.for(w.nsType).delete("", "held", { dryRun: false });
    await until(async () => !(await exists(w.stores, w.cmType, "held", "plain")), "the plain content to go");
    expect(await exists(w.stores, w.nsType, "", "held")).toBe(true);
    const pinned = await w.stores.for(w.cmType).get("held", "pinned");
    const released = { ...pinned, metadata: { ...pinned.metadata, finalizers: [] } };
    await w.stores.for(w.cmType).update("held", "pinned", { subresource: "", createIfMissing: false, desired: () => released }, { dryRun: false });
    await until(async () => !(await exists(w.stores, w.nsType, "", "held")), "the namespace to go once released", 6000);
  });
});

// Stores hands out one store per type declaration, all over one backend.
import { describe, expect, it } from "vitest";
import { noAdmission } from "../admission/chain.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { Stores } from "./stores.js";

const types = builtinTypeRegistry((f) => f.group === "" && (f.resource === "configmaps" || f.resource === "secrets"));
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
});

// The namespace strategy's deletion hooks as the generic store uses them: a namespace whose
// deletion was requested stays while spec.finalizers hold it, whatever else an update changes.
import { describe, expect, it } from "vitest";
import { noAdmission } from "../admission/chain.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { Stores } from "./stores.js";

const types = builtinTypeRegistry((f) => f.group === "" && f.resource === "namespaces");
const ns = types.get("", "v1", "namespaces")!;
const write = { dryRun: false };

describe("a terminating namespace in the generic store", () => {
  it("is marked Terminating on DELETE and stays while spec.finalizers remain, even when an update empties nothing else", async () => {
    const store = new Stores(new MemoryStorage(), noAdmission).for(ns);
    await store.create("", { metadata: { name: "team" } }, write);
    const { object: deleting, deleted } = await store.delete("", "team", write);
    expect(deleted).toBe(false);
    expect(deleting.status).toMatchObject({ phase: "Terminating" });
    expect(deleting.metadata.deletionTimestamp).toBeTruthy();
    expect(deleting.metadata.finalizers).toBeUndefined();

    // A label update while terminating: metadata.finalizers is empty, spec.finalizers is not.
    const labelled = { ...deleting, metadata: { ...deleting.metadata, labels: { a: "b" } } };
    await store.update("", "team", { subresource: "", createIfMissing: false, desired: () => labelled }, write);
    expect((await store.get("", "team")).metadata.labels).toMatchObject({ a: "b" });

    // Positive control: once /finalize empties spec.finalizers, the same kind of write removes it.
    const current = await store.get("", "team");
    const finalized = { ...current, spec: { finalizers: [] } };
    await store.update("", "team", { subresource: "finalize", createIfMissing: false, desired: () => finalized }, write);
    await expect(store.get("", "team")).rejects.toMatchObject({ code: 404 });
  });
});

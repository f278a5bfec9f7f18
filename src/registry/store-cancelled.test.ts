// A write whose request ended while it was being admitted (answered 504 at its deadline, or its
// client gone) is not made: the store asks the request right before each storage write.
import { describe, expect, it } from "vitest";
import { ApiError } from "../apimachinery/errors.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import type { Admission } from "./admission.js";
import { Stores } from "./stores.js";
import type { WriteRequest } from "./write-options.js";

const types = builtinTypeRegistry((f) => f.group === "" && f.resource === "configmaps");
const configmaps = types.get("", "v1", "configmaps")!;
const timedOut = new ApiError(504, "Timeout", "Timeout: request did not complete within the allotted timeout");

/** A request that ends (its deadline passes) while validating admission runs, as a slow webhook would. */
function endingDuringAdmission() {
  let reason: unknown;
  const request: WriteRequest = { warnings: [], annotate: () => undefined, cancelReason: () => reason };
  const admission: Admission = {
    admit: async () => undefined,
    validate: async () => {
      reason = timedOut;
    },
  };
  return { request, admission };
}

describe("a write whose request ended before it was stored", () => {
  it("is not created, updated or deleted, and the request's reason is thrown", async () => {
    const storage = new MemoryStorage();
    const plain = new Stores(storage, { admit: async () => undefined, validate: async () => undefined }).for(configmaps);
    await plain.create("default", { metadata: { name: "kept" }, data: { a: "1" } }, { dryRun: false });
    const before = await storage.currentRevision();

    const { request, admission } = endingDuringAdmission();
    const store = new Stores(storage, admission).for(configmaps);
    await expect(store.create("default", { metadata: { name: "late" } }, { dryRun: false, request })).rejects.toBe(timedOut);
    await expect(
      store.update("default", "kept", { subresource: "", createIfMissing: false, desired: (cur) => ({ ...cur!, data: { a: "2" } }) }, { dryRun: false, request }),
    ).rejects.toBe(timedOut);
    await expect(store.delete("default", "kept", { dryRun: false, request })).rejects.toBe(timedOut);

    expect(await storage.currentRevision()).toBe(before);
    expect((await plain.get("default", "kept")).data).toEqual({ a: "1" });
    await expect(plain.get("default", "late")).rejects.toMatchObject({ code: 404 });
  });

  it("is made when the request is still wanted", async () => {
    const storage = new MemoryStorage();
    const request: WriteRequest = { warnings: [], annotate: () => undefined, cancelReason: () => undefined };
    const store = new Stores(storage, { admit: async () => undefined, validate: async () => undefined }).for(configmaps);
    const made = await store.create("default", { metadata: { name: "made" } }, { dryRun: false, request });
    expect(made.object.metadata.name).toBe("made");
  });
});

import { describe, expect, it } from "vitest";
import { dropEmptyMetadata } from "./empty-metadata.js";
import type { ObjectMeta } from "../apimachinery/object.js";

describe("dropEmptyMetadata", () => {
  it("drops empty and null omitempty lists and maps", () => {
    const meta: ObjectMeta = { name: "a", labels: {}, annotations: null as never, finalizers: [], ownerReferences: [] };
    dropEmptyMetadata(meta);
    expect(meta).toEqual({ name: "a" });
  });

  it("keeps non-empty values, managedFields and values of the wrong shape (validation's to refuse)", () => {
    const meta: ObjectMeta = { name: "a", labels: { a: "1" }, finalizers: ["x"], managedFields: [], ownerReferences: {} as never, annotations: [] as never };
    dropEmptyMetadata(meta);
    expect(meta).toEqual({ name: "a", labels: { a: "1" }, finalizers: ["x"], managedFields: [], ownerReferences: {}, annotations: [] });
  });
});

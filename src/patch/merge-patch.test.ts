import { describe, expect, it } from "vitest";
import { PatchError } from "./errors.js";
import { applyMergePatch, assertMergePatchDocument, createMergePatch } from "./merge-patch.js";

// RFC 7386 Appendix A.
const appendix: [unknown, unknown, unknown][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe("applyMergePatch", () => {
  it.each(appendix)("RFC 7386 appendix: %j + %j", (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });

  it("does not mutate its inputs nor alias them in the result", () => {
    const target = { a: { b: 1 }, keep: { deep: [1] } };
    const patch = { a: { c: { d: 1 } } };
    const out = applyMergePatch(target, patch) as { a: { c: { d: number } }; keep: { deep: number[] } };
    expect(target).toEqual({ a: { b: 1 }, keep: { deep: [1] } });
    out.a.c.d = 2;
    out.keep.deep.push(2);
    expect(patch).toEqual({ a: { c: { d: 1 } } });
    expect(target.keep.deep).toEqual([1]);
  });

  it("kube rejects null and scalar merge patches with 400 Invalid JSON Patch", () => {
    for (const bad of [null, 1, "x", true]) {
      expect(() => assertMergePatchDocument(bad)).toThrowError(new PatchError("BadRequest", "Invalid JSON Patch"));
    }
    expect(() => assertMergePatchDocument({})).not.toThrow();
    expect(() => assertMergePatchDocument([])).not.toThrow();
  });
});

describe("createMergePatch", () => {
  it("produces the minimal patch and round-trips", () => {
    const original = { a: 1, b: { c: 2, d: [1, 2] }, gone: "x", same: { s: 1 } };
    const modified = { a: 2, b: { c: 2, d: [1] }, added: { n: true }, same: { s: 1 } };
    const patch = createMergePatch(original, modified);
    expect(patch).toEqual({ a: 2, b: { d: [1] }, gone: null, added: { n: true } });
    expect(applyMergePatch(original, patch)).toEqual(modified);
  });

  it("non-objects replace wholesale; equal objects give an empty patch", () => {
    expect(createMergePatch({ a: 1 }, [1])).toEqual([1]);
    expect(createMergePatch({ a: { b: 1 } }, { a: { b: 1 } })).toEqual({});
  });
});

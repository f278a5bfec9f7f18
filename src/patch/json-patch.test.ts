import { describe, expect, it } from "vitest";
import { errorOf } from "./errors.testkit.js";
import { applyJsonPatch } from "./json-patch.js";

const doc = () => ({ metadata: { name: "a", labels: { x: "1" } }, spec: { list: [1, 2, 3], "a/b": { "m~n": 5 } } });

describe("applyJsonPatch", () => {
  it("add: object member, array insert, '-' append, negative index", () => {
    const out = applyJsonPatch(doc(), [
      { op: "add", path: "/metadata/labels/y", value: "2" },
      { op: "add", path: "/spec/list/0", value: 0 },
      { op: "add", path: "/spec/list/-", value: 4 },
      { op: "add", path: "/spec/list/4", value: 3.5 },
      { op: "add", path: "/spec/list/-1", value: 9 },
    ]);
    expect(out).toEqual({
      metadata: { name: "a", labels: { x: "1", y: "2" } },
      spec: { list: [0, 1, 2, 3, 3.5, 4, 9], "a/b": { "m~n": 5 } },
    });
  });

  it("add replaces an existing member and a missing value adds null", () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: "add", path: "/a", value: { b: 2 } }, { op: "add", path: "/c" }])).toEqual({ a: { b: 2 }, c: null });
  });

  it("remove, replace, move, copy, test with ~0/~1 escapes", () => {
    const out = applyJsonPatch(doc(), [
      { op: "test", path: "/spec/a~1b/m~0n", value: 5 },
      { op: "replace", path: "/spec/a~1b/m~0n", value: 6 },
      { op: "copy", from: "/spec/a~1b", path: "/spec/copied" },
      { op: "move", from: "/metadata/labels/x", path: "/metadata/labels/z" },
      { op: "remove", path: "/spec/list/1" },
      { op: "replace", path: "/spec/list/-1", value: 30 },
      { op: "test", path: "/spec/list", value: [1, 30] },
    ]);
    expect(out).toEqual({
      metadata: { name: "a", labels: { z: "1" } },
      spec: { list: [1, 30], "a/b": { "m~n": 6 }, copied: { "m~n": 6 } },
    });
  });

  it("move within an array and replace of the whole document", () => {
    expect(applyJsonPatch({ l: ["a", "b", "c"] }, [{ op: "move", from: "/l/0", path: "/l/-" }])).toEqual({ l: ["b", "c", "a"] });
    expect(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }])).toEqual({ b: 2 });
    expect(applyJsonPatch({ a: 1 }, [{ op: "test", path: "", value: { a: 1 } }])).toEqual({ a: 1 });
  });

  it("never mutates the document or the operations", () => {
    const input = doc();
    const value = { deep: [1] };
    const ops = [
      { op: "add", path: "/spec/v", value },
      { op: "add", path: "/spec/v/deep/-", value: 2 },
      { op: "remove", path: "/metadata/labels" },
    ];
    const out = applyJsonPatch(input, ops) as { spec: { v: unknown } };
    expect(input).toEqual(doc());
    expect(value).toEqual({ deep: [1] });
    expect(out.spec.v).toEqual({ deep: [1, 2] });
  });

  it("copy is deep: later edits do not alias", () => {
    const out = applyJsonPatch({ a: { b: 1 } }, [
      { op: "copy", from: "/a", path: "/c" },
      { op: "replace", path: "/c/b", value: 2 },
    ]);
    expect(out).toEqual({ a: { b: 1 }, c: { b: 2 } });
  });

  it("refuses copies that add more than the limit in all (each copied value counted as its JSON)", () => {
    // {"b":"xxxx"} is 12 bytes: two copies add 24, over a limit of 20.
    const ops = [
      { op: "copy", from: "/a", path: "/c" },
      { op: "copy", from: "/a", path: "/d" },
    ];
    expect(applyJsonPatch({ a: { b: "xxxx" } }, ops, 24)).toEqual({ a: { b: "xxxx" }, c: { b: "xxxx" }, d: { b: "xxxx" } });
    const err = errorOf(() => applyJsonPatch({ a: { b: "xxxx" } }, ops, 20));
    expect(err.kind).toBe("UnprocessableEntity");
    expect(err.message).toBe("Unable to complete the copy, the accumulated size increase of copy is 24, exceeding the limit 20");
  });

  it("doubles an object by copying it into itself until the 3 MiB default stops it", () => {
    const ops = Array.from({ length: 20 }, (_, i) => ({ op: "copy", from: "/o", path: `/o/c${i}` }));
    const err = errorOf(() => applyJsonPatch({ o: { a: "x".repeat(1000) } }, ops));
    expect(err.kind).toBe("UnprocessableEntity");
    expect(err.message).toMatch(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  });

  it("failed test → 422 with kube's generic message", () => {
    const err = errorOf(() => applyJsonPatch(doc(), [{ op: "test", path: "/metadata/name", value: "b" }]));
    expect(err.kind).toBe("UnprocessableEntity");
    expect(err.message).toBe("testing value /metadata/name failed: test failed");
  });

  it("test of an absent member: passes only against null", () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: "test", path: "/b", value: null }])).toEqual({ a: 1 });
    expect(errorOf(() => applyJsonPatch({ a: 1 }, [{ op: "test", path: "/b", value: 1 }])).message).toBe("testing value /b failed: test failed");
  });

  it.each([
    [{ op: "add", path: "/nope/x", value: 1 }, 'add operation does not apply: doc is missing path: "/nope/x": missing value'],
    [{ op: "add", path: "/spec/list/4", value: 1 }, "error in add for path: '/spec/list/4': Unable to access invalid index: 4: invalid index referenced"],
    [
      { op: "add", path: "/spec/list/x", value: 1 },
      `error in add for path: '/spec/list/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    ],
    [{ op: "remove", path: "/metadata/nope" }, "error in remove for path: '/metadata/nope': Unable to remove nonexistent key: nope: missing value"],
    [{ op: "remove", path: "/spec/list/3" }, "error in remove for path: '/spec/list/3': Unable to access invalid index: 3: invalid index referenced"],
    [{ op: "remove", path: "" }, 'remove operation does not apply: doc is missing path: "": missing value'],
    [{ op: "replace", path: "/metadata/nope", value: 1 }, "replace operation does not apply: doc is missing key: /metadata/nope: missing value"],
    [{ op: "replace", path: "/a/b/c", value: 1 }, "replace operation does not apply: doc is missing path: /a/b/c: missing value"],
    [{ op: "replace", path: "/spec/list/9", value: 1 }, "replace operation does not apply: doc is missing key: /spec/list/9: missing value"],
    [{ op: "move", from: "/x/y", path: "/a" }, "move operation does not apply: doc is missing from path: /x/y: missing value"],
    [{ op: "move", from: "/metadata/nope", path: "/a" }, "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value"],
    [{ op: "move", from: "/metadata", path: "/metadata/x" }, "move operation does not apply: doc is missing destination path: /metadata/x: missing value"],
    [{ op: "copy", from: "/metadata/nope", path: "/a" }, "copy operation does not apply: doc is missing from path: /metadata/nope: missing value"],
    [{ op: "copy", from: "/metadata", path: "/x/y" }, "copy operation does not apply: doc is missing destination path: /x/y: missing value"],
    [{ op: "test", path: "/x/y", value: 1 }, "test operation does not apply: is missing path: /x/y: missing value"],
    [{ op: "add", value: 1 }, "add operation failed to decode path: missing value"],
    [{ op: "replace", value: 1 }, "replace operation failed to decode path: operation missing path field: missing value"],
    [{ op: "move", path: "/a" }, "move operation failed to decode from: operation, missing from field: missing value"],
    [{ op: "test", path: 7 }, "test operation failed to decode path: json: cannot unmarshal number into Go value of type string"],
    [{ op: "bogus", path: "/a" }, "Unexpected kind: bogus"],
    [{ path: "/a" }, "Unexpected kind: unknown"],
    [{ op: "add", path: "metadata/x", value: 1 }, 'add operation does not apply: doc is missing path: "metadata/x": missing value'],
  ])("bad operation #%# → 422: %s", (op, message) => {
    const err = errorOf(() => applyJsonPatch(doc(), [op]));
    expect(err.kind).toBe("UnprocessableEntity");
    expect(err.message).toBe(message);
  });

  it("an error part-way leaves the input untouched", () => {
    const input = doc();
    errorOf(() => applyJsonPatch(input, [{ op: "remove", path: "/metadata" }, { op: "test", path: "/x", value: 1 }]));
    expect(input).toEqual(doc());
  });

  it("undecodable patch documents → 400 with Go's decode text", () => {
    const notList = errorOf(() => applyJsonPatch({}, { op: "add" }));
    expect(notList.kind).toBe("BadRequest");
    expect(notList.message).toBe("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    expect(errorOf(() => applyJsonPatch({}, [1])).message).toBe("json: cannot unmarshal number into Go value of type jsonpatch.Operation");
    expect(errorOf(() => applyJsonPatch({}, "x")).message).toBe("json: cannot unmarshal string into Go value of type jsonpatch.Patch");
  });

  it("a null patch is an empty patch", () => {
    expect(applyJsonPatch({ a: 1 }, null)).toEqual({ a: 1 });
    expect(applyJsonPatch({ a: 1 }, [])).toEqual({ a: 1 });
  });
});

import { describe, expect, it } from "vitest";
import { goDecodeStruct, type GoStruct } from "./go-json-struct.js";

const t: GoStruct = { type: "p.T", name: "T", fields: [{ json: "name", type: "string" }, { json: "count", type: "int64" }] };

describe("goDecodeStruct (encoding/json into a flat struct)", () => {
  it("matches member names exactly, else by Go's case folding", () => {
    expect(goDecodeStruct('{"NAME":"a","Count":-3}', t)).toEqual({ values: new Map<string, unknown>([["name", "a"], ["count", -3n]]) });
    // "ſ" (long s) folds to "S", as Go's foldName has it.
    expect(goDecodeStruct('{"ſ":1,"naMe":"b"}', t).values.get("name")).toBe("b");
    expect(goDecodeStruct('{"\\u006eame":"c"}', t).values.get("name")).toBe("c");
  });

  it("skips unknown members whatever they hold, nested deep or holding brackets in strings", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    expect(goDecodeStruct(`{"x":${deep},"y":{"z":"}]\\"{"},"count":12}`, t)).toEqual({ values: new Map([["count", 12n]]) });
  });

  it("keeps the first type error and reads on; int64 bounds are Go's", () => {
    const r = goDecodeStruct('{"count":"1","name":true,"count":9223372036854775807}', t);
    expect(r.error).toBe("json: cannot unmarshal string into Go struct field T.count of type int64");
    expect(r.values.get("count")).toBe(9223372036854775807n);
    expect(goDecodeStruct('{"count":-9223372036854775809}', t).error).toBe("json: cannot unmarshal number -9223372036854775809 into Go struct field T.count of type int64");
    expect(goDecodeStruct("true", t).error).toBe("json: cannot unmarshal bool into Go value of type p.T");
    expect(goDecodeStruct(" null ", t)).toEqual({ values: new Map() });
  });
});

import { describe, expect, it } from "vitest";
import { duplicateJsonKeys } from "./json.js";

describe("duplicateJsonKeys", () => {
  it("finds duplicates at any depth with upstream's path notation", () => {
    const text = '{"a":1,"spec":{"replicas":1,"replicas":2,"list":[{"n":"x","n":"y"},{"q":"\\"}"}]},"a":3}';
    expect(JSON.parse(text)).toBeTruthy();
    expect(duplicateJsonKeys(text)).toEqual(["spec.replicas", "spec.list[0].n", "a"]);
  });

  it("reports none for clean documents and escapes", () => {
    expect(duplicateJsonKeys('{"k\\u0041":1,"kA":2}')).toEqual(["kA"]);
    expect(duplicateJsonKeys(' { "x" : [ 1 , 2 , { } , [ ] ] , "y" : "a,b}" } ')).toEqual([]);
  });
});

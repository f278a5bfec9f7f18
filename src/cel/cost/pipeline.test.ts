// The estimator over real parses and checks: CRD rules against types from the schema converter,
// figures from apiextensions-apiserver 1.34 compilation_test.go TestCostEstimation (which runs
// with Kubernetes' environment: has() free) and cel-go v0.26 checker/cost_test.go.
import { describe, expect, it } from "vitest";
import { check, createCheckerEnv } from "../checker/index.js";
import { parse } from "../parser/index.js";
import { schemaToCelType, type StructuralSchema } from "../schema/index.js";
import { optionalLibrary, standardLibrary } from "../stdlib/index.js";
import { staticEstimatedCostLimit } from "./constants.js";
import { estimateCost } from "./estimate.js";
import { ruleCostExceeded } from "./messages.js";

const libraries = [standardLibrary, optionalLibrary];

function crdCost(schema: StructuralSchema, rule: string): number {
  const self = schemaToCelType(schema)!;
  const env = createCheckerEnv({ variables: { self, oldSelf: self }, libraries });
  const checked = check(parse(rule), env);
  return estimateCost(checked, libraries, { sizeRoot: self }).max;
}

const arrayOf = (type: string, maxItems?: number): StructuralSchema => ({ type: "array", items: { type }, ...(maxItems !== undefined ? { maxItems } : {}) });
const mapOfS = (type: string, maxProperties?: number): StructuralSchema => ({
  type: "object",
  additionalProperties: { type },
  ...(maxProperties !== undefined ? { maxProperties } : {}),
});
const stringS = (maxLength?: number): StructuralSchema => ({ type: "string", ...(maxLength !== undefined ? { maxLength } : {}) });

describe("CRD rule estimates through parse → check → estimate (apiextensions TestCostEstimation)", () => {
  it.each<[string, StructuralSchema, string, number]>([
    ["number array with all", arrayOf("number"), "self.all(x, true)", 4718591],
    ["number array with all, maxItems 10", arrayOf("number", 10), "self.all(x, true)", 32],
    ["string array with all", arrayOf("string"), "self.all(x, true)", 3145727],
    ["boolean array with all, maxItems 5", arrayOf("boolean", 5), "self.all(x, true)", 17],
    ["map of numbers with all", mapOfS("number"), "self.all(x, true)", 1348169],
    ["map of strings with all, maxProperties 3", mapOfS("string", 3), "self.all(x, true)", 11],
    ["map of booleans with all", mapOfS("boolean"), "self.all(x, true)", 943718],
    ["string with contains", stringS(), "self.contains('test')", 314574],
    ["string with contains, maxLength 10", stringS(10), "self.contains('test')", 5],
    ["string with endsWith", stringS(30), "self.endsWith('test')", 2],
    ["concat string", stringS(), 'size(self + "hello") > size("hello")', 314578],
    ["concat string, maxLength 4", stringS(4), 'size(self + "hello") > size("hello")', 7],
    ["index of array with numbers", arrayOf("number"), "self[1] == 0.0", 2],
    ["index of array with strings", arrayOf("string", 8), "self[1] == self[1]", 314577],
    ["O(n^2) loop, maxItems 10", arrayOf("number", 10), "self.all(x, self.all(y, true))", 352],
    ["O(n^3) loop, maxItems 10", arrayOf("number", 10), "self.all(x, self.all(y, self.all(z, true)))", 3552],
    ["regex matches simple", stringS(), 'self.matches("x")', 314574],
    ["regex matches simple, maxLength 50", stringS(50), 'self.matches("x")', 22],
    ["regex matches empty string", stringS(), '"".matches("(((((((((())))))))))[0-9]")', 7],
    ["regex matches empty regex", stringS(100), 'self.matches("")', 1],
    ["set map maxProperties to zero", mapOfS("number", 0), 'self["x"] == 0.0', 2],
    ["set string maxLength to zero", stringS(0), 'self == "x"', 1],
    ["string equality, unbounded", stringS(), 'self == "x"', 2],
  ])("%s: %s", (_name, schema, rule, want) => {
    expect(crdCost(schema, rule)).toBe(want);
  });

  it("an unbounded O(n^2) rule is refused by estimate, the bounded one accepted", () => {
    const unbounded = crdCost(arrayOf("number"), "self.all(x, self.all(y, true))");
    expect(unbounded).toBeGreaterThan(staticEstimatedCostLimit);
    expect(ruleCostExceeded(unbounded)).toBe(
      "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    );
    expect(crdCost(arrayOf("number", 10), "self.all(x, self.all(y, true))")).toBeLessThanOrEqual(staticEstimatedCostLimit);
  });
});

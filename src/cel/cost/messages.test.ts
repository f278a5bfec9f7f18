import { describe, expect, it } from "vitest";
import { goQuote } from "../../apimachinery/go-quote.js";
import {
  TotalCost,
  contributedToTotalCost,
  costErrorMessage,
  expressionCost,
  formatFixed,
  maxCardinality,
  messageExpressionCallCostExceeded,
  messageExpressionCostExceeded,
  ruleCallCostExceeded,
  ruleCostExceeded,
  schemaTotalCostExceeded,
} from "./messages.js";

const tail =
  "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";

describe("write-time estimate messages (apiextensions validation.go getCostErrorMessage)", () => {
  it.each<[number, string]>([
    [15_000_000, "1.5x"],
    [12_000_000, "1.200000x"],
    [10_000_001, "1.000000x"],
    [22_500_000, "2.2x"], // an exact tie rounds to even, as Go's %.1f
    [23_500_000, "2.4x"],
    [1_000_000_000, "100.0x"],
    [1_000_000_001, "more than 100x"],
    [Number.MAX_SAFE_INTEGER, "more than 100x"],
  ])("rule cost %d", (cost, factor) => {
    expect(ruleCostExceeded(cost)).toBe(`estimated rule cost exceeds budget by factor of ${factor} ${tail}`);
  });

  it("messageExpression and whole-schema variants", () => {
    expect(messageExpressionCostExceeded(20_000_000)).toBe(`estimated messageExpression cost exceeds budget by factor of 2.0x ${tail}`);
    expect(schemaTotalCostExceeded(150_000_000)).toBe(
      `x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.5x ${tail}`,
    );
    expect(costErrorMessage("estimated rule cost", 11, 10)).toBe(`estimated rule cost exceeds budget by factor of 1.100000x ${tail}`);
    expect(contributedToTotalCost).toBe("contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema");
  });

  it("cardinality: the request size over the smallest serialization plus a comma", () => {
    expect(maxCardinality(1)).toBe(1572864);
    expect(maxCardinality(2)).toBe(1048576);
    expect(expressionCost(32, 1)).toBe(32);
    expect(expressionCost(0, 1_000_000)).toBe(0);
    expect(expressionCost(4718591, maxCardinality(1))).toBe(4718591 * 1572864);
    expect(expressionCost(Number.MAX_SAFE_INTEGER, 2)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("TotalCost keeps the 4 costliest rules of at least 1% of the limit", () => {
    const t = new TotalCost<string>();
    t.observe("a", 999_999);
    for (const [p, c] of [["b", 20_000_000], ["c", 30_000_000], ["d", 10_000_000], ["e", 40_000_000], ["f", 5_000_000]] as const) t.observe(p, c);
    expect(t.total).toBe(105_999_999);
    expect(t.exceeded).toBe(true);
    expect(t.mostExpensive.map((r) => r.path)).toEqual(["e", "c", "b", "d"]);
  });
});

describe("runtime messages (apiextensions schema/cel/validation.go, cel-go runtimecost.go)", () => {
  it("per-call limit, named by message or rule", () => {
    const err = "operation cancelled: actual cost limit exceeded";
    expect(ruleCallCostExceeded(err, { rule: " self.all(x, x > 0) " })).toBe(
      "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, x > 0)",
    );
    expect(ruleCallCostExceeded(err, { rule: "r", message: " too slow " })).toMatch(/for rule: too slow$/);
    expect(messageExpressionCallCostExceeded('"x" + self.name\n')).toBe(
      'no further validation rules will be run due to call cost exceeds limit for messageExpression: "\\"x\\" + self.name\\n"',
    );
  });
});

describe("Go formatting helpers", () => {
  it.each<[number, number, string]>([
    [1.5, 1, "1.5"],
    [0.25, 1, "0.2"],
    [0.35, 1, "0.3"],
    [2.5, 0, "2"],
    [1.2, 6, "1.200000"],
    [1.0000001, 6, "1.000000"],
    [123.456, 1, "123.5"],
  ])("formatFixed(%d, %d)", (x, d, want) => {
    expect(formatFixed(x, d)).toBe(want);
  });

  it.each<[string, string]>([
    ["plain", '"plain"'],
    ["tab\there", '"tab\\there"'],
    ["bell\x07", '"bell\\a"'],
    ["ctl\x01", '"ctl\\x01"'],
    ["königin 👑", '"königin 👑"'],
    ["zero\u200bwidth", '"zero\\u200bwidth"'],
  ])("goQuote(%j)", (s, want) => {
    expect(goQuote(s)).toBe(want);
  });
});

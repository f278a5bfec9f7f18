import { describe, expect, it } from "vitest";
import { CelBudgetExhausted, RuntimeCostBudget } from "./budget.js";
import { toCel } from "./convert.js";
import { runtimeCelCostBudget } from "./cost/constants.js";
import { compileCel, type CelEnvironment } from "./program.js";
import { IntType, listOf } from "./types.js";

const env: CelEnvironment = { name: "budget-test", variables: { self: listOf(IntType) } };

describe("RuntimeCostBudget", () => {
  it("charges each rule's actual cost and stops once a rule cannot be paid for", () => {
    const rule = compileCel("self.all(x, x >= 0)", env);
    const self = toCel([1, 2, 3]);
    const one = rule.eval({ self }).cost;
    const budget = new RuntimeCostBudget(one * 2 + 1);
    expect(budget.eval(rule, { self })).toBe(true);
    expect(budget.eval(rule, { self })).toBe(true);
    expect(budget.remaining).toBe(1);
    expect(() => budget.eval(rule, { self })).toThrow(CelBudgetExhausted);
    expect(() => budget.eval(rule, { self })).toThrow("validation failed due to running out of cost budget, no further validation rules will be run");
  });

  it("charges a failed rule too, and defaults to Kubernetes' 10,000,000", () => {
    const failing = compileCel("self.all(x, x / 0 == 1)", env);
    const budget = new RuntimeCostBudget();
    expect(budget.total).toBe(runtimeCelCostBudget);
    expect(() => budget.eval(failing, { self: toCel([1]) })).toThrow("division by zero");
    expect(budget.remaining).toBeLessThan(runtimeCelCostBudget);
  });
});

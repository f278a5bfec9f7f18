// The runtime cost budget shared by all the rules of one object (a custom resource's
// x-kubernetes-validations, a policy binding's validations): each rule runs under the per-call
// limit and its actual cost comes off the budget; once a rule cannot be paid for, validation
// stops with Kubernetes' message.
import { runtimeCelCostBudget } from "./cost/constants.js";
import { runtimeBudgetExhausted } from "./cost/messages.js";
import type { CelBudget, CelProgram } from "./program.js";
import { CelEvalError, type CelValue } from "./value.js";

/** The budget ran out: no further rule of this object is evaluated. */
export class CelBudgetExhausted extends CelEvalError {
  constructor() {
    super(runtimeBudgetExhausted);
  }
}

export class RuntimeCostBudget {
  private spent = 0;

  constructor(readonly total: number = runtimeCelCostBudget) {}

  get remaining(): number {
    return this.total - this.spent;
  }

  /**
   * Evaluates one rule and charges what it cost, also when it failed. Throws CelBudgetExhausted
   * when the budget was already spent or this rule's cost does not fit in what was left (as
   * apiextensions does: the rule's own result is then not reported).
   */
  eval(program: CelProgram, vars: Readonly<Record<string, CelValue>>, budget: Omit<CelBudget, "costLimit"> = {}): CelValue {
    if (this.remaining <= 0) throw new CelBudgetExhausted();
    let result: { value: CelValue; cost: number };
    try {
      result = program.eval(vars, budget);
    } catch (e) {
      if (e instanceof CelEvalError && e.cost !== undefined) this.charge(e.cost);
      throw e;
    }
    this.charge(result.cost);
    return result.value;
  }

  private charge(cost: number): void {
    if (cost > this.remaining) {
      this.spent = this.total;
      throw new CelBudgetExhausted();
    }
    this.spent += cost;
  }
}

// Costs of the standard library's overloads that differ from the default of 1, keyed by
// cel-go's overload id; the estimator and the runtime tracker read a declaration's own `cost`
// first and this table second.
import type { OverloadCost } from "../library.js";

export const stdCallCosts: ReadonlyMap<string, OverloadCost> = new Map();

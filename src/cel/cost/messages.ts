// Kubernetes' texts about CEL cost, word for word (apiextensions-apiserver 1.34:
// pkg/apis/apiextensions/validation/validation.go and cel_validation.go for the write-time
// estimate checks, pkg/apiserver/schema/cel/validation.go for the runtime budget; cel-go
// interpreter/runtimecost.go for the per-call limit), and the arithmetic those checks use.
import { goQuote } from "../../apimachinery/go-quote.js";
import {
  maxRequestSizeBytes,
  staticEstimatedCostLimit,
  staticEstimatedCrdCostLimit,
} from "./constants.js";

// ---------------------------------------------------------------- runtime

/** cel-go's error when one evaluation goes over its cost limit (the interpreter throws it). */
export const actualCostLimitExceeded = "operation cancelled: actual cost limit exceeded";

/** A CRD's rules used up the runtime budget (field.Invalid detail on the rule's field path). */
export const runtimeBudgetExhausted = "validation failed due to running out of cost budget, no further validation rules will be run";

/** The same for a messageExpression. */
export const messageExpressionBudgetExhausted =
  "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run";

/** What the rule is called in runtime messages: its message if it has one, else the rule, trimmed. */
export function ruleErrorString(rule: { readonly rule: string; readonly message?: string }): string {
  return rule.message && rule.message.length > 0 ? rule.message.trim() : rule.rule.trim();
}

/**
 * A rule's evaluation hit the per-call limit (field.Invalid detail):
 * `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: <rule>`.
 */
export function ruleCallCostExceeded(errorText: string, rule: { readonly rule: string; readonly message?: string }): string {
  return `'${errorText}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`;
}

/** A messageExpression's evaluation hit the per-call limit (the source quoted as Go's %q). */
export function messageExpressionCallCostExceeded(messageExpression: string): string {
  return `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(messageExpression)}`;
}

// ---------------------------------------------------------------- write time (CRD schemas)

/**
 * `<costName> exceeds budget by factor of <f> (try simplifying the rule, or adding maxItems,
 * maxProperties, and maxLength where arrays, maps, and strings are declared)`, the factor
 * written as Kubernetes does: "more than 100x" above 100, `%f` (six decimals) below 1.5, `%.1f`
 * otherwise.
 */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let f: string;
  if (factor > 100) f = "more than 100x";
  else if (factor < 1.5) f = `${formatFixed(factor, 6)}x`;
  else f = `${formatFixed(factor, 1)}x`;
  return `${costName} exceeds budget by factor of ${f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** field.Forbidden detail at `…x-kubernetes-validations[i].rule`. */
export const ruleCostExceeded = (cost: number, limit = staticEstimatedCostLimit): string =>
  costErrorMessage("estimated rule cost", cost, limit);

/** field.Forbidden detail at `…x-kubernetes-validations[i].messageExpression`. */
export const messageExpressionCostExceeded = (cost: number, limit = staticEstimatedCostLimit): string =>
  costErrorMessage("estimated messageExpression cost", cost, limit);

/** field.Forbidden detail at `spec.validation.openAPIV3Schema` / `spec.versions[i].schema.openAPIV3Schema`. */
export const schemaTotalCostExceeded = (total: number, limit = staticEstimatedCrdCostLimit): string =>
  costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total, limit);

/** field.Forbidden detail at each of the (up to 4) most expensive rules when the total is over. */
export const contributedToTotalCost = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";

/** Product saturating at Number.MAX_SAFE_INTEGER; 0 when the cost is 0 (multiplyWithOverflowGuard). */
export function multiplyWithOverflowGuard(baseCost: number, cardinality: number): number {
  if (baseCost === 0) return 0;
  const p = baseCost * cardinality;
  return p >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : p;
}

/**
 * How many times a rule may run per request when nothing above it bounds the count: the
 * request size over the smallest serialization of the schema node plus a comma
 * (compilation.go maxCardinality; pass the node's minimal serialized size).
 */
export function maxCardinality(minSerializedSize: number): number {
  return Math.floor(maxRequestSizeBytes / (minSerializedSize + 1));
}

/**
 * The cost a rule is charged at write time: its estimated max cost times its cardinality — the
 * product of the maxItems/maxProperties above it when all are set (`schemaCardinality`), else
 * `maxCardinality(minSerializedSize)` (getExpressionCost).
 */
export function expressionCost(maxCost: number, cardinality: number): number {
  return multiplyWithOverflowGuard(maxCost, cardinality);
}

export interface RuleCost<P> {
  readonly path: P;
  readonly cost: number;
}

/** The per-schema total (TotalCost): sum saturating, and the 4 costliest rules of at least 1% of the limit. */
export class TotalCost<P> {
  total = 0;
  readonly mostExpensive: RuleCost<P>[] = [];

  observe(path: P, cost: number): void {
    const t = this.total + cost;
    this.total = t >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : t;
    if (cost < staticEstimatedCrdCostLimit / 100) return;
    this.mostExpensive.push({ path, cost });
    // Stable descending sort, as sort.Slice on an already sorted prefix plus one.
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }

  get exceeded(): boolean {
    return this.total > staticEstimatedCrdCostLimit;
  }
}

// ---------------------------------------------------------------- formatting helpers

/** Go's strconv 'f' formatting with `digits` decimals: the exact binary value, ties to even. */
export function formatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return String(x);
  const negative = x < 0 || Object.is(x, -0);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (biased === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  let num = mant;
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  const scaled = num * 10n ** BigInt(digits);
  let q = scaled / den;
  const r2 = (scaled % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, "0");
    s = `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
  }
  return negative ? `-${s}` : s;
}

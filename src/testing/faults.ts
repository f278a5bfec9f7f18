// Fault rules: which requests (a matcher), how often (`times`, `probability`) and what happens to
// them (an action). Rules are asked in the order they were added and the first that fires wins;
// a rule whose `times` are used up retires. Rules arrive from tests and over the control endpoint
// as JSON, so each is checked whole before it is added, and a bad one is refused naming the problem.
import { describeValue, HarnessInputError } from "./input-error.js";
import { matches, parseMatch, requestMatchKeys, type RequestFacts, type RequestMatch } from "./request-matcher.js";

/** The statuses an `error` action may answer, each with the body upstream sends for its reason. */
export const injectableCodes = [409, 410, 422, 429, 500, 503, 504] as const;
export type InjectableCode = (typeof injectableCodes)[number];

export type FaultAction =
  /** An error Status; `retryAfterSeconds` (429, 503, 504) also sets Retry-After; `field` names the 422's field. */
  | { kind: "error"; code: InjectableCode; message?: string; retryAfterSeconds?: number; field?: string }
  /** The request waits `ms` before it is handled. */
  | { kind: "latency"; ms: number }
  /** A watch's stream ends, with no last word, after `afterEvents` events (default 0). */
  | { kind: "dropWatch"; afterEvents?: number }
  /** After `afterEvents` events (default 0), a watch sends a BOOKMARK then an ERROR 410 Expired and ends. */
  | { kind: "expireWatch"; afterEvents?: number }
  /** A write is carried out (committed) but answered with the 504 Timeout Status. */
  | { kind: "timeoutAfterCommit" };

export type FaultKind = FaultAction["kind"];

export interface FaultRuleInput {
  match?: RequestMatch;
  /** How many times the rule fires before it retires (default: no limit). */
  times?: number;
  /** The chance, from 0 to 1, that a matching request gets the fault (default 1). */
  probability?: number;
  action: FaultAction;
}

export interface FaultRule {
  id: number;
  match: RequestMatch;
  /** Fires left; undefined: no limit. */
  times?: number;
  probability: number;
  action: FaultAction;
  /** Times it fired so far. */
  fired: number;
}

/** What a fired rule did to a request (the journal's `fault`). */
export interface FiredFault {
  rule: number;
  action: FaultAction;
  /** Set when the fault fired but could not act as asked (a write that failed is answered as it was). */
  outcome?: string;
}

const writeVerbs = ["create", "update", "patch", "delete", "deletecollection"];
/** The verbs an action can act on, when not every verb. */
function verbsFor(a: FaultAction): readonly string[] | undefined {
  if (a.kind === "dropWatch" || a.kind === "expireWatch") return ["watch"];
  if (a.kind === "timeoutAfterCommit") return writeVerbs;
  if (a.kind === "error" && a.code === 410) return ["list", "watch"];
  return undefined;
}

const actionKeys: Record<FaultKind, readonly string[]> = {
  error: ["code", "message", "retryAfterSeconds", "field"],
  latency: ["ms"],
  dropWatch: ["afterEvents"],
  expireWatch: ["afterEvents"],
  timeoutAfterCommit: [],
};
const ruleKeys = ["match", "times", "probability", "action"];
/** A latency longer than this is surely a mistake (ms): 10 minutes. */
const maxLatencyMs = 600_000;

export class FaultInjector {
  private rules: FaultRule[] = [];
  private nextId = 1;

  /** `random` is Math.random unless a test wants the dice fixed. */
  constructor(private readonly random: () => number = Math.random) {}

  /** Checks and appends a rule; answers it as kept. */
  add(input: FaultRuleInput): FaultRule {
    const rule = parseRule(input, this.nextId);
    this.nextId++;
    this.rules.push(rule);
    return { ...rule };
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** Removes one rule; false when there is none by that id. */
  remove(id: number): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }

  get size(): number {
    return this.rules.length;
  }

  /** The first rule that fires for this request (counted, retired when used up), or undefined. */
  take(req: RequestFacts): FiredFault | undefined {
    for (const rule of this.rules) {
      const verbs = verbsFor(rule.action);
      if (verbs && !verbs.includes(req.verb)) continue;
      if (!matches(rule.match, req)) continue;
      if (rule.probability < 1 && !(this.random() < rule.probability)) continue;
      rule.fired++;
      if (rule.times !== undefined && --rule.times === 0) this.rules = this.rules.filter((r) => r !== rule);
      return { rule: rule.id, action: rule.action };
    }
    return undefined;
  }
}

export function parseRule(input: unknown, id: number): FaultRule {
  if (!isObject(input)) throw new HarnessInputError(`a fault rule must be an object, got ${describeValue(input)}`);
  for (const key of Object.keys(input)) if (!ruleKeys.includes(key)) throw new HarnessInputError(`fault rule: unknown key "${key}" (known: ${ruleKeys.join(", ")})`);
  const match = parseMatch<RequestMatch>(input.match, requestMatchKeys);
  const { times, probability } = input;
  if (times !== undefined && !(Number.isInteger(times) && (times as number) >= 1)) throw new HarnessInputError(`times: must be a whole number ≥ 1, got ${describeValue(times)}`);
  if (probability !== undefined && !(typeof probability === "number" && probability >= 0 && probability <= 1)) {
    throw new HarnessInputError(`probability: must be a number from 0 to 1, got ${describeValue(probability)}`);
  }
  const action = parseAction(input.action);
  const verbs = verbsFor(action);
  if (verbs && match.verb !== undefined) {
    const asked = Array.isArray(match.verb) ? match.verb : [match.verb];
    const off = asked.filter((v) => !verbs.includes(v));
    if (off.length > 0) throw new HarnessInputError(`${describeAction(action)} applies to ${verbs.join(", ")} requests only, not ${off.map((v) => `"${v}"`).join(", ")} (match.verb)`);
  }
  return { id, match, ...(times !== undefined ? { times: times as number } : {}), probability: (probability as number | undefined) ?? 1, action, fired: 0 };
}

function parseAction(a: unknown): FaultAction {
  if (!isObject(a)) throw new HarnessInputError(`action: must be an object with a "kind", got ${describeValue(a)}`);
  const kind = a.kind;
  if (typeof kind !== "string" || !Object.hasOwn(actionKeys, kind)) {
    throw new HarnessInputError(`action.kind: unknown fault kind ${describeValue(kind)} (known: ${Object.keys(actionKeys).join(", ")})`);
  }
  const allowed = actionKeys[kind as FaultKind];
  for (const key of Object.keys(a)) if (key !== "kind" && !allowed.includes(key)) throw new HarnessInputError(`action: "${key}" does not apply to a ${kind} fault${allowed.length ? ` (it takes: ${allowed.join(", ")})` : ""}`);
  switch (kind as FaultKind) {
    case "error": {
      if (!injectableCodes.includes(a.code as InjectableCode)) throw new HarnessInputError(`action.code: ${describeValue(a.code)} is not an injectable status (allowed: ${injectableCodes.join(", ")})`);
      if (a.message !== undefined && typeof a.message !== "string") throw new HarnessInputError(`action.message: must be a string, got ${describeValue(a.message)}`);
      if (a.retryAfterSeconds !== undefined) {
        if (![429, 503, 504].includes(a.code as number)) throw new HarnessInputError(`action.retryAfterSeconds: only a 429, 503 or 504 asks the client to retry, not a ${a.code}`);
        wholeNumber(a.retryAfterSeconds, "action.retryAfterSeconds");
      }
      if (a.field !== undefined && (a.code !== 422 || typeof a.field !== "string")) throw new HarnessInputError(`action.field: a field path (string) for a 422 only, got ${describeValue(a.field)} with ${a.code}`);
      return { ...a } as FaultAction;
    }
    case "latency":
      if (!(typeof a.ms === "number" && Number.isFinite(a.ms) && a.ms >= 0 && a.ms <= maxLatencyMs)) throw new HarnessInputError(`action.ms: must be a number of ms from 0 to ${maxLatencyMs}, got ${describeValue(a.ms)}`);
      return { kind: "latency", ms: a.ms };
    case "dropWatch":
    case "expireWatch":
      if (a.afterEvents !== undefined) wholeNumber(a.afterEvents, "action.afterEvents");
      return { ...a } as FaultAction;
    case "timeoutAfterCommit":
      return { kind: "timeoutAfterCommit" };
  }
}

export function describeAction(a: FaultAction): string {
  return a.kind === "error" ? `an error ${a.code}` : `a ${a.kind} fault`;
}

function wholeNumber(v: unknown, what: string): void {
  if (!(Number.isInteger(v) && (v as number) >= 0)) throw new HarnessInputError(`${what}: must be a whole number ≥ 0, got ${describeValue(v)}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

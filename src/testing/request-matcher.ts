// Which requests a fault rule or a journal query means: each key given must match (a string, or a
// list of strings any of which may match); a key left out matches anything. `subresource: ""`
// means "no subresource". Matchers arrive from tests and over the control endpoint as JSON, so
// they are checked key by key and a bad one is refused naming the key.
import { describeValue, HarnessInputError } from "./input-error.js";

/** What a request is, as matchers see it (the journal's entries carry the same fields). */
export interface RequestFacts {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The user the request acts as (after impersonation). */
  user: string;
  /** The `fieldManager` query parameter, "" when absent. */
  fieldManager: string;
}

export type OneOrMore<T> = T | readonly T[];

export type RequestMatch = { [K in keyof RequestFacts]?: OneOrMore<string> };

type ValueKind = "string" | "number" | "boolean";

/** The keys a matcher takes and the type of each. */
export type MatchKeys = Readonly<Record<string, ValueKind>>;

export const requestMatchKeys: MatchKeys = {
  verb: "string",
  apiGroup: "string",
  resource: "string",
  subresource: "string",
  namespace: "string",
  name: "string",
  user: "string",
  fieldManager: "string",
};

/** Checks a matcher given as data; answers it as given (a fresh copy) or throws naming the problem. */
export function parseMatch<T>(input: unknown, keys: MatchKeys, where = "match"): T {
  if (input === undefined || input === null) return {} as T;
  if (typeof input !== "object" || Array.isArray(input)) throw new HarnessInputError(`${where} must be an object, got ${describeValue(input)}`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const kind = keys[key];
    if (!kind) throw new HarnessInputError(`${where}: unknown key "${key}" (known: ${Object.keys(keys).join(", ")})`);
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    if ((Array.isArray(value) && value.length === 0) || values.some((v) => typeof v !== kind)) {
      throw new HarnessInputError(`${where}.${key}: must be a ${kind} or a non-empty list of ${kind}s, got ${describeValue(value)}`);
    }
    out[key] = Array.isArray(value) ? [...value] : value;
  }
  return out as T;
}

/** True when every key of `m` matches the same field of `facts`. */
export function matches(m: object, facts: object): boolean {
  for (const key in m) {
    const want = (m as Record<string, unknown>)[key];
    if (want === undefined) continue;
    const have = (facts as Record<string, unknown>)[key];
    if (Array.isArray(want) ? !want.includes(have) : want !== have) return false;
  }
  return true;
}

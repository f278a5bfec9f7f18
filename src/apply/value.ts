// JSON value helpers of the field-ownership engine: a total order over JSON
// values (the order structured-merge-diff uses to sort path elements) and
// structured-merge-diff's value strings.

import { compareStrings } from "../apimachinery/go-json.js";
import { isPlainObject } from "../apimachinery/json-value.js";
import { goQuote } from "../apimachinery/go-quote.js";

/** A plain JSON value as produced by JSON.parse. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A plain JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** True for a non-null, non-array object. */
export const isObject = isPlainObject as (v: unknown) => v is JsonObject;

/** True for an object with no own keys (without building the list of its keys, as every write's walks ask of every map). */
export function hasNoKeys(o: object): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return false;
  return true;
}

// Kind rank of the total order: numbers < strings < booleans < lists < maps < null.
function rank(v: unknown): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

/** Total order over JSON values (-1, 0, 1); numbers compare numerically. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const ma = a as JsonObject;
      const mb = b as JsonObject;
      const ka = Object.keys(ma);
      const kb = Object.keys(mb);
      if (ka.length === 0 && kb.length === 0) return 0;
      const keys = [...new Set([...ka, ...kb])].sort(compareStrings);
      let i = 0;
      for (const k of keys) {
        let c: number;
        if (i === ka.length) c = -1;
        else if (i === kb.length) c = 1;
        else if (!(k in ma)) c = 1;
        else if (!(k in mb)) c = -1;
        else c = compareValues(ma[k], mb[k]);
        i++;
        if (c !== 0) return c;
      }
      return 0;
    }
    default:
      return 0;
  }
}


/** A value formatted as structured-merge-diff's value.ToString (used in path strings). */
export function smdValueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return "[" + v.map(smdValueString).join(",") + "]";
  const o = v as JsonObject;
  return Object.keys(o)
    .map((k) => `${k}=${smdValueString(o[k])}`)
    .join("");
}

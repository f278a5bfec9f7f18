/** Small helpers over plain JSON values shared by the patch engines. */

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepClone) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepClone(x);
    return out as T;
  }
  return v;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The word Go's encoding/json uses for a JSON value's kind in "cannot unmarshal X into ...". */
export function jsonKindWord(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  if (typeof v === "boolean") return "bool";
  return typeof v; // object, string, number
}

/** Go's reflect type name of a decoded JSON value (for upstream-like error texts). */
export function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return "[]interface {}";
  if (isObject(v)) return "map[string]interface {}";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return "%!s(<nil>)";
}

/** Renders a value like Go's fmt "%v" does for decoded JSON, so messages read like upstream's. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goFormat).join(" ")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(" ")}]`;
  }
  if (typeof v === "number") return String(v).replace(/e([+-])(\d)$/, "e$10$2");
  return String(v);
}

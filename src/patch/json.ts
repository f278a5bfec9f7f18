/** Go-flavoured renderings of JSON values for the patch engines' messages. */
import { isPlainObject as isObject } from "../apimachinery/json-value.js";

export type JsonObject = Record<string, unknown>;

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

// Server-side field validation (fieldValidation=Ignore|Warn|Strict): fields the schema does not
// declare are dropped from the object (as decoding into a typed struct does), and reported as
// warnings or a 400 together with duplicate fields, in upstream's wording.
import { ApiError, invalid } from "../apimachinery/errors.js";
import { notSupported } from "../apimachinery/validation.js";
import { resolveRef, type SchemaFacts } from "../types/schema-facts.js";

export type FieldValidation = "Ignore" | "Warn" | "Strict";

export function parseFieldValidation(q: URLSearchParams, optionsKind: string): FieldValidation {
  const v = q.get("fieldValidation");
  if (v === null || v === "") return "Warn";
  if (v === "Ignore" || v === "Warn" || v === "Strict") return v;
  throw invalid({ group: "meta.k8s.io", kind: optionsKind }, "", [notSupported("fieldValidation", v, ["Ignore", "Strict", "Warn"])]);
}

function deref(s: SchemaFacts | undefined): SchemaFacts | undefined {
  if (!s) return undefined;
  return s.$ref ? resolveRef(s) : s;
}

/** Removes fields the schema does not declare; returns their paths (`spec.foo`, `a[0].b`). */
export function pruneUnknownFields(value: unknown, schema: SchemaFacts | undefined, path = "", out: string[] = []): string[] {
  const s = deref(schema);
  if (!s || value === null || typeof value !== "object") return out;
  if (s["x-kubernetes-preserve-unknown-fields"]) return out;
  if (Array.isArray(value)) {
    if (s.items) value.forEach((v, i) => pruneUnknownFields(v, s.items, `${path}[${i}]`, out));
    return out;
  }
  const obj = value as Record<string, unknown>;
  if (s.properties) {
    for (const key of Object.keys(obj)) {
      const child = path ? `${path}.${key}` : key;
      const prop = s.properties[key];
      if (prop) pruneUnknownFields(obj[key], prop, child, out);
      else {
        out.push(child);
        delete obj[key];
      }
    }
    return out;
  }
  if (s.additionalProperties && typeof s.additionalProperties === "object") {
    for (const key of Object.keys(obj)) pruneUnknownFields(obj[key], s.additionalProperties, path ? `${path}.${key}` : key, out);
  }
  return out;
}

/**
 * Applies the directive to what decoding found: returns the warnings to send (Warn), nothing
 * (Ignore), or throws 400 listing every field (Strict).
 */
export function fieldValidationOutcome(mode: FieldValidation, t: { kind: string; version: string }, unknown: string[], duplicates: string[]): string[] {
  if (mode === "Ignore") return [];
  const problems = [...unknown.map((p) => `unknown field ${JSON.stringify(p)}`), ...duplicates.map((p) => `duplicate field ${JSON.stringify(p)}`)];
  if (problems.length === 0) return [];
  if (mode === "Strict") {
    throw new ApiError(400, "BadRequest", `${t.kind} in version ${JSON.stringify(t.version)} cannot be handled as a ${t.kind}: strict decoding error: ${problems.join(", ")}`);
  }
  return problems;
}

// upstream admission.NewForbidden: a plugin's refusal as `<resource> "<name>" is forbidden: <why>`,
// the name taken from the request, else from the object (name, then generateName), else
// "Unknown" (a create whose name is not generated yet). A refusal that already is a 403 passes
// through unchanged, as upstream does not wrap a Forbidden twice.
import { ApiError, forbidden } from "../../apimachinery/errors.js";
import type { AdmissionAttributes } from "../../registry/admission.js";

export function admissionForbidden(a: AdmissionAttributes, reason: string): ApiError {
  return forbidden(a.type.gr, requestName(a), reason);
}

/** Keeps an ApiError that is already a Forbidden; anything else becomes one (its message as reason). */
export function asForbidden(a: AdmissionAttributes, err: unknown): ApiError {
  if (err instanceof ApiError && err.code === 403) return err;
  return admissionForbidden(a, err instanceof Error ? err.message : String(err));
}

function requestName(a: AdmissionAttributes): string {
  if (a.name) return a.name;
  const meta = a.object?.metadata;
  return meta?.name || meta?.generateName || "Unknown";
}

/**
 * upstream apiequality.Semantic.DeepEqual over JSON values: an absent field, null, "", an empty
 * list and an empty map compare equal (Go decodes all of them to one zero or nil value).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => semanticEqual(v, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
    return true;
  }
  return a === b;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v as object).length === 0;
}

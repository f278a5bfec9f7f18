// Decoding a PATCH body and applying it to the current object by its content type. Pure over
// (current, patch bytes, type): the handler does the I/O.
import { ApiError, badRequest, invalid, tooLarge, unsupportedMediaType } from "../apimachinery/errors.js";
import { required, type FieldError } from "../apimachinery/validation.js";
import { decodeCbor } from "../encoding/cbor.js";
import { JsonSyntaxError, parseJson } from "../encoding/json.js";
import { yaml } from "../encoding/yaml-lazy.js";
import { applyJsonPatch } from "../patch/json-patch.js";
import { applyMergePatch, assertMergePatchDocument } from "../patch/merge-patch.js";
import { applyStrategicMergePatch } from "../patch/strategic-merge-patch.js";
import { parseMediaType } from "../encoding/media-type.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { FieldValidation } from "../registry/field-validation.js";

export type PatchType = "json" | "merge" | "strategic" | "apply";

/** A patch request's kind and the media type its document is written in. */
export interface PatchFormat {
  type: PatchType;
  mediaType: string;
}

const applyCborMediaType = "application/apply-patch+cbor";

const patchTypes: Record<string, PatchType> = {
  "application/json-patch+json": "json",
  "application/merge-patch+json": "merge",
  "application/strategic-merge-patch+json": "strategic",
  "application/apply-patch+yaml": "apply",
  [applyCborMediaType]: "apply",
};

/**
 * The patch media types an endpoint accepts: strategic merge only for types that have its schema
 * (not custom resources), apply configurations in CBOR only with the CBOR gate on.
 */
export function acceptedPatchMediaTypes(o: { strategic: boolean; cbor: boolean }): string[] {
  return Object.keys(patchTypes).filter((t) => (o.cbor || t !== applyCborMediaType) && (o.strategic || patchTypes[t] !== "strategic"));
}

/** The request's patch format; 415 naming the accepted types when it is not one of them. */
export function patchFormatOf(contentType: string | undefined, accepted: readonly string[]): PatchFormat {
  const mt = contentType ? parseMediaType(contentType) : undefined;
  const mediaType = mt ? `${mt.type}/${mt.subtype}` : "";
  if (!accepted.includes(mediaType)) throw unsupportedMediaType([...accepted]);
  return { type: patchTypes[mediaType]!, mediaType };
}

/**
 * Parses the patch document: JSON for the three patch types; YAML (or JSON), or CBOR, for apply.
 * A JSON document Go's scanner refuses (not JSON, or nested past 10,000 levels) is answered as
 * upstream's patchers answer it under the field validation `mode`: the strict decode's "error
 * decoding patch: ..." for json and merge patches (Strict, Warn), the scanner's words alone for a
 * strategic merge patch and an unchecked json patch, and json-patch's "Invalid JSON Patch" for an
 * unchecked merge patch.
 */
export function decodePatch(format: PatchFormat, raw: Buffer, mode: FieldValidation): unknown {
  if (format.type !== "apply") {
    try {
      return parseJson(raw);
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      if (format.type === "strategic" || (format.type === "json" && mode === "Ignore")) throw badRequest(e.message);
      throw badRequest(mode === "Ignore" ? "Invalid JSON Patch" : `error decoding patch: ${e.message}`);
    }
  }
  try {
    if (format.mediaType === applyCborMediaType) return decodeCbor(raw);
    return yaml().parse(raw.toString("utf8"), { uniqueKeys: false });
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
}

/** Upstream refuses JSON patches with more operations than this (413), when it applies one. */
const maxJsonPatchOperations = 10_000;

/** Applies a json, merge or strategic patch to `current`; the result is a new object. */
export function applyPatchDocument(type: Exclude<PatchType, "apply">, t: ResourceType, current: KObject, patch: unknown): KObject {
  let out: unknown;
  if (type === "json" && Array.isArray(patch) && patch.length > maxJsonPatchOperations) {
    throw tooLarge(`The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  if (type === "json") out = applyJsonPatch(current, patch);
  else if (type === "merge") {
    assertMergePatchDocument(patch);
    out = applyMergePatch(current, patch);
  } else {
    const root = t.strategicMergePatch ? t.schema.nameOf(t.group, t.version, t.kind) : undefined;
    if (!root) throw new ApiError(415, "UnsupportedMediaType", `strategic merge patch is not supported for ${t.kind}`);
    out = applyStrategicMergePatch(current, patch, t.schema.definition, root);
  }
  if (out === null || typeof out !== "object" || Array.isArray(out)) throw badRequest("the patched object is not an object");
  return out as KObject;
}

/**
 * PatchOptions checks (upstream ValidatePatchOptions): fieldManager is required for apply, and
 * `force` is refused on any other patch once given at all (false included: the option is a
 * pointer, set by its presence).
 */
export function validatePatchOptions(type: PatchType, fieldManager: string | null, force: boolean | undefined): void {
  const errs: FieldError[] = [];
  if (type === "apply" && !fieldManager) errs.push(required("fieldManager", "is required for apply patch"));
  if (type !== "apply" && force !== undefined) {
    errs.push({ type: "FieldValueForbidden", field: "force", message: "may not be specified for non-apply patch" });
  }
  if (errs.length > 0) throw invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", errs);
}

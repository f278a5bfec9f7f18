// PATCH of an object or its /status: JSON patch, merge patch, strategic merge patch, and
// server-side apply (create when absent).
import { ApiError, notFound } from "../apimachinery/errors.js";
import { optionalQueryBool } from "../apimachinery/booleans.js";
import { deepClone, isPlainObject } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceRequest } from "./context.js";
import { checkTypeMeta, duplicateKeys, header, readBody, versionedKind } from "./body.js";
import { decodeAgainstSchema, decodeTarget, fieldValidationOutcome, parseFieldValidation, typeMismatchError } from "../registry/field-validation.js";
import { parseDryRun } from "./options.js";
import { negotiateWrite, writeWritten } from "./output.js";
import { writeOptions } from "./write-options.js";
import { acceptedPatchMediaTypes, applyPatchDocument, decodePatch, patchFormatOf, validatePatchOptions, type PatchFormat } from "./patch-body.js";
import { applyConfiguration } from "./apply.js";
import { resolveFieldManager } from "./field-manager.js";
import { auditRequestPatch } from "./audit-request.js";
import { retriedWithoutManagedFields } from "./too-large-retry.js";

/** The request's patch format among those this server accepts (415 otherwise). */
export function requestPatchFormat(r: ResourceRequest): PatchFormat {
  const accepted = acceptedPatchMediaTypes({ strategic: r.type.strategicMergePatch, cbor: r.parts.gates.enabled("CBORServingAndStorage") });
  return patchFormatOf(header(r, "content-type"), accepted);
}

/** What every PATCH reads before its body, in upstream's order: format (415), PatchOptions (422). */
export function readPatchRequest(r: ResourceRequest) {
  const format = requestPatchFormat(r);
  const q = r.ex.query;
  const force = optionalQueryBool(q, "force");
  validatePatchOptions(format.type, q.get("fieldManager"), force);
  return { format, type: format.type, force, dryRun: parseDryRun(q, "PatchOptions"), manager: resolveFieldManager(r, "PatchOptions") };
}

export async function handlePatch(r: ResourceRequest): Promise<void> {
  const sub = r.info.subresource;
  const n = negotiateWrite(r);
  const { format, type, force, dryRun, manager: fieldManager } = readPatchRequest(r);
  const q = r.ex.query;
  const mode = parseFieldValidation(q, "PatchOptions");
  const raw = await readBody(r, "patch");
  const patch = decodePatch(format, raw, mode);
  auditRequestPatch(r, raw, patch);
  // Duplicate keys are found in JSON and YAML text; the CBOR decoder refuses them outright.
  const duplicates = mode === "Ignore" ? [] : duplicateKeys(type === "apply" ? format.mediaType : "application/json", raw);
  const schema = decodeTarget(r.type.schema, r.type);
  // Undeclared fields are dropped from what would be stored and reported per the directive.
  const validateFields = (obj: KObject, keepNulls = false) => {
    const { unknown, mismatch, unstructured } = decodeAgainstSchema(obj, schema, { keepNulls });
    if (mismatch) throw typeMismatchError(versionedKind(r.type), mismatch);
    const found = fieldValidationOutcome(mode, versionedKind(r.type), unknown, duplicates, unstructured);
    r.warnings.splice(0, r.warnings.length, ...found);
  };
  const opts = writeOptions(r, { dryRun, fieldManager });

  if (type === "apply") {
    if (!isPlainObject(patch)) throw new ApiError(400, "BadRequest", "error decoding YAML: the apply configuration must be an object");
    checkTypeMeta(patch, r.type);
    const config = patch as KObject;
    validateFields(config, true);
    if (config.metadata?.managedFields !== undefined) {
      throw new ApiError(400, "BadRequest", "metadata.managedFields must be nil");
    }
    writeWritten(r, n, await applyConfiguration(r, config, { ...opts, force: force ?? false, manager: fieldManager! }));
    return;
  }

  const spec = {
    subresource: sub,
    createIfMissing: false,
    desired: (current: KObject | undefined) => {
      if (!current) throw notFound(r.type.gr, r.info.name);
      // Field validation prunes the result in place, and patch results may share the input's parts.
      const patched = applyPatchDocument(type, r.type, deepClone(current), patch);
      validateFields(patched);
      return patched;
    },
  };
  const result = await retriedWithoutManagedFields(opts, (o) => r.store.update(r.info.namespace, r.info.name, spec, o));
  writeWritten(r, n, result);
}

// PATCH of an object or its /status: JSON patch, merge patch, strategic merge patch, and
// server-side apply (create when absent).
import { ApiError, conflict, methodNotSupported, notFound, optimisticLockMessage } from "../apimachinery/errors.js";
import { isPlainObject, type KObject } from "../registry/object.js";
import type { ResourceRequest } from "./context.js";
import { checkTypeMeta, duplicateKeys, header, maxBodyBytes, versionedKind } from "./body.js";
import { decodeAgainstSchema, decodeTarget, fieldValidationOutcome, parseFieldValidation, typeMismatchError } from "../registry/field-validation.js";
import { parseDryRun } from "./options.js";
import { negotiateWrite, writeOne } from "./output.js";
import { applyPatchDocument, decodePatch, patchTypeOf, validatePatchOptions } from "./patch-body.js";
import { applyConfiguration } from "./apply.js";
import { resolveFieldManager } from "./field-manager.js";

/** Upstream refuses JSON patches with more operations than this (413). */
const maxJsonPatchOperations = 10_000;

export async function handlePatch(r: ResourceRequest): Promise<void> {
  const sub = r.info.subresource;
  if (sub && sub !== "status") throw methodNotSupported(r.type.gr, "patch");
  const n = negotiateWrite(r);
  const type = patchTypeOf(header(r, "content-type"));
  const q = r.ex.query;
  validatePatchOptions(type, q.get("fieldManager"), q.get("force"));
  const dryRun = parseDryRun(q, "PatchOptions");
  const fieldManager = resolveFieldManager(r, "PatchOptions");
  const mode = parseFieldValidation(q, "PatchOptions");
  const raw = await r.ex.body(maxBodyBytes);
  const patch = decodePatch(type, raw);
  const duplicates = mode === "Ignore" ? [] : duplicateKeys(type === "apply" ? "application/apply-patch+yaml" : "application/json", raw);
  const schema = decodeTarget(r.type.schema, r.type);
  // Undeclared fields are dropped from what would be stored and reported per the directive.
  const validateFields = (obj: KObject) => {
    const { unknown, mismatch } = decodeAgainstSchema(obj, schema);
    if (mismatch) throw typeMismatchError(versionedKind(r.type), mismatch);
    const found = fieldValidationOutcome(mode, versionedKind(r.type), unknown, duplicates);
    r.warnings.splice(0, r.warnings.length, ...found);
  };
  if (type === "json" && Array.isArray(patch) && patch.length > maxJsonPatchOperations) {
    throw new ApiError(413, "RequestEntityTooLarge", `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  const { store } = r.parts;
  const { namespace: ns, name } = r.info;

  if (type === "apply") {
    if (!isPlainObject(patch)) throw new ApiError(400, "BadRequest", "error decoding YAML: the apply configuration must be an object");
    checkTypeMeta(patch, r.type);
    const config = patch as KObject;
    validateFields(config);
    if (config.metadata?.managedFields !== undefined) {
      throw new ApiError(400, "BadRequest", "metadata.managedFields must be nil");
    }
    const { obj, created } = await applyConfiguration(r, config, { dryRun, force: q.get("force") === "true", manager: fieldManager });
    writeOne(r, n, created ? 201 : 200, obj);
    return;
  }

  const { obj } = await store.guaranteedUpdate(r.type, ns, name, sub, { dryRun, fieldManager }, (current) => {
    if (!current) throw notFound(r.type.gr, name);
    // Field validation prunes the result in place, and patch results may share the input's parts.
    const patched = applyPatchDocument(type, r.type, structuredClone(current), patch);
    validateFields(patched);
    const rv = patched.metadata?.resourceVersion;
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw conflict(r.type.gr, name, optimisticLockMessage);
    if (patched.metadata && patched.metadata.name !== undefined && patched.metadata.name !== name) {
      throw new ApiError(400, "BadRequest", `the name of the object (${patched.metadata.name}) does not match the name on the URL (${name})`);
    }
    return patched;
  });
  writeOne(r, n, 200, obj);
}

// The /scale subresource: an autoscaling/v1 Scale view of the replica counts and selector that the
// type's scale declaration points at (workloads and custom resources alike). Writes through it are
// tracked on that view and recorded in the object's managedFields (src/registry/scale-ownership.ts).
import { ApiError, badRequest, notFound } from "../apimachinery/errors.js";
import { checkNameMatches } from "../registry/store.js";
import { writeOptions } from "./write-options.js";
import { deepClone, isPlainObject } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType, ScaleDeclaration } from "../registry/resource-type.js";
import type { ResourceRequest } from "./context.js";
import type { Getter, Patcher, RestStorage, Updater } from "./rest/capabilities.js";
import { checkTypeMeta, readBody, readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { parseFieldValidation } from "../registry/field-validation.js";
import { negotiateWrite, writeResult } from "./output.js";
import { applyPatchDocument, decodePatch } from "./patch-body.js";
import { readPatchRequest } from "./patch.js";
import { setValueAt, toScale } from "../registry/scale-paths.js";
import { replicasPaths, trackScaleChange, type ScaleChange } from "../registry/scale-ownership.js";
import { resolveFieldManager } from "./field-manager.js";
import { auditRequestPatch } from "./audit-request.js";

const scaleTypeMeta = { apiVersion: "autoscaling/v1", kind: "Scale" };

function declaration(r: ResourceRequest): ScaleDeclaration {
  if (!r.type.scale) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  return r.type.scale;
}

function replicasOf(scale: KObject): number {
  const n = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (n === undefined) return 0;
  if (typeof n !== "number" || !Number.isInteger(n)) throw badRequest("spec.replicas must be an integer");
  return n;
}

/** Every served version of the request's group-resource (their scale declarations map replicas ownership). */
function versionsOf(r: ResourceRequest): ResourceType[] {
  return r.parts.types.all().filter((t) => t.group === r.type.group && t.resource === r.type.resource);
}

/**
 * One write through /scale: `change` says what the request makes of the stored object's Scale;
 * the object gets its replica count and the writer's ownership of it (as `manager`).
 */
async function writeScale(r: ResourceRequest, change: (scale: KObject) => ScaleChange, opts: { dryRun: boolean; manager: string }): Promise<void> {
  const n = negotiateWrite(r);
  const { name } = r.info;
  const decl = declaration(r);
  const replicasPathOf = replicasPaths(versionsOf(r));
  const { object } = await r.store.update(r.info.namespace, name, {
    subresource: "scale",
    createIfMissing: false,
    desired(stored) {
      if (!stored) throw notFound(r.type.gr, name);
      const current = deepClone(stored);
      const scale = toScale(current, decl);
      const { scale: want, managedFields } = trackScaleChange(r.type, replicasPathOf, current, scale, change(scale), opts.manager);
      checkNameMatches(want, name);
      const replicas = replicasOf(want);
      if (replicas < 0) throw badRequest(`Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`);
      // The Scale's resourceVersion (when given) is the object's precondition.
      if (want.metadata?.resourceVersion) current.metadata.resourceVersion = want.metadata.resourceVersion;
      setValueAt(current, decl.specReplicasPath, replicas);
      if (managedFields) current.metadata.managedFields = managedFields;
      else delete current.metadata.managedFields;
      return current;
    },
  }, writeOptions(r, { dryRun: opts.dryRun, fieldManager: opts.manager, ownershipRecorded: true }));
  writeResult(r, n, 200, toScale(object, decl));
}

/** /scale of every type that declares one: a Scale read, replaced or patched. */
export const scaleStorage: Getter & Updater & Patcher & RestStorage = {
  unservedVerb: "NotFound",
  async get(r) {
    const n = negotiateWrite(r);
    writeResult(r, n, 200, toScale(await r.store.get(r.info.namespace, r.info.name), declaration(r)));
  },
  async update(r) {
    const dryRun = parseDryRun(r.ex.query, "UpdateOptions");
    const manager = resolveFieldManager(r, "UpdateOptions");
    const body = await readObject(r, scaleTypeMeta);
    await writeScale(r, () => ({ scale: body }), { dryRun, manager });
  },
  async patch(r) {
    const { format, type, force, dryRun, manager } = readPatchRequest(r);
    const raw = await readBody(r, "patch");
    const patch = decodePatch(format, raw, parseFieldValidation(r.ex.query, "PatchOptions"));
    auditRequestPatch(r, raw, patch);
    if (type === "apply") {
      if (!isPlainObject(patch)) throw badRequest("the apply configuration must be an object");
      checkTypeMeta(patch, scaleTypeMeta);
    }
    await writeScale(r, (scale) => {
      if (type === "apply") return { apply: patch as KObject, force: force ?? false };
      // Scale has no strategic-merge metadata beyond a plain struct: merge semantics suffice.
      return { scale: applyPatchDocument(type === "strategic" ? "merge" : type, r.type, scale, patch) };
    }, { dryRun, manager });
  },
};


// The /scale subresource: an autoscaling/v1 Scale view of the replica counts and selector that the
// type's scale declaration points at (workloads and, later, custom resources alike).
import { ApiError, badRequest, notFound } from "../apimachinery/errors.js";
import { checkNameMatches } from "../registry/store.js";
import { writeOptions } from "./write-options.js";
import { deepClone, isPlainObject } from "../apimachinery/json-value.js";
import type { KObject } from "../registry/object.js";
import type { ScaleDeclaration } from "../registry/resource-type.js";
import type { ResourceHandler, ResourceRequest } from "./context.js";
import { checkTypeMeta, maxBodyBytes, readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { negotiateWrite, writeResult } from "./output.js";
import { applyPatchDocument, decodePatch } from "./patch-body.js";
import { requestPatchFormat } from "./patch.js";
import { setValueAt, toScale } from "../registry/scale-paths.js";

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

async function writeScale(r: ResourceRequest, desired: (scale: KObject) => KObject, dryRun: boolean): Promise<void> {
  const n = negotiateWrite(r);
  const { name } = r.info;
  const { object } = await r.parts.store.update(r.type, r.info.namespace, name, {
    subresource: "scale",
    createIfMissing: false,
    desired(stored) {
      if (!stored) throw notFound(r.type.gr, name);
      const current = deepClone(stored);
      const want = desired(toScale(current, declaration(r)));
      checkNameMatches(want, name);
      const replicas = replicasOf(want);
      if (replicas < 0) throw badRequest(`Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`);
      // The Scale's resourceVersion (when given) is the object's precondition.
      if (want.metadata?.resourceVersion) current.metadata.resourceVersion = want.metadata.resourceVersion;
      setValueAt(current, declaration(r).specReplicasPath, replicas);
      return current;
    },
  }, writeOptions(r, { dryRun }));
  writeResult(r, n, 200, toScale(object, declaration(r)));
}

export const scaleHandlers: Partial<Record<string, ResourceHandler>> = {
  async get(r) {
    const n = negotiateWrite(r);
    writeResult(r, n, 200, toScale(await r.parts.store.get(r.type, r.info.namespace, r.info.name), declaration(r)));
  },
  async update(r) {
    const dryRun = parseDryRun(r.ex.query, "UpdateOptions");
    const body = await readObject(r, scaleTypeMeta);
    await writeScale(r, () => body, dryRun);
  },
  async patch(r) {
    const format = requestPatchFormat(r);
    const type = format.type;
    const dryRun = parseDryRun(r.ex.query, "PatchOptions");
    const patch = decodePatch(format, await r.ex.body(maxBodyBytes));
    await writeScale(r, (scale) => {
      if (type === "apply") {
        if (!isPlainObject(patch)) throw badRequest("the apply configuration must be an object");
        checkTypeMeta(patch, scaleTypeMeta);
        return { ...scale, spec: { ...(scale.spec as object), ...((patch.spec as object) ?? {}) } };
      }
      // Scale has no strategic-merge metadata beyond a plain struct: merge semantics suffice.
      return applyPatchDocument(type === "strategic" ? "merge" : type, r.type, scale, patch);
    }, dryRun);
  },
};


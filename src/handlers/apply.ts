// Server-side apply: the apply engine (src/apply) merges the configuration into the live object
// (or makes the object from it when absent) and computes managedFields, with conflicts against
// other managers unless forced; the generic store then defaults, validates and stores it.
import { applyPatch } from "../apply/index.js";
import { ApiError, notFound } from "../apimachinery/errors.js";
import type { KObject } from "../registry/object.js";
import { ownershipOptions } from "../registry/field-ownership.js";
import type { ResourceRequest } from "./context.js";

export interface ApplyOptions {
  dryRun: boolean;
  force: boolean;
  manager: string;
}

export async function applyConfiguration(r: ResourceRequest, config: KObject, opts: ApplyOptions): Promise<{ obj: KObject; created: boolean }> {
  const { store } = r.parts;
  const { namespace: ns, name } = r.info;
  const sub = r.info.subresource;
  const configName = config.metadata?.name;
  if (configName !== undefined && configName !== name) {
    throw new ApiError(400, "BadRequest", `the name of the object (${configName}) does not match the name on the URL (${name})`);
  }
  const engine = { ...ownershipOptions(r.type, sub), force: opts.force };
  const write = { dryRun: opts.dryRun, fieldManager: opts.manager, ownershipRecorded: true };
  const merge = (live: KObject | undefined): KObject => {
    const body = live ? config : { ...config, metadata: { ...(config.metadata ?? {}), name } };
    return applyPatch(live, body, opts.manager, undefined, engine).object as KObject;
  };
  for (let attempt = 0; attempt < 4; attempt++) {
    const exists = await store.get(r.type, ns, name).then(
      () => true,
      (e) => {
        if (e instanceof ApiError && e.code === 404) return false;
        throw e;
      },
    );
    if (!exists) {
      if (sub) throw notFound(r.type.gr, name);
      try {
        return { obj: await store.create(r.type, ns, merge(undefined), write), created: true };
      } catch (e) {
        if (e instanceof ApiError && e.reason === "AlreadyExists") continue;
        throw e;
      }
    }
    return store.guaranteedUpdate(r.type, ns, name, sub, write, (current) => {
      if (!current) throw notFound(r.type.gr, name);
      return merge(current);
    });
  }
  throw new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${r.type.resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
}

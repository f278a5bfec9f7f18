// Server-side apply: create the object from the configuration when absent, else merge the
// configuration into the live object. Field ownership (managedFields, conflicts) is recorded by
// the apply engine in src/apply once wired; until then this merges by the schema's strategy.
import { ApiError } from "../apimachinery/errors.js";
import { applyStrategicMergePatch } from "../patch/strategic-merge-patch.js";
import type { KObject } from "../registry/object.js";
import type { ResourceRequest } from "./context.js";
import { builtinSchemaResolver, rootRefOf } from "./patch-body.js";

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
  for (let attempt = 0; attempt < 4; attempt++) {
    const exists = await store.get(r.type, ns, name).then(() => true, (e) => {
      if (e instanceof ApiError && e.code === 404) return false;
      throw e;
    });
    if (!exists) {
      if (sub) throw new ApiError(404, "NotFound", `${r.type.resource} "${name}" not found`);
      try {
        const body = structuredClone(config);
        body.metadata = { ...(body.metadata ?? {}), name };
        return { obj: await store.create(r.type, ns, body, { dryRun: opts.dryRun }), created: true };
      } catch (e) {
        if (e instanceof ApiError && e.reason === "AlreadyExists") continue;
        throw e;
      }
    }
    const root = rootRefOf(r.type);
    return store.guaranteedUpdate(r.type, ns, name, sub, { dryRun: opts.dryRun }, (current) => {
      if (!current) throw new ApiError(404, "NotFound", `${r.type.resource} "${name}" not found`);
      const merged = root ? applyStrategicMergePatch(current, config, builtinSchemaResolver, root) : { ...current, ...config };
      return merged as KObject;
    });
  }
  throw new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${r.type.resource} "${name}": ${"the object has been modified; please apply your changes to the latest version and try again"}`);
}

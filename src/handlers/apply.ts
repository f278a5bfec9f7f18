// Server-side apply: the apply engine (src/apply) merges the configuration into the live object
// (or makes the object from it when absent) and computes managedFields, with conflicts against
// other managers unless forced; the store's one update path then defaults, admits, validates and
// stores it (creating it when absent).
import { applyPatch } from "../apply/index.js";
import type { KObject } from "../apimachinery/object.js";
import { ownershipOptions } from "../registry/field-ownership.js";
import { checkNameMatches, type WriteOptions, type WriteResult } from "../registry/store.js";
import type { ResourceRequest } from "./context.js";
import { createAuthorization } from "./create-on-update.js";

export interface ApplyOptions extends WriteOptions {
  force: boolean;
  manager: string;
}

export async function applyConfiguration(r: ResourceRequest, config: KObject, opts: ApplyOptions): Promise<WriteResult> {
  const { namespace: ns, name, subresource: sub } = r.info;
  checkNameMatches(config, name);
  const engine = { ...ownershipOptions(r.type, sub), force: opts.force };
  const { force: _force, manager, ...write } = opts;
  return r.store.update(ns, name, {
    subresource: sub,
    createIfMissing: true,
    authorizeCreate: createAuthorization(r),
    desired(live) {
      const body = live ? config : { ...config, metadata: { ...(config.metadata ?? {}), name } };
      return applyPatch(live, body, manager, undefined, engine).object as KObject;
    },
  }, { ...write, fieldManager: manager, ownershipRecorded: true });
}

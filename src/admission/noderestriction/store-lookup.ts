// ObjectLookup over the server's store: the preferred served version of a group-resource, read live.
import { ApiError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionParts } from "../plugins.js";
import type { ObjectLookup } from "./lookup.js";

export function storeLookup(parts: () => AdmissionParts): ObjectLookup {
  return {
    async get(group, resource, namespace, name): Promise<KObject | undefined> {
      if (!name) return undefined;
      const { stores, types } = parts();
      const t = types.preferred(group, resource);
      if (!t) return undefined;
      try {
        return await stores.for(t).get(t.namespaced ? namespace : "", name);
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return undefined;
        throw e;
      }
    },
  };
}

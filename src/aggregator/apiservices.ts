// Reading and writing APIService objects, shared by the aggregator's controllers.
import { ApiError } from "../apimachinery/errors.js";
import { deepClone } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";

type Obj = Record<string, any>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The field manager of the aggregator's writes (upstream: kube-apiserver's loopback client). */
export const aggregatorFieldManager = "kube-apiserver";

/** Its Available condition is True. */
export const isAvailable = (o: KObject): boolean => ((o.status as any)?.conditions ?? []).some((c: any) => c?.type === "Available" && c.status === "True");

export const apiServiceType = (types: TypeRegistry): ResourceType | undefined => types.get("apiregistration.k8s.io", "v1", "apiservices");

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
}

export interface APIServiceSpec {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  service?: ServiceReference;
  caBundle?: string;
  insecureSkipTLSVerify?: boolean;
}

/** The spec of a stored APIService (the service port defaults to 443, as upstream's defaulting). */
export function specOf(o: KObject): APIServiceSpec {
  const s = isObj(o.spec) ? o.spec : {};
  const out: APIServiceSpec = {
    group: str(s.group),
    version: str(s.version),
    groupPriorityMinimum: typeof s.groupPriorityMinimum === "number" ? s.groupPriorityMinimum : 0,
    versionPriority: typeof s.versionPriority === "number" ? s.versionPriority : 0,
  };
  if (isObj(s.service)) out.service = { namespace: str(s.service.namespace), name: str(s.service.name), port: typeof s.service.port === "number" ? s.service.port : 443 };
  if (str(s.caBundle)) out.caBundle = s.caBundle;
  if (s.insecureSkipTLSVerify === true) out.insecureSkipTLSVerify = true;
  return out;
}

export const isNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isConflictOrGone = (e: unknown) => e instanceof ApiError && (e.code === 404 || e.code === 409);

/** Writes `change` of the stored APIService through `subresource` ("" or "status"); a vanished one is left alone. */
export const updateAPIService = (stores: Stores, t: ResourceType, name: string, subresource: "" | "status", change: (o: KObject) => void) =>
  updateObject(stores, t, "", name, subresource, change);

/** Writes `change` of a stored object of any type (the aggregator's ConfigMap too); a vanished one is left alone. */
export async function updateObject(stores: Stores, t: ResourceType, namespace: string, name: string, subresource: "" | "status", change: (o: KObject) => void): Promise<void> {
  await stores
    .for(t)
    .update(namespace, name, {
      subresource,
      createIfMissing: false,
      desired: (cur) => {
        if (!cur) throw new ApiError(404, "NotFound", "gone");
        const next = deepClone(cur);
        change(next);
        return next;
      },
    }, { dryRun: false, fieldManager: aggregatorFieldManager })
    .catch((e) => {
      if (!isNotFound(e)) throw e;
    });
}

// What both policy plugins need around evaluation: the server's authorizer as the CEL library's,
// the request's namespace object, and upstream's admission.NewForbidden naming of the object.
import { ApiError, qualifiedResource, type StatusReason } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";

/** The namespace the request is in (none for cluster-scoped objects and namespaces themselves). */
export async function requestNamespaceObject(parts: AdmissionParts, a: AdmissionAttributes): Promise<KObject | undefined> {
  if (!a.namespace || (a.type.group === "" && a.type.resource === "namespaces")) return undefined;
  const nsType = parts.types.get("", "v1", "namespaces");
  if (!nsType) return undefined;
  const known = parts.informers.forType(nsType).get("", a.namespace);
  if (known) return known;
  try {
    return await parts.stores.for(nsType).get("", a.namespace);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}

/** upstream reasonToCode of the policy plugins. */
export function reasonCode(reason: string): number {
  switch (reason) {
    case "Forbidden":
      return 403;
    case "Unauthorized":
      return 401;
    case "RequestEntityTooLarge":
      return 413;
    default:
      return 422;
  }
}

/** The name admission.NewForbidden gives the object: the request's, else the object's name or generateName, else "Unknown". */
export function forbiddenName(a: AdmissionAttributes): string {
  return a.name || a.object?.metadata?.name || a.object?.metadata?.generateName || "Unknown";
}

/**
 * admission.NewForbidden's error with the policy's reason and code (the object named by
 * forbiddenName); the message is also the one cause.
 */
export function policyDenial(a: AdmissionAttributes, message: string, reason: string): ApiError {
  const name = forbiddenName(a);
  const gr = { group: a.type.group, resource: a.type.resource };
  return new ApiError(reasonCode(reason), reason as StatusReason, `${qualifiedResource(gr)} "${name}" is forbidden: ${message}`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
    causes: [{ message }],
  });
}

/**
 * An object of the request's type as another served version of it (matchPolicy Equivalent):
 * custom resources through their conversion (None: an apiVersion rewrite), built-ins share one
 * shape across the versions kapi serves and get the apiVersion of the target.
 */
export async function convertTo(from: ResourceType, to: ResourceType, obj: KObject): Promise<KObject> {
  if (obj.apiVersion === to.apiVersion) return obj;
  const c = from.conversion ?? to.conversion;
  if (c && c.strategy !== "None") return (await c.convert([obj], to.version))[0]!;
  return { ...obj, apiVersion: to.apiVersion };
}


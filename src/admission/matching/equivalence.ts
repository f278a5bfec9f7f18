// Equivalent resources for matchPolicy Equivalent: the other served versions of a request's
// group-resource (one storage, so one object seen through several versions), and the kind a
// request has when seen as one of them (upstream: EquivalentResourceMapper).
import type { ResourceType } from "../../registry/resource-type.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { GroupVersionResource } from "./rules.js";

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Every served type sharing the request type's storage that also serves the subresource. */
export function equivalentTypes(types: TypeRegistry, t: ResourceType, subresource: string): ResourceType[] {
  return types.all().filter((o) => !o.virtual && o.keyPrefix === t.keyPrefix && (subresource === "" || o.subresources.some((s) => s.name === subresource)));
}

/** The kind sent on a type's subresource ("Scale" of autoscaling/v1 on scale; the type's own otherwise). */
export function kindFor(t: ResourceType, subresource: string): GroupVersionKind {
  const sub = subresource ? t.subresources.find((s) => s.name === subresource) : undefined;
  if (sub && sub.kind !== t.kind) return { group: sub.group ?? t.group, version: sub.version ?? t.version, kind: sub.kind };
  return { group: t.group, version: t.version, kind: t.kind };
}

export const gvrOf = (t: ResourceType): GroupVersionResource => ({ group: t.group, version: t.version, resource: t.resource });

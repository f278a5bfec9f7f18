// The objects NodeRestriction reads besides the request's own (upstream reads them from informer
// listers: pods, nodes, CSIDrivers, PVCs, PVs). kapi reads them live from the store, so an object
// written just before the kubelet's request is seen. A miss is upstream's lister NotFound, which
// names the resource in the singular: `pod "x" not found`.
import { ApiError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";

export interface ObjectLookup {
  /** The stored object, or undefined when there is none. */
  get(group: string, resource: string, namespace: string, name: string): Promise<KObject | undefined>;
}

/** upstream's lister NotFound: singular resource, group-qualified when it has a group. */
export function listerNotFound(group: string, singular: string, name: string): ApiError {
  const what = group ? `${singular}.${group}` : singular;
  return new ApiError(404, "NotFound", `${what} "${name}" not found`, { name, group: group || undefined, kind: singular });
}

type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
export const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v.map(obj).filter(Boolean) as Obj[]) : []);
export const str = (v: unknown): string => (typeof v === "string" ? v : "");
export const specOf = (o: KObject | undefined): Obj => obj(o?.spec) ?? {};

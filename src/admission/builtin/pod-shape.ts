// Loose views of the pod fields the built-in plugins read and write. Bodies are plain JSON: the
// plugins check what they touch and leave the rest to the type's validation.
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
export const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The pod's spec, made when missing. */
export function podSpec(pod: Obj): Obj {
  if (!isObj(pod.spec)) pod.spec = {};
  return pod.spec as Obj;
}

/** The resources of a plugin that looks at pods only (AdmissionPlugin.resources). */
export const podsOnly = [{ group: "", resource: "pods" }] as const;

/** Is this write about the pods resource of the core group (not a subresource unless allowed)? */
export function isPods(a: { type: { group: string; resource: string }; subresource: string }, ...subresources: string[]): boolean {
  return a.type.group === "" && a.type.resource === "pods" && (a.subresource === "" || subresources.includes(a.subresource));
}

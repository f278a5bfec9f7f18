// A namespace's annotations for the plugins configured per namespace (PodNodeSelector,
// PodTolerationRestriction): from the namespace informer, with a live read on a miss.
import { notFound } from "../../apimachinery/errors.js";
import type { AdmissionParts } from "../plugins.js";
import { objectLookup } from "./lookup.js";

export function namespaceAnnotations(parts: () => AdmissionParts): (ns: string) => Promise<Record<string, string>> {
  const namespaces = objectLookup(parts, "", "namespaces");
  return async (ns) => {
    const found = await namespaces.get("", ns, { live: true });
    if (!found) throw notFound({ group: "", resource: "namespaces" }, ns);
    return found.metadata.annotations ?? {};
  };
}

/** labels.ConvertSelectorToLabelsMap: "k=v,k2=v2" as a map ("" is empty). */
export function selectorToLabelsMap(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (selector === "") return out;
  for (const part of selector.split(",")) {
    const kv = part.split("=");
    if (kv.length !== 2) throw new Error(`invalid selector: [${kv.join(" ")}]`);
    out[kv[0]!.trim()] = kv[1]!.trim();
  }
  return out;
}

/** labels.Conflicts: a key both have, with different values. */
export const labelsConflict = (a: Record<string, string>, b: Record<string, string>) => Object.entries(a).some(([k, v]) => k in b && b[k] !== v);

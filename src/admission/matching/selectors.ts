// The namespace and object selectors of admission webhooks and policies (upstream:
// webhook/predicates/namespace and object).
import { labelSelectorFromObject, type LabelSelectorObject } from "../../apimachinery/labels.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { requestNamespace } from "./rules.js";

/** A namespace's labels; undefined when it does not exist. Errors (other than absence) throw. */
export type NamespaceLabels = (namespace: string) => Promise<Record<string, string> | undefined>;

/** Thrown when the selector needs the labels of a namespace that does not exist (upstream: 404). */
export class NamespaceNotFound extends Error {
  constructor(readonly namespace: string) {
    super(`namespaces "${namespace}" not found`);
  }
}

/**
 * Whether the request's namespace carries labels the selector selects. Cluster-scoped objects
 * (other than namespaces) always match. A namespace being created or updated is matched on the
 * labels it is written with; anything else on the stored namespace's.
 */
export async function matchesNamespaceSelector(selector: LabelSelectorObject | undefined, a: AdmissionAttributes, namespaceLabels: NamespaceLabels): Promise<boolean> {
  const isNamespace = a.type.group === "" && a.type.resource === "namespaces";
  const ns = requestNamespace(a);
  if (ns === "" && !isNamespace) return true;
  const parsed = labelSelectorFromObject(selector ?? {});
  if (parsed.isEmpty()) return true;
  if (isNamespace && a.subresource === "" && (a.operation === "CREATE" || a.operation === "UPDATE")) {
    return parsed.matches(a.object?.metadata.labels ?? {});
  }
  const labels = await namespaceLabels(ns);
  if (labels === undefined) throw new NamespaceNotFound(ns);
  return parsed.matches(labels);
}

const labelsOf = (o: KObject | undefined) => o?.metadata?.labels ?? {};

/** Whether the new or the old object carries labels the selector selects. */
export function matchesObjectSelector(selector: LabelSelectorObject | undefined, a: AdmissionAttributes): boolean {
  const parsed = labelSelectorFromObject(selector ?? {});
  if (parsed.isEmpty()) return true;
  return (!!a.object && parsed.matches(labelsOf(a.object))) || (!!a.oldObject && parsed.matches(labelsOf(a.oldObject)));
}

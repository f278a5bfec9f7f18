// The SubjectAccessReview spec (authorization.k8s.io/v1) the webhook authorizer builds from a
// request's attributes. It is kept whole — every string, the groups and the extra present even
// when empty — because match conditions read it that way; the wire form (and the cache key)
// drops the empty fields as Go's omitempty does.
import type { FieldRequirement } from "../../apimachinery/fields.js";
import type { LabelRequirement } from "../../apimachinery/labels.js";
import type { Attributes } from "../authorizer.js";

export type SarVersion = "v1" | "v1beta1";

export interface SelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values: string[];
}

export interface ReviewResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
  /** Only with AuthorizeWithSelectors, and only when the request's selector yielded requirements. */
  fieldSelector?: { requirements: SelectorRequirement[] };
  labelSelector?: { requirements: SelectorRequirement[] };
}

export interface ReviewSpec {
  resourceAttributes?: ReviewResourceAttributes;
  nonResourceAttributes?: { path: string; verb: string };
  user: string;
  groups: string[];
  extra: Record<string, string[]>;
  uid: string;
}

function fieldRequirements(reqs: readonly FieldRequirement[] | undefined): SelectorRequirement[] {
  return (reqs ?? []).map((r) => ({ key: r.field, operator: r.operator === "=" ? "In" : "NotIn", values: [r.value] }));
}

function labelRequirements(reqs: readonly LabelRequirement[] | undefined): SelectorRequirement[] {
  const out: SelectorRequirement[] = [];
  for (const r of reqs ?? []) {
    switch (r.operator) {
      case "=":
      case "==":
      case "in":
        out.push({ key: r.key, operator: "In", values: [...r.values] });
        break;
      case "!=":
      case "notin":
        out.push({ key: r.key, operator: "NotIn", values: [...r.values] });
        break;
      case "exists":
        out.push({ key: r.key, operator: "Exists", values: [] });
        break;
      case "!":
        out.push({ key: r.key, operator: "DoesNotExist", values: [] });
        break;
      default: // gt, lt: left out (requirements are ANDed, so leaving one out only widens the check)
    }
  }
  return out;
}

/** The whole spec of the review that asks about `a`. */
export function reviewSpecOf(a: Attributes, authorizeWithSelectors: boolean): ReviewSpec {
  const spec: ReviewSpec = { user: a.user.name, groups: [...a.user.groups], extra: { ...(a.user.extra ?? {}) }, uid: a.user.uid ?? "" };
  if (!a.isResourceRequest) {
    spec.nonResourceAttributes = { path: a.path, verb: a.verb };
    return spec;
  }
  const ra: ReviewResourceAttributes = {
    namespace: a.namespace,
    verb: a.verb,
    group: a.apiGroup,
    version: a.apiVersion,
    resource: a.resource,
    subresource: a.subresource,
    name: a.name,
  };
  if (authorizeWithSelectors) {
    // Requirements that did parse travel even when part of the selector did not: they only narrow.
    const f = fieldRequirements(a.fieldSelector?.requirements);
    if (f.length > 0) ra.fieldSelector = { requirements: f };
    const l = labelRequirements(a.labelSelector?.requirements);
    if (l.length > 0) ra.labelSelector = { requirements: l };
  }
  spec.resourceAttributes = ra;
  return spec;
}

const dropEmpty = (o: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === "" || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
};

/** The spec as v1 JSON: Go's field order, empty fields omitted. */
export function omitEmpty(spec: ReviewSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (spec.resourceAttributes) {
    const { fieldSelector, labelSelector, ...strings } = spec.resourceAttributes;
    const ra = dropEmpty(strings);
    if (fieldSelector) ra.fieldSelector = { requirements: fieldSelector.requirements.map(dropEmpty) };
    if (labelSelector) ra.labelSelector = { requirements: labelSelector.requirements.map(dropEmpty) };
    out.resourceAttributes = ra;
  }
  if (spec.nonResourceAttributes) out.nonResourceAttributes = dropEmpty(spec.nonResourceAttributes);
  if (spec.user) out.user = spec.user;
  if (spec.groups.length > 0) out.groups = [...spec.groups];
  if (Object.keys(spec.extra).length > 0) out.extra = spec.extra;
  if (spec.uid) out.uid = spec.uid;
  return out;
}

/** The spec in the wire form of the configured version (v1beta1 names the groups `group`). */
export function wireSpec(spec: ReviewSpec, version: SarVersion): Record<string, unknown> {
  const v1 = omitEmpty(spec);
  if (version === "v1") return v1;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(v1)) out[k === "groups" ? "group" : k] = v;
  return out;
}

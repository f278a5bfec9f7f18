// The authorization attributes of a request, as upstream's GetAuthorizerAttributes builds them
// from the request info: with AuthorizeWithSelectors the raw field and label selectors of
// list/watch/deletecollection are parsed here (requirements, or the parse error); a selector with
// no requirements is left out.
import { parseFieldSelector } from "../apimachinery/fields.js";
import { parseLabelSelector } from "../apimachinery/labels.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { RequestInfo } from "../http/request-info.js";
import type { Attributes } from "./authorizer.js";

/** A SubjectAccessReview's selector: as written, or as requirements (authorization.k8s.io/v1). */
export interface ReviewSelector {
  rawSelector?: string;
  requirements?: { key?: string; operator?: string; values?: string[] }[];
}

/**
 * The selectors of an access review's resourceAttributes, as upstream's ResourceAttributesFrom
 * reads them: a raw selector is parsed; requirements are converted (a field requirement takes
 * In or NotIn with exactly one value); what cannot be read travels as the selector's error.
 */
export function reviewSelectors(field: ReviewSelector | undefined, label: ReviewSelector | undefined): Pick<Attributes, "fieldSelector" | "labelSelector"> {
  const out: Pick<Attributes, "fieldSelector" | "labelSelector"> = {};
  if (field && (field.rawSelector || field.requirements?.length)) {
    if (field.rawSelector) out.fieldSelector = parsedField(field.rawSelector);
    else {
      const requirements = [];
      let error: string | undefined;
      for (const r of field.requirements ?? []) {
        const values = r.values ?? [];
        if ((r.operator === "In" || r.operator === "NotIn") && values.length === 1) {
          requirements.push({ field: r.key ?? "", operator: r.operator === "In" ? ("=" as const) : ("!=" as const), value: values[0]! });
        } else error ??= `fieldSelectors do not yet support multiple values or the ${r.operator} operator: ${r.key}`;
      }
      out.fieldSelector = error ? { raw: "", error } : { raw: "", requirements };
    }
  }
  if (label && (label.rawSelector || label.requirements?.length)) {
    if (label.rawSelector) out.labelSelector = parsedLabel(label.rawSelector);
    else {
      const ops: Record<string, "in" | "notin" | "exists" | "!"> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };
      const requirements = [];
      let error: string | undefined;
      for (const r of label.requirements ?? []) {
        const op = ops[r.operator ?? ""];
        if (op) requirements.push({ key: r.key ?? "", operator: op, values: [...(r.values ?? [])] });
        else error ??= `${JSON.stringify(r.operator ?? "")} is not a valid label selector operator`;
      }
      out.labelSelector = error ? { raw: "", error } : { raw: "", requirements };
    }
  }
  return out;
}

function parsedField(raw: string): NonNullable<Attributes["fieldSelector"]> {
  try {
    return { raw, requirements: parseFieldSelector(raw).requirements() };
  } catch (e) {
    return { raw, error: (e as Error).message };
  }
}

function parsedLabel(raw: string): NonNullable<Attributes["labelSelector"]> {
  try {
    return { raw, requirements: parseLabelSelector(raw).requirements() };
  } catch (e) {
    return { raw, error: (e as Error).message };
  }
}

export function attributesFor(user: UserInfo, info: RequestInfo): Attributes {
  const a: Attributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
  if (info.fieldSelector) {
    const f = parsedField(info.fieldSelector);
    if (f.error || f.requirements!.length > 0) a.fieldSelector = f;
  }
  if (info.labelSelector) {
    const l = parsedLabel(info.labelSelector);
    if (l.error || l.requirements!.length > 0) a.labelSelector = l;
  }
  return a;
}

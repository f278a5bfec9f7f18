// RBAC validation (upstream pkg/apis/rbac/validation).
import { invalid, isValidPathSegmentName, notSupported, required, type FieldError } from "../../apimachinery/validation.js";
import { arr, index, isObj, obj, str, type Obj } from "./helpers.js";
import { deepEqual } from "../../apimachinery/json-value.js";
import { isDNS1123Subdomain } from "../../apimachinery/validation.js";
import { labelSelectorFromObject, validateLabelSelector, type LabelSelectorObject } from "../../apimachinery/labels.js";

const rbacGroup = "rbac.authorization.k8s.io";

function validateRule(rule: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arr(rule.verbs).length === 0) errs.push(required(`${path}.verbs`, "verbs must contain at least one value"));
  if (arr(rule.nonResourceURLs).length > 0) {
    if (namespaced) errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, "namespaced rules cannot apply to non-resource URLs"));
    if (arr(rule.apiGroups).length > 0 || arr(rule.resources).length > 0 || arr(rule.resourceNames).length > 0) {
      errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errs;
  }
  if (arr(rule.apiGroups).length === 0) errs.push(required(`${path}.apiGroups`, "resource rules must supply at least one api group"));
  if (arr(rule.resources).length === 0) errs.push(required(`${path}.resources`, "resource rules must supply at least one resource"));
  if (arr(rule.resourceNames).length > 0 && arr(rule.resources).length > 1) {
    errs.push(required(`${path}.resourceNames`, "resource names cannot apply to multiple resources"));
  }
  return errs;
}

export function validateRole(o: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  arr(o.rules).forEach((r, i) => errs.push(...validateRule(obj(r), namespaced, index("rules", i))));
  if (!namespaced && o.aggregationRule !== undefined && o.aggregationRule !== null) {
    // Upstream ValidateClusterRole: at least one selector, each a valid label selector.
    const selectors = arr(obj(o.aggregationRule).clusterRoleSelectors);
    if (selectors.length === 0) errs.push(required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    selectors.forEach((sel, i) => {
      const path = index("aggregationRule.clusterRoleSelectors", i);
      const s = (isObj(sel) ? sel : {}) as LabelSelectorObject;
      errs.push(...validateLabelSelector(s, path));
      try {
        labelSelectorFromObject(s);
      } catch {
        errs.push(invalid(path, sel, "invalid label selector."));
      }
    });
  }
  return errs;
}

function validateSubject(s: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s.name);
  if (name === "") errs.push(required(`${path}.name`, ""));
  const group = str(s.apiGroup);
  switch (s.kind) {
    case "ServiceAccount":
      if (name) for (const m of isDNS1123Subdomain(name)) errs.push(invalid(`${path}.name`, name, m));
      if (group) errs.push(notSupported(`${path}.apiGroup`, group, [""]));
      if (!namespaced && !str(s.namespace)) errs.push(required(`${path}.namespace`, ""));
      break;
    case "User":
    case "Group":
      if (name === "") errs.push(invalid(`${path}.name`, name, `${s.kind === "User" ? "user" : "group"} name cannot be empty`));
      if (group !== rbacGroup) errs.push(notSupported(`${path}.apiGroup`, group, [rbacGroup]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, str(s.kind), ["ServiceAccount", "User", "Group"]));
  }
  return errs;
}

export function validateBinding(o: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(o.roleRef);
  if (str(ref.apiGroup) !== rbacGroup) errs.push(notSupported("roleRef.apiGroup", str(ref.apiGroup), [rbacGroup]));
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(str(ref.kind))) errs.push(notSupported("roleRef.kind", str(ref.kind), kinds));
  const name = str(ref.name);
  if (name === "") errs.push(required("roleRef.name", ""));
  else for (const m of isValidPathSegmentName(name)) errs.push(invalid("roleRef.name", name, m));
  arr(o.subjects).forEach((s, i) => errs.push(...validateSubject(isObj(s) ? s : {}, namespaced, index("subjects", i))));
  return errs;
}

/** The internal RoleRef as upstream renders it in "cannot change roleRef". */
const roleRefValue = (ref: Obj) => ({ APIGroup: str(ref.apiGroup), Kind: str(ref.kind), Name: str(ref.name) });

export function validateBindingUpdate(o: Obj, old: Obj, namespaced: boolean): FieldError[] {
  const errs = validateBinding(o, namespaced);
  if (!deepEqual(roleRefValue(obj(o.roleRef)), roleRefValue(obj(old.roleRef)))) {
    errs.push(invalid("roleRef", roleRefValue(obj(o.roleRef)), "cannot change roleRef"));
  }
  return errs;
}

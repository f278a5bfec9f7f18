// Defaults and API validation of the policy objects (upstream: pkg/apis/admissionregistration
// v1 defaults and validation ValidateValidatingAdmissionPolicy / ...Binding): what a create or
// update of a policy is refused for, in upstream's field errors. Expressions are compiled as
// admission will compile them; a compile error is `Invalid value: "<expr>": compilation failed: ...`.
// Rule contents (operations, groups, resources) are left to the shared rule validation.
import { validateLabelSelector } from "../../apimachinery/labels.js";
import { duplicate, forbidden, GoSyntaxValue, invalid, isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName, notSupported, required, tooMany, type FieldError } from "../../apimachinery/validation.js";
import { compileExpression, policyEnvironments, type ReturnKind } from "./compile.js";
import { compileMutation } from "./mutating/compiled.js";
import type { NamedExpression, PolicyBinding, ValidatingAdmissionPolicy } from "./types.js";

type Obj = Record<string, any>;

function defaultMatchResources(mr: Obj | undefined): void {
  if (!mr || typeof mr !== "object") return;
  mr.matchPolicy ??= "Equivalent";
  mr.namespaceSelector ??= {};
  mr.objectSelector ??= {};
  for (const list of [mr.resourceRules, mr.excludeResourceRules]) {
    if (Array.isArray(list)) for (const r of list) if (r && typeof r === "object") r.scope ??= "*";
  }
}

/** v1 defaults: failurePolicy Fail; matchConstraints matchPolicy Equivalent, empty selectors, rule scope "*". */
export function defaultAdmissionPolicy(o: Obj): void {
  if (!o.spec || typeof o.spec !== "object") return;
  o.spec.failurePolicy ??= "Fail";
  defaultMatchResources(o.spec.matchConstraints);
}

export function defaultPolicyBinding(o: Obj): void {
  if (!o.spec || typeof o.spec !== "object") return;
  defaultMatchResources(o.spec.matchResources);
}

const supportedFailurePolicies = ["Fail", "Ignore"];
const supportedMatchPolicies = ["Equivalent", "Exact"];
const supportedReasons = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"];
const validationActions = ["Audit", "Deny", "Warn"];
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;
const celReserved = new Set(["true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"]);
const isCelIdentifier = (s: string) => /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(s) && !celReserved.has(s);

function validateMatchResources(mr: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!mr) return errs;
  if (mr.matchPolicy === undefined || mr.matchPolicy === null) errs.push(required(`${path}.matchPolicy`, ""));
  else if (!supportedMatchPolicies.includes(mr.matchPolicy)) errs.push(notSupported(`${path}.matchPolicy`, mr.matchPolicy, supportedMatchPolicies));
  for (const sel of ["namespaceSelector", "objectSelector"]) {
    if (!mr[sel]) errs.push(required(`${path}.${sel}`, ""));
    else errs.push(...validateLabelSelector(mr[sel], `${path}.${sel}`));
  }
  for (const list of ["resourceRules", "excludeResourceRules"]) {
    (mr[list] ?? []).forEach((r: Obj, i: number) => {
      const seen = new Set<string>();
      (r.resourceNames ?? []).forEach((n: string, j: number) => {
        const p = `${path}.${list}[${i}].resourceNames[${j}]`;
        for (const msg of isValidPathSegmentName(n)) errs.push(invalid(p, n, msg));
        if (seen.has(n)) errs.push(duplicate(p, n));
        seen.add(n);
      });
    });
  }
  return errs;
}

/** A compile error as a field error (upstream convertCELErrorToValidationError). */
function compiles(expression: string, env: Parameters<typeof compileExpression>[1], kinds: readonly ReturnKind[], path: string): FieldError[] {
  const c = compileExpression(expression, env, kinds);
  return c.error ? [invalid(path, expression, c.error.replace(/^compilation error: /, ""))] : [];
}

function validateParamKind(k: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion: string = k.apiVersion ?? "";
  if (!apiVersion) errs.push(required(`${path}.apiVersion`, ""));
  else {
    const parts = apiVersion.split("/");
    if (parts.length > 2) errs.push(invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = parts.length === 1 ? ["", parts[0]!] : [parts[0]!, parts[1]!];
      if (group) {
        const e = isDNS1123Subdomain(group);
        if (e.length) errs.push(invalid(`${path}.apiVersion`, group, e.join(",")));
      }
      if (!version) errs.push(invalid(`${path}.apiVersion`, apiVersion, "version must be specified"));
      else {
        const e = isDNS1035Label(version);
        if (e.length) errs.push(invalid(`${path}.apiVersion`, version, e.join(",")));
      }
    }
  }
  const kind: string = k.kind ?? "";
  if (!kind) errs.push(required(`${path}.kind`, ""));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length) errs.push(invalid(`${path}.kind`, kind, "may have mixed case, but should otherwise match: " + e.join(",")));
  }
  return errs;
}

function validateMatchConditions(conditions: NamedExpression[] | undefined, env: Parameters<typeof compileExpression>[1], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = conditions ?? [];
  if (list.length > 64) errs.push(tooMany(path, list.length, 64));
  const names = new Set<string>();
  list.forEach((m, i) => {
    const p = `${path}[${i}]`;
    const expr = (m.expression ?? "").trim();
    if (!expr) errs.push(required(`${p}.expression`, ""));
    else errs.push(...compiles(expr, env, ["bool"], `${p}.expression`));
    if (!m.name) errs.push(required(`${p}.name`, ""));
    else {
      for (const msg of isQualifiedName(m.name)) errs.push(invalid(`${p}.name`, m.name, msg));
      if (names.has(m.name)) errs.push(duplicate(`${p}.name`, m.name));
      names.add(m.name);
    }
  });
  return errs;
}

/** What both policy kinds validate alike: failurePolicy, paramKind, matchConstraints, matchConditions, variables. */
function validatePolicyCommon(spec: Obj, envs: ReturnType<typeof policyEnvironments>, variables: NamedExpression[]): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(required("spec.failurePolicy", ""));
  else if (!supportedFailurePolicies.includes(spec.failurePolicy)) errs.push(notSupported("spec.failurePolicy", spec.failurePolicy, supportedFailurePolicies));
  if (spec.paramKind) errs.push(...validateParamKind(spec.paramKind, "spec.paramKind"));
  if (!spec.matchConstraints) errs.push(required("spec.matchConstraints", ""));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, "spec.matchConstraints"));
    if (!spec.matchConstraints.resourceRules?.length) errs.push(required("spec.matchConstraints.resourceRules", ""));
  }
  errs.push(...validateMatchConditions(spec.matchConditions, envs.withAuthorizer, "spec.matchConditions"));
  variables.forEach((v, i) => {
    const path = `spec.variables[${i}]`;
    if (!v?.name?.trim()) errs.push(required(`${path}.name`, "name is not specified"));
    else if (!isCelIdentifier(v.name)) errs.push(invalid(`${path}.name`, v.name, "name is not a valid CEL identifier"));
    if (!v?.expression?.trim()) errs.push(required(`${path}.expression`, "expression is not specified"));
    else {
      const compiled = envs.variables.find((c) => c.name === v.name && c.expression === v.expression);
      if (compiled?.error) errs.push(invalid(`${path}.expression`, v.expression, compiled.error.replace(/^compilation error: /, "")));
    }
  });
  return errs;
}

export function validateValidatingAdmissionPolicy(o: Obj): FieldError[] {
  const p = o as ValidatingAdmissionPolicy & Obj;
  const spec: Obj = p.spec ?? {};
  const variables: NamedExpression[] = Array.isArray(spec.variables) ? spec.variables : [];
  const envs = policyEnvironments(!!spec.paramKind, variables.filter((v) => v?.name && v?.expression));
  const errs = validatePolicyCommon(spec, envs, variables);
  const validations: Obj[] = spec.validations ?? [];
  const audit: Obj[] = spec.auditAnnotations ?? [];
  if (validations.length === 0 && audit.length === 0) {
    errs.push(required("spec.validations", "validations or auditAnnotations must contain at least one item"));
    errs.push(required("spec.auditAnnotations", "validations or auditAnnotations must contain at least one item"));
    return errs;
  }
  validations.forEach((v, i) => {
    const path = `spec.validations[${i}]`;
    const expr: string = v.expression ?? "";
    if (!expr.trim()) errs.push(required(`${path}.expression`, "expression is not specified"));
    else errs.push(...compiles(expr, envs.withAuthorizer, ["bool"], `${path}.expression`));
    const me: string = v.messageExpression ?? "";
    if (me.length > 0 && !me.trim()) errs.push(invalid(`${path}.messageExpression`, me, "must be non-empty if specified"));
    else if (me.trim()) errs.push(...compiles(me, envs.withoutAuthorizer, ["string"], `${path}.messageExpression`));
    const msg: string = v.message ?? "";
    if (msg.length > 0 && !msg.trim()) errs.push(invalid(`${path}.message`, msg, "message must be non-empty if specified"));
    else if (/[\n\r]/.test(msg.trim())) errs.push(invalid(`${path}.message`, msg, "message must not contain line breaks"));
    if (v.reason !== undefined && v.reason !== null && !supportedReasons.includes(v.reason)) errs.push(notSupported(`${path}.reason`, v.reason, supportedReasons));
  });
  if (audit.length > maxAuditAnnotations) errs.push(invalid("spec.auditAnnotations", audit, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  const keys = new Set<string>();
  const name: string = p.metadata?.name ?? "";
  audit.forEach((a, i) => {
    const path = `spec.auditAnnotations[${i}]`;
    if (name) for (const msg of isQualifiedName(`${name}/${a.key ?? ""}`)) errs.push(invalid(`${path}.key`, `${name}/${a.key ?? ""}`, msg));
    else errs.push(invalid(`${path}.key`, a.key, "requires metadata.name be non-empty"));
    const ve: string = (a.valueExpression ?? "").trim();
    if (!ve) errs.push(required(`${path}.valueExpression`, "valueExpression is not specified"));
    else if (ve.length > maxAuditAnnotationValueExpressionLength) errs.push(required(`${path}.valueExpression`, `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
    else {
      const c = compileExpression(ve, envs.withAuthorizer, ["string", "null"]);
      if (c.error) errs.push(invalid(`${path}.valueExpression`, a.valueExpression, c.error.replace(/^compilation error: /, "")));
    }
    if (keys.has(a.key)) errs.push(duplicate(`${path}.key`, a.key));
    keys.add(a.key);
  });
  return errs;
}

function validateParamRef(pr: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!pr) return errs;
  if (pr.name) {
    for (const msg of isValidPathSegmentName(pr.name)) errs.push(invalid(`${path}.name`, pr.name, msg));
    if (pr.selector) errs.push(forbidden(`${path}.name`, "name and selector are mutually exclusive"));
  }
  if (pr.selector) {
    errs.push(...validateLabelSelector(pr.selector, `${path}.selector`));
    if (pr.name) errs.push(forbidden(`${path}.selector`, "name and selector are mutually exclusive"));
  }
  if (!pr.name && !pr.selector) errs.push(required(path, "one of name or selector must be specified"));
  if (!pr.parameterNotFoundAction) errs.push(required(`${path}.parameterNotFoundAction`, ""));
  else if (pr.parameterNotFoundAction !== "Deny" && pr.parameterNotFoundAction !== "Allow") errs.push(notSupported(`${path}.parameterNotFoundAction`, pr.parameterNotFoundAction, ["Deny", "Allow"]));
  return errs;
}

export function validateValidatingAdmissionPolicyBinding(o: Obj): FieldError[] {
  const spec: Obj = (o as PolicyBinding & Obj).spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push(required("spec.policyName", ""));
  else for (const msg of isDNS1123Subdomain(spec.policyName)) errs.push(invalid("spec.policyName", spec.policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, "spec.paramRef"));
  errs.push(...validateMatchResources(spec.matchResources, "spec.matchResources"));
  const actions: string[] = spec.validationActions ?? [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!validationActions.includes(a)) errs.push(notSupported(`spec.validationActions[${i}]`, a, validationActions));
    if (seen.has(a)) errs.push(duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has("Deny") && seen.has("Warn")) errs.push(invalid("spec.validationActions", new GoSyntaxValue(`[]admissionregistration.ValidationAction{${actions.map((a) => JSON.stringify(a)).join(", ")}}`), "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"));
  if (seen.size === 0) errs.push(required("spec.validationActions", "at least one validation action is required"));
  return errs;
}

const patchTypes = ["ApplyConfiguration", "JSONPatch"];
const reinvocationPolicies = ["IfNeeded", "Never"];

/**
 * MutatingAdmissionPolicy: the parts it shares with ValidatingAdmissionPolicy, and each mutation's
 * expression compiled as admission compiles it (an `Object{...}` or a list of `JSONPatch{...}`).
 */
export function validateMutatingAdmissionPolicy(o: Obj): FieldError[] {
  const spec: Obj = o.spec ?? {};
  const variables: NamedExpression[] = Array.isArray(spec.variables) ? spec.variables : [];
  const envs = policyEnvironments(!!spec.paramKind, variables.filter((v) => v?.name && v?.expression), undefined, true);
  const errs = validatePolicyCommon(spec, envs, variables);
  if (spec.reinvocationPolicy !== undefined && spec.reinvocationPolicy !== null && !reinvocationPolicies.includes(spec.reinvocationPolicy)) {
    errs.push(notSupported("spec.reinvocationPolicy", spec.reinvocationPolicy, reinvocationPolicies));
  }
  (spec.mutations ?? []).forEach((m: Obj, i: number) => {
    const path = `spec.mutations[${i}]`;
    if (!patchTypes.includes(m?.patchType)) {
      errs.push(m?.patchType ? notSupported(`${path}.patchType`, m.patchType, patchTypes) : required(`${path}.patchType`, ""));
      return;
    }
    const field = m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
    const expr: string = m[field]?.expression ?? "";
    if (!expr.trim()) {
      errs.push(required(`${path}.${field}.expression`, ""));
      return;
    }
    const c = compileMutation(expr, m.patchType, envs.withAuthorizer);
    if (c.compiled.error) errs.push(invalid(`${path}.${field}.expression`, expr, c.compiled.error));
  });
  return errs;
}

/** A MutatingAdmissionPolicyBinding: policyName, paramRef and matchResources as a ValidatingAdmissionPolicyBinding's. */
export function validateMutatingAdmissionPolicyBinding(o: Obj): FieldError[] {
  const spec: Obj = o.spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push(required("spec.policyName", ""));
  else for (const msg of isDNS1123Subdomain(spec.policyName)) errs.push(invalid("spec.policyName", spec.policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, "spec.paramRef"));
  errs.push(...validateMatchResources(spec.matchResources, "spec.matchResources"));
  return errs;
}


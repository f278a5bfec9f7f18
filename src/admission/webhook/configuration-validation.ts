// Validation of Mutating/ValidatingWebhookConfiguration (upstream
// pkg/apis/admissionregistration/validation, util/webhook validation). On create only side-effect
// classes None and NoneOnDryRun, and review versions this server knows, are accepted; an update
// keeps accepting what the stored object already had (as upstream's update options do).
import { labelSelectorFromObject, validateLabelSelector, type LabelSelectorObject } from "../../apimachinery/labels.js";
import { duplicate, invalid, isDNS1035Label, isDNS1123Subdomain, isQualifiedName, notSupported, required, tooMany, type FieldError } from "../../apimachinery/validation.js";
import { compileConditions } from "./conditions.js";
import { arr, child, index, isObj, obj, str, type Obj } from "../../types/validation/helpers.js";
import { goQuote } from "../../apimachinery/go-quote.js";

const acceptedReviewVersions = ["v1", "v1beta1"];
const failurePolicies = ["Fail", "Ignore"];
const matchPolicies = ["Equivalent", "Exact"];
const allSideEffects = ["None", "NoneOnDryRun", "Some", "Unknown"];
const noSideEffects = ["None", "NoneOnDryRun"];
const operations = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const scopes = ["*", "Cluster", "Namespaced"];
const reinvocationPolicies = ["IfNeeded", "Never"];
const maxMatchConditions = 64;

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
}

const createOptions: Options = { requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true };

/** The options an update gets: strict only where the stored object already complied. */
function updateOptions(old: Obj): Options {
  const hooks = arr(old.webhooks).map(obj);
  const names = hooks.map((h) => str(h.name));
  return {
    requireNoSideEffects: hooks.every((h) => noSideEffects.includes(str(h.sideEffects))),
    requireRecognizedReviewVersion: hooks.every((h) => arr(h.admissionReviewVersions).length === 0 || arr(h.admissionReviewVersions).some((v) => acceptedReviewVersions.includes(str(v)))),
    requireUniqueNames: new Set(names).size === names.length,
  };
}

export function validateWebhookConfiguration(o: Obj, mutating: boolean, old?: Obj): FieldError[] {
  const opts = old ? updateOptions(old) : createOptions;
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(o.webhooks).forEach((h, i) => {
    const hook = obj(h);
    const path = index("webhooks", i);
    errs.push(...validateWebhook(hook, path, mutating, opts));
    errs.push(...validateReviewVersions(arr(hook.admissionReviewVersions), child(path, "admissionReviewVersions"), opts.requireRecognizedReviewVersion));
    const name = str(hook.name);
    if (opts.requireUniqueNames && name) {
      if (seen.has(name)) errs.push(duplicate(child(path, "name"), name));
      seen.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: Obj, path: string, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [...fullyQualifiedName(str(hook.name), child(path, "name"))];
  arr(hook.rules).forEach((r, i) => errs.push(...validateRule(obj(r), index(child(path, "rules"), i))));
  const enumField = (field: string, values: string[]) => {
    if (hook[field] !== undefined && hook[field] !== null && !values.includes(str(hook[field]))) errs.push(notSupported(child(path, field), hook[field], values));
  };
  enumField("failurePolicy", failurePolicies);
  enumField("matchPolicy", matchPolicies);
  const allowed = opts.requireNoSideEffects ? noSideEffects : allSideEffects;
  if (hook.sideEffects === undefined || hook.sideEffects === null) errs.push(required(child(path, "sideEffects"), `must specify one of ${allowed.join(", ")}`));
  else if (!allowed.includes(str(hook.sideEffects))) errs.push(notSupported(child(path, "sideEffects"), hook.sideEffects, allowed));
  if (typeof hook.timeoutSeconds === "number" && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(invalid(child(path, "timeoutSeconds"), hook.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"));
  }
  for (const sel of ["namespaceSelector", "objectSelector"]) {
    if (!isObj(hook[sel])) continue;
    const selErrs = validateLabelSelector(hook[sel] as LabelSelectorObject, child(path, sel));
    errs.push(...selErrs);
    if (selErrs.length === 0) {
      try {
        labelSelectorFromObject(hook[sel] as LabelSelectorObject);
      } catch (e) {
        errs.push(invalid(child(path, sel), hook[sel], (e as Error).message));
      }
    }
  }
  if (mutating) enumField("reinvocationPolicy", reinvocationPolicies);
  errs.push(...validateClientConfig(obj(hook.clientConfig), child(path, "clientConfig")));
  errs.push(...validateMatchConditions(arr(hook.matchConditions), child(path, "matchConditions")));
  return errs;
}

/** upstream IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function fullyQualifiedName(name: string, path: string): FieldError[] {
  if (name === "") return [required(path, "")];
  const sub = isDNS1123Subdomain(name);
  if (sub.length > 0) return [invalid(path, name, sub.join(","))];
  if (name.split(".").length < 3) return [invalid(path, name, "should be a domain with at least three segments separated by dots")];
  return [];
}

function validateReviewVersions(versions: unknown[], path: string, requireRecognized: boolean): FieldError[] {
  if (versions.length === 0) return [required(path, `must specify one of ${acceptedReviewVersions.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((raw, i) => {
    const v = str(raw);
    if (seen.has(v)) {
      errs.push(invalid(index(path, i), v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, m));
  });
  if (requireRecognized && !versions.some((v) => acceptedReviewVersions.includes(str(v)))) {
    errs.push(invalid(path, versions, `must include at least one of ${acceptedReviewVersions.join(", ")}`));
  }
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule.operations).map(str);
  if (ops.length === 0) errs.push(required(child(path, "operations"), ""));
  if (ops.length > 1 && ops.includes("*")) errs.push(invalid(child(path, "operations"), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!operations.includes(op)) errs.push(notSupported(index(child(path, "operations"), i), op, operations));
  });
  const groups = arr(rule.apiGroups).map(str);
  if (groups.length === 0) errs.push(required(child(path, "apiGroups"), ""));
  if (groups.length > 1 && groups.includes("*")) errs.push(invalid(child(path, "apiGroups"), groups, "if '*' is present, must not specify other API groups"));
  const versions = arr(rule.apiVersions).map(str);
  if (versions.length === 0) errs.push(required(child(path, "apiVersions"), ""));
  if (versions.length > 1 && versions.includes("*")) errs.push(invalid(child(path, "apiVersions"), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === "") errs.push(required(index(child(path, "apiVersions"), i), ""));
  });
  const resources = arr(rule.resources).map(str);
  if (resources.length === 0) errs.push(required(child(path, "resources"), ""));
  resources.forEach((r, i) => {
    if (r === "") errs.push(required(index(child(path, "resources"), i), ""));
  });
  if (rule.scope !== undefined && rule.scope !== null && !scopes.includes(str(rule.scope))) errs.push(notSupported(child(path, "scope"), rule.scope, scopes));
  return errs;
}

function validateClientConfig(cc: Obj, path: string): FieldError[] {
  const hasUrl = typeof cc.url === "string";
  const hasService = isObj(cc.service);
  if (hasUrl === hasService) return [required(path, "exactly one of url or service is required")];
  if (hasUrl) return validateURL(cc.url as string, child(path, "url"));
  const svc = obj(cc.service);
  const sp = child(path, "service");
  const errs: FieldError[] = [];
  if (!str(svc.name)) errs.push(required(child(sp, "name"), "service name is required"));
  if (!str(svc.namespace)) errs.push(required(child(sp, "namespace"), "service namespace is required"));
  if (typeof svc.port === "number" && (svc.port < 1 || svc.port > 65535 || !Number.isInteger(svc.port))) {
    errs.push(invalid(child(sp, "port"), svc.port, "port is not valid: must be between 1 and 65535, inclusive"));
  }
  if (typeof svc.path === "string") errs.push(...validatePath(svc.path, child(sp, "path")));
  return errs;
}

function validateURL(raw: string, path: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    if (raw === "" || /^https?:\/\/\/?$/.test(raw) || /^https?:\/\/\//.test(raw)) return [invalid(path, "", "host must be specified")];
    return [invalid(path, raw, `url must be a valid URL: parse ${goQuote(raw)}: invalid URL`)];
  }
  const errs: FieldError[] = [];
  if (u.protocol !== "https:") errs.push(invalid(path, u.protocol.replace(/:$/, ""), "'https' is the only allowed URL scheme"));
  if (u.host === "") errs.push(invalid(path, u.host, "host must be specified"));
  if (u.username || u.password) errs.push(invalid(path, u.password ? `${u.username}:${u.password}` : u.username, "user information is not permitted in the URL"));
  if (u.hash.length > 1) errs.push(invalid(path, u.hash.slice(1), "fragments are not permitted in the URL"));
  if (u.search.length > 1) errs.push(invalid(path, u.search.slice(1), "query parameters are not permitted in the URL"));
  return errs;
}

function validatePath(p: string, path: string): FieldError[] {
  if (!p.startsWith("/")) return [invalid(path, p, "must start with a '/'")];
  if (p === "/") return [];
  const errs: FieldError[] = [];
  p.slice(1).replace(/\/$/, "").split("/").forEach((step, i) => {
    if (step === "") errs.push(invalid(path, p, `segment[${i}] may not be empty`));
    else for (const m of isDNS1123Subdomain(step)) errs.push(invalid(path, p, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateMatchConditions(conditions: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errs.push(tooMany(path, conditions.length, maxMatchConditions));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const cond = obj(c);
    const p = index(path, i);
    const name = str(cond.name);
    if (name === "") errs.push(required(child(p, "name"), ""));
    else {
      for (const m of isQualifiedName(name)) errs.push(invalid(child(p, "name"), name, m));
      if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
      names.add(name);
    }
    const expression = str(cond.expression);
    if (expression.trim() === "") {
      errs.push(required(child(p, "expression"), ""));
      return;
    }
    const [compiled] = compileConditions([{ name, expression }]);
    if (compiled?.compileError) errs.push(invalid(child(p, "expression"), expression, compiled.compileError));
  });
  return errs;
}

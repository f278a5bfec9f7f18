// Validation of FlowSchema and PriorityLevelConfiguration, with upstream's messages
// (k8s.io/kubernetes pkg/apis/flowcontrol/validation, release 1.34). Values Go prints with %#v
// (string slices, the internal distinguisher struct) are rendered as Go does.
import { GoSyntaxValue, duplicate, forbidden, invalid, notSupported, required, validateName, type FieldError } from "../../apimachinery/validation.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { catchAllName, exemptName, mandatoryFlowSchemas, mandatoryPriorityLevels, sameSpec } from "../flowcontrol-bootstrap.js";
import { arr, child, index, isObj, obj, str, type Obj } from "./helpers.js";

const maxMatchingPrecedence = 10000;
const maxQueues = 10_000_000;
/** Shuffle sharding takes its cards from 60 bits of the flow's hash. */
export const maxHashBits = 60;
const supportedVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"];
const subjectKinds = ["Group", "ServiceAccount", "User"];
const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

const goStrings = (list: readonly unknown[]) => new GoSyntaxValue(`[]string{${list.map((s) => goQuote(str(s))).join(", ")}}`);
const hasWildcard = (list: readonly unknown[]) => list.includes("*");

/** Bits of entropy a hand of `handSize` cards from a deck of `deckSize` takes (upstream RequiredEntropyBits). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

export function validateFlowSchema(o: Obj): FieldError[] {
  const name = str(o.metadata?.name);
  const spec = obj(o.spec);
  const errs = validateFlowSchemaSpec(name, spec, "spec");
  const mandatory = mandatoryFlowSchemas().find((m) => m.metadata.name === name);
  if (mandatory && !sameSpec(spec, mandatory.spec)) errs.push(invalid("spec", spec, `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(o.status, "status"));
  return errs;
}

function validateFlowSchemaSpec(name: string, spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const precedence = Number(spec.matchingPrecedence ?? 0);
  if (precedence <= 0) errs.push(invalid(child(path, "matchingPrecedence"), precedence, "must be a positive value"));
  if (precedence > maxMatchingPrecedence) errs.push(invalid(child(path, "matchingPrecedence"), precedence, `must not be greater than ${maxMatchingPrecedence}`));
  if (precedence === 1 && name !== exemptName) errs.push(invalid(child(path, "matchingPrecedence"), precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (isObj(spec.distinguisherMethod)) {
    const type = str(spec.distinguisherMethod.type);
    if (type !== "ByNamespace" && type !== "ByUser") {
      errs.push(notSupported(child(path, "distinguisherMethod", "type"), new GoSyntaxValue(`flowcontrol.FlowDistinguisherMethod{Type:${goQuote(type)}}`), ["ByNamespace", "ByUser"]));
    }
  }
  const plName = str(obj(spec.priorityLevelConfiguration).name);
  const plPath = child(path, "priorityLevelConfiguration", "name");
  if (plName) for (const msg of validateName(plName, false, "subdomain")) errs.push(invalid(plPath, plName, msg));
  else errs.push(required(plPath, "must reference a priority level"));
  arr(spec.rules).forEach((rule, i) => errs.push(...validatePolicyRules(obj(rule), index(child(path, "rules"), i))));
  return errs;
}

function validatePolicyRules(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = arr(rule.subjects);
  if (subjects.length === 0) errs.push(required(child(path, "subjects"), "subjects must contain at least one value"));
  subjects.forEach((s, i) => errs.push(...validateSubject(obj(s), index(child(path, "subjects"), i))));
  const resourceRules = arr(rule.resourceRules);
  const nonResourceRules = arr(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"));
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(obj(r), index(child(path, "resourceRules"), i))));
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(obj(r), index(child(path, "nonResourceRules"), i))));
  return errs;
}

const otherMembers: Record<string, string> = { serviceAccount: "ServiceAccount", user: "User", group: "Group" };

function validateSubject(s: Obj, path: string): FieldError[] {
  const kind = str(s.kind);
  const own = ({ ServiceAccount: "serviceAccount", User: "user", Group: "group" } as Record<string, string>)[kind];
  if (!own) return [notSupported(child(path, "kind"), kind, subjectKinds)];
  const errs: FieldError[] = [];
  const member = s[own];
  if (!isObj(member)) errs.push(required(child(path, own), `${own} is required when subject kind is '${kind}'`));
  else if (kind === "ServiceAccount") errs.push(...validateServiceAccountSubject(member, child(path, own)));
  else if (!str(member.name)) errs.push(required(child(path, own, "name")));
  // Upstream checks the other members in this order for each kind.
  const order = kind === "ServiceAccount" ? ["user", "group"] : kind === "User" ? ["serviceAccount", "group"] : ["serviceAccount", "user"];
  for (const other of order) {
    if (s[other] !== undefined && s[other] !== null) errs.push(forbidden(child(path, other), `${other} is forbidden when subject kind is not '${otherMembers[other]}'`));
  }
  return errs;
}

function validateServiceAccountSubject(sa: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sa.name);
  if (!name) errs.push(required(child(path, "name")));
  else if (name !== "*") for (const msg of validateName(name, false, "subdomain")) errs.push(invalid(child(path, "name"), name, msg));
  const ns = str(sa.namespace);
  if (ns) for (const msg of validateName(ns, false, "label")) errs.push(invalid(child(path, "namespace"), ns, msg));
  else errs.push(required(child(path, "namespace"), "must specify namespace for service account"));
  return errs;
}

function validateVerbs(verbs: unknown[], path: string): FieldError[] {
  if (verbs.length === 0) return [required(path, "verbs must contain at least one value")];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [invalid(path, goStrings(verbs), "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => supportedVerbs.includes(str(v))) ? [] : [notSupported(path, goStrings(verbs), supportedVerbs)];
}

function validateResourceRule(rule: Obj, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs), child(path, "verbs"));
  const groups = arr(rule.apiGroups);
  if (groups.length === 0) errs.push(required(child(path, "apiGroups"), "resource rules must supply at least one api group"));
  else if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(child(path, "apiGroups"), goStrings(groups), "if '*' is present, must not specify other api groups"));
  const resources = arr(rule.resources);
  if (resources.length === 0) errs.push(required(child(path, "resources"), "resource rules must supply at least one resource"));
  else if (resources.length > 1 && hasWildcard(resources)) errs.push(invalid(child(path, "resources"), goStrings(resources), "if '*' is present, must not specify other resources"));
  const namespaces = arr(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(required(child(path, "namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"));
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errs.push(invalid(child(path, "namespaces"), goStrings(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of validateName(str(ns), false, "label")) errs.push(invalid(index(child(path, "namespaces"), i), str(ns), nsErrIntro + msg));
    });
  }
  return errs;
}

function validateNonResourceRule(rule: Obj, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs), child(path, "verbs"));
  const urls = arr(rule.nonResourceURLs);
  const urlPath = child(path, "nonResourceURLs");
  if (urls.length === 0) errs.push(required(urlPath, "nonResourceURLs must contain at least one value"));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errs.push(invalid(urlPath, goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const msg = nonResourceURLProblem(str(u));
      if (msg) errs.push(invalid(index(urlPath, i), str(u), msg));
    });
  }
  return errs;
}

/** Upstream ValidateNonResourceURLPath: a leading slash, no blanks, no "//", "*" only as a "/*" suffix. */
function nonResourceURLProblem(path: string): string | undefined {
  if (path.length === 0) return "must not be empty";
  if (path === "/") return undefined;
  if (!path.startsWith("/")) return "must start with slash";
  if (path.includes(" ")) return "must not contain white-space";
  if (path.includes("//")) return "must not contain double slash";
  const wildcards = path.split("*").length - 1;
  if (wildcards > 1 || (wildcards === 1 && path.slice(-2) !== "/*")) return "wildcard can only do suffix matching";
  return undefined;
}

function validateConditions(status: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(obj(status).conditions).forEach((c, i) => {
    const type = str(obj(c).type);
    const at = index(child(path, "conditions"), i);
    if (seen.has(type)) errs.push(duplicate(child(at, "type"), type));
    seen.add(type);
    if (!type) errs.push(required(child(at, "type"), "must not be empty"));
  });
  return errs;
}

export function validatePriorityLevelConfiguration(o: Obj): FieldError[] {
  const name = str(o.metadata?.name);
  const spec = obj(o.spec);
  const errs = validatePriorityLevelSpec(name, spec, "spec");
  // catch-all is fixed; exempt's shares and lendable percent are the administrator's to change.
  if (name === catchAllName) {
    const mandatory = mandatoryPriorityLevels().find((m) => m.metadata.name === name)!;
    if (!sameSpec(spec, mandatory.spec)) errs.push(invalid("spec", spec, `spec of '${name}' must equal the fixed value`));
  }
  errs.push(...validateConditions(o.status, "status"));
  return errs;
}

function validatePriorityLevelSpec(name: string, spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if ((name === exemptName) !== (type === "Exempt")) errs.push(invalid(child(path, "type"), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === "Exempt") {
    if (spec.limited !== undefined && spec.limited !== null) errs.push(forbidden(child(path, "limited"), "must be nil if the type is not Limited"));
    if (isObj(spec.exempt)) {
      const e = spec.exempt;
      if (typeof e.nominalConcurrencyShares === "number" && e.nominalConcurrencyShares < 0) {
        errs.push(invalid(child(path, "exempt", "nominalConcurrencyShares"), e.nominalConcurrencyShares, "must be a non-negative integer"));
      }
      errs.push(...lendablePercentErrors(e.lendablePercent, child(path, "exempt", "lendablePercent")));
    }
  } else if (type === "Limited") {
    if (spec.exempt !== undefined && spec.exempt !== null) errs.push(forbidden(child(path, "exempt"), "must be nil if the type is Limited"));
    if (!isObj(spec.limited)) errs.push(required(child(path, "limited"), "must not be empty when type is Limited"));
    else errs.push(...validateLimited(spec.limited, child(path, "limited")));
  } else {
    errs.push(notSupported(child(path, "type"), type, ["Exempt", "Limited"]));
  }
  return errs;
}

function lendablePercentErrors(v: unknown, path: string): FieldError[] {
  return typeof v === "number" && (v < 0 || v > 100) ? [invalid(path, v, "must be between 0 and 100, inclusive")] : [];
}

function validateLimited(l: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = Number(l.nominalConcurrencyShares ?? 0);
  if (shares < 0) errs.push(invalid(child(path, "nominalConcurrencyShares"), shares, "must be a non-negative integer"));
  errs.push(...validateLimitResponse(obj(l.limitResponse), child(path, "limitResponse")));
  errs.push(...lendablePercentErrors(l.lendablePercent, child(path, "lendablePercent")));
  if (typeof l.borrowingLimitPercent === "number" && l.borrowingLimitPercent < 0) {
    errs.push(invalid(child(path, "borrowingLimitPercent"), l.borrowingLimitPercent, "if specified, must be a non-negative integer"));
  }
  return errs;
}

function validateLimitResponse(lr: Obj, path: string): FieldError[] {
  const type = str(lr.type);
  if (type === "Reject") return lr.queuing !== undefined && lr.queuing !== null ? [forbidden(child(path, "queuing"), "must be nil if limited.limitResponse.type is not Limited")] : [];
  if (type === "Queue") {
    return isObj(lr.queuing) ? validateQueuing(lr.queuing, child(path, "queuing")) : [required(child(path, "queuing"), "must not be empty if limited.limitResponse.type is Limited")];
  }
  return [notSupported(child(path, "type"), type, ["Queue", "Reject"])];
}

function validateQueuing(q: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const queueLengthLimit = Number(q.queueLengthLimit ?? 0);
  const queues = Number(q.queues ?? 0);
  const handSize = Number(q.handSize ?? 0);
  if (queueLengthLimit <= 0) errs.push(invalid(child(path, "queueLengthLimit"), queueLengthLimit, "must be positive"));
  if (queues <= 0) errs.push(invalid(child(path, "queues"), queues, "must be positive"));
  else if (queues > maxQueues) errs.push(invalid(child(path, "queues"), queues, `must not be greater than ${maxQueues}`));
  if (handSize <= 0) errs.push(invalid(child(path, "handSize"), handSize, "must be positive"));
  else if (handSize > queues) errs.push(invalid(child(path, "handSize"), handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > maxHashBits) {
    errs.push(invalid(child(path, "handSize"), handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${maxHashBits}`));
  }
  return errs;
}

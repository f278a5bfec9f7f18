// --audit-policy-file: an audit.k8s.io/v1 Policy in YAML or JSON, read as kube-apiserver reads
// it (audit/policy.LoadPolicyFromFile): a strict decode first, whose unknown or duplicate fields
// only warn and fall back to a lenient one; a value of the wrong type, a missing or unknown kind
// fails; then upstream's validation and its refusal of a policy without rules. Every refusal
// carries upstream's wording, so a bad file stops start-up naming the problem.
import { readFileSync } from "node:fs";
import { goJSON, jsonKindWord } from "../../apimachinery/go-json.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { lazyPackage } from "../../apimachinery/package-files.js";
import { aggregateMessage, GoSyntaxValue, invalid, isDNS1123Subdomain, notSupported, required, type FieldError } from "../../apimachinery/validation.js";
import { levels, stages, type GroupResources, type Level, type Policy, type PolicyRule, type Stage } from "./types.js";
import { interpretError } from "../../apimachinery/go-interpret.js";

const yaml = lazyPackage<typeof import("yaml")>("yaml");

const groupVersion = "audit.k8s.io/v1";
/** Where upstream's audit scheme is made; its "not registered" errors name it. */
const schemeName = "k8s.io/apiserver/pkg/audit/scheme.go:30";
/** Kinds the audit scheme knows in audit.k8s.io/v1 besides Policy (a policy file of one of them cannot become a Policy). */
const otherKinds = new Set(["Event", "EventList", "PolicyList"]);

/** Reads and checks the policy file; throws with kube-apiserver's start-up error text. */
export function loadPolicyFile(path: string, warn: (message: string) => void = () => undefined): Policy {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file or directory" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "is a directory" : (e as Error).message;
    throw new Error(`loading audit policy file: failed to read file path ${goQuote(path)}: open ${path}: ${why}`);
  }
  try {
    return parsePolicy(text, warn);
  } catch (e) {
    throw new Error(`loading audit policy file: ${(e as Error).message}: from file ${path}`);
  }
}

/** upstream's LoadPolicyFromBytes: decode, validate, refuse an empty rule list. */
export function parsePolicy(text: string, warn: (message: string) => void = () => undefined): Policy {
  const doc = toJSONValue(text);
  checkKind(doc);
  const unknown: string[] = [];
  const policy = decodePolicy(doc as Obj, unknown);
  if (unknown.length > 0) warn(`Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${unknown.map((f) => `unknown field ${goQuote(f)}`).join(", ")}`);
  const errs = validatePolicy(policy);
  if (errs.length > 0) throw new Error(aggregateMessage(errs));
  if (policy.rules.length === 0) throw new Error("loaded illegal policy with 0 rules");
  return policy;
}

type Obj = Record<string, unknown>;

class DecodeError extends Error {}

/**
 * The document as the JSON the decoder sees (YAML converted; JSON kept), once the decoder's kind
 * lookup has read it (Go's syntax and type errors).
 */
function toJSONValue(text: string): unknown {
  const json = /^\s*[{[]/.test(text);
  let doc: unknown;
  if (!json) {
    try {
      doc = yaml().parse(text, { uniqueKeys: false }) ?? null;
    } catch (e) {
      throw new Error(`failed decoding: error converting YAML to JSON: yaml: ${(e as Error).message.split("\n")[0]}`);
    }
  }
  const notInterpreted = interpretError(json ? text : JSON.stringify(doc));
  if (notInterpreted !== undefined) throw new Error(`failed decoding: ${notInterpreted}`);
  return json ? (JSON.parse(text) as unknown) : doc;
}

function checkKind(doc: unknown): void {
  const o = (doc ?? {}) as Obj;
  const kind = typeof o.kind === "string" ? o.kind : "";
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  if (kind === "") throw new Error(`failed decoding: Object 'Kind' is missing in '${goJSON(doc)}'`);
  if (apiVersion === "") throw new Error(`failed decoding: Object 'apiVersion' is missing in '${goJSON(doc)}'`);
  if (apiVersion !== groupVersion || (kind !== "Policy" && !otherKinds.has(kind))) {
    throw new Error(`failed decoding: no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(schemeName)}`);
  }
  if (kind !== "Policy") throw new Error(`failed decoding: converting (v1.${kind}) to (audit.Policy): unknown conversion`);
}

/** Go's encoding/json type error, with the innermost struct's name and the field's path from the root. */
function typeError(value: unknown, struct: string, path: string, goType: string): DecodeError {
  return new DecodeError(`failed decoding: json: cannot unmarshal ${jsonKindWord(value)} into Go struct field ${struct}.${path} of type ${goType}`);
}

function decodePolicy(o: Obj, unknown: string[]): Policy {
  const policy: Policy = { rules: [] };
  for (const [k, v] of Object.entries(o)) {
    if (v === null) continue;
    switch (k) {
      case "apiVersion":
      case "kind":
        break;
      case "metadata":
        if (typeof v !== "object" || Array.isArray(v)) throw typeError(v, "Policy", "metadata", "v1.ObjectMeta");
        break;
      case "rules":
        if (!Array.isArray(v)) throw typeError(v, "Policy", "rules", "[]v1.PolicyRule");
        policy.rules = v.map((r, i) => decodeRule(r, i, unknown));
        break;
      case "omitStages":
        policy.omitStages = stageList(v, "Policy", "omitStages");
        break;
      case "omitManagedFields":
        if (typeof v !== "boolean") throw typeError(v, "Policy", "omitManagedFields", "bool");
        policy.omitManagedFields = v;
        break;
      default:
        unknown.push(k);
    }
  }
  return policy;
}

function decodeRule(v: unknown, i: number, unknown: string[]): PolicyRule {
  if (v === null) return { level: "" as Level };
  if (typeof v !== "object" || Array.isArray(v)) throw typeError(v, "Policy", "rules", "v1.PolicyRule");
  const rule: PolicyRule = { level: "" as Level };
  for (const [k, x] of Object.entries(v as Obj)) {
    if (x === null) continue;
    const path = `rules.${k}`;
    switch (k) {
      case "level":
        if (typeof x !== "string") throw typeError(x, "PolicyRule", path, "v1.Level");
        rule.level = x as Level;
        break;
      case "users":
      case "userGroups":
      case "verbs":
      case "namespaces":
      case "nonResourceURLs":
        rule[k] = stringList(x, "PolicyRule", path);
        break;
      case "resources":
        if (!Array.isArray(x)) throw typeError(x, "PolicyRule", path, "[]v1.GroupResources");
        rule.resources = x.map((g, j) => decodeGroupResources(g, `rules[${i}].resources[${j}]`, unknown));
        break;
      case "omitStages":
        rule.omitStages = stageList(x, "PolicyRule", path);
        break;
      case "omitManagedFields":
        if (typeof x !== "boolean") throw typeError(x, "PolicyRule", path, "bool");
        rule.omitManagedFields = x;
        break;
      default:
        unknown.push(`rules[${i}].${k}`);
    }
  }
  return rule;
}

function decodeGroupResources(v: unknown, at: string, unknown: string[]): GroupResources {
  if (v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw typeError(v, "PolicyRule", "rules.resources", "v1.GroupResources");
  const gr: GroupResources = {};
  for (const [k, x] of Object.entries(v as Obj)) {
    if (x === null) continue;
    const path = `rules.resources.${k}`;
    if (k === "group") {
      if (typeof x !== "string") throw typeError(x, "GroupResources", path, "string");
      gr.group = x;
    } else if (k === "resources" || k === "resourceNames") gr[k] = stringList(x, "GroupResources", path);
    else unknown.push(`${at}.${k}`);
  }
  return gr;
}

function stringList(v: unknown, struct: string, path: string): string[] {
  if (!Array.isArray(v)) throw typeError(v, struct, path, "[]string");
  for (const s of v) if (typeof s !== "string" && s !== null) throw typeError(s, struct, path, "string");
  return v.map((s) => (s === null ? "" : (s as string)));
}

function stageList(v: unknown, struct: string, path: string): Stage[] {
  if (!Array.isArray(v)) throw typeError(v, struct, path, "[]v1.Stage");
  for (const s of v) if (typeof s !== "string" && s !== null) throw typeError(s, struct, path, "v1.Stage");
  return v.map((s) => (s === null ? "" : s) as Stage);
}

// ---------------------------------------------------------------------------------------------
// Validation (upstream: apis/audit/validation), with its messages.

export function validatePolicy(p: Policy): FieldError[] {
  const errs = validateOmitStages(p.omitStages, "omitStages");
  p.rules.forEach((r, i) => errs.push(...validateRule(r, `rules[${i}]`)));
  return errs;
}

function validateRule(r: PolicyRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (r.level === ("" as Level)) errs.push(required(`${path}.level`));
  else if (!levels.includes(r.level)) errs.push(notSupported(`${path}.level`, r.level, levels));
  (r.nonResourceURLs ?? []).forEach((url, i) => {
    if (url === "*") return;
    if (!url.startsWith("/")) errs.push(invalid(`${path}.nonResourceURLs[${i}]`, url, "non-resource URL rules must begin with a '/' character"));
    if (url !== "" && url.slice(0, -1).includes("*")) errs.push(invalid(`${path}.nonResourceURLs[${i}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
  });
  for (const gr of r.resources ?? []) {
    // The empty group is the core group; any other must be a DNS subdomain (never group/version).
    if (gr.group) {
      const msgs = isDNS1123Subdomain(gr.group);
      if (msgs.length > 0) errs.push(invalid(`${path}.resources.group`, gr.group, msgs.join(",")));
    }
    if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
      errs.push(invalid(`${path}.resources.resourceNames`, goStrings(gr.resourceNames!), "using resourceNames requires at least one resource"));
    }
  }
  errs.push(...validateOmitStages(r.omitStages, `${path}.omitStages`));
  if ((r.nonResourceURLs ?? []).length > 0 && ((r.resources ?? []).length > 0 || (r.namespaces ?? []).length > 0)) {
    errs.push(invalid(`${path}.nonResourceURLs`, goStrings(r.nonResourceURLs!), "rules cannot apply to both regular resources and non-resource URLs"));
  }
  return errs;
}

function validateOmitStages(omit: readonly Stage[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (omit ?? []).forEach((s, i) => {
    if (!stages.includes(s)) errs.push(invalid(`${path}[${i}]`, s, `allowed stages are ${stages.join(",")}`));
  });
  return errs;
}

/** A []string bad value as Go's %#v prints it. */
function goStrings(list: readonly string[]): GoSyntaxValue {
  return new GoSyntaxValue(`[]string{${list.map(goQuote).join(", ")}}`);
}

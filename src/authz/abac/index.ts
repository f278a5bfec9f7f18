// ABAC (--authorization-mode=ABAC, --authorization-policy-file): one JSON policy per line, in
// abac.authorization.kubernetes.io/v1beta1 ({"apiVersion", "kind": "Policy", "spec": {...}}) or
// the unversioned v0 form ({"user", "group", "readonly", "resource", "namespace"}), converted to
// v1beta1 as upstream converts it. Blank lines and lines starting with "#" are skipped; a line
// that does not decode is a start-up error naming the file, the line number and the line.
// A request is allowed when a policy matches its subject, its verb (read-only policies match
// get/list/watch only) and either its resource (namespace, resource, apiGroup, each "*" or exact)
// or its non-resource path ("*", exact, or a prefix ending in "*"); otherwise no opinion.
import { readFileSync } from "node:fs";
import type { UserInfo } from "../../apimachinery/user.js";
import type { Attributes, Authorizer, AuthzResult, RulesResult } from "../authorizer.js";
import { interpretError } from "../../apimachinery/go-interpret.js";

export interface PolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const group = "abac.authorization.kubernetes.io";
const allAuthenticated = "system:authenticated";

class LineError extends Error {}

const stringFields = ["user", "group", "apiGroup", "resource", "namespace", "nonResourcePath"] as const;

function decodeSpec(raw: Record<string, unknown>, struct: string, path: string): PolicySpec {
  const spec: PolicySpec = { user: "", group: "", readonly: false, apiGroup: "", resource: "", namespace: "", nonResourcePath: "" };
  for (const k of stringFields) {
    const v = raw[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new LineError(`json: cannot unmarshal ${goType(v)} into Go struct field ${struct}.${path}${k} of type string`);
    spec[k] = v;
  }
  const ro = raw.readonly;
  if (ro !== undefined && ro !== null) {
    if (typeof ro !== "boolean") throw new LineError(`json: cannot unmarshal ${goType(ro)} into Go struct field ${struct}.${path}readonly of type bool`);
    spec.readonly = ro;
  }
  return spec;
}

function goType(v: unknown): string {
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "array";
  return "object";
}

/** v0 → v1beta1, as upstream converts an unversioned policy. */
function fromV0(v0: PolicySpec): PolicySpec {
  const out: PolicySpec = { ...v0, apiGroup: "*", nonResourcePath: "" };
  if (!v0.user && !v0.group) out.group = allAuthenticated; // unspecified subject: every authenticated user
  if (v0.user === "*" || v0.group === "*") {
    out.group = allAuthenticated;
    out.user = "";
  }
  if (!v0.namespace) out.namespace = "*";
  if (!v0.resource) out.resource = "*";
  if (!v0.namespace && !v0.resource) out.nonResourcePath = "*"; // neither: non-resource paths too
  return out;
}

/** v1beta1: a "*" user or group is every authenticated user. */
function fromV1beta1(spec: PolicySpec): PolicySpec {
  if (spec.user === "*" || spec.group === "*") return { ...spec, group: allAuthenticated, user: "" };
  return spec;
}

function decodeLine(line: string): PolicySpec {
  const notInterpreted = interpretError(line);
  if (notInterpreted !== undefined) throw new LineError(notInterpreted);
  // null is read as an empty object, as Go decodes it into the struct.
  const o = (JSON.parse(line) ?? {}) as Record<string, unknown>;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const kind = typeof o.kind === "string" ? o.kind : "";
  if (!apiVersion || !kind) {
    // Unversioned (or half-versioned) lines are read as v0.
    if (apiVersion && apiVersion !== `${group}/v0`) throw new LineError(`no kind "Policy" is registered for version "${apiVersion}" in scheme "pkg/apis/abac/register.go"`);
    return fromV0(decodeSpec(o, "Policy", ""));
  }
  if (kind !== "Policy" || (apiVersion !== `${group}/v1beta1` && apiVersion !== `${group}/v0`)) {
    throw new LineError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/apis/abac/register.go"`);
  }
  if (apiVersion === `${group}/v0`) return fromV0(decodeSpec(o, "Policy", ""));
  const spec = o.spec;
  if (spec !== undefined && spec !== null && (typeof spec !== "object" || Array.isArray(spec))) {
    throw new LineError(`json: cannot unmarshal ${goType(spec)} into Go struct field Policy.spec of type v1beta1.PolicySpec`);
  }
  return fromV1beta1(decodeSpec((spec ?? {}) as Record<string, unknown>, "Policy", "spec."));
}

/** Parses a policy file's text; errors as upstream's policyLoadError. */
export function parsePolicies(text: string, path: string): PolicySpec[] {
  const out: PolicySpec[] = [];
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  lines.forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    try {
      out.push(decodeLine(line));
    } catch (e) {
      throw new Error(`error reading policy file ${path}, line ${i + 1}: ${line}: ${(e as Error).message}`);
    }
  });
  return out;
}

export function loadPolicyFile(path: string): PolicySpec[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Error(`open ${path}: ${err.code === "ENOENT" ? "no such file or directory" : err.code === "EISDIR" ? "is a directory" : err.message}`);
  }
  return parsePolicies(text, path);
}

function subjectMatches(p: PolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user) {
    if (p.user === "*") matched = true;
    else if (p.user === user.name) matched = true;
    else return false;
  }
  if (p.group) {
    if (p.group === "*") matched = true;
    else if (user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

const readOnlyVerbs = new Set(["get", "list", "watch"]);

function matches(p: PolicySpec, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !readOnlyVerbs.has(a.verb)) return false;
  if (a.isResourceRequest) {
    return (p.namespace === "*" || p.namespace === a.namespace) && (p.resource === "*" || p.resource === a.resource) && (p.apiGroup === "*" || p.apiGroup === a.apiGroup);
  }
  const np = p.nonResourcePath;
  if (np === "*" || np === a.path) return true;
  return np.endsWith("*") && a.path.startsWith(np.replace(/\*+$/, ""));
}

export function abacAuthorizer(policies: readonly PolicySpec[]): Authorizer {
  return {
    authorize(a: Attributes): AuthzResult {
      for (const p of policies) if (matches(p, a)) return { decision: "allow", reason: "" };
      return { decision: "no-opinion", reason: "No policy matched." };
    },
    rulesFor(user: UserInfo, namespace: string): RulesResult {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const p of policies) {
        if (!subjectMatches(p, user) || !(p.namespace === "*" || p.namespace === namespace)) continue;
        const verbs = p.readonly ? ["get", "list", "watch"] : ["*"];
        if (p.resource) out.resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
        if (p.nonResourcePath) out.nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
      }
      return out;
    },
  };
}

export function abacFromFile(path: string): Authorizer {
  return abacAuthorizer(loadPolicyFile(path));
}

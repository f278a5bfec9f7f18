// The `jwt` entries of an AuthenticationConfiguration (apiserver.config.k8s.io v1beta1 and v1):
// their shape, the strict reading of the YAML, and every validation rule of upstream's
// ValidateAuthenticationConfiguration with its words. Validation also compiles the CEL
// expressions, so a configuration that validates is one that can be built.
import { X509Certificate } from "node:crypto";
import type { Expr } from "../../cel/ast.js";
import { claimsEnvironment, userEnvironment } from "../../cel/environments.js";
import { CelCompileError, compileCel, type CelEnvironment, type CelProgram } from "../../cel/program.js";
import { aggregateMessage, duplicate, invalid, isDNS1123Subdomain, regexError, required, tooMany, type FieldError } from "../../apimachinery/validation.js";
import { pemBlocks } from "../../apimachinery/pem.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export interface PrefixedClaimOrExpression {
  claim?: string;
  /** undefined = not set (required with `claim`); "" = no prefix. */
  prefix?: string;
  expression?: string;
}

export interface JwtAuthenticatorSpec {
  issuer: {
    url: string;
    discoveryURL?: string;
    certificateAuthority?: string;
    audiences: string[];
    audienceMatchPolicy?: string;
    egressSelectorType?: string;
  };
  claimValidationRules?: { claim?: string; requiredValue?: string; expression?: string; message?: string }[];
  claimMappings: {
    username: PrefixedClaimOrExpression;
    groups?: PrefixedClaimOrExpression;
    uid?: { claim?: string; expression?: string };
    extra?: { key: string; valueExpression: string }[];
  };
  userValidationRules?: { expression: string; message?: string }[];
}

/** The compiled CEL of one authenticator (absent parts use claims directly or are unset). */
export interface CompiledMappings {
  username?: CelProgram;
  groups?: CelProgram;
  uid?: CelProgram;
  extra: { key: string; program: CelProgram }[];
  claimValidation: { program: CelProgram; message: string }[];
  userValidation: { program: CelProgram; message: string }[];
}

export const maxJwtAuthenticators = 64;

// ---- strict reading ------------------------------------------------------------------------

/** A structural problem in the document (upstream: a decoding error, before validation). */
export class ConfigDecodeError extends Error {}

type Shape = { [k: string]: "string" | "strings" | Shape | [Shape] };

const prefixed: Shape = { claim: "string", prefix: "string", expression: "string" };
const jwtShape: Shape = {
  issuer: { url: "string", discoveryURL: "string", certificateAuthority: "string", audiences: "strings", audienceMatchPolicy: "string", egressSelectorType: "string" },
  claimValidationRules: [{ claim: "string", requiredValue: "string", expression: "string", message: "string" }],
  claimMappings: { username: prefixed, groups: prefixed, uid: { claim: "string", expression: "string" }, extra: [{ key: "string", valueExpression: "string" }] },
  userValidationRules: [{ expression: "string", message: "string" }],
};

function goKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  return typeof v === "object" ? "object" : typeof v;
}

function checkShape(v: unknown, shape: Shape, path: string, unknown: string[]): void {
  if (v === null || v === undefined) return;
  if (typeof v !== "object" || Array.isArray(v)) throw new ConfigDecodeError(`json: cannot unmarshal ${goKind(v)} into Go struct field ${path} of type object`);
  for (const [k, sub] of Object.entries(v as Record<string, unknown>)) {
    const p = path ? `${path}.${k}` : k;
    const spec = shape[k];
    if (!spec) {
      unknown.push(p);
      continue;
    }
    if (sub === null || sub === undefined) continue;
    if (spec === "string") {
      if (typeof sub !== "string") throw new ConfigDecodeError(`json: cannot unmarshal ${goKind(sub)} into Go struct field ${p} of type string`);
    } else if (spec === "strings") {
      if (!Array.isArray(sub)) throw new ConfigDecodeError(`json: cannot unmarshal ${goKind(sub)} into Go struct field ${p} of type []string`);
      sub.forEach((x) => {
        if (typeof x !== "string") throw new ConfigDecodeError(`json: cannot unmarshal ${goKind(x)} into Go struct field ${p} of type string`);
      });
    } else if (Array.isArray(spec)) {
      if (!Array.isArray(sub)) throw new ConfigDecodeError(`json: cannot unmarshal ${goKind(sub)} into Go struct field ${p} of type array`);
      sub.forEach((x, i) => checkShape(x, spec[0]!, `${p}[${i}]`, unknown));
    } else checkShape(sub, spec, p, unknown);
  }
}

/** The `jwt` list of a parsed document, read strictly (unknown fields are errors, as upstream's strict decoder). */
export function readJwtList(raw: unknown): JwtAuthenticatorSpec[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) throw new ConfigDecodeError(`json: cannot unmarshal ${goKind(raw)} into Go struct field AuthenticationConfiguration.jwt of type []v1.JWTAuthenticator`);
  const unknown: string[] = [];
  raw.forEach((entry, i) => checkShape(entry, jwtShape, `jwt[${i}]`, unknown));
  if (unknown.length > 0) throw new ConfigDecodeError(`strict decoding error: ${unknown.map((u) => `unknown field ${goQuote(u)}`).join(", ")}`);
  return raw.map((e: any) => {
    const entry = e ?? {};
    const issuer = entry.issuer ?? {};
    const cm = entry.claimMappings ?? {};
    const pce = (m: any): PrefixedClaimOrExpression => ({
      claim: m?.claim ?? undefined,
      prefix: m?.prefix ?? undefined,
      expression: m?.expression ?? undefined,
    });
    return {
      issuer: {
        url: issuer.url ?? "",
        discoveryURL: issuer.discoveryURL ?? undefined,
        certificateAuthority: issuer.certificateAuthority ?? undefined,
        audiences: issuer.audiences ?? [],
        audienceMatchPolicy: issuer.audienceMatchPolicy ?? undefined,
        egressSelectorType: issuer.egressSelectorType ?? undefined,
      },
      claimValidationRules: (entry.claimValidationRules ?? []).map((r: any) => ({ ...r })),
      claimMappings: {
        username: pce(cm.username),
        groups: pce(cm.groups),
        uid: { claim: cm.uid?.claim ?? undefined, expression: cm.uid?.expression ?? undefined },
        extra: (cm.extra ?? []).map((x: any) => ({ key: x?.key ?? "", valueExpression: x?.valueExpression ?? "" })),
      },
      userValidationRules: (entry.userValidationRules ?? []).map((r: any) => ({ expression: r?.expression ?? "", message: r?.message ?? "" })),
    };
  });
}

// ---- validation ----------------------------------------------------------------------------

/** Go's url.Parse, as far as the rules below need it. */
interface GoUrl {
  scheme: string;
  hasUser: boolean;
  rawQuery: string;
  fragment: string;
}

function parseGoUrl(u: string): GoUrl | string {
  let rest = u;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (/[\x00-\x1f\x7f]/.test(rest)) return `parse ${goQuote(u)}: net/url: invalid control character in URL`;
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let scheme = "";
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith(":")) return `parse ${goQuote(u)}: missing protocol scheme`;
  let hasUser = false;
  if (rest.startsWith("//")) {
    const authority = rest.slice(2).split("/")[0]!;
    hasUser = authority.includes("@");
  }
  return { scheme, hasUser, rawQuery, fragment };
}

function validateUrl(url: string, disallowed: ReadonlySet<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (disallowed.has(url)) errs.push(invalid(path, url, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(" ")}]`));
  const u = parseGoUrl(url);
  if (typeof u === "string") return [...errs, invalid(path, url, u)];
  if (u.scheme !== "https") errs.push(invalid(path, url, "URL scheme must be https"));
  if (u.hasUser) errs.push(invalid(path, url, "URL must not contain a username or password"));
  if (u.rawQuery.length > 0) errs.push(invalid(path, url, "URL must not contain a query"));
  if (u.fragment.length > 0) errs.push(invalid(path, url, "URL must not contain a fragment"));
  return errs;
}

/** cert.NewPoolFromBytes: every CERTIFICATE block must parse; at least one is needed. */
export function certificatesFromPem(pem: string): X509Certificate[] | string {
  const certs: X509Certificate[] = [];
  for (const block of pemBlocks(pem)) {
    if (block.type !== "CERTIFICATE") continue;
    try {
      certs.push(new X509Certificate(block.text));
    } catch (e) {
      return `x509: malformed certificate`;
    }
  }
  if (certs.length === 0) return "data does not contain any valid RSA or ECDSA certificates";
  return certs;
}

function compile(expression: string, env: CelEnvironment, path: string, wantBool: boolean): { program?: CelProgram; error?: FieldError } {
  try {
    const program = compileCel(expression, env);
    if (wantBool && program.resultType.kind !== "bool") return { error: invalid(path, expression, "must evaluate to bool") };
    return { program };
  } catch (e) {
    if (e instanceof CelCompileError) return { error: invalid(path, expression, `compilation failed: ${e.message}`) };
    return { error: { type: "FieldValueInvalid", field: path, badValue: expression, message: `compilation failed: ${(e as Error).message}` } };
  }
}

/** Does the expression select `claims.<field>` (plain or optional `claims.?field`) anywhere? */
function selectsClaim(expr: Expr, field: string): boolean {
  const isClaims = (e: Expr | undefined) => e?.kind === "ident" && e.name === "claims";
  switch (expr.kind) {
    case "const":
    case "ident":
      return false;
    case "select":
      return (isClaims(expr.operand) && expr.field === field) || selectsClaim(expr.operand, field);
    case "call":
      if (!expr.target && expr.fn === "_?._" && expr.args.length === 2 && isClaims(expr.args[0]) && expr.args[1]!.kind === "const" && expr.args[1]!.value === field) return true;
      return expr.args.some((a) => selectsClaim(a, field)) || (expr.target ? selectsClaim(expr.target, field) : false);
    case "list":
      return expr.elements.some((e) => selectsClaim(e, field));
    case "map":
      return expr.entries.some((e) => selectsClaim(e.key, field) || selectsClaim(e.value, field));
    case "struct":
      return expr.fields.some((f) => selectsClaim(f.value, field));
    case "comprehension":
      return [expr.iterRange, expr.accuInit, expr.loopCondition, expr.loopStep, expr.result].some((e) => selectsClaim(e, field));
  }
}

const usesClaim = (p: CelProgram | undefined, field: string) => (p ? selectsClaim(p.checked.parsed.expr, field) : false);

function isKubernetesDomainPrefix(key: string): boolean {
  const parts = key.split("/");
  const domain = parts.length >= 2 ? parts[0]! : "";
  return domain === "kubernetes.io" || domain.endsWith(".kubernetes.io") || domain === "k8s.io" || domain.endsWith(".k8s.io");
}

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);

function isDomainPrefixedPath(path: string, key: string): FieldError[] {
  if (key.length === 0) return [required(path)];
  const i = key.indexOf("/");
  if (i <= 0 || i === key.length - 1) return [invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = key.slice(0, i);
  const errs = isDNS1123Subdomain(host).map((m) => invalid(path, host, m));
  const rest = key.slice(i + 1);
  if (!httpPathRe.test(rest)) errs.push(invalid(path, rest, regexError("Invalid path", httpPathFmt)));
  return errs;
}

function validatePrefixedClaimOrExpression(m: PrefixedClaimOrExpression | undefined, path: string, requiredMapping: boolean): { program?: CelProgram; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const claim = m?.claim ?? "";
  const expression = m?.expression ?? "";
  if (claim && expression) errors.push(invalid(path, "", "claim and expression can't both be set"));
  else if (!claim && !expression && requiredMapping) errors.push(required(path, "claim or expression is required"));
  else if (expression) {
    if (m?.prefix !== undefined) errors.push(invalid(`${path}.prefix`, m.prefix, "may not be specified when expression is set"));
    const r = compile(expression, claimsEnvironment, `${path}.expression`, false);
    if (r.error) errors.push(r.error);
    return { program: r.program, errors };
  } else if (claim && m?.prefix === undefined) {
    errors.push(required(`${path}.prefix`, "prefix is required when claim is set. It can be set to an empty string to disable prefixing"));
  }
  return { errors };
}

/** Validates and compiles one authenticator; `index` undefined names fields without the `jwt[i].` root (as upstream's flag path). */
export function validateJwtAuthenticator(a: JwtAuthenticatorSpec, index: number | undefined, disallowedIssuers: readonly string[]): { compiled: CompiledMappings; errors: FieldError[] } {
  const root = index === undefined ? "" : `jwt[${index}].`;
  const errors: FieldError[] = [];
  const compiled: CompiledMappings = { extra: [], claimValidation: [], userValidation: [] };
  const disallowed = new Set(disallowedIssuers);

  // issuer
  const iss = a.issuer;
  if (!iss.url) errors.push(required(`${root}issuer.url`));
  else errors.push(...validateUrl(iss.url, disallowed, `${root}issuer.url`));
  if (iss.discoveryURL) {
    if (iss.url && iss.url.replace(/\/+$/, "") === iss.discoveryURL.replace(/\/+$/, "")) {
      errors.push(invalid(`${root}issuer.discoveryURL`, iss.discoveryURL, "discoveryURL must be different from URL"));
    }
    errors.push(...validateUrl(iss.discoveryURL, new Set(), `${root}issuer.discoveryURL`));
  }
  const audPath = `${root}issuer.audiences`;
  if (iss.audiences.length === 0) errors.push(required(audPath, `at least one ${audPath} is required`));
  else {
    const seen = new Set<string>();
    iss.audiences.forEach((aud, i) => {
      if (aud.length === 0) errors.push(required(`${audPath}[${i}]`));
      if (seen.has(aud)) errors.push(duplicate(`${audPath}[${i}]`, aud));
      seen.add(aud);
    });
    const policy = iss.audienceMatchPolicy ?? "";
    if (iss.audiences.length > 1 && policy !== "MatchAny") {
      errors.push(invalid(`${root}issuer.audienceMatchPolicy`, policy, "audienceMatchPolicy must be MatchAny for multiple audiences"));
    }
    if (iss.audiences.length === 1 && policy.length > 0 && policy !== "MatchAny") {
      errors.push(invalid(`${root}issuer.audienceMatchPolicy`, policy, "audienceMatchPolicy must be empty or MatchAny for single audience"));
    }
  }
  if (iss.certificateAuthority) {
    const certs = certificatesFromPem(iss.certificateAuthority);
    if (typeof certs === "string") errors.push(invalid(`${root}issuer.certificateAuthority`, "<omitted>", certs));
  }
  if (iss.egressSelectorType) {
    errors.push(invalid(`${root}issuer.egressSelectorType`, iss.egressSelectorType, "egress selector is not supported when StructuredAuthenticationConfigurationEgressSelector feature gate is disabled"));
    if (iss.egressSelectorType !== "controlplane" && iss.egressSelectorType !== "cluster") {
      errors.push(invalid(`${root}issuer.egressSelectorType`, iss.egressSelectorType, "egress selector must be either controlplane or cluster"));
    }
  }

  let usesEmailVerified = false;
  // claimValidationRules
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  (a.claimValidationRules ?? []).forEach((rule, i) => {
    const p = `${root}claimValidationRules[${i}]`;
    const claim = rule.claim ?? "";
    const expression = rule.expression ?? "";
    if (claim && expression) errors.push(invalid(p, claim, "claim and expression can't both be set"));
    else if (!claim && !expression) errors.push(required(p, "claim or expression is required"));
    else if (claim) {
      if (rule.message) errors.push(invalid(`${p}.message`, rule.message, "may not be specified when claim is set"));
      if (seenClaims.has(claim)) errors.push(duplicate(`${p}.claim`, claim));
      seenClaims.add(claim);
    } else {
      if (rule.requiredValue) errors.push(invalid(`${p}.requiredValue`, rule.requiredValue, "may not be specified when expression is set"));
      if (seenExpressions.has(expression)) {
        errors.push(duplicate(`${p}.expression`, expression));
        return;
      }
      seenExpressions.add(expression);
      const r = compile(expression, claimsEnvironment, `${p}.expression`, true);
      if (r.error) errors.push(r.error);
      else {
        compiled.claimValidation.push({ program: r.program!, message: rule.message ?? "" });
        usesEmailVerified ||= usesClaim(r.program, "email_verified");
      }
    }
  });

  // claimMappings
  const cm = a.claimMappings;
  const username = validatePrefixedClaimOrExpression(cm.username, `${root}claimMappings.username`, true);
  errors.push(...username.errors);
  let usesEmail = false;
  if (username.errors.length === 0 && username.program) {
    compiled.username = username.program;
    usesEmail = usesClaim(username.program, "email");
    usesEmailVerified ||= usesClaim(username.program, "email_verified");
  }
  const groups = validatePrefixedClaimOrExpression(cm.groups, `${root}claimMappings.groups`, false);
  errors.push(...groups.errors);
  if (groups.errors.length === 0 && groups.program) compiled.groups = groups.program;
  const uid = cm.uid ?? {};
  if (uid.claim && uid.expression) errors.push(invalid(`${root}claimMappings.uid`, "", "claim and expression can't both be set"));
  else if (uid.expression) {
    const r = compile(uid.expression, claimsEnvironment, `${root}claimMappings.uid.expression`, false);
    if (r.error) errors.push(r.error);
    else compiled.uid = r.program;
  }
  const seenKeys = new Set<string>();
  (cm.extra ?? []).forEach((x, i) => {
    const p = `${root}claimMappings.extra[${i}]`;
    errors.push(...isDomainPrefixedPath(`${p}.key`, x.key));
    if (x.key !== x.key.toLowerCase()) errors.push(invalid(`${p}.key`, x.key, "must be lowercase"));
    if (isKubernetesDomainPrefix(x.key)) errors.push(invalid(`${p}.key`, x.key, "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use"));
    if (seenKeys.has(x.key)) {
      errors.push(duplicate(`${p}.key`, x.key));
      return;
    }
    seenKeys.add(x.key);
    if (!x.valueExpression) {
      errors.push(required(`${p}.valueExpression`));
      return;
    }
    const r = compile(x.valueExpression, claimsEnvironment, `${p}.valueExpression`, false);
    if (r.error) errors.push(r.error);
    else {
      compiled.extra.push({ key: x.key, program: r.program! });
      usesEmailVerified ||= usesClaim(r.program, "email_verified");
    }
  });
  if (usesEmail && !usesEmailVerified) {
    errors.push(
      invalid(
        `${root}claimMappings.username.expression`,
        cm.username.expression ?? "",
        "claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression",
      ),
    );
  }

  // userValidationRules
  const seenUserExpressions = new Set<string>();
  (a.userValidationRules ?? []).forEach((rule, i) => {
    const p = `${root}userValidationRules[${i}]`;
    if (!rule.expression) {
      errors.push(required(`${p}.expression`));
      return;
    }
    if (seenUserExpressions.has(rule.expression)) {
      errors.push(duplicate(`${p}.expression`, rule.expression));
      return;
    }
    seenUserExpressions.add(rule.expression);
    const r = compile(rule.expression, userEnvironment, `${p}.expression`, true);
    if (r.error) errors.push(r.error);
    else compiled.userValidation.push({ program: r.program!, message: rule.message ?? "" });
  });

  return { compiled, errors };
}

/** ValidateAuthenticationConfiguration's jwt part: every entry, then uniqueness across entries. */
export function validateJwtAuthenticators(list: readonly JwtAuthenticatorSpec[], disallowedIssuers: readonly string[]): { compiled: CompiledMappings[]; errors: FieldError[] } {
  if (list.length > maxJwtAuthenticators) return { compiled: [], errors: [tooMany("jwt", list.length, maxJwtAuthenticators)] };
  const errors: FieldError[] = [];
  const compiled: CompiledMappings[] = [];
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  list.forEach((a, i) => {
    const r = validateJwtAuthenticator(a, i, disallowedIssuers);
    errors.push(...r.errors);
    compiled.push(r.compiled);
    if (seenIssuers.has(a.issuer.url)) errors.push(duplicate(`jwt[${i}].issuer.url`, a.issuer.url));
    seenIssuers.add(a.issuer.url);
    if (a.issuer.discoveryURL) {
      if (seenDiscovery.has(a.issuer.discoveryURL)) errors.push(duplicate(`jwt[${i}].issuer.discoveryURL`, a.issuer.discoveryURL));
      seenDiscovery.add(a.issuer.discoveryURL);
    }
  });
  return { compiled, errors };
}

/** The start-up error text upstream gives for a configuration that does not validate. */
export function invalidConfigurationMessage(errors: readonly FieldError[]): string {
  return `invalid authentication configuration: ${aggregateMessage(errors)}`;
}


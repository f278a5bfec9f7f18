// Validation of the configuration file's jwt list: each of upstream's rules with its words,
// the strict reading of the file, and the start-up errors of the --oidc-* flags.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { aggregateMessage } from "../../apimachinery/validation.js";
import { loadAuthenticationConfig, parseAuthenticationConfig } from "../authentication-config.js";
import { defaultOptions } from "../../server/options.js";
import { invalidConfigurationMessage, validateJwtAuthenticators, type JwtAuthenticatorSpec } from "./config.js";
import { jwtAuthentication } from "./index.js";

const ok = (): JwtAuthenticatorSpec => ({ issuer: { url: "https://issuer.example", audiences: ["kapi"] }, claimMappings: { username: { claim: "sub", prefix: "" } } });
const errorsOf = (list: JwtAuthenticatorSpec[], disallowed: string[] = []) => aggregateMessage(validateJwtAuthenticators(list, disallowed).errors);
const withIssuer = (issuer: Partial<JwtAuthenticatorSpec["issuer"]>): JwtAuthenticatorSpec => ({ ...ok(), issuer: { ...ok().issuer, ...issuer } });
const withMappings = (claimMappings: Partial<JwtAuthenticatorSpec["claimMappings"]>): JwtAuthenticatorSpec => ({ ...ok(), claimMappings: { ...ok().claimMappings, ...claimMappings } });

describe("jwt authenticator validation (upstream's rules and words)", () => {
  const table: [string, JwtAuthenticatorSpec[] | [JwtAuthenticatorSpec[], string[]], string][] = [
    ["a valid entry", [ok()], ""],
    ["too many", Array.from({ length: 65 }, (_, i) => withIssuer({ url: `https://i${i}.example` })), "jwt: Too many: 65: must have at most 64 items"],
    ["url required", [withIssuer({ url: "" })], "jwt[0].issuer.url: Required value"],
    ["url not https", [withIssuer({ url: "http://issuer.example" })], 'jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https'],
    ["url with user", [withIssuer({ url: "https://u:p@issuer.example" })], 'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example": URL must not contain a username or password'],
    ["url with query", [withIssuer({ url: "https://issuer.example?a=b" })], 'jwt[0].issuer.url: Invalid value: "https://issuer.example?a=b": URL must not contain a query'],
    ["url with fragment", [withIssuer({ url: "https://issuer.example#x" })], 'jwt[0].issuer.url: Invalid value: "https://issuer.example#x": URL must not contain a fragment'],
    [
      "url equal to the service-account issuer",
      [[withIssuer({ url: "https://kubernetes.default.svc" })], ["https://kubernetes.default.svc"]],
      'jwt[0].issuer.url: Invalid value: "https://kubernetes.default.svc": URL must not overlap with disallowed issuers: [https://kubernetes.default.svc]',
    ],
    ["duplicate url", [ok(), ok()], 'jwt[1].issuer.url: Duplicate value: "https://issuer.example"'],
    ["discoveryURL equal to url", [withIssuer({ discoveryURL: "https://issuer.example/" })], 'jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example/": discoveryURL must be different from URL'],
    ["discoveryURL not https", [withIssuer({ discoveryURL: "http://d.example/x" })], 'jwt[0].issuer.discoveryURL: Invalid value: "http://d.example/x": URL scheme must be https'],
    [
      "duplicate discoveryURL",
      [[withIssuer({ discoveryURL: "https://d.example/x" }), withIssuer({ url: "https://two.example", discoveryURL: "https://d.example/x" })], []],
      'jwt[1].issuer.discoveryURL: Duplicate value: "https://d.example/x"',
    ],
    ["no audiences", [withIssuer({ audiences: [] })], "jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required"],
    ["empty audience", [withIssuer({ audiences: [""] })], "jwt[0].issuer.audiences[0]: Required value"],
    ["duplicate audience", [withIssuer({ audiences: ["a", "a"], audienceMatchPolicy: "MatchAny" })], 'jwt[0].issuer.audiences[1]: Duplicate value: "a"'],
    ["several audiences without MatchAny", [withIssuer({ audiences: ["a", "b"] })], 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences'],
    ["one audience, other policy", [withIssuer({ audienceMatchPolicy: "MatchAll" })], 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience'],
    ["bad certificateAuthority", [withIssuer({ certificateAuthority: "not a cert" })], 'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates'],
    ["claim rule: both", [{ ...ok(), claimValidationRules: [{ claim: "hd", expression: "true" }] }], 'jwt[0].claimValidationRules[0]: Invalid value: "hd": claim and expression can\'t both be set'],
    ["claim rule: neither", [{ ...ok(), claimValidationRules: [{}] }], "jwt[0].claimValidationRules[0]: Required value: claim or expression is required"],
    ["claim rule: message with claim", [{ ...ok(), claimValidationRules: [{ claim: "hd", requiredValue: "x", message: "m" }] }], 'jwt[0].claimValidationRules[0].message: Invalid value: "m": may not be specified when claim is set'],
    ["claim rule: duplicate claim", [{ ...ok(), claimValidationRules: [{ claim: "hd" }, { claim: "hd" }] }], 'jwt[0].claimValidationRules[1].claim: Duplicate value: "hd"'],
    ["claim rule: requiredValue with expression", [{ ...ok(), claimValidationRules: [{ expression: "true", requiredValue: "x" }] }], 'jwt[0].claimValidationRules[0].requiredValue: Invalid value: "x": may not be specified when expression is set'],
    ["claim rule: duplicate expression", [{ ...ok(), claimValidationRules: [{ expression: "true" }, { expression: "true" }] }], 'jwt[0].claimValidationRules[1].expression: Duplicate value: "true"'],
    ["claim rule: not a bool", [{ ...ok(), claimValidationRules: [{ expression: "claims.hd" }] }], 'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.hd": must evaluate to bool'],
    ["username: neither", [withMappings({ username: {} })], "jwt[0].claimMappings.username: Required value: claim or expression is required"],
    ["username: both", [withMappings({ username: { claim: "sub", expression: "claims.sub" } })], `jwt[0].claimMappings.username: Invalid value: "": claim and expression can't both be set`],
    [
      "username: claim without prefix",
      [withMappings({ username: { claim: "sub" } })],
      "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing",
    ],
    ["username: prefix with expression", [withMappings({ username: { expression: "claims.sub", prefix: "x" } })], 'jwt[0].claimMappings.username.prefix: Invalid value: "x": may not be specified when expression is set'],
    [
      "username: claims.email without claims.email_verified",
      [withMappings({ username: { expression: "claims.email" } })],
      'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
    ],
    ["username: claims.email with email_verified in a rule", [{ ...withMappings({ username: { expression: "claims.email" } }), claimValidationRules: [{ expression: "claims.?email_verified.orValue(false) == true" }] }], ""],
    ["username: claims.email with email_verified in itself", [withMappings({ username: { expression: "claims.email_verified == true ? claims.email : ''" } })], ""],
    ["groups: claim without prefix", [withMappings({ groups: { claim: "groups" } })], "jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing"],
    ["uid: both", [withMappings({ uid: { claim: "sub", expression: "claims.sub" } })], `jwt[0].claimMappings.uid: Invalid value: "": claim and expression can't both be set`],
    ["extra: key not domain-prefixed", [withMappings({ extra: [{ key: "foo", valueExpression: "'x'" }] })], 'jwt[0].claimMappings.extra[0].key: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")'],
    ["extra: key not lowercase", [withMappings({ extra: [{ key: "example.org/Foo", valueExpression: "'x'" }] })], 'jwt[0].claimMappings.extra[0].key: Invalid value: "example.org/Foo": must be lowercase'],
    [
      "extra: reserved domain",
      [withMappings({ extra: [{ key: "sub.kubernetes.io/foo", valueExpression: "'x'" }] })],
      'jwt[0].claimMappings.extra[0].key: Invalid value: "sub.kubernetes.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
    ],
    ["extra: duplicate key", [withMappings({ extra: [{ key: "example.org/a", valueExpression: "'x'" }, { key: "example.org/a", valueExpression: "'y'" }] })], 'jwt[0].claimMappings.extra[1].key: Duplicate value: "example.org/a"'],
    ["extra: no expression", [withMappings({ extra: [{ key: "example.org/a", valueExpression: "" }] })], "jwt[0].claimMappings.extra[0].valueExpression: Required value"],
    ["user rule: no expression", [{ ...ok(), userValidationRules: [{ expression: "" }] }], "jwt[0].userValidationRules[0].expression: Required value"],
    ["user rule: duplicate", [{ ...ok(), userValidationRules: [{ expression: "true" }, { expression: "true" }] }], 'jwt[0].userValidationRules[1].expression: Duplicate value: "true"'],
    ["user rule: not a bool", [{ ...ok(), userValidationRules: [{ expression: "user.username" }] }], 'jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool'],
  ];
  for (const [title, input, want] of table) {
    it(title, () => {
      const [list, disallowed] = Array.isArray(input[0]) ? (input as [JwtAuthenticatorSpec[], string[]]) : [input as JwtAuthenticatorSpec[], []];
      expect(errorsOf(list, disallowed)).toBe(want);
    });
  }

  it("reports CEL compilation errors as upstream (compilation failed: …)", () => {
    const msg = errorsOf([withMappings({ username: { expression: "claims.sub +" } })]);
    expect(msg).toMatch(/^jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims\.sub \+": compilation failed: ERROR: <input>:1:/);
    expect(errorsOf([{ ...ok(), userValidationRules: [{ expression: "claims.x == 1" }] }])).toMatch(/userValidationRules\[0\]\.expression: Invalid value: "claims.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims'/);
  });

  it("aggregates several errors in brackets, after `invalid authentication configuration: `", () => {
    const { errors } = validateJwtAuthenticators([withIssuer({ url: "http://a", audiences: [] })], []);
    expect(invalidConfigurationMessage(errors)).toBe(
      'invalid authentication configuration: [jwt[0].issuer.url: Invalid value: "http://a": URL scheme must be https, jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required]',
    );
  });
});

describe("reading the file", () => {
  const doc = (jwt: string, apiVersion = "apiserver.config.k8s.io/v1") => `apiVersion: ${apiVersion}\nkind: AuthenticationConfiguration\njwt:\n${jwt}`;
  const entry = "- issuer:\n    url: https://issuer.example\n    audiences: [kapi]\n  claimMappings:\n    username:\n      claim: sub\n      prefix: ''\n";

  it("reads v1 and v1beta1 jwt lists", () => {
    for (const v of ["apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1beta1"]) {
      const c = parseAuthenticationConfig(doc(entry, v), "f.yaml");
      expect(c.jwt).toHaveLength(1);
      expect(c.jwt[0]!.claimMappings.username).toEqual({ claim: "sub", prefix: "", expression: undefined });
    }
  });

  it("refuses unknown fields (strict decoding) and wrong types, naming the file", () => {
    expect(() => parseAuthenticationConfig(doc(entry + "  bogus: 1\n"), "/etc/authn.yaml")).toThrow('failed to load authentication configuration from file "/etc/authn.yaml": strict decoding error: unknown field "jwt[0].bogus"');
    expect(() => parseAuthenticationConfig(doc("- issuer:\n    url: https://x\n    audiences: kapi\n"), "f.yaml")).toThrow(
      'failed to load authentication configuration from file "f.yaml": json: cannot unmarshal string into Go struct field jwt[0].issuer.audiences of type []string',
    );
    expect(() => parseAuthenticationConfig("", "f.yaml")).toThrow('failed to load authentication configuration from file "f.yaml": empty config data');
    expect(() => loadAuthenticationConfig("/nonexistent/authn.yaml")).toThrow('failed to load authentication configuration from file "/nonexistent/authn.yaml": open /nonexistent/authn.yaml: no such file or directory');
  });
});

describe("start-up errors of the flags and the file", () => {
  const dir = mkdtempSync(join(tmpdir(), "kapi-jwt-config-"));
  const file = join(dir, "authn.yaml");
  writeFileSync(file, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: http://issuer.example\n    audiences: [kapi]\n  claimMappings:\n    username:\n      claim: sub\n      prefix: ''\n");
  const base = () => ({ ...defaultOptions(), storageBackend: "memory" as const });

  it("--authentication-config with --oidc-* flags", () => {
    expect(() => jwtAuthentication({ ...base(), authenticationConfig: file, oidcIssuerURL: "https://x", oidcFlagsSet: true }, loadAuthenticationConfig(file))).toThrow(
      "authentication-config file and oidc-* flags are mutually exclusive",
    );
  });

  it("--oidc-* flags without issuer or client id", () => {
    expect(() => jwtAuthentication({ ...base(), oidcClientID: "kapi", oidcFlagsSet: true }, undefined)).toThrow("oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
  });

  it("an invalid file or invalid flags", () => {
    expect(() => jwtAuthentication({ ...base(), authenticationConfig: file }, loadAuthenticationConfig(file))).toThrow(
      'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https',
    );
    expect(() => jwtAuthentication({ ...base(), oidcIssuerURL: "http://x", oidcClientID: "kapi" }, undefined)).toThrow('invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https');
    expect(() => jwtAuthentication({ ...base(), oidcIssuerURL: "https://sa.example", oidcClientID: "kapi", serviceAccountIssuers: ["https://sa.example"] } as never, undefined)).toThrow(
      'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "https://sa.example": URL must not overlap with disallowed issuers: [https://sa.example]',
    );
    expect(() => jwtAuthentication({ ...base(), oidcIssuerURL: "https://x", oidcClientID: "kapi", oidcSigningAlgs: ["none"] }, undefined)).toThrow('oidc: unsupported signing alg: "none"');
  });
});

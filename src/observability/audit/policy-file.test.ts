import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicyFile, parsePolicy } from "./policy-file.js";

const head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";
const refused = (text: string) => {
  try {
    parsePolicy(text);
    return "accepted";
  } catch (e) {
    return (e as Error).message;
  }
};

describe("reading an audit policy", () => {
  it("reads YAML and JSON, every rule field", () => {
    const p = parsePolicy(
      head +
        `omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: RequestResponse
  users: [alice]
  userGroups: [devs]
  verbs: [create]
  namespaces: [ns, ""]
  resources: [{group: "", resources: [pods, "pods/log", "*/status"], resourceNames: [p1]}]
  omitStages: [Panic]
  omitManagedFields: false
- level: Metadata
  nonResourceURLs: ["/healthz*"]
`,
    );
    expect(p.rules).toHaveLength(2);
    expect(p.rules[0]).toMatchObject({ level: "RequestResponse", users: ["alice"], resources: [{ group: "", resources: ["pods", "pods/log", "*/status"], resourceNames: ["p1"] }], omitManagedFields: false });
    expect(p).toMatchObject({ omitStages: ["RequestReceived"], omitManagedFields: true });
    expect(parsePolicy(JSON.stringify({ apiVersion: "audit.k8s.io/v1", kind: "Policy", rules: [{ level: "None" }] })).rules).toEqual([{ level: "None" }]);
  });

  it("warns about unknown fields and reads the rest (upstream's lenient fallback)", () => {
    const warnings: string[] = [];
    const p = parsePolicy(head + "extra: 1\nrules:\n- level: Metadata\n  verb: [get]\n", (w) => warnings.push(w));
    expect(p.rules).toEqual([{ level: "Metadata" }]);
    expect(warnings).toEqual(['Audit policy contains errors, falling back to lenient decoding: strict decoding error: unknown field "extra", unknown field "rules[0].verb"']);
  });

  it.each([
    ["no kind", "apiVersion: audit.k8s.io/v1\nrules: []\n", `failed decoding: Object 'Kind' is missing in '{"apiVersion":"audit.k8s.io/v1","rules":[]}'`],
    ["no apiVersion", "kind: Policy\n", `failed decoding: Object 'apiVersion' is missing in '{"kind":"Policy"}'`],
    ["a removed version", "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\n", 'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"'],
    ["rules of the wrong type", head + "rules: all\n", "failed decoding: json: cannot unmarshal string into Go struct field Policy.rules of type []v1.PolicyRule"],
    ["a level of the wrong type", head + "rules:\n- level: 3\n", "failed decoding: json: cannot unmarshal number into Go struct field PolicyRule.rules.level of type v1.Level"],
    ["no rules", head + "rules: []\n", "loaded illegal policy with 0 rules"],
    ["a rule without level", head + "rules:\n- verbs: [get]\n", "rules[0].level: Required value"],
    ["an unknown level", head + "rules:\n- level: Everything\n", 'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"'],
    ["a relative URL", head + "rules:\n- level: None\n  nonResourceURLs: [healthz]\n", `rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character`],
    ["a wildcard inside a URL", head + "rules:\n- level: None\n  nonResourceURLs: [/a*/b]\n", `rules[0].nonResourceURLs[0]: Invalid value: "/a*/b": non-resource URL wildcards '*' must be the final character of the rule`],
    ["resources and URLs together", head + "rules:\n- level: None\n  namespaces: [a]\n  nonResourceURLs: [/x]\n", `rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs`],
    ["resourceNames without resources", head + "rules:\n- level: None\n  resources: [{resourceNames: [x]}]\n", `rules[0].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource`],
    ["a group with a version", head + "rules:\n- level: None\n  resources: [{group: apps/v1}]\n", "rules[0].resources.group: Invalid value: \"apps/v1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ["an unknown stage", head + "omitStages: [Done]\nrules:\n- level: None\n", 'omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic'],
    ["several problems at once", head + "rules:\n- {}\n- level: X\n", '[rules[0].level: Required value, rules[1].level: Unsupported value: "X": supported values: "None", "Metadata", "Request", "RequestResponse"]'],
  ])("refuses %s with upstream's message", (_what, text, message) => {
    expect(refused(text)).toBe(message);
  });

  it("names the file when it refuses it, and a file that is not there", () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-policy-"));
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, head + "rules: []\n");
    expect(() => loadPolicyFile(bad)).toThrow(`loading audit policy file: loaded illegal policy with 0 rules: from file ${bad}`);
    expect(() => loadPolicyFile(join(dir, "none.yaml"))).toThrow(`loading audit policy file: failed to read file path "${join(dir, "none.yaml")}": open ${join(dir, "none.yaml")}: no such file or directory`);
  });
});

// `kapi validate` as CI runs it: the real CLI process over manifest files, the server's own
// messages for each object, and the exit code.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runKapi } from "./support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "kapi-validate-"));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
  return p;
};

const crd = file(
  "crd.yaml",
  `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.min <= self.max"
              message: "min must not exceed max"
            properties:
              size: {type: integer, maximum: 10}
              min: {type: integer, default: 0}
              max: {type: integer, default: 5}
`,
);

const policy = file(
  "policy.yaml",
  `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-limit}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    message: "at most 5 replicas"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-limit}
spec:
  policyName: replicas-limit
  validationActions: [Deny]
`,
);

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: shop}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: c, image: nginx}]
`;

describe("kapi validate", () => {
  it("passes good manifests: custom resources of the files' CRDs, defaults applied, built-ins, policies allowing", async () => {
    file("good/widgets.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: small}\nspec: {size: 3, max: 4}\n");
    file("good/app.yaml", deployment("web", 2) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\ndata: {a: b}\n");
    const r = await runKapi(["validate", "-f", crd, "-f", policy, "-f", join(dir, "good")]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`${join(dir, "good", "widgets.yaml")} document 1 Widget small: valid`);
    expect(r.stdout).toContain(`${join(dir, "good", "app.yaml")} document 2 ConfigMap shop/settings: valid`);
    expect(r.stdout).toContain("6 objects: 6 valid, 0 invalid");
    expect(r.code).toBe(0);
  }, 60_000);

  it("reports each invalid object with the server's message and exits 1", async () => {
    const bad = file(
      "bad.yaml",
      [
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: huge}\nspec: {size: 30}\n",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: inverted}\nspec: {min: 9, max: 2}\n",
        deployment("big", 8),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: typo}\ndatta: {a: b}\n",
        "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: other-version}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n",
        "kind: ConfigMap\nmetadata: {name: no-version}\n",
      ].join("---\n"),
    );
    const r = await runKapi(["validate", "-f", crd, "-f", policy, "-f", bad]);
    const line = (n: number) => r.stdout.split("\n").find((l) => l.startsWith(`${bad} document ${n} `) || l.startsWith(`${bad} document ${n}:`));
    expect(line(1)).toBe(`${bad} document 1 Widget huge: invalid: Widget.example.com "huge" is invalid: spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10`);
    expect(line(2)).toBe(`${bad} document 2 Widget inverted: invalid: Widget.example.com "inverted" is invalid: spec: Invalid value: "object": min must not exceed max`);
    expect(line(3)).toBe(`${bad} document 3 Deployment shop/big: invalid: deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit' denied request: at most 5 replicas`);
    expect(line(4)).toBe(`${bad} document 4 ConfigMap typo: invalid: ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datta"`);
    expect(line(5)).toBe(`${bad} document 5 Widget other-version: invalid: no matches for kind "Widget" in version "example.com/v2"`);
    expect(line(6)).toBe(`${bad} document 6 ConfigMap ok: valid`);
    expect(line(7)).toBe(`${bad} document 7: invalid: Object 'apiVersion' is missing`);
    expect(r.stdout).toContain("10 objects: 4 valid, 6 invalid");
    expect(r.code).toBe(1);
    // --validate=warn: the unknown field is a warning, the object valid.
    const warn = await runKapi(["validate", "--validate=warn", "-f", file("typo.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: typo}\ndatta: {a: b}\n")]);
    expect(warn.stdout).toContain('ConfigMap typo: valid\n  Warning: unknown field "datta"\n');
    expect(warn.code).toBe(0);
  }, 60_000);

  it("exits 2 on a usage error or an unreadable path", async () => {
    const none = await runKapi(["validate"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("must specify one of -f");
    const missing = await runKapi(["validate", "-f", join(dir, "absent.yaml")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("ENOENT");
    expect((await runKapi(["validate", "-f", crd, "--validate=maybe"])).code).toBe(2);
  }, 30_000);
});

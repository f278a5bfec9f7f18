import { describe, expect, it } from "vitest";
import { admissionPolicyEnvironment, withMutationTypes } from "../../../cel/environments.js";
import { toCel } from "../../../cel/convert.js";
import { compileCel } from "../../../cel/program.js";
import { builtinTypeRegistry } from "../../../types/register.js";
import { applyConfiguration, applyJsonPatchMutation } from "./patch.js";

const types = builtinTypeRegistry((f) => f.enabledByDefault);
const deployments = types.get("apps", "v1", "deployments")!;
const env = withMutationTypes(admissionPolicyEnvironment({ hasParams: false, hasAuthorizer: false }));

const deployment = () => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "d", labels: { app: "web" } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: "nginx", ports: [{ containerPort: 80, protocol: "TCP" }] }] } },
  },
});
const evalOn = (obj: object, expr: string) => compileCel(expr, env).eval({ object: toCel(obj), oldObject: null, request: null, namespaceObject: null }).value;

describe("ApplyConfiguration", () => {
  it("merges fields, and lists by their schema keys (containers by name)", () => {
    const d = deployment();
    const out = applyConfiguration(
      d as never,
      deployments,
      evalOn(d, "Object{metadata: Object.metadata{labels: {'team': 'blue'}}, spec: Object.spec{replicas: 3, template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'app', image: 'nginx:2'}, Object.spec.template.spec.containers{name: 'sidecar', image: 'proxy'}]}}}}"),
    ) as any;
    expect(out.metadata.labels).toEqual({ app: "web", team: "blue" });
    expect(out.spec.replicas).toBe(3);
    expect(out.spec.template.spec.containers).toEqual([
      { name: "app", image: "nginx:2", ports: [{ containerPort: 80, protocol: "TCP" }] },
      { name: "sidecar", image: "proxy" },
    ]);
    expect(d.spec.replicas).toBe(1); // the input is not changed
  });

  it("refuses atomic structs, undeclared fields and type names off the field path, in upstream's words", () => {
    const d = deployment();
    expect(() => applyConfiguration(d as never, deployments, evalOn(d, "Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'l': 'v'}}}}"))).toThrow(
      "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector",
    );
    expect(() => applyConfiguration(d as never, deployments, evalOn(d, "Object{spec: Object.spec{replicasx: 1}}"))).toThrow(
      "error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema",
    );
    expect(() => applyConfiguration(d as never, deployments, evalOn(d, "Object{spec: Object.specx{replicas: 1}}"))).toThrow(
      `type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type`,
    );
  });
});

describe("JSONPatch", () => {
  it("applies operations in order; a failed test leaves the object unchanged", () => {
    const d = deployment();
    const out = applyJsonPatchMutation(d as never, evalOn(d, "[JSONPatch{op: 'replace', path: '/spec/replicas', value: 5}, JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', value: Object.spec.template.spec.containers{name: 'x', image: 'y'}}]")) as any;
    expect(out.spec.replicas).toBe(5);
    expect(out.spec.template.spec.containers.map((c: any) => c.name)).toEqual(["app", "x"]);
    const same = applyJsonPatchMutation(d as never, evalOn(d, "[JSONPatch{op: 'test', path: '/spec/replicas', value: 9}, JSONPatch{op: 'replace', path: '/spec/replicas', value: 5}]"));
    expect(same).toBe(d);
  });

  it("reports patch errors and initializer type mismatches in upstream's words", () => {
    const d = deployment();
    expect(() => applyJsonPatchMutation(d as never, evalOn(d, "[JSONPatch{op: 'replace', path: '/spec/template/spec/containers/-', value: {'name': 'x'}}]"))).toThrow("JSON Patch: replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value");
    expect(() =>
      applyJsonPatchMutation(d as never, evalOn(d, "[JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', value: Object.spec.template.spec.containers{name: 'x', ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]")),
    ).toThrow(`type mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", expected "Object.spec.template.spec.containers.ports", which matches field name path from root Object type`);
  });
});

import { describe, expect, it } from "vitest";
import { builtinTypeRegistry } from "../../../types/register.js";
import type { ValidatingAdmissionPolicy } from "../types.js";
import { gvkString, typeCheck, typesToCheck } from "./typecheck.js";

const types = builtinTypeRegistry((f) => f.enabledByDefault);

const policy = (spec: ValidatingAdmissionPolicy["spec"]): ValidatingAdmissionPolicy => ({ metadata: { name: "p" }, spec });
const deployments = { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE" as const], resources: ["deployments"] };

describe("VAP type checking", () => {
  it("checks against the kinds the rules name exactly, sorted, skipping wildcards and subresources", () => {
    const p = policy({ matchConstraints: { resourceRules: [{ ...deployments, resources: ["deployments", "replicasets", "deployments/status", "*"] }, { apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }, { apiGroups: ["*"], apiVersions: ["v1"], resources: ["jobs"] }] } });
    expect(typesToCheck(p, types).map((t) => gvkString(t))).toEqual(["/v1, Kind=Pod", "apps/v1, Kind=Deployment", "apps/v1, Kind=ReplicaSet"]);
  });

  it("warns about a field the schema does not have, in upstream's words, and accepts good expressions", () => {
    const p = policy({
      matchConstraints: { resourceRules: [deployments] },
      variables: [{ name: "r", expression: "object.spec.replicas" }],
      validations: [
        { expression: "object.spec.replicas <= 5 && variables.r >= 0 && object.metadata.name != ''" },
        { expression: "object.spec.replicass > 1", messageExpression: "'x' + object.spec.template.spec.containers[0].name" },
        { expression: "true", messageExpression: "object.spec.replicas" },
      ],
    });
    expect(typeCheck(p, types)).toEqual([
      {
        fieldRef: "spec.validations[1].expression",
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n",
      },
    ]);
  });

  it("types params from the paramKind's schema", () => {
    const p = policy({
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConstraints: { resourceRules: [deployments] },
      validations: [{ expression: "object.spec.replicas <= int(params.data.max)" }, { expression: "params.spec.max > 1" }],
    });
    const w = typeCheck(p, types);
    expect(w.map((x) => x.fieldRef)).toEqual(["spec.validations[1].expression"]);
    expect(w[0]!.warning).toContain("undefined field 'spec'");
  });

  it("no exact kinds, no warnings", () => {
    expect(typeCheck(policy({ matchConstraints: { resourceRules: [{ ...deployments, apiGroups: ["*"] }] }, validations: [{ expression: "object.nope" }] }), types)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../apimachinery/validation.js";
import { defaultAdmissionPolicy, defaultPolicyBinding, validateMutatingAdmissionPolicy, validateMutatingAdmissionPolicyBinding, validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from "./api-validation.js";

const rules = [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }];
const policy = (spec: Record<string, unknown>) => {
  const p = { metadata: { name: "p" }, spec: { matchConstraints: { resourceRules: structuredClone(rules) }, ...spec } };
  defaultAdmissionPolicy(p);
  return p;
};
const errors = (errs: ReturnType<typeof validateValidatingAdmissionPolicy>) => errs.map(formatFieldError);

describe("ValidatingAdmissionPolicy defaults and validation", () => {
  it("defaults failurePolicy, matchPolicy, selectors and rule scope", () => {
    const p = policy({ validations: [{ expression: "true" }] });
    expect(p.spec).toEqual({
      failurePolicy: "Fail",
      matchConstraints: { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...rules[0], scope: "*" }] },
      validations: [{ expression: "true" }],
    });
    expect(validateValidatingAdmissionPolicy(p)).toEqual([]);
  });

  it("refuses expressions that do not compile or return the wrong type, in upstream's words", () => {
    const p = policy({
      variables: [{ name: "in", expression: "1" }, { name: "x", expression: "object." }],
      validations: [{ expression: "object.spec.replicas" }, { expression: "1 +", messageExpression: "'a' + 1", reason: "Teapot" }],
      auditAnnotations: [{ key: "k", valueExpression: "1" }, { key: "k", valueExpression: "'v'" }],
    });
    expect(errors(validateValidatingAdmissionPolicy(p))).toEqual([
      `spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier`,
      expect.stringMatching(/^spec\.variables\[1\]\.expression: Invalid value: "object\.": compilation failed: ERROR: <input>:1:8: Syntax error/),
      `spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool`,
      expect.stringMatching(/^spec\.validations\[1\]\.expression: Invalid value: "1 \+": compilation failed: ERROR: <input>:1:4: Syntax error/),
      expect.stringMatching(/^spec\.validations\[1\]\.messageExpression: Invalid value: "'a' \+ 1": compilation failed: ERROR: <input>:1:5: found no matching overload for '_\+_' applied to '\(string, int\)'/),
      `spec.validations[1].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"`,
      `spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type]`,
      `spec.auditAnnotations[1].key: Duplicate value: "k"`,
    ]);
  });

  it("requires matchConstraints with resourceRules, and validations or auditAnnotations", () => {
    const p = { metadata: { name: "p" }, spec: { failurePolicy: "Never" } };
    expect(errors(validateValidatingAdmissionPolicy(p))).toEqual([
      `spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"`,
      "spec.matchConstraints: Required value",
      "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
      "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ]);
  });
});

describe("ValidatingAdmissionPolicyBinding validation", () => {
  const binding = (spec: Record<string, unknown>) => {
    const b = { metadata: { name: "b" }, spec };
    defaultPolicyBinding(b);
    return validateValidatingAdmissionPolicyBinding(b).map(formatFieldError);
  };
  it("policyName, validationActions and paramRef as upstream", () => {
    expect(binding({ policyName: "p", validationActions: ["Deny"] })).toEqual([]);
    expect(binding({})).toEqual(["spec.policyName: Required value", "spec.validationActions: Required value: at least one validation action is required"]);
    expect(binding({ policyName: "p", validationActions: ["Deny", "Warn", "Warn"] })).toEqual([
      `spec.validationActions[2]: Duplicate value: "Warn"`,
      `spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
    ]);
    expect(binding({ policyName: "p", validationActions: ["Audit"], paramRef: { name: "a", selector: {} } })).toEqual([
      "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.parameterNotFoundAction: Required value",
    ]);
    expect(binding({ policyName: "p", validationActions: ["Audit"], paramRef: { parameterNotFoundAction: "Maybe" } })).toEqual([
      "spec.paramRef: Required value: one of name or selector must be specified",
      `spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"`,
    ]);
  });
});

describe("MutatingAdmissionPolicy validation", () => {
  it("compiles each mutation as admission does; shared parts as ValidatingAdmissionPolicy's", () => {
    const p = policy({
      reinvocationPolicy: "Sometimes",
      mutations: [
        { patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}" } },
        { patchType: "JSONPatch", jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/x', value: 1}]" } },
        { patchType: "ApplyConfiguration", applyConfiguration: { expression: "'teapot'" } },
        { patchType: "JSONPatch", jsonPatch: { expression: "[JSONPatch{op: 1}]" } },
        { patchType: "Merge" },
      ],
    });
    expect(errors(validateMutatingAdmissionPolicy(p))).toEqual([
      `spec.reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"`,
      `spec.mutations[2].applyConfiguration.expression: Invalid value: "'teapot'": must evaluate to Object but got string`,
      expect.stringMatching(/^spec\.mutations\[3\]\.jsonPatch\.expression: Invalid value: "\[JSONPatch\{op: 1\}\]": compilation failed: ERROR: .*expected type of field 'op' is 'string' but provided type is 'int'/),
      `spec.mutations[4].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"`,
    ]);
    expect(errors(validateMutatingAdmissionPolicyBinding({ metadata: { name: "b" }, spec: {} }))).toEqual(["spec.policyName: Required value"]);
  });
});


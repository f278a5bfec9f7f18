import { describe, expect, it } from "vitest";
import { toCel } from "../../../cel/convert.js";
import { admissionAttributes } from "../../attributes.testkit.js";
import { defineResourceType } from "../../../registry/resource-type.js";
import { admissionRequestValue, Evaluation } from "../activation.js";
import type { ValidatingAdmissionPolicy } from "../types.js";
import { compileValidatingPolicy } from "./compiled.js";
import { aggregate, validate, type ValidateResult } from "./validator.js";

const deployments = defineResourceType({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true } as never);

function run(spec: ValidatingAdmissionPolicy["spec"], object: Record<string, unknown>, params: unknown = null, failurePolicy: "Fail" | "Ignore" = "Fail") {
  const compiled = compileValidatingPolicy({ metadata: { name: "p" }, spec });
  const a = admissionAttributes({ operation: "CREATE", type: deployments, namespace: "ns", name: "d", subresource: "", object: object as never, dryRun: false });
  const ev = () => new Evaluation(
    { object: toCel(object), oldObject: null, request: admissionRequestValue(a, { type: deployments, kind: { group: "apps", version: "v1", kind: "Deployment" }, equivalent: false }), params: toCel(params), namespaceObject: null, attributes: a },
    compiled.variables,
  );
  return validate(compiled, failurePolicy, ev).then(timeless);
}

/** The result without evaluation times (checked to be times, then left out of the comparisons). */
function timeless(r: ValidateResult) {
  for (const x of [...r.decisions, ...r.auditAnnotations]) expect(x.seconds).toBeGreaterThanOrEqual(0);
  return { decisions: r.decisions.map(({ seconds: _s, ...x }) => x), auditAnnotations: r.auditAnnotations.map(({ seconds: _s, ...x }) => x) };
}

const d = (replicas: number) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", labels: { a: "b" } }, spec: { replicas } });

describe("validate", () => {
  it("message: messageExpression, else message, else the failed expression; blank or multi-line results fall back", async () => {
    const r = await run(
      {
        validations: [
          { expression: "object.spec.replicas < 2", messageExpression: "'got ' + string(object.spec.replicas)" },
          { expression: "object.spec.replicas < 2", messageExpression: "'  '", message: " static " },
          { expression: "object.spec.replicas < 2", messageExpression: "'a\\nb'" },
          { expression: " object.spec.replicas < 2 ", reason: "Forbidden" },
          { expression: "object.spec.replicas > 2" },
        ],
      },
      d(3),
    );
    expect(r.decisions).toEqual([
      { action: "deny", evaluation: "deny", message: "got 3", reason: "Invalid" },
      { action: "deny", evaluation: "deny", message: "static", reason: "Invalid" },
      { action: "deny", evaluation: "deny", message: "failed expression: object.spec.replicas < 2", reason: "Invalid" },
      { action: "deny", evaluation: "deny", message: "failed expression: object.spec.replicas < 2", reason: "Forbidden" },
      { action: "admit", evaluation: "admit", message: "" },
    ]);
  });

  it("errors: runtime and compile errors in upstream's words; the failure policy picks deny or admit", async () => {
    const spec = { validations: [{ expression: "object.spec.nope == 1" }, { expression: "object.spec.replicas" }, { expression: "object.spec.(" }] };
    const fail = await run(spec, d(1));
    expect(fail.decisions.map((x) => [x.action, x.evaluation, x.message])).toEqual([
      ["deny", "error", "expression 'object.spec.nope == 1' resulted in error: no such key: nope"],
      ["deny", "error", "compilation error: must evaluate to bool"],
      ["deny", "error", expect.stringMatching(/^compilation error: compilation failed: ERROR: <input>:1:13: Syntax error/)],
    ]);
    const ignore = await run(spec, d(1), null, "Ignore");
    expect(ignore.decisions.map((x) => x.action)).toEqual(["admit", "admit", "admit"]);
  });

  it("variables are evaluated lazily: an unused broken one is harmless, a used one reports its error", async () => {
    const r = await run(
      {
        variables: [{ name: "broken", expression: "object.spec.nope" }, { name: "n", expression: "object.spec.replicas" }, { name: "twice", expression: "variables.n * 2" }],
        validations: [{ expression: "variables.twice == 6" }, { expression: "variables.broken == 1" }, { expression: "has(variables.n)" }],
      },
      d(3),
    );
    expect(r.decisions.map((x) => x.message)).toEqual(["", `expression 'variables.broken == 1' resulted in error: composited variable "broken" fails to evaluate: no such key: nope`, ""]);
  });

  it("match conditions: one false skips the policy; errors go to the failure policy, aggregated", async () => {
    const validations = [{ expression: "false" }];
    expect((await run({ matchConditions: [{ name: "a", expression: "object.metadata.name == 'x'" }, { name: "b", expression: "object.nope" }], validations }, d(1))).decisions).toEqual([]);
    const errs = await run({ matchConditions: [{ name: "a", expression: "object.nope == 1" }, { name: "b", expression: "object.nada == 1" }], validations }, d(1));
    expect(errs.decisions).toEqual([
      { action: "deny", evaluation: "error", message: "[expression 'object.nope == 1' resulted in error: no such key: nope, expression 'object.nada == 1' resulted in error: no such key: nada]" },
    ]);
    expect((await run({ matchConditions: [{ name: "a", expression: "object.nope == 1" }], validations }, d(1), null, "Ignore")).decisions).toEqual([]);
    expect(aggregate(["x"])).toBe("x");
  });

  it("audit annotations: strings are published trimmed, null and blank excluded, errors fail under Fail", async () => {
    const r = await run(
      {
        auditAnnotations: [
          { key: "a", valueExpression: "' r=' + string(object.spec.replicas) + ' '" },
          { key: "b", valueExpression: "null" },
          { key: "c", valueExpression: "''" },
          { key: "d", valueExpression: "object.nope" },
        ],
      },
      d(2),
    );
    expect(r.auditAnnotations).toEqual([
      { key: "a", action: "publish", value: "r=2" },
      { key: "b", action: "exclude" },
      { key: "c", action: "exclude" },
      { key: "d", action: "error", error: "compilation error: must evaluate to one of [string null_type]" },
    ]);
  });

  it("params and request are visible", async () => {
    const r = await run({ paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression: "object.spec.replicas <= int(params.data.max) && request.operation == 'CREATE' && request.kind.kind == 'Deployment' && request.namespace == 'ns'" }] }, d(3), { data: { max: "2" } });
    expect(r.decisions[0]!.action).toBe("deny");
  });
});

import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../apimachinery/validation.js";
import { validateResourceQuota, validateResourceQuotaStatusUpdate, validateResourceQuotaUpdate } from "./resourcequota.js";

const texts = (errs: ReturnType<typeof validateResourceQuota>) => errs.map(formatFieldError);

describe("ResourceQuota validation", () => {
  it("accepts standard names, object counts, per-class and extended names", () => {
    const hard = {
      pods: "10", "requests.cpu": "2", "limits.memory": "1Gi", "count/deployments.apps": "3", "count/widgets.example.com": "1",
      "gold.storageclass.storage.k8s.io/requests.storage": "10Gi", "requests.example.com/gpu": "4", "hugepages-2Mi": "1Gi",
    };
    expect(validateResourceQuota({ metadata: { name: "q" }, spec: { hard } })).toEqual([]);
  });

  it("refuses unknown bare names, negative values and fractions of counted things", () => {
    expect(texts(validateResourceQuota({ metadata: { name: "q" }, spec: { hard: { gpus: "1", pods: "1.5", secrets: "-1", "example.com/foo": "500m" } } }))).toEqual([
      'spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified',
      'spec.hard[pods]: Invalid value: "1500m": must be an integer',
      'spec.hard[secrets]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.hard[example.com/foo]: Invalid value: "500m": must be an integer',
    ]);
    expect(texts(validateResourceQuota({ metadata: { name: "q" }, spec: { hard: { storage: "1Gi" } } }))).toEqual([
      'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
    ]);
  });

  it("checks scopes against the resources they limit, and scope selectors", () => {
    expect(texts(validateResourceQuota({ metadata: { name: "q" }, spec: { hard: { "requests.cpu": "1" }, scopes: ["BestEffort", "Sometimes"] } }))).toEqual([
      'spec.scopes: Invalid value: ["BestEffort","Sometimes"]: unsupported scope applied to resource',
      'spec.scopes: Invalid value: ["BestEffort","Sometimes"]: unsupported scope',
    ]);
    const selector = (expr: object) => validateResourceQuota({ metadata: { name: "q" }, spec: { hard: { pods: "1" }, scopeSelector: { matchExpressions: [expr] } } });
    expect(texts(selector({ scopeName: "Terminating", operator: "In", values: ["x"] }))).toEqual([
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    ]);
    expect(texts(selector({ scopeName: "PriorityClass", operator: "In" }))).toEqual([
      "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
    ]);
    expect(texts(selector({ scopeName: "PriorityClass", operator: "Exists", values: ["a"] }))).toEqual([
      "spec.scopeSelector.matchExpressions.values: Invalid value: [\"a\"]: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
    ]);
    expect(texts(selector({ scopeName: "PriorityClass", operator: "Gt", values: ["a"] }))).toEqual([
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "Gt": not a valid selector operator',
    ]);
  });

  it("keeps scopes immutable; /status validates hard and used", () => {
    const old = { metadata: { name: "q" }, spec: { hard: { pods: "1" }, scopes: ["BestEffort"] } };
    expect(texts(validateResourceQuotaUpdate({ ...old, spec: { hard: { pods: "2" }, scopes: ["NotTerminating"] } }, old))).toEqual([
      'spec.scopes: Invalid value: ["NotTerminating"]: field is immutable',
    ]);
    expect(texts(validateResourceQuotaStatusUpdate({ ...old, status: { hard: { pods: "1" }, used: { pods: "-2" } } }))).toEqual([
      'status.used[pods]: Invalid value: "-2": must be greater than or equal to 0',
    ]);
  });
});

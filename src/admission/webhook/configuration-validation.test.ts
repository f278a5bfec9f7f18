import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../apimachinery/validation.js";
import { defaultMutatingWebhookConfiguration } from "./configuration-defaults.js";
import { validateWebhookConfiguration } from "./configuration-validation.js";

const hook = (extra: Record<string, unknown> = {}) => ({
  name: "hook.example.com",
  clientConfig: { url: "https://hooks.example.com/x" },
  rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  ...extra,
});
const errors = (webhooks: unknown[], old?: unknown[]) =>
  validateWebhookConfiguration({ webhooks }, true, old ? { webhooks: old } : undefined).map(formatFieldError);

describe("webhook configuration validation (upstream's texts)", () => {
  it("accepts a well-formed webhook", () => {
    expect(errors([hook()])).toEqual([]);
  });
  it.each([
    [{ name: "hook" }, 'webhooks[0].name: Invalid value: "hook": should be a domain with at least three segments separated by dots'],
    [{ name: "" }, "webhooks[0].name: Required value"],
    [{ sideEffects: undefined }, "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"],
    [{ sideEffects: "Unknown" }, 'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"'],
    [{ failurePolicy: "Maybe" }, 'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
    [{ timeoutSeconds: 0 }, "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds"],
    [{ admissionReviewVersions: [] }, "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"],
    [{ reinvocationPolicy: "Always" }, 'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"'],
    [{ clientConfig: {} }, "webhooks[0].clientConfig: Required value: exactly one of url or service is required"],
    [{ clientConfig: { url: "http://hooks.example.com" } }, 'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme'],
    [{ clientConfig: { url: "https://hooks.example.com/x?a=b" } }, 'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL'],
    [{ clientConfig: { service: { name: "s", namespace: "ns", path: "x" } } }, 'webhooks[0].clientConfig.service.path: Invalid value: "x": must start with a \'/\''],
    [{ clientConfig: { service: { namespace: "ns" } } }, "webhooks[0].clientConfig.service.name: Required value: service name is required"],
    [{ rules: [{ operations: ["*", "CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }, `webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`],
    [{ rules: [{ operations: ["PATCH"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }, 'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'],
    [{ matchConditions: [{ name: "a", expression: "1 + " }] }, /^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "1 \+ ": compilation failed: /],
    [{ matchConditions: [{ name: "a", expression: "true" }, { name: "a", expression: "true" }] }, 'webhooks[0].matchConditions[1].name: Duplicate value: "a"'],
  ])("%j", (extra, want) => {
    const got = errors([hook(extra)]);
    expect(got).toHaveLength(1);
    if (typeof want === "string") expect(got[0]).toBe(want);
    else expect(got[0]).toMatch(want);
  });
  it("webhook names are unique; an update keeps accepting what the stored object had", () => {
    expect(errors([hook(), hook()])).toEqual(['webhooks[1].name: Duplicate value: "hook.example.com"']);
    expect(errors([hook({ sideEffects: "Some" }), hook()], [hook({ sideEffects: "Some" }), hook()])).toEqual([]);
  });
  it("defaults", () => {
    const o = { webhooks: [hook({ clientConfig: { service: { name: "s", namespace: "ns" } } })] };
    defaultMutatingWebhookConfiguration(o);
    expect(o.webhooks[0]).toMatchObject({ failurePolicy: "Fail", matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: "Never", clientConfig: { service: { port: 443 } }, rules: [{ scope: "*" }] });
  });
});

import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../apimachinery/validation.js";
import { mandatoryPriorityLevels } from "../flowcontrol-bootstrap.js";
import { validateFlowSchema, validatePriorityLevelConfiguration } from "./flowcontrol.js";

const messages = (errs: ReturnType<typeof validateFlowSchema>) => errs.map(formatFieldError);
const fs = (spec: object, name = "mine") => ({ metadata: { name }, spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 500, ...spec } });

describe("FlowSchema validation (upstream's messages)", () => {
  it("accepts a well-formed schema", () => {
    expect(validateFlowSchema(fs({ rules: [{ subjects: [{ kind: "User", user: { name: "a" } }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/apis/*"] }] }] }))).toEqual([]);
  });

  it("names every bad matcher", () => {
    const errs = messages(
      validateFlowSchema(
        fs({
          matchingPrecedence: 1,
          distinguisherMethod: { type: "ByColor" },
          rules: [
            {
              subjects: [{ kind: "Robot" }, { kind: "Group", group: { name: "g" }, user: { name: "u" } }, { kind: "ServiceAccount", serviceAccount: { name: "s" } }],
              resourceRules: [{ verbs: ["get", "*"], apiGroups: [], resources: ["pods", "*"], namespaces: ["Bad_NS"] }],
              nonResourceRules: [{ verbs: ["fly"], nonResourceURLs: ["healthz", "/a*"] }],
            },
            { subjects: [] },
          ],
        }),
      ),
    );
    expect(errs).toEqual([
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
      'spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByColor"}: supported values: "ByNamespace", "ByUser"',
      'spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
      "spec.rules[0].subjects[1].user: Forbidden: user is forbidden when subject kind is not 'User'",
      "spec.rules[0].subjects[2].serviceAccount.namespace: Required value: must specify namespace for service account",
      'spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"get", "*"}: if \'*\' is present, must not specify other verbs',
      "spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group",
      'spec.rules[0].resourceRules[0].resources: Invalid value: []string{"pods", "*"}: if \'*\' is present, must not specify other resources',
      `spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "Bad_NS": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'spec.rules[0].nonResourceRules[0].verbs: Unsupported value: []string{"fly"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a*": wildcard can only do suffix matching',
      "spec.rules[1].subjects: Required value: subjects must contain at least one value",
      "spec.rules[1]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty",
    ]);
  });

  it("keeps the mandatory schemas fixed", () => {
    expect(messages(validateFlowSchema(fs({ matchingPrecedence: 10000, rules: [] }, "catch-all")))[0]).toMatch(/^spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value$/);
  });
});

describe("PriorityLevelConfiguration validation (upstream's messages)", () => {
  const pl = (spec: object, name = "mine") => ({ metadata: { name }, spec });
  it("names bad limits and queuing", () => {
    const errs = messages(
      validatePriorityLevelConfiguration(
        pl({ type: "Limited", limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -2, limitResponse: { type: "Queue", queuing: { queues: 1 << 26, handSize: 8, queueLengthLimit: 0 } } } }),
      ),
    );
    expect(errs).toEqual([
      "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
      "spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: 0: must be positive",
      "spec.limited.limitResponse.queuing.queues: Invalid value: 67108864: must not be greater than 10000000",
      "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 67108864 and handSize 8 should not be greater than 60",
      "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
      "spec.limited.borrowingLimitPercent: Invalid value: -2: if specified, must be a non-negative integer",
    ]);
  });

  it("ties the Exempt type to the name exempt, whose shares stay the administrator's", () => {
    expect(messages(validatePriorityLevelConfiguration(pl({ type: "Exempt", exempt: {} })))).toEqual(["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]);
    expect(validatePriorityLevelConfiguration(pl({ type: "Exempt", exempt: { nominalConcurrencyShares: 5, lendablePercent: 10 } }, "exempt"))).toEqual([]);
    const catchAll = mandatoryPriorityLevels()[0]!;
    expect(validatePriorityLevelConfiguration(catchAll as never)).toEqual([]);
  });
});

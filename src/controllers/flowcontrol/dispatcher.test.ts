import { describe, expect, it } from "vitest";
import type { RequestInfo } from "../../http/request-info.js";
import { FlowControlMetrics } from "../../observability/flowcontrol-metrics.js";
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels, type FlowSchema } from "../../types/flowcontrol-bootstrap.js";
import { Dispatcher } from "./dispatcher.js";

const bootstrap = () => ({ pls: [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()], fss: [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()] });
const resource = (verb: string, resource: string, namespace = "", apiGroup = ""): RequestInfo =>
  ({ isResourceRequest: true, path: "/x", verb, apiPrefix: "api", apiGroup, apiVersion: "v1", namespace, resource, subresource: "", name: "", parts: [] }) as RequestInfo;
const nonResource = (path: string): RequestInfo => ({ isResourceRequest: false, path, verb: "get", apiPrefix: "", apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "", parts: [] }) as RequestInfo;

describe("Dispatcher", () => {
  it("gives each priority level its nominal seats of 600 in proportion to its shares, as upstream's defaults do", () => {
    const metrics = new FlowControlMetrics();
    const d = new Dispatcher({ serverConcurrencyLimit: 600, metrics });
    const { pls, fss } = bootstrap();
    d.digest(pls, fss);
    const nominal = Object.fromEntries([...d.priorityLevels()].map(([n, s]) => [n, s.nominalCL]));
    expect(nominal).toEqual({ "catch-all": 13, exempt: 0, system: 74, "node-high": 98, "leader-election": 25, "workload-high": 98, "workload-low": 245, "global-default": 49 });
    expect(metrics.text()).toContain('apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 245');
    // lendable 90%: at idle the level lends what it does not use, down to its lower limit.
    const low = d.priorityLevels().get("workload-low")!;
    expect(low.minCL).toBe(245 - 221);
    expect(d.maxSeats("global-default")).toBe(Math.min(Math.ceil(49 * 0.15), Math.trunc(49 / 6)));
  });

  it("classifies by precedence then name, with the flow distinguished as the schema says", () => {
    const d = new Dispatcher({ serverConcurrencyLimit: 600, metrics: new FlowControlMetrics() });
    const { pls, fss } = bootstrap();
    d.digest(pls, fss);
    const admin = { name: "root", groups: ["system:masters", "system:authenticated"] };
    const node = { name: "system:node:a", groups: ["system:nodes", "system:authenticated"] };
    const sa = { name: "system:serviceaccount:kube-system:deployer", groups: ["system:serviceaccounts", "system:authenticated"] };
    const someone = { name: "alice", groups: ["system:authenticated"] };
    expect(d.classify(resource("get", "pods", "a"), admin).fs.metadata.name).toBe("exempt");
    expect(d.classify(resource("update", "nodes"), node).fs.metadata.name).toBe("system-node-high");
    expect(d.classify(resource("get", "pods", "a"), node).fs.metadata.name).toBe("system-nodes");
    expect(d.classify(resource("get", "leases", "kube-system", "coordination.k8s.io"), sa).fs.metadata.name).toBe("system-leader-election");
    const ksa = d.classify(resource("list", "pods", "kube-system"), sa);
    expect([ksa.fs.metadata.name, ksa.pl.metadata.name, ksa.flowDistinguisher]).toEqual(["kube-system-service-accounts", "workload-high", "kube-system"]);
    const user = d.classify(resource("list", "pods", "default"), someone);
    expect([user.fs.metadata.name, user.flowDistinguisher]).toEqual(["global-default", "alice"]);
    expect(d.classify(nonResource("/readyz"), { name: "system:anonymous", groups: ["system:unauthenticated"] }).pl.metadata.name).toBe("exempt");
    // Without the suggested objects the mandatory catch-all takes the rest.
    d.digest([], []);
    expect(d.classify(resource("get", "pods", "a"), someone).fs.metadata.name).toBe("catch-all");
  });

  it("reports a FlowSchema whose priority level is missing as Dangling and leaves it out", () => {
    const d = new Dispatcher({ serverConcurrencyLimit: 600, metrics: new FlowControlMetrics() });
    const orphan: FlowSchema = { metadata: { name: "orphan" }, spec: { priorityLevelConfiguration: { name: "nowhere" }, matchingPrecedence: 5, rules: [{ subjects: [{ kind: "Group", group: { name: "*" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }] } };
    const updates = d.digest(mandatoryPriorityLevels(), [...mandatoryFlowSchemas(), orphan]);
    expect(updates.find((u) => u.name === "orphan")?.condition).toMatchObject({
      type: "Dangling",
      status: "True",
      reason: "NotFound",
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object',
    });
    expect(updates.find((u) => u.name === "exempt")?.condition).toMatchObject({ status: "False", reason: "Found" });
    expect(d.classify(nonResource("/x"), { name: "a", groups: ["system:authenticated"] }).fs.metadata.name).toBe("catch-all");
  });
});

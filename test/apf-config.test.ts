// API Priority and Fairness, its configuration against a real server: the bootstrap FlowSchemas
// and PriorityLevelConfigurations with upstream 1.34's specs and how they are kept (auto-update
// annotation), the Dangling condition, FlowSchemas with bad matchers refused with upstream's
// messages (through @kubernetes/client-node), the classification headers, the debug dumps, the
// metrics, and --enable-priority-and-fairness=false.
import { ApiException, FlowcontrolApiserverV1Api, KubeConfig, type V1FlowSchema } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { whenSettled } from "./support/settle.js";

const base = "/apis/flowcontrol.apiserver.k8s.io/v1";
const annotation = "apf.kubernetes.io/autoupdate-spec";

// Transcribed from k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go (release 1.34).
const everything = { resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] };
const group = (...names: string[]) => names.map((name) => ({ kind: "Group", group: { name } }));
const user = (...names: string[]) => names.map((name) => ({ kind: "User", user: { name } }));
const kubeSystemSAs = [{ kind: "ServiceAccount", serviceAccount: { namespace: "kube-system", name: "*" } }];
const everyone = group("system:unauthenticated", "system:authenticated");
const expectedFlowSchemas: Record<string, object> = {
  exempt: { priorityLevelConfiguration: { name: "exempt" }, matchingPrecedence: 1, rules: [{ subjects: group("system:masters"), ...everything }] },
  "catch-all": { priorityLevelConfiguration: { name: "catch-all" }, matchingPrecedence: 10000, distinguisherMethod: { type: "ByUser" }, rules: [{ subjects: everyone, ...everything }] },
  probes: { priorityLevelConfiguration: { name: "exempt" }, matchingPrecedence: 2, rules: [{ subjects: everyone, nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }] }] },
  "system-leader-election": {
    priorityLevelConfiguration: { name: "leader-election" },
    matchingPrecedence: 100,
    distinguisherMethod: { type: "ByUser" },
    rules: [{ subjects: [...user("system:kube-controller-manager", "system:kube-scheduler"), ...kubeSystemSAs], resourceRules: [{ verbs: ["get", "create", "update"], apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces: ["*"] }] }],
  },
  "system-node-high": {
    priorityLevelConfiguration: { name: "node-high" },
    matchingPrecedence: 400,
    distinguisherMethod: { type: "ByUser" },
    rules: [
      {
        subjects: group("system:nodes"),
        resourceRules: [
          { verbs: ["*"], apiGroups: [""], resources: ["nodes", "nodes/status"], clusterScope: true, namespaces: ["*"] },
          { verbs: ["*"], apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces: ["*"] },
        ],
      },
    ],
  },
  "system-nodes": { priorityLevelConfiguration: { name: "system" }, matchingPrecedence: 500, distinguisherMethod: { type: "ByUser" }, rules: [{ subjects: group("system:nodes"), ...everything }] },
  "kube-controller-manager": { priorityLevelConfiguration: { name: "workload-high" }, matchingPrecedence: 800, distinguisherMethod: { type: "ByNamespace" }, rules: [{ subjects: user("system:kube-controller-manager"), ...everything }] },
  "kube-scheduler": { priorityLevelConfiguration: { name: "workload-high" }, matchingPrecedence: 800, distinguisherMethod: { type: "ByNamespace" }, rules: [{ subjects: user("system:kube-scheduler"), ...everything }] },
  "kube-system-service-accounts": { priorityLevelConfiguration: { name: "workload-high" }, matchingPrecedence: 900, distinguisherMethod: { type: "ByNamespace" }, rules: [{ subjects: kubeSystemSAs, ...everything }] },
  "service-accounts": { priorityLevelConfiguration: { name: "workload-low" }, matchingPrecedence: 9000, distinguisherMethod: { type: "ByUser" }, rules: [{ subjects: group("system:serviceaccounts"), ...everything }] },
  "global-default": { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 9900, distinguisherMethod: { type: "ByUser" }, rules: [{ subjects: everyone, ...everything }] },
};
const queue = (nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number) => ({
  type: "Limited",
  limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: "Queue", queuing: { queues, handSize, queueLengthLimit: 50 } } },
});
const expectedPriorityLevels: Record<string, object> = {
  exempt: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  "catch-all": { type: "Limited", limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } } },
  system: queue(30, 33, 64, 6),
  "node-high": queue(40, 25, 64, 6),
  "leader-election": queue(10, 0, 16, 4),
  "workload-high": queue(40, 50, 128, 6),
  "workload-low": queue(100, 90, 128, 6),
  "global-default": queue(20, 50, 128, 6),
};

async function list(s: EmbeddedTestServer, resource: string): Promise<any[]> {
  const r = await req(s, "GET", `${base}/${resource}`);
  expect(r.status).toBe(200);
  return r.json.items;
}

describe("API Priority and Fairness configuration", () => {
  let s: EmbeddedTestServer;
  let api: FlowcontrolApiserverV1Api;
  beforeAll(async () => {
    s = await startTestServer();
    const kc = new KubeConfig();
    kc.loadFromString(s.kubeconfig);
    api = kc.makeApiClient(FlowcontrolApiserverV1Api);
  });
  afterAll(async () => s?.stop());

  it("creates upstream's mandatory and suggested objects, annotated for auto-update", async () => {
    const fss = await list(s, "flowschemas");
    expect(Object.fromEntries(fss.map((f) => [f.metadata.name, f.spec]))).toEqual(expectedFlowSchemas);
    const pls = await list(s, "prioritylevelconfigurations");
    expect(Object.fromEntries(pls.map((p) => [p.metadata.name, p.spec]))).toEqual(expectedPriorityLevels);
    for (const o of [...fss, ...pls]) expect(o.metadata.annotations).toEqual({ [annotation]: "true" });
  });

  it("writes each FlowSchema's Dangling condition", async () => {
    const fss = await whenSettled(s, "every FlowSchema has its Dangling condition", async () => {
      const items = await list(s, "flowschemas");
      return items.every((f) => f.status?.conditions?.length) ? items : undefined;
    });
    const globalDefault = fss.find((f) => f.metadata.name === "global-default");
    expect(globalDefault.status.conditions).toEqual([
      { type: "Dangling", status: "False", reason: "Found", message: 'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists', lastTransitionTime: expect.any(String) },
    ]);
    // The producer made it, the consumer applies its status, as upstream's managers.
    expect(globalDefault.metadata.managedFields.map((m: any) => [m.manager, m.operation, m.subresource ?? ""])).toEqual([
      ["api-priority-and-fairness-config-consumer-v1", "Apply", "status"],
      ["api-priority-and-fairness-config-producer-v1", "Update", ""],
    ]);

    await api.createFlowSchema({ body: { metadata: { name: "orphan" }, spec: { priorityLevelConfiguration: { name: "no-such-level" }, matchingPrecedence: 300, rules: [{ subjects: user("nobody"), nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/version"] }] }] } } });
    const orphan = await whenSettled(s, "the orphan is Dangling", async () => {
      const f = await api.readFlowSchema({ name: "orphan" });
      return f.status?.conditions?.some((c) => c.status === "True") ? f : undefined;
    });
    expect(orphan.status!.conditions![0]).toMatchObject({ type: "Dangling", status: "True", reason: "NotFound", message: 'This FlowSchema references the PriorityLevelConfiguration object named "no-such-level" but there is no such object' });
    await api.deleteFlowSchema({ name: "orphan" });
  });

  it("restores a deleted mandatory object and a suggested one, and a suggested spec only while auto-update is on", async () => {
    await api.deletePriorityLevelConfiguration({ name: "catch-all" });
    await api.deleteFlowSchema({ name: "global-default" });
    const restored = await whenSettled(s, "catch-all and global-default are back", async () => {
      const pls = await list(s, "prioritylevelconfigurations");
      const fss = await list(s, "flowschemas");
      const pl = pls.find((p) => p.metadata.name === "catch-all");
      return pl && fss.some((f) => f.metadata.name === "global-default") ? pl : undefined;
    });
    expect(restored.spec).toEqual(expectedPriorityLevels["catch-all"]);

    // A suggested level edited while auto-update is on gets its spec back.
    const edit = async (auto: string, shares: number) => {
      const body = { metadata: { annotations: { [annotation]: auto } }, spec: { limited: { nominalConcurrencyShares: shares } } };
      const r = await req(s, "PATCH", `${base}/prioritylevelconfigurations/workload-low`, { body, headers: { "content-type": "application/merge-patch+json" } });
      expect(r.status).toBe(200);
    };
    await edit("true", 7);
    const back = await whenSettled(s, "workload-low restored", async () => {
      const p = await api.readPriorityLevelConfiguration({ name: "workload-low" });
      return p.spec?.limited?.nominalConcurrencyShares === 100 ? p : undefined;
    });
    expect(back.metadata!.annotations![annotation]).toBe("true");
    // With auto-update off, the operator's spec stays.
    await edit("false", 7);
    const kept = await whenSettled(s, "workload-low kept", async () => api.readPriorityLevelConfiguration({ name: "workload-low" }));
    expect(kept.spec?.limited?.nominalConcurrencyShares).toBe(7);
    await edit("true", 7);
    await whenSettled(s, "workload-low restored again", async () => ((await api.readPriorityLevelConfiguration({ name: "workload-low" })).spec?.limited?.nominalConcurrencyShares === 100 ? true : undefined));
  });

  it("refuses a change to a mandatory spec, and FlowSchemas with bad matchers, with upstream's messages", async () => {
    const bad = async (body: V1FlowSchema) => {
      try {
        await api.createFlowSchema({ body });
      } catch (e) {
        expect(e).toBeInstanceOf(ApiException);
        const status = JSON.parse((e as ApiException<string>).body);
        expect(status).toMatchObject({ kind: "Status", reason: "Invalid", code: 422 });
        return status.message as string;
      }
      throw new Error("created");
    };
    expect(await bad({ metadata: { name: "bad-verbs" }, spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 100, rules: [{ subjects: user("a"), resourceRules: [{ verbs: ["get", "*"], apiGroups: ["*"], resources: ["pods"], namespaces: ["*"] }] }] } })).toBe(
      `FlowSchema.flowcontrol.apiserver.k8s.io "bad-verbs" is invalid: spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"get", "*"}: if '*' is present, must not specify other verbs`,
    );
    expect(await bad({ metadata: { name: "bad-subject" }, spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 100, rules: [{ subjects: [{ kind: "Robot" }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/a*"] }] }] } })).toBe(
      `FlowSchema.flowcontrol.apiserver.k8s.io "bad-subject" is invalid: [spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User", spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a*": wildcard can only do suffix matching]`,
    );
    expect(await bad({ metadata: { name: "bad-scope" }, spec: { priorityLevelConfiguration: { name: "global-default" }, matchingPrecedence: 20000, rules: [{ subjects: group("g"), resourceRules: [{ verbs: ["list"], apiGroups: [""], resources: ["pods"] }] }] } })).toBe(
      `FlowSchema.flowcontrol.apiserver.k8s.io "bad-scope" is invalid: [spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000, spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace]`,
    );
    const exempt = await api.readFlowSchema({ name: "exempt" });
    exempt.spec!.matchingPrecedence = 5;
    const refused = await api.replaceFlowSchema({ name: "exempt", body: exempt }).then(
      () => undefined,
      (e: ApiException<string>) => JSON.parse(e.body).message as string,
    );
    expect(refused).toMatch(/^FlowSchema.flowcontrol.apiserver.k8s.io "exempt" is invalid: spec: Invalid value: .*: spec of 'exempt' must equal the fixed value$/);
  });

  it("says where each request was classified, on success and error alike", async () => {
    const fss = await list(s, "flowschemas");
    const pls = await list(s, "prioritylevelconfigurations");
    const uid = (items: any[], name: string) => items.find((o) => o.metadata.name === name).metadata.uid;
    const anon = await req(s, "GET", "/api/v1/namespaces/default/configmaps/missing", { creds: s.anonymous });
    expect(anon.status).toBe(404);
    expect(anon.headers["x-kubernetes-pf-flowschema-uid"]).toBe(uid(fss, "global-default"));
    expect(anon.headers["x-kubernetes-pf-prioritylevel-uid"]).toBe(uid(pls, "global-default"));
    const probe = await req(s, "GET", "/readyz", { creds: s.anonymous });
    expect([probe.headers["x-kubernetes-pf-flowschema-uid"], probe.headers["x-kubernetes-pf-prioritylevel-uid"]]).toEqual([uid(fss, "probes"), uid(pls, "exempt")]);
    const admin = await req(s, "GET", "/api/v1/namespaces");
    expect([admin.headers["x-kubernetes-pf-flowschema-uid"], admin.headers["x-kubernetes-pf-prioritylevel-uid"]]).toEqual([uid(fss, "exempt"), uid(pls, "exempt")]);
  });

  it("dumps priority levels, queues and requests as upstream's columns", async () => {
    const levels = await req(s, "GET", "/debug/api_priority_and_fairness/dump_priority_levels");
    expect(levels.status).toBe(200);
    const lines = levels.text.trimEnd().split("\n");
    expect(lines[0]).toBe("PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests");
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(["catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"]);
    // The dump request itself is executing in exempt.
    expect(lines.find((l) => l.startsWith("exempt,"))!.split(/,\s*/).slice(0, 6)).toEqual(["exempt", "0", "false", "false", "0", "1"]);

    const queues = await req(s, "GET", "/debug/api_priority_and_fairness/dump_queues");
    const qlines = queues.text.trimEnd().split("\n");
    expect(qlines[0].split(/,\s+/)).toEqual(["PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"]);
    // One line per queue (catch-all and exempt have none), in columns that line up.
    expect(qlines.filter((l) => l.startsWith("global-default,")).length).toBe(128);
    const columnStarts = (l: string) => [...l.matchAll(/, +/g)].map((m) => m.index! + m[0].length);
    for (const l of qlines.slice(1)) {
      expect(columnStarts(l)).toEqual(columnStarts(qlines[0]));
      expect(l.split(/,\s+/).slice(1)).toEqual(["0", "0", "0", "0", expect.stringMatching(/^\d+\.\d{8}ss$/), "0", "0", "0.00000000ss"].map((x, i) => (i === 0 ? expect.stringMatching(/^\d+$/) : x)));
    }

    const requests = await req(s, "GET", "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1");
    const rlines = requests.text.trimEnd().split("\n");
    expect(rlines[0].split(/,\s*/)).toEqual([
      "PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher", "ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime",
      "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource",
    ]);
    const own = rlines.slice(1).map((l) => l.split(/,\s*/));
    expect(own).toContainEqual(["exempt", "exempt", "-1", "-1", "", expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), "1", "0", "0s", expect.any(String), "kapi-admin", "get", "/debug/api_priority_and_fairness/dump_requests", "", "", "", "", ""]);
  });

  it("exports apiserver_flowcontrol_* metrics", async () => {
    const text = (await req(s, "GET", "/metrics")).text;
    expect(text).toContain("# TYPE apiserver_flowcontrol_dispatched_requests_total counter");
    expect(text).toMatch(/apiserver_flowcontrol_dispatched_requests_total\{flow_schema="exempt",priority_level="exempt"\} [1-9]/);
    expect(text).toContain('apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 245');
    expect(text).toMatch(/apiserver_flowcontrol_current_limit_seats\{priority_level="global-default"\} \d+/);
    expect(text).toMatch(/apiserver_flowcontrol_current_executing_requests\{flow_schema="exempt",priority_level="exempt"\} 1/);
    expect(text).toMatch(/apiserver_flowcontrol_request_execution_seconds_bucket\{flow_schema="global-default",priority_level="global-default",type="regular",le="0.005"\} \d+/);
    expect(text).toMatch(/apiserver_flowcontrol_request_wait_duration_seconds_count\{execute="true",flow_schema="global-default",priority_level="global-default"\} [1-9]/);
  });
});

describe("--enable-priority-and-fairness=false", () => {
  let s: EmbeddedTestServer;
  beforeAll(async () => {
    s = await startTestServer({ options: { enablePriorityAndFairness: false } });
  });
  afterAll(async () => s?.stop());

  it("keeps max-in-flight: no classification headers, no dumps; the configuration objects are still kept", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces");
    expect(r.status).toBe(200);
    expect(r.headers["x-kubernetes-pf-flowschema-uid"]).toBeUndefined();
    expect((await req(s, "GET", "/debug/api_priority_and_fairness/dump_priority_levels")).status).toBe(404);
    expect((await list(s, "flowschemas")).length).toBe(Object.keys(expectedFlowSchemas).length);
  });
});

describe("flags that contradict priority and fairness", () => {
  it("refuse the start, in upstream's words", async () => {
    await expect(startTestServer({ options: { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 } })).rejects.toThrow(
      "invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive",
    );
    await expect(startTestServer({ options: { runtimeConfig: "flowcontrol.apiserver.k8s.io/v1=false" } })).rejects.toThrow(
      "--runtime-config=flowcontrol.apiserver.k8s.io/v1=false conflicts with --enable-priority-and-fairness=true",
    );
  });
});

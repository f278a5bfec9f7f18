import { describe, expect, it } from "vitest";
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from "./apps.js";
import { cronJobPrinter, jobPrinter } from "./batch.js";
import type { Printer } from "./types.js";
import { ago, DAY, HOUR, meta, MIN, now, SEC } from "./fixtures.testkit.js";

const header = (p: Printer) => p.columns.map((c) => (c.priority ? `${c.name}*` : c.name));
const template = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "app", image: "nginx:1.27" }, { name: "log", image: "fluent-bit:3" }] },
};

describe("apps", () => {
  it("deployments", () => {
    expect(header(deploymentPrinter)).toEqual(["Name", "Ready", "Up-to-date", "Available", "Age", "Containers*", "Images*", "Selector*"]);
    const d = {
      metadata: meta("web"),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "env", operator: "In", values: ["prod", "canary"] }, { key: "zz", operator: "DoesNotExist" }] },
        template,
      },
      status: { replicas: 3, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1 },
    };
    expect(deploymentPrinter.cells(d, now)).toEqual(["web", "1/3", 2, 1, "3h2m", "app,log", "nginx:1.27,fluent-bit:3", "app=web,env in (canary,prod),!zz"]);
    const bad = { ...d, spec: { ...d.spec, selector: { matchExpressions: [{ key: "a", operator: "Bogus" }] } } };
    expect(deploymentPrinter.cells(bad, now)[7]).toBe("<invalid>");
    const fresh = { metadata: meta("new"), spec: { replicas: 2, selector: { matchLabels: { a: "b" } }, template }, status: {} };
    expect(deploymentPrinter.cells(fresh, now).slice(0, 4)).toEqual(["new", "0/2", 0, 0]);
  });
  it("replicasets", () => {
    expect(header(replicaSetPrinter)).toEqual(["Name", "Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"]);
    const rs = { metadata: meta("web-5d4"), spec: { replicas: 3, selector: { matchLabels: { app: "web", "pod-template-hash": "5d4" } }, template }, status: { replicas: 3, readyReplicas: 3 } };
    expect(replicaSetPrinter.cells(rs, now)).toEqual(["web-5d4", 3, 3, 3, "3h2m", "app,log", "nginx:1.27,fluent-bit:3", "app=web,pod-template-hash=5d4"]);
  });
  it("statefulsets", () => {
    expect(header(statefulSetPrinter)).toEqual(["Name", "Ready", "Age", "Containers*", "Images*"]);
    const ss = { metadata: meta("db", ago(2 * DAY)), spec: { replicas: 3, template }, status: { readyReplicas: 2 } };
    expect(statefulSetPrinter.cells(ss, now)).toEqual(["db", "2/3", "2d", "app,log", "nginx:1.27,fluent-bit:3"]);
  });
  it("daemonsets", () => {
    expect(header(daemonSetPrinter)).toEqual(["Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers*", "Images*", "Selector*"]);
    const ds = {
      metadata: meta("kube-proxy", ago(8 * DAY + 5 * HOUR)),
      spec: { selector: { matchLabels: { k8s: "proxy" } }, template: { spec: { nodeSelector: { "kubernetes.io/os": "linux" }, containers: [{ name: "kube-proxy", image: "registry.k8s.io/kube-proxy:v1.34.1" }] } } },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 2, numberAvailable: 3 },
    };
    expect(daemonSetPrinter.cells(ds, now)).toEqual(["kube-proxy", 3, 3, 3, 2, 3, "kubernetes.io/os=linux", "8d", "kube-proxy", "registry.k8s.io/kube-proxy:v1.34.1", "k8s=proxy"]);
  });
});

describe("batch", () => {
  const job = (status: any, spec: any = { completions: 1, parallelism: 1 }, extraMeta: any = {}) => ({
    metadata: meta("pi", ago(10 * MIN), extraMeta),
    spec: { ...spec, selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "abc" } }, template: { spec: { containers: [{ name: "pi", image: "perl:5.34" }] } } },
    status,
  });
  it("job columns", () => {
    expect(header(jobPrinter)).toEqual(["Name", "Status", "Completions", "Duration", "Age", "Containers*", "Images*", "Selector*"]);
  });
  it("complete job", () => {
    const j = job({ succeeded: 1, startTime: ago(10 * MIN), completionTime: ago(10 * MIN - 95 * SEC), conditions: [{ type: "SuccessCriteriaMet", status: "True" }, { type: "Complete", status: "True" }] });
    expect(jobPrinter.cells(j, now)).toEqual(["pi", "Complete", "1/1", "95s", "10m", "pi", "perl:5.34", "batch.kubernetes.io/controller-uid=abc"]);
  });
  it("running, failed, suspended, terminating and not-started jobs", () => {
    expect(jobPrinter.cells(job({ active: 1, startTime: ago(3 * MIN) }, { parallelism: 3 }), now).slice(1, 4)).toEqual(["Running", "0/1 of 3", "3m"]);
    expect(jobPrinter.cells(job({ failed: 2, startTime: ago(3 * MIN), conditions: [{ type: "Failed", status: "True" }] }), now)[1]).toBe("Failed");
    expect(jobPrinter.cells(job({ conditions: [{ type: "Suspended", status: "True" }] }), now).slice(1, 4)).toEqual(["Suspended", "0/1", ""]);
    expect(jobPrinter.cells(job({}, { completions: 5 }, { deletionTimestamp: ago(SEC) }), now).slice(1, 3)).toEqual(["Terminating", "0/5"]);
    expect(jobPrinter.cells(job({ conditions: [{ type: "FailureTarget", status: "True" }] }), now)[1]).toBe("FailureTarget");
  });
  it("cronjobs", () => {
    expect(header(cronJobPrinter)).toEqual(["Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age", "Containers*", "Images*", "Selector*"]);
    const cj = {
      metadata: meta("hello", ago(3 * DAY)),
      spec: { schedule: "*/5 * * * *", suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: "hello", image: "busybox" }] } } } } },
      status: { active: [{ name: "hello-1" }], lastScheduleTime: ago(4 * MIN) },
    };
    expect(cronJobPrinter.cells(cj, now)).toEqual(["hello", "*/5 * * * *", "<none>", "False", 1, "4m", "3d", "hello", "busybox", "<none>"]);
    const tz = { ...cj, spec: { ...cj.spec, timeZone: "Europe/Berlin", suspend: true }, status: {} };
    expect(cronJobPrinter.cells(tz, now).slice(2, 6)).toEqual(["Europe/Berlin", "True", 0, "<none>"]);
  });
});

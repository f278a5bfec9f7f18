import { describe, expect, it } from "vitest";
import { podPrinter } from "./core.js";
import { ago, meta, MIN, now, SEC } from "./fixtures.testkit.js";

const row = (pod: any) => podPrinter.cells(pod, now);
/** NAME, READY, STATUS, RESTARTS only. */
const summary = (pod: any) => row(pod).slice(0, 4);

const running = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  ready: true,
  restartCount: 0,
  started: true,
  state: { running: { startedAt: ago(10 * MIN) } },
  ...extra,
});

describe("pod columns", () => {
  it("match upstream names, types and priorities", () => {
    expect(podPrinter.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ["Name", "string", "name", 0],
      ["Ready", "string", "", 0],
      ["Status", "string", "", 0],
      ["Restarts", "string", "", 0],
      ["Age", "string", "", 0],
      ["IP", "string", "", 1],
      ["Node", "string", "", 1],
      ["Nominated Node", "string", "", 1],
      ["Readiness Gates", "string", "", 1],
    ]);
  });
});

describe("pod cells", () => {
  it("pending pod without statuses", () => {
    const pod = { metadata: meta("web"), spec: { containers: [{ name: "a" }] }, status: { phase: "Pending" } };
    expect(row(pod)).toEqual(["web", "0/1", "Pending", "0", "3h2m", "<none>", "<none>", "<none>", "<none>"]);
  });

  it("running pod with restarts, wide columns and readiness gates", () => {
    const pod = {
      metadata: meta("web"),
      spec: {
        nodeName: "node-1",
        containers: [{ name: "app" }, { name: "proxy" }],
        readinessGates: [{ conditionType: "example.com/lb" }, { conditionType: "example.com/other" }],
      },
      status: {
        phase: "Running",
        podIP: "10.0.0.5",
        podIPs: [{ ip: "10.0.0.5" }, { ip: "fd00::5" }],
        nominatedNodeName: "node-2",
        conditions: [
          { type: "Ready", status: "True" },
          { type: "example.com/lb", status: "True" },
          { type: "example.com/other", status: "False" },
        ],
        containerStatuses: [
          running("app", { restartCount: 5, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * MIN) } } }),
          running("proxy"),
        ],
      },
    };
    expect(row(pod)).toEqual(["web", "2/2", "Running", "5 (5m ago)", "3h2m", "10.0.0.5", "node-1", "node-2", "1/2"]);
  });

  it("init containers in progress show Init:x/y", () => {
    const pod = {
      metadata: meta("init"),
      spec: { initContainers: [{ name: "one" }, { name: "two" }], containers: [{ name: "app" }] },
      status: {
        phase: "Pending",
        conditions: [{ type: "Initialized", status: "False" }],
        initContainerStatuses: [
          { name: "one", state: { terminated: { exitCode: 0, reason: "Completed" } }, restartCount: 0 },
          { name: "two", state: { running: {} }, restartCount: 0 },
        ],
        containerStatuses: [{ name: "app", state: { waiting: { reason: "PodInitializing" } }, restartCount: 0 }],
      },
    };
    expect(summary(pod)).toEqual(["init", "0/1", "Init:1/2", "0"]);
  });

  it("failing init containers", () => {
    const base = (initStatus: any) => ({
      metadata: meta("init"),
      spec: { initContainers: [{ name: "one" }], containers: [{ name: "app" }] },
      status: { phase: "Pending", initContainerStatuses: [{ name: "one", restartCount: 3, ...initStatus }] },
    });
    expect(summary(base({ state: { waiting: { reason: "CrashLoopBackOff" } } }))[2]).toBe("Init:CrashLoopBackOff");
    expect(summary(base({ state: { terminated: { exitCode: 1, reason: "Error" } } }))[2]).toBe("Init:Error");
    expect(summary(base({ state: { terminated: { exitCode: 2 } } }))[2]).toBe("Init:ExitCode:2");
    expect(summary(base({ state: { terminated: { exitCode: 137, signal: 9 } } }))[2]).toBe("Init:Signal:9");
    expect(summary(base({ state: { waiting: { reason: "PodInitializing" } } }))[2]).toBe("Init:0/1");
    // init restarts count while initializing
    expect(summary(base({ state: { waiting: { reason: "CrashLoopBackOff" } } }))[3]).toBe("3");
  });

  it("crash-looping container with last termination", () => {
    const pod = {
      metadata: meta("crash"),
      spec: { containers: [{ name: "app" }] },
      status: {
        phase: "Running",
        containerStatuses: [
          {
            name: "app",
            ready: false,
            restartCount: 7,
            state: { waiting: { reason: "CrashLoopBackOff", message: "back-off" } },
            lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: ago(90 * SEC) } },
          },
        ],
      },
    };
    expect(summary(pod)).toEqual(["crash", "0/1", "CrashLoopBackOff", "7 (90s ago)"]);
  });

  it("terminating pods, unless already terminal; NodeLost shows Unknown", () => {
    const pod = (phase: string, reason?: string) => ({
      metadata: meta("bye", undefined, { deletionTimestamp: ago(10 * SEC) }),
      spec: { containers: [{ name: "app" }] },
      status: {
        phase,
        ...(reason ? { reason } : {}),
        containerStatuses:
          phase === "Succeeded"
            ? [{ name: "app", restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }]
            : [running("app")],
      },
    });
    expect(summary(pod("Running"))).toEqual(["bye", "1/1", "Terminating", "0"]);
    expect(summary(pod("Succeeded"))).toEqual(["bye", "0/1", "Completed", "0"]);
    expect(summary(pod("Running", "NodeLost"))[2]).toBe("Unknown");
  });

  it("completed pod", () => {
    const pod = {
      metadata: meta("job-x"),
      spec: { containers: [{ name: "app" }] },
      status: {
        phase: "Succeeded",
        containerStatuses: [
          { name: "app", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } },
        ],
      },
    };
    expect(summary(pod)).toEqual(["job-x", "0/1", "Completed", "0"]);
  });

  it("evicted pod shows the status reason", () => {
    const pod = {
      metadata: meta("evicted"),
      spec: { containers: [{ name: "app" }] },
      status: { phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory." },
    };
    expect(summary(pod)).toEqual(["evicted", "0/1", "Evicted", "0"]);
  });

  it("scheduling-gated pod", () => {
    const pod = {
      metadata: meta("gated"),
      spec: { containers: [{ name: "app" }], schedulingGates: [{ name: "example.com/wait" }] },
      status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }] },
    };
    expect(summary(pod)).toEqual(["gated", "0/1", "SchedulingGated", "0"]);
  });

  it("completed container next to a running one: NotReady or Running by the Ready condition", () => {
    const pod = (ready: string) => ({
      metadata: meta("mixed"),
      spec: { containers: [{ name: "app" }, { name: "helper" }] },
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: ready }],
        containerStatuses: [
          running("app"),
          { name: "helper", restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } },
        ],
      },
    });
    expect(summary(pod("False"))).toEqual(["mixed", "1/2", "NotReady", "0"]);
    expect(summary(pod("True"))).toEqual(["mixed", "1/2", "Running", "0"]);
  });

  it("error exits and signals", () => {
    const pod = (terminated: any) => ({
      metadata: meta("err"),
      spec: { containers: [{ name: "app" }] },
      status: { phase: "Failed", containerStatuses: [{ name: "app", restartCount: 0, state: { terminated } }] },
    });
    expect(summary(pod({ exitCode: 1, reason: "Error" }))[2]).toBe("Error");
    expect(summary(pod({ exitCode: 137, signal: 9 }))[2]).toBe("Signal:9");
    expect(summary(pod({ exitCode: 3 }))[2]).toBe("ExitCode:3");
    expect(summary(pod({ exitCode: 137, reason: "OOMKilled" }))[2]).toBe("OOMKilled");
  });

  it("restartable init (sidecar) containers count towards ready and restarts", () => {
    const pod = {
      metadata: meta("sidecar"),
      spec: {
        initContainers: [{ name: "proxy", restartPolicy: "Always" }],
        containers: [{ name: "app" }],
      },
      status: {
        phase: "Running",
        conditions: [
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "True" },
        ],
        initContainerStatuses: [
          running("proxy", { restartCount: 2, lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * 3600 * SEC) } } }),
        ],
        containerStatuses: [running("app")],
      },
    };
    expect(summary(pod)).toEqual(["sidecar", "2/2", "Running", "2 (120m ago)"]);
  });
});

import { describe, expect, it } from "vitest";
import { hostNamespaces, hostPorts, hostProbesAndHostLifecycle, windowsHostProcess } from "./checks-host.js";
import { c, outcome, runCheck } from "./checks.testkit.js";
import type { PodSpecJson } from "./check.js";

describe("hostNamespaces", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["none", { containers: [c("a")] }, "allowed"],
    ["false values", { hostNetwork: false, hostPID: false, hostIPC: false }, "allowed"],
    ["hostNetwork", { hostNetwork: true }, ["host namespaces", "hostNetwork"]],
    ["all three, sorted", { hostPID: true, hostNetwork: true, hostIPC: true }, ["host namespaces", "hostIPC, hostNetwork, hostPID"]],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(hostNamespaces, 34, spec))).toEqual(want));
});

describe("hostPorts", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["container ports only", { containers: [c("a", undefined, { ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }] })] }, "allowed"],
    ["one container one port", { containers: [c("a", undefined, { ports: [{ hostPort: 8080 }] })] }, ["hostPort", 'container "a" uses hostPort 8080']],
    [
      "several containers, ports distinct in string order",
      {
        initContainers: [c("i", undefined, { ports: [{ hostPort: 9090 }] })],
        containers: [c("a", undefined, { ports: [{ hostPort: 8080 }, { hostPort: 10 }] }), c("b"), c("d", undefined, { ports: [{ hostPort: 8080 }] })],
      },
      ["hostPort", 'containers "i", "a", "d" use hostPorts 10, 8080, 9090'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(hostPorts, 34, spec))).toEqual(want));
});

describe("windowsHostProcess", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["false", { securityContext: { windowsOptions: { hostProcess: false } }, containers: [c("a", { windowsOptions: { hostProcess: false } })] }, "allowed"],
    ["pod", { securityContext: { windowsOptions: { hostProcess: true } }, containers: [c("a")] }, ["hostProcess", "pod must not set securityContext.windowsOptions.hostProcess=true"]],
    [
      "pod and containers",
      { securityContext: { windowsOptions: { hostProcess: true } }, containers: [c("a", { windowsOptions: { hostProcess: true } }), c("b", { windowsOptions: { hostProcess: true } })] },
      ["hostProcess", 'pod and containers "a", "b" must not set securityContext.windowsOptions.hostProcess=true'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(windowsHostProcess, 34, spec))).toEqual(want));
});

describe("hostProbesAndHostLifecycle", () => {
  const probe = (host: string) => ({ httpGet: { host, port: 80 } });
  const table: [string, PodSpecJson, unknown][] = [
    ["no host", { containers: [c("a", undefined, { livenessProbe: { httpGet: { port: 80 } }, lifecycle: { preStop: { httpGet: { port: 80, host: "" } } } })] }, "allowed"],
    ["one probe", { containers: [c("a", undefined, { livenessProbe: probe("evil.example") })] }, ["probe or lifecycle host", 'container "a" uses probe or lifecycle host "evil.example"']],
    [
      "several: containers and hosts distinct and sorted",
      {
        containers: [
          c("b", undefined, { readinessProbe: { tcpSocket: { host: "10.0.0.1", port: 1 } }, startupProbe: probe("a.example") }),
          c("a", undefined, { lifecycle: { postStart: probe("a.example"), preStop: { tcpSocket: { host: "b.example", port: 2 } } } }),
        ],
      },
      ["probe or lifecycle host", 'containers "a", "b" use probe or lifecycle hosts "10.0.0.1", "a.example", "b.example"'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(hostProbesAndHostLifecycle, 34, spec))).toEqual(want));

  it("is not part of policy versions before v1.34", () => {
    expect(() => runCheck(hostProbesAndHostLifecycle, 33, {})).toThrow();
  });
});

// The host-access checks of the baseline level: host namespaces, host ports, Windows
// HostProcess containers, and (from policy v1.34) probe and lifecycle handlers aimed at a host.
import { v1 } from "./api.js";
import {
  allContainers,
  allowed,
  containersPhrase,
  denied,
  joinQuote,
  pluralize,
  sortedSet,
  type Check,
  type ContainerJson,
  type HandlerJson,
  type PodSpecJson,
} from "./check.js";

/** spec.hostNetwork, hostPID, hostIPC must be unset or false. */
export const hostNamespaces: Check = {
  id: "hostNamespaces",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec) => {
        const used = sortedSet([spec.hostNetwork && "hostNetwork", spec.hostPID && "hostPID", spec.hostIPC && "hostIPC"].filter((x): x is string => !!x));
        return used.length > 0 ? denied("host namespaces", used.join(", ")) : allowed;
      },
    },
  ],
};

/** containers[*].ports[*].hostPort must be unset or 0. */
export const hostPorts: Check = {
  id: "hostPorts",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec) => {
        const bad: string[] = [];
        const ports: string[] = [];
        for (const c of allContainers(spec)) {
          const used = (c.ports ?? []).filter((p) => p.hostPort).map((p) => String(p.hostPort));
          if (used.length === 0) continue;
          bad.push(c.name);
          ports.push(...used);
        }
        if (bad.length === 0) return allowed;
        // Upstream keeps the ports as a set of strings: distinct, in string order.
        const distinct = sortedSet(ports);
        return denied(
          "hostPort",
          `${containersPhrase(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", distinct.length)} ${distinct.join(", ")}`,
        );
      },
    },
  ],
};

/** securityContext.windowsOptions.hostProcess (pod and containers) must be unset or false. */
export const windowsHostProcess: Check = {
  id: "windowsHostProcess",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec) => {
        const setters: string[] = [];
        if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push("pod");
        const bad = [...allContainers(spec)].filter((c) => c.securityContext?.windowsOptions?.hostProcess === true).map((c) => c.name);
        if (bad.length > 0) setters.push(containersPhrase(bad));
        if (setters.length === 0) return allowed;
        return denied("hostProcess", `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`);
      },
    },
  ],
};

const handlerHosts = (h: HandlerJson | undefined) => [h?.httpGet?.host, h?.tcpSocket?.host].filter((x): x is string => !!x);

function containerHosts(c: ContainerJson): string[] {
  return [
    ...handlerHosts(c.livenessProbe),
    ...handlerHosts(c.readinessProbe),
    ...handlerHosts(c.startupProbe),
    ...handlerHosts(c.lifecycle?.postStart),
    ...handlerHosts(c.lifecycle?.preStop),
  ];
}

/** Probes and lifecycle handlers (httpGet, tcpSocket) must not name a host. Policy v1.34 and later. */
export const hostProbesAndHostLifecycle: Check = {
  id: "hostProbesAndHostLifecycle",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(34),
      check: (_meta, spec: PodSpecJson) => {
        const bad: string[] = [];
        const hosts: string[] = [];
        for (const c of allContainers(spec)) {
          const h = containerHosts(c);
          if (h.length === 0) continue;
          bad.push(c.name);
          hosts.push(...h);
        }
        if (bad.length === 0) return allowed;
        // Both lists are sets upstream: distinct and sorted.
        const names = sortedSet(bad);
        const distinct = sortedSet(hosts);
        return denied(
          "probe or lifecycle host",
          `${containersPhrase(names)} ${pluralize("uses", "use", names.length)} ${pluralize("probe or lifecycle host", "probe or lifecycle hosts", distinct.length)} ${joinQuote(distinct)}`,
        );
      },
    },
  ],
};

import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { kubeletPort, preferredNodeAddress, defaultPreferredAddressTypes } from "./node-address.js";
import { kubeletLogQuery, kubeletStreamPath, kubeletStreamQuery } from "./pod-location.js";
import { podProxyBase, proxyableIP, proxyId, splitSchemeNamePort } from "./proxy-location.js";

const obj = (o: Record<string, unknown>) => ({ metadata: { name: "x" }, ...o }) as unknown as KObject;

describe("proxy ids (upstream's SplitSchemeNamePort)", () => {
  it("reads name, name:port and scheme:name:port, and nothing else", () => {
    expect(splitSchemeNamePort("web")).toEqual({ scheme: "", name: "web", port: "" });
    expect(splitSchemeNamePort("web:8080")).toEqual({ scheme: "", name: "web", port: "8080" });
    expect(splitSchemeNamePort("https:web:443")).toEqual({ scheme: "https", name: "web", port: "443" });
    expect(splitSchemeNamePort("ftp:web:21")).toBeUndefined();
    expect(splitSchemeNamePort(":80")).toBeUndefined();
    expect(() => proxyId("service", "a:b:c:d")).toThrow('invalid service request "a:b:c:d"');
  });
});

describe("pods/proxy's address", () => {
  const pod = (ip: string, ports: number[] = []) => obj({ spec: { containers: [{ name: "c", ports: ports.map((p) => ({ containerPort: p })) }] }, status: { podIPs: [{ ip }] } });
  it("is the pod's first IP at the id's port or the first declared one", () => {
    expect(podProxyBase(pod("10.1.2.3", [8080, 9090]), { scheme: "", name: "x", port: "" }).href).toBe("http://10.1.2.3:8080/");
    expect(podProxyBase(pod("10.1.2.3"), { scheme: "https", name: "x", port: "8443" }).href).toBe("https://10.1.2.3:8443/");
    expect(podProxyBase(pod("fd00::5"), { scheme: "", name: "x", port: "" }).href).toBe("http://[fd00::5]/");
  });
  it("refuses addresses upstream does not proxy to", () => {
    for (const ip of ["127.0.0.1", "169.254.1.1", "::1", "fe80::1", "", "nonsense"]) {
      expect(() => podProxyBase(pod(ip), { scheme: "", name: "x", port: "80" }), ip).toThrow("address not allowed");
    }
    expect(proxyableIP("10.0.0.1")).toBe(true);
  });
});

describe("a node's kubelet", () => {
  it("is at the first address of the first preferred type, on the reported port", () => {
    const node = obj({ status: { addresses: [{ type: "ExternalIP", address: "1.2.3.4" }, { type: "InternalIP", address: "10.0.0.1" }], daemonEndpoints: { kubeletEndpoint: { Port: 10255 } } } });
    expect(preferredNodeAddress(node, defaultPreferredAddressTypes)).toBe("10.0.0.1");
    expect(preferredNodeAddress(node, ["ExternalIP"])).toBe("1.2.3.4");
    expect(kubeletPort(node, 10250)).toBe(10255);
    expect(kubeletPort(obj({}), 10250)).toBe(10250);
    expect(() => preferredNodeAddress(node, ["Hostname"])).toThrow("no preferred addresses found; known addresses: [{ExternalIP 1.2.3.4} {InternalIP 10.0.0.1}]");
  });

  it("is asked with upstream's paths and sorted queries", () => {
    const o = { stdin: true, stdout: true, stderr: false, tty: true, container: "c", command: ["sh", "-c", "echo hi"], ports: [] };
    expect(kubeletStreamQuery("exec", o)).toBe("command=sh&command=-c&command=echo+hi&input=1&output=1&tty=1");
    expect(kubeletStreamQuery("attach", o)).toBe("input=1&output=1&tty=1");
    expect(kubeletStreamQuery("portforward", { ...o, ports: [80, 443] })).toBe("port=80%2C443");
    expect(kubeletStreamPath("portforward", "ns", "p", "")).toBe("/portForward/ns/p");
    expect(kubeletLogQuery({ follow: true, previous: false, timestamps: true, tailLines: 3, sinceTime: "2026-01-02T03:04:05.678+01:00" })).toBe(
      "follow=true&sinceTime=2026-01-02T02%3A04%3A05Z&tailLines=3&timestamps=true",
    );
  });
});

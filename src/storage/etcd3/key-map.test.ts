import { describe, expect, it } from "vitest";
import { KeyMap, bytePrefixEnd, keyAfter } from "./key-map.js";
import { parseEndpoint } from "./client.js";
import { orderedProgress } from "./etcd3-storage.js";

describe("KeyMap", () => {
  it("puts kapi's /registry keys under --etcd-prefix as kube-apiserver lays them out", () => {
    const m = new KeyMap("/custom", "/registry");
    expect(m.toEtcd("/registry/pods/ns/a").toString()).toBe("/custom/pods/ns/a");
    expect(m.fromEtcd(Buffer.from("/custom/apps/deployments/ns/d"))).toBe("/registry/apps/deployments/ns/d");
    const r = m.rangeOf("/registry/pods/");
    expect([r.key.toString(), r.range_end.toString()]).toEqual(["/custom/pods/", "/custom/pods0"]);
    // A prefix above the root covers everything under the etcd prefix, and nothing beside it.
    expect(m.rangeOf("").key.toString()).toBe("/custom/");
    expect(m.rangeOf("/").range_end.toString()).toBe("/custom0");
    expect(() => m.toEtcd("/elsewhere/x")).toThrow('storage key "/elsewhere/x" is not under /registry');
  });

  it("prepends the prefix when there is no root (stores sharing one etcd)", () => {
    const m = new KeyMap("/t/abc", "");
    expect(m.toEtcd("/k").toString()).toBe("/t/abc/k");
    expect(m.fromEtcd(Buffer.from("/t/abc/k"))).toBe("/k");
    expect(m.rangeOf("").key.toString()).toBe("/t/abc");
  });

  it("range ends and continue keys are byte-wise", () => {
    expect(bytePrefixEnd(Buffer.from([0x61, 0xff, 0xff]))).toEqual(Buffer.from([0x62]));
    expect(bytePrefixEnd(Buffer.from([0xff]))).toEqual(Buffer.from([0]));
    expect(keyAfter(Buffer.from("a"))).toEqual(Buffer.from([0x61, 0]));
  });
});

describe("etcd endpoints and versions", () => {
  it("parses --etcd-servers entries", () => {
    expect(parseEndpoint("http://127.0.0.1:2379")).toEqual({ address: "127.0.0.1:2379", secure: false });
    expect(parseEndpoint("https://etcd-0.example:2379/")).toEqual({ address: "etcd-0.example:2379", secure: true });
    expect(parseEndpoint("10.0.0.1:2379")).toEqual({ address: "10.0.0.1:2379", secure: false });
    expect(() => parseEndpoint("unix:///run/etcd.sock")).toThrow("unsupported etcd endpoint");
  });

  it("knows the etcd versions whose progress notifications are ordered with events (kube-apiserver's threshold)", () => {
    expect(["3.4.23", "3.4.30", "3.5.12", "2.3.8"].map(orderedProgress)).toEqual([false, false, false, false]);
    expect(["3.4.31", "3.5.13", "3.5.21", "3.6.0", "4.0.0"].map(orderedProgress)).toEqual([true, true, true, true, true]);
  });
});

import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { requireAssignedNode, targetContainer } from "./pod-location.js";

const pod = (spec: Record<string, unknown>): KObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec });

describe("targetContainer", () => {
  it("takes the only regular container, whatever init and ephemeral containers the pod has", () => {
    expect(targetContainer(pod({ initContainers: [{ name: "init" }], containers: [{ name: "app" }] }), "")).toBe("app");
  });
  it("accepts any container of the pod by name, and lists all of them, init first, when one must be named", () => {
    const p = pod({ initContainers: [{ name: "init" }], containers: [{ name: "a" }, { name: "b" }], ephemeralContainers: [{ name: "debug" }] });
    expect(targetContainer(p, "debug")).toBe("debug");
    expect(() => targetContainer(p, "")).toThrow("a container name must be specified for pod p, choose one of: [init a b debug]");
    expect(() => targetContainer(p, "x")).toThrow("container x is not valid for pod p");
    expect(() => targetContainer(pod({}), "")).toThrow(/^a container name must be specified for pod p$/);
  });
});

describe("requireAssignedNode", () => {
  it("names the node, or refuses an unplaced pod", () => {
    expect(requireAssignedNode(pod({ nodeName: "n1" }))).toBe("n1");
    expect(() => requireAssignedNode(pod({}))).toThrow("pod p does not have a host assigned");
  });
});

import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "../http/request-info.js";
import { servedAtPathScope } from "./path-scope.js";

const served = (namespaced: boolean, method: string, path: string) => servedAtPathScope(namespaced, parseRequestInfo(method, path, new URL(path, "https://x").searchParams));

describe("servedAtPathScope", () => {
  it("serves a cluster-scoped type only at the cluster path", () => {
    expect(served(false, "GET", "/api/v1/nodes/n1")).toBe(true);
    expect(served(false, "GET", "/apis/g.example.com/v1/gizmos")).toBe(true);
    expect(served(false, "GET", "/api/v1/namespaces/default/nodes")).toBe(false);
    expect(served(false, "GET", "/api/v1/namespaces/default/nodes/n1")).toBe(false);
    expect(served(false, "PUT", "/apis/g.example.com/v1/namespaces/default/gizmos/x/status")).toBe(false);
    expect(served(false, "GET", "/api/v1/watch/namespaces/default/nodes")).toBe(false);
  });

  it("serves a Namespace at its own paths, though they name a namespace", () => {
    expect(served(false, "GET", "/api/v1/namespaces/default")).toBe(true);
    expect(served(false, "PUT", "/api/v1/namespaces/default/finalize")).toBe(true);
    expect(served(false, "GET", "/api/v1/namespaces/default/namespaces/default")).toBe(false);
  });

  it("serves a namespaced type below its namespace, and across namespaces only to list and watch", () => {
    expect(served(true, "POST", "/api/v1/namespaces/default/pods")).toBe(true);
    expect(served(true, "GET", "/api/v1/namespaces/default/pods/p/status")).toBe(true);
    expect(served(true, "GET", "/api/v1/pods")).toBe(true);
    expect(served(true, "GET", "/api/v1/pods?watch=1")).toBe(true);
    expect(served(true, "GET", "/api/v1/watch/pods")).toBe(true);
    expect(served(true, "GET", "/api/v1/pods?fieldSelector=metadata.name%3Dp")).toBe(true);
    expect(served(true, "GET", "/api/v1/pods/p")).toBe(false);
    expect(served(true, "GET", "/apis/apps/v1/deployments/d/scale")).toBe(false);
    expect(served(true, "POST", "/api/v1/pods")).toBe(false);
    expect(served(true, "GET", "/api/v1/watch/pods/p")).toBe(false);
  });
});

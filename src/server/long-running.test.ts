import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "../http/request-info.js";
import { isLongRunning } from "./long-running.js";

const check = (method: string, path: string, query = "") => isLongRunning(parseRequestInfo(method, path, new URLSearchParams(query)));

describe("isLongRunning", () => {
  it("holds for watches, connect subresources and the profiler", () => {
    expect(check("GET", "/api/v1/pods", "watch=true")).toBe(true);
    expect(check("GET", "/api/v1/watch/namespaces/a/pods")).toBe(true);
    expect(check("POST", "/api/v1/namespaces/a/pods/p/exec")).toBe(true);
    expect(check("GET", "/api/v1/namespaces/a/pods/p/log")).toBe(true);
    expect(check("GET", "/api/v1/namespaces/a/pods/p/portforward")).toBe(true);
    expect(check("GET", "/debug/pprof/profile")).toBe(true);
  });

  it("does not hold for ordinary requests", () => {
    expect(check("GET", "/api/v1/pods")).toBe(false);
    expect(check("GET", "/api/v1/namespaces/a/pods/p")).toBe(false);
    expect(check("PUT", "/api/v1/namespaces/a/pods/p/status")).toBe(false);
    expect(check("GET", "/log")).toBe(false); // a subresource name only counts on a resource
    expect(check("GET", "/healthz")).toBe(false);
  });
});

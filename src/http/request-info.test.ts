import { describe, expect, it } from "vitest";
import { MalformedPathError, parseRequestInfo } from "./request-info.js";

const info = (method: string, url: string) => {
  const q = url.indexOf("?");
  const i = parseRequestInfo(method, q < 0 ? url : url.slice(0, q), new URLSearchParams(q < 0 ? "" : url.slice(q + 1)));
  const { isResourceRequest, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts } = i;
  return { isResourceRequest, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts, ...(i.namespacedPath ? { namespacedPath: true } : {}), ...(i.verbViaPath ? { verbViaPath: true } : {}) };
};

describe("parseRequestInfo (upstream's RequestInfoFactory)", () => {
  it.each([
    ["GET", "/api/v1/namespaces/ns/pods/p", { verb: "get", apiPrefix: "api", apiGroup: "", apiVersion: "v1", namespace: "ns", resource: "pods", subresource: "", name: "p", parts: ["pods", "p"], namespacedPath: true }],
    ["GET", "/api/v1/namespaces/ns/pods", { verb: "list", namespace: "ns", resource: "pods", name: "", parts: ["pods"], namespacedPath: true }],
    ["GET", "/api/v1/namespaces/ns/pods?watch=true", { verb: "watch", resource: "pods", parts: ["pods"] }],
    ["GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp", { verb: "list", name: "p" }],
    ["PUT", "/api/v1/namespaces/ns/pods/p/status", { verb: "update", resource: "pods", subresource: "status", name: "p", parts: ["pods", "p", "status"] }],
    ["DELETE", "/api/v1/namespaces/ns/pods", { verb: "deletecollection", resource: "pods" }],
    ["POST", "/apis/apps/v1/namespaces/ns/deployments", { verb: "create", apiPrefix: "apis", apiGroup: "apps", apiVersion: "v1", namespace: "ns", resource: "deployments", parts: ["deployments"] }],
    ["GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", { verb: "get", apiGroup: "rbac.authorization.k8s.io", namespace: "", resource: "clusterroles", name: "admin", parts: ["clusterroles", "admin"] }],
    ["GET", "/api/v1/namespaces/ns", { verb: "get", namespace: "ns", resource: "namespaces", name: "ns", parts: ["namespaces", "ns"] }],
    ["PUT", "/api/v1/namespaces/ns/finalize", { verb: "update", namespace: "ns", resource: "namespaces", name: "ns", subresource: "finalize", parts: ["namespaces", "ns", "finalize"] }],
    ["GET", "/api/v1/watch/namespaces/ns/pods", { verb: "watch", namespace: "ns", resource: "pods", parts: ["pods"], verbViaPath: true, namespacedPath: true }],
    ["GET", "/api/v1/proxy/nodes/n1/some/path", { verb: "proxy", resource: "nodes", name: "n1", subresource: "", parts: ["nodes", "n1", "some", "path"], verbViaPath: true }],
    ["GET", "//api//v1//namespaces/ns//pods/p", { verb: "get", namespace: "ns", resource: "pods", name: "p" }],
    ["GET", "/api/v1/namespaces/ns/configmaps/a%2Fb", { name: "a/b" }],
  ])("%s %s", (method, url, want) => {
    expect(info(method, url)).toMatchObject({ isResourceRequest: true, ...want });
  });

  it.each([
    ["GET", "/api"],
    ["GET", "/api/v1"],
    ["GET", "/apis/apps/v1"],
    ["GET", "/apis/apps"],
    ["GET", "/healthz"],
    ["GET", "/"],
    ["POST", "/openapi/v3/apis/apps/v1"],
  ])("%s %s is not a resource request", (method, url) => {
    expect(info(method, url)).toMatchObject({ isResourceRequest: false, verb: method.toLowerCase(), parts: [] });
  });

  it("refuses an invalid escape and a verb path with nothing after it", () => {
    expect(() => info("GET", "/api/v1/namespaces/%zz/pods")).toThrow(MalformedPathError);
    expect(() => info("GET", "/api/v1/watch")).toThrow("unable to determine kind and namespace from url, /api/v1/watch");
  });
});

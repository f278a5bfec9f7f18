// Path → authorization attributes, as upstream's RequestInfoFactory and GetAuthorizerAttributes.
import { describe, expect, it } from "vitest";
import { MalformedPathError, parseRequestInfo } from "../http/request-info.js";
import { attributesFor } from "./attributes.js";

const user = { name: "u", groups: [] };
const attrs = (method: string, url: string, withSelectors = true) => {
  const [path, q = ""] = url.split("?");
  const a = attributesFor(user, parseRequestInfo(method, path!, new URLSearchParams(q), { authorizeWithSelectors: withSelectors }));
  const { user: _u, ...rest } = a;
  return rest;
};
const R = (verb: string, apiGroup: string, apiVersion: string, namespace: string, resource: string, subresource = "", name = "") => ({ verb, isResourceRequest: true, apiGroup, apiVersion, namespace, resource, subresource, name });
const N = (verb: string) => ({ verb, isResourceRequest: false, apiGroup: "", apiVersion: "", namespace: "", resource: "", subresource: "", name: "" });

const table: [string, string, Record<string, unknown>][] = [
  ["GET", "/api/v1/namespaces/ns/pods", R("list", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/namespaces/ns/pods?watch=true", R("watch", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/namespaces/ns/pods?watch=1", R("watch", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/namespaces/ns/pods?watch=", R("watch", "", "v1", "ns", "pods")], // Go: anything but "", "0", "false" — even empty — is true
  ["GET", "/api/v1/namespaces/ns/pods?watch=FALSE", R("list", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/namespaces/ns/pods?watch=0", R("list", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/namespaces/ns/pods/p1", R("get", "", "v1", "ns", "pods", "", "p1")],
  ["HEAD", "/api/v1/namespaces/ns/pods/p1", R("get", "", "v1", "ns", "pods", "", "p1")],
  ["GET", "/api/v1/namespaces/ns/pods/p1/log", R("get", "", "v1", "ns", "pods", "log", "p1")],
  ["POST", "/api/v1/namespaces/ns/pods", R("create", "", "v1", "ns", "pods")],
  ["POST", "/api/v1/namespaces/ns/pods/p1/eviction", R("create", "", "v1", "ns", "pods", "eviction", "p1")],
  ["PUT", "/api/v1/namespaces/ns/pods/p1/status", R("update", "", "v1", "ns", "pods", "status", "p1")],
  ["PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/scale", R("patch", "apps", "v1", "ns", "deployments", "scale", "d")],
  ["DELETE", "/api/v1/namespaces/ns/pods/p1", R("delete", "", "v1", "ns", "pods", "", "p1")],
  ["DELETE", "/api/v1/namespaces/ns/pods", R("deletecollection", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/nodes", R("list", "", "v1", "", "nodes")],
  ["GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", R("get", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", "admin")],
  // The namespace itself and its subresources
  ["GET", "/api/v1/namespaces", R("list", "", "v1", "", "namespaces")],
  ["GET", "/api/v1/namespaces/ns", R("get", "", "v1", "ns", "namespaces", "", "ns")],
  ["PUT", "/api/v1/namespaces/ns/finalize", R("update", "", "v1", "ns", "namespaces", "finalize", "ns")],
  ["PUT", "/api/v1/namespaces/ns/status", R("update", "", "v1", "ns", "namespaces", "status", "ns")],
  // Deprecated verb-in-path forms
  ["GET", "/api/v1/watch/namespaces/ns/pods", R("watch", "", "v1", "ns", "pods")],
  ["GET", "/api/v1/watch/namespaces/ns/pods/p1", R("watch", "", "v1", "ns", "pods", "", "p1")],
  ["GET", "/api/v1/proxy/namespaces/ns/pods/p1/a/b", R("proxy", "", "v1", "ns", "pods", "", "p1")],
  // A list narrowed to one name by metadata.name is authorized as that name
  ["GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1", { ...R("list", "", "v1", "ns", "secrets", "", "s1"), fieldSelector: { raw: "metadata.name=s1", requirements: [{ field: "metadata.name", operator: "=", value: "s1" }] } }],
  ["GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3D..", { ...R("list", "", "v1", "ns", "secrets"), fieldSelector: { raw: "metadata.name=..", requirements: [{ field: "metadata.name", operator: "=", value: ".." }] } }],
  // …but not when the options do not decode (a bad limit), and the watch param still counts
  ["GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1&limit=x&watch=true", { ...R("watch", "", "v1", "ns", "secrets"), fieldSelector: { raw: "metadata.name=s1", requirements: [{ field: "metadata.name", operator: "=", value: "s1" }] } }],
  // Selectors (AuthorizeWithSelectors)
  ["GET", "/api/v1/pods?labelSelector=app%3Dweb", { ...R("list", "", "v1", "", "pods"), labelSelector: { raw: "app=web", requirements: [{ key: "app", operator: "=", values: ["web"] }] } }],
  ["DELETE", "/api/v1/namespaces/ns/pods?labelSelector=app", { ...R("deletecollection", "", "v1", "ns", "pods"), labelSelector: { raw: "app", requirements: [{ key: "app", operator: "exists", values: [] }] } }],
  ["GET", "/api/v1/pods?labelSelector=a%20in%20(", { ...R("list", "", "v1", "", "pods"), labelSelector: { raw: "a in (", error: expect.any(String) } }],
  ["GET", "/api/v1/pods?labelSelector=", R("list", "", "v1", "", "pods")],
  ["GET", "/api/v1/namespaces/ns/pods/p1?labelSelector=a%3Db", R("get", "", "v1", "ns", "pods", "", "p1")], // get: no selectors
  ["GET", "/api/v1/watch/pods?labelSelector=a%3Db", R("watch", "", "v1", "", "pods")], // verb via path: no selectors
  // Non-resource requests: the lowercased method
  ["GET", "/healthz", N("get")],
  ["POST", "/logs/x", N("post")],
  ["GET", "/api", N("get")],
  ["GET", "/api/v1", N("get")],
  ["GET", "/apis/apps", N("get")],
  ["GET", "/apis/apps/v1", N("get")],
  ["PUT", "/version", N("put")],
  ["OPTIONS", "/api/v1/pods", R("", "", "v1", "", "pods")],
];

describe("request attributes (path → attributes)", () => {
  for (const [method, url, want] of table) {
    it(`${method} ${url}`, () => {
      expect(attrs(method, url)).toEqual({ path: url.split("?")[0], ...want });
    });
  }

  it("without AuthorizeWithSelectors no selectors", () => {
    expect(attrs("GET", "/api/v1/pods?labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn", false)).toEqual({ path: "/api/v1/pods", ...R("list", "", "v1", "", "pods") });
  });

  it("/api/v1/watch alone cannot be parsed (upstream's message)", () => {
    expect(() => parseRequestInfo("GET", "/api/v1/watch", new URLSearchParams())).toThrow(MalformedPathError);
    expect(() => parseRequestInfo("GET", "/api/v1/watch", new URLSearchParams())).toThrow("unable to determine kind and namespace from url, /api/v1/watch");
  });
});

import { describe, expect, it } from "vitest";
import { authenticationData } from "./authentication-configmap.js";
import { authProxyHeaders, groupVersionOf } from "./proxy-handler.js";
import { localGroupPriority } from "./priorities.js";
import { resourcesFromList } from "./remote-discovery.js";
import { makeCert } from "../authn/pki.testkit.js";

describe("the aggregator's pure parts", () => {
  it("client-go's auth-proxy headers: groups one each, extra keys escaped as Go's headerKeyEscape", () => {
    expect(authProxyHeaders({ name: "alice", uid: "u-1", groups: ["a", "b"], extra: { "example.com/scopes": ["x", "y"] } })).toEqual([
      ["X-Remote-User", "alice"],
      ["X-Remote-Uid", "u-1"],
      ["X-Remote-Group", "a"],
      ["X-Remote-Group", "b"],
      ["X-Remote-Extra-example.com%2Fscopes", "x"],
      ["X-Remote-Extra-example.com%2Fscopes", "y"],
    ]);
  });

  it("which paths are an aggregated group version's", () => {
    expect(groupVersionOf("/apis/g.example.com/v1/namespaces/x/things")).toEqual({ group: "g.example.com", version: "v1" });
    expect(groupVersionOf("/apis/g.example.com")).toBeUndefined();
    expect(groupVersionOf("/openapi/v3/apis/g.example.com/v1")).toEqual({ group: "g.example.com", version: "v1" });
    expect(groupVersionOf("/openapi/v3/apis/g.example.com/v1/x")).toBeUndefined();
    expect(groupVersionOf("/api/v1/pods")).toBeUndefined();
  });

  it("group ranks: the aggregator's own group first, built-ins by their best APIService, CRD groups at 1000", () => {
    expect(localGroupPriority("apiregistration.k8s.io")).toBe(Number.MAX_SAFE_INTEGER);
    expect(localGroupPriority("apps")).toBe(17800);
    expect(localGroupPriority("autoscaling")).toBe(17500);
    expect(localGroupPriority("stuff.example.com")).toBe(1000);
  });

  it("a legacy APIResourceList as aggregated discovery's resources, subresources under their parent", () => {
    const list = {
      resources: [
        { name: "flunders", singularName: "flunder", namespaced: true, kind: "Flunder", verbs: ["get", "list"], shortNames: ["fl"] },
        { name: "flunders/status", singularName: "", namespaced: true, kind: "Flunder", verbs: ["get", "patch"] },
      ],
    };
    expect(resourcesFromList(list)).toEqual([
      {
        resource: "flunders",
        responseKind: { group: "", version: "", kind: "Flunder" },
        scope: "Namespaced",
        singularResource: "flunder",
        verbs: ["get", "list"],
        shortNames: ["fl"],
        subresources: [{ subresource: "status", responseKind: { group: "", version: "", kind: "Flunder" }, verbs: ["get", "patch"] }],
      },
    ]);
  });

  it("the authentication ConfigMap merges lists and CA bundles, dropping duplicates and expired certificates", async () => {
    const ours = await makeCert({ commonName: "ours" });
    const theirs = await makeCert({ commonName: "theirs" });
    const expired = await makeCert({ commonName: "expired", notBefore: new Date(Date.now() - 7200_000), notAfter: new Date(Date.now() - 3600_000) });
    const data = authenticationData(
      { "client-ca-file": theirs.certPem + expired.certPem, "requestheader-username-headers": '["X-Theirs"]' },
      { clientCA: ours.certPem + theirs.certPem, requestHeader: { clientCA: ours.certPem, usernameHeaders: ["X-Remote-User", "X-Theirs"], uidHeaders: [], groupHeaders: ["X-Remote-Group"], extraHeaderPrefixes: [], allowedNames: [] } },
    );
    expect(data["client-ca-file"]).toBe(theirs.certPem + ours.certPem);
    expect(data["requestheader-username-headers"]).toBe('["X-Theirs","X-Remote-User"]');
    expect(data["requestheader-group-headers"]).toBe('["X-Remote-Group"]');
    expect(data["requestheader-client-ca-file"]).toBe(ours.certPem);
    // Without a front-proxy CA anywhere, only the client CA.
    expect(Object.keys(authenticationData({}, { clientCA: ours.certPem }))).toEqual(["client-ca-file"]);
  });
});

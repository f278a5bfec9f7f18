import { authorizerConformance } from "./conformance.testkit.js";
import { alwaysAllow, alwaysDeny } from "./always.js";

const alice = { name: "alice", groups: ["system:authenticated"] };

authorizerConformance({
  name: "AlwaysAllow",
  make: () => alwaysAllow,
  cases: [
    { title: "a resource request", attributes: { user: alice, verb: "delete", resource: "pods", namespace: "default", name: "p" }, decision: "allow", error: false },
    { title: "a non-resource request", attributes: { user: alice, verb: "get", isResourceRequest: false, path: "/healthz" }, decision: "allow" },
    { title: "anonymous", attributes: { user: { name: "system:anonymous", groups: ["system:unauthenticated"] }, verb: "list", resource: "secrets" }, decision: "allow" },
  ],
});

authorizerConformance({
  name: "AlwaysDeny",
  make: () => alwaysDeny,
  cases: [
    { title: "a resource request", attributes: { user: alice, verb: "get", resource: "pods", namespace: "default" }, decision: "deny", reasonMatches: "Everything is forbidden." },
    { title: "a non-resource request", attributes: { user: alice, verb: "get", isResourceRequest: false, path: "/version" }, decision: "deny", reasonMatches: "Everything is forbidden." },
  ],
});

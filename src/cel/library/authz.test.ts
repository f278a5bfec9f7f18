import { describe, expect, it } from "vitest";
import { StringType } from "../types.js";
import type { CelValue } from "../value.js";
import {
  authorizerValue,
  authzLibrary,
  authzSelectorsLibrary,
  CelPendingAuthorization,
  memoizingAuthorizer,
  requestResourceValue,
  type AuthorizationAttributes,
  type CelAuthorizer,
} from "./authz.js";
import { actualCost, arg, caller, estimateCost } from "./overloads.testkit.js";
import type { CelLibrary } from "../library.js";

const both: CelLibrary = { name: "authz", functions: [...authzLibrary.functions, ...authzSelectorsLibrary.functions] };
const call = caller(both);

function recording(answer: (a: AuthorizationAttributes) => ReturnType<CelAuthorizer["check"]>) {
  const seen: AuthorizationAttributes[] = [];
  const service: CelAuthorizer = {
    check(a) {
      seen.push(a);
      return answer(a);
    },
  };
  return { service, seen };
}

const user = { username: "alice", groups: ["dev", "system:authenticated"] };

describe("kubernetes.authz", () => {
  it("checks a path as the request's user", () => {
    const { service, seen } = recording(() => ({ decision: "allow", reason: "ok" }));
    const authz = authorizerValue(service, user);
    const d = call("pathcheck_check", call("authorizer_path", authz, "/healthz"), "get");
    expect(call("decision_allowed", d)).toBe(true);
    expect(call("decision_reason", d)).toBe("ok");
    expect(call("decision_errored", d)).toBe(false);
    expect(call("decision_error", d)).toBe("");
    expect(seen[0]).toEqual({
      user,
      verb: "get",
      isResourceRequest: false,
      path: "/healthz",
      apiGroup: "",
      apiVersion: "",
      resource: "",
      subresource: "",
      namespace: "",
      name: "",
    });
  });

  it("checks a resource with its builder chain, selectors parsed", () => {
    const { service, seen } = recording(() => ({ decision: "deny", reason: "no", error: "webhook down" }));
    let r: CelValue = call("groupcheck_resource", call("authorizer_group", authorizerValue(service, user), "apps"), "deployments");
    r = call("resourcecheck_subresource", r, "status");
    r = call("resourcecheck_namespace", r, "test");
    r = call("resourcecheck_name", r, "backend");
    r = call("authorizer_fieldselector", r, "spec.nodeName=n1");
    r = call("authorizer_labelselector", r, "a in (");
    const d = call("resourcecheck_check", r, "update");
    expect(call("decision_allowed", d)).toBe(false);
    expect(call("decision_errored", d)).toBe(true);
    expect(call("decision_error", d)).toBe("webhook down");
    const a = seen[0]!;
    expect(a).toMatchObject({
      verb: "update",
      isResourceRequest: true,
      apiGroup: "apps",
      apiVersion: "*",
      resource: "deployments",
      subresource: "status",
      namespace: "test",
      name: "backend",
      fieldSelector: { raw: "spec.nodeName=n1", requirements: [{ field: "spec.nodeName", operator: "=", value: "n1" }] },
    });
    expect(a.labelSelector?.raw).toBe("a in (");
    expect(a.labelSelector?.error).toBeTruthy();
  });

  it("acts as a service account", () => {
    const { service, seen } = recording(() => ({ decision: "no-opinion", reason: "" }));
    const sa = call("authorizer_serviceaccount", authorizerValue(service, user), "kube-system", "builder");
    call("resourcecheck_check", call("groupcheck_resource", call("authorizer_group", sa, ""), "pods"), "list");
    expect(seen[0]!.user).toEqual({
      username: "system:serviceaccount:kube-system:builder",
      groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system"],
    });
  });

  it.each<[string, CelValue[], string]>([
    ["authorizer_path", ["  "], "path must not be empty"],
    ["authorizer_serviceaccount", ["ns", "Bad_Name"], "Invalid service account name"],
    ["authorizer_serviceaccount", ["Bad.NS", "sa"], "Invalid service account namespace"],
  ])("%s fails: %s", (id, rest, message) => {
    const authz = authorizerValue(recording(() => ({ decision: "allow", reason: "" })).service, user);
    expect(() => call(id, authz, ...rest)).toThrow(message);
  });

  it("refuses an empty resource", () => {
    const g = call("authorizer_group", authorizerValue(recording(() => ({ decision: "allow", reason: "" })).service, user), "");
    expect(() => call("groupcheck_resource", g, "")).toThrow("resource must not be empty");
  });

  it("requestResource is a ResourceCheck of the request", () => {
    const { service, seen } = recording(() => ({ decision: "allow", reason: "" }));
    const r = requestResourceValue(service, user, { group: "apps", resource: "deployments", namespace: "ns", name: "d" });
    call("resourcecheck_check", r, "get");
    expect(seen[0]).toMatchObject({ apiGroup: "apps", resource: "deployments", namespace: "ns", name: "d", subresource: "" });
  });

  it("an asynchronous authorizer: pending, then answered from the memo", async () => {
    let calls = 0;
    const memo = memoizingAuthorizer({
      check: async () => {
        calls++;
        return { decision: "allow", reason: "async" };
      },
    });
    const authz = authorizerValue(memo, user);
    const evaluate = () => call("decision_allowed", call("pathcheck_check", call("authorizer_path", authz, "/x"), "get"));
    let pending: unknown;
    try {
      evaluate();
    } catch (e) {
      pending = e;
    }
    expect(pending).toBeInstanceOf(CelPendingAuthorization);
    await (pending as CelPendingAuthorization).pending;
    expect(evaluate()).toBe(true);
    expect(calls).toBe(1);
  });

  it("a rejected asynchronous check becomes an errored decision", async () => {
    const memo = memoizingAuthorizer({ check: () => Promise.reject(new Error("timeout")) });
    const authz = authorizerValue(memo, user);
    const evaluate = () => call("pathcheck_check", call("authorizer_path", authz, "/x"), "get");
    expect(evaluate).toThrow(CelPendingAuthorization);
    await memo.settled();
    const d = evaluate();
    expect(call("decision_errored", d)).toBe(true);
    expect(call("decision_error", d)).toBe("timeout");
  });

  it("costs as library/cost.go", () => {
    expect(actualCost(both, "pathcheck_check", [], null)).toBe(350000);
    expect(estimateCost(both, "resourcecheck_check", [])?.cost).toEqual({ min: 350000, max: 350000 });
    expect(actualCost(both, "authorizer_group", [], null)).toBe(1);
    const sel = "spec.nodeName=example-node-name.fully.qualified.domain.name.example.com";
    expect(actualCost(both, "authorizer_fieldselector", [null, sel], null)).toBe(1818);
    expect(estimateCost(both, "authorizer_labelselector", [arg(StringType, 1), arg(StringType, sel.length)])?.cost).toEqual({ min: 1818, max: 1818 });
  });
});

import { describe, expect, it } from "vitest";
import { compileCel } from "../program.js";
import { authorizerType, resourceCheckType } from "../environments.js";
import type { CelValue } from "../value.js";
import {
  authorizerValue,
  CelPendingAuthorization,
  memoizingAuthorizer,
  requestResourceValue,
  type AuthorizationAttributes,
  type AuthorizationResult,
  type CelAuthorizer,
} from "./authz.js";
import { compileErr, evalErr, table, testEnv } from "./e2e.testkit.js";

/** Allows reads of pods and /healthz, errors on secrets, denies the rest; records every check. */
class FakeAuthorizer implements CelAuthorizer {
  readonly seen: AuthorizationAttributes[] = [];
  check(a: AuthorizationAttributes): AuthorizationResult {
    this.seen.push(a);
    if (a.resource === "secrets") return { decision: "no-opinion", reason: "", error: "webhook unavailable" };
    if (a.user?.username.startsWith("system:serviceaccount:kube-system:")) return { decision: "allow", reason: "system sa" };
    if (!a.isResourceRequest) return a.path === "/healthz" ? { decision: "allow", reason: "health" } : { decision: "deny", reason: "no path" };
    if (a.resource === "pods" && (a.verb === "get" || a.verb === "list")) return { decision: "allow", reason: "pod reader" };
    return { decision: "deny", reason: `no ${a.verb} on ${a.resource}` };
  }
}

const user = { username: "alice", groups: ["dev"] };
const env = testEnv({ authorizer: authorizerType, "authorizer.requestResource": resourceCheckType });
const fake = new FakeAuthorizer();
const vars: Record<string, CelValue> = {
  authorizer: authorizerValue(fake, user),
  "authorizer.requestResource": requestResourceValue(fake, user, { group: "apps", resource: "deployments", namespace: "ns", name: "web" }),
};

describe("kubernetes.authz end to end", () => {
  table(
    [
      ["authorizer.path('/healthz').check('get').allowed()", true],
      ["authorizer.path('/metrics').check('get').allowed()", false],
      ["authorizer.path('/metrics').check('get').reason()", "no path"],
      ["authorizer.path('  ')", evalErr("path must not be empty")],
      ["authorizer.path(1)", compileErr("found no matching overload for 'path' applied to 'kubernetes.authorization.Authorizer.(int)'")],
      ["authorizer.group('').resource('pods').check('get').allowed()", true],
      ["authorizer.group('').resource('pods').namespace('ns').name('p').check('delete').allowed()", false],
      ["authorizer.group('').resource('pods').check('delete').reason()", "no delete on pods"],
      ["authorizer.group('apps').resource('deployments').subresource('status').namespace('ns').name('web').check('update').allowed()", false],
      ["authorizer.group('').resource('')", evalErr("resource must not be empty")],
      ["authorizer.group('').check('get')", compileErr("found no matching overload for 'check' applied to 'kubernetes.authorization.GroupCheck.(string)'")],
      ["authorizer.check('get')", compileErr("found no matching overload for 'check' applied to 'kubernetes.authorization.Authorizer.(string)'")],
      ["authorizer.group('').resource('pods').subresource(1)", compileErr("found no matching overload for 'subresource' applied to 'kubernetes.authorization.ResourceCheck.(int)'")],
      ["authorizer.serviceAccount('kube-system', 'controller').group('').resource('nodes').check('patch').allowed()", true],
      ["authorizer.serviceAccount('default', 'sa').group('').resource('nodes').check('patch').allowed()", false],
      ["authorizer.serviceAccount('default', 'Bad_Name')", evalErr("Invalid service account name")],
      ["authorizer.serviceAccount('Bad_NS', 'sa')", evalErr("Invalid service account namespace")],
      ["authorizer.serviceAccount('ns')", compileErr("found no matching overload for 'serviceAccount' applied to 'kubernetes.authorization.Authorizer.(string)'")],
      ["authorizer.group('').resource('secrets').check('get').errored()", true],
      ["authorizer.group('').resource('secrets').check('get').error()", "webhook unavailable"],
      ["authorizer.group('').resource('pods').check('get').errored()", false],
      ["authorizer.group('').resource('pods').check('get').error()", ""],
      ["authorizer.group('').resource('pods').check('get').allowed(1)", compileErr("found no matching overload for 'allowed' applied to 'kubernetes.authorization.Decision.(int)'")],
      ["authorizer.requestResource.check('get').allowed()", false],
      ["authorizer.requestResource.check('get').reason()", "no get on deployments"],
      ["authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app=web').check('list').allowed()", true],
      ["authorizer.group('').resource('pods').fieldSelector(1)", compileErr("found no matching overload for 'fieldSelector' applied to 'kubernetes.authorization.ResourceCheck.(int)'")],
      ["authorizer.group('').resource('pods').labelSelector(1)", compileErr("found no matching overload for 'labelSelector' applied to 'kubernetes.authorization.ResourceCheck.(int)'")],
      ["authorizer.group(1)", compileErr("found no matching overload for 'group' applied to 'kubernetes.authorization.Authorizer.(int)'")],
      ["authorizer.group('').resource(1)", compileErr("found no matching overload for 'resource' applied to 'kubernetes.authorization.GroupCheck.(int)'")],
      ["authorizer.group('').resource('pods').namespace(1)", compileErr("found no matching overload for 'namespace' applied to 'kubernetes.authorization.ResourceCheck.(int)'")],
      ["authorizer.group('').resource('pods').name(1)", compileErr("found no matching overload for 'name' applied to 'kubernetes.authorization.ResourceCheck.(int)'")],
      ["authorizer.path('/').check(1)", compileErr("found no matching overload for 'check' applied to 'kubernetes.authorization.PathCheck.(int)'")],
      ["authorizer.path('/').check('get').reason(1)", compileErr("found no matching overload for 'reason' applied to 'kubernetes.authorization.Decision.(int)'")],
      ["authorizer.path('/').check('get').error(1)", compileErr("found no matching overload for 'error' applied to 'kubernetes.authorization.Decision.(int)'")],
      ["authorizer.path('/').check('get').errored(1)", compileErr("found no matching overload for 'errored' applied to 'kubernetes.authorization.Decision.(int)'")],
      ["authorizer.group('').resource('pods').namespace('').name('').check('list').allowed()", true],
      // upstream's authorizer values only compare by identity of their Go struct: CEL == fails
      ["authorizer == authorizer", evalErr("no such overload")],
      ["type(authorizer) == type(authorizer.path('/'))", false],
    ],
    env,
    vars,
  );

  it("sends upstream's attributes to the authorizer", () => {
    const a = new FakeAuthorizer();
    const run = (expr: string) => compileCel(expr, env).eval({ ...vars, authorizer: authorizerValue(a, user) }).value;
    run("authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('web').check('update')");
    expect(a.seen.at(-1)).toEqual({
      user,
      verb: "update",
      isResourceRequest: true,
      path: "",
      apiGroup: "apps",
      apiVersion: "*",
      resource: "deployments",
      subresource: "scale",
      namespace: "ns",
      name: "web",
    });
    run("authorizer.path('/healthz').check('get')");
    expect(a.seen.at(-1)).toMatchObject({ verb: "get", isResourceRequest: false, path: "/healthz", apiVersion: "" });
    run("authorizer.serviceAccount('ns', 'sa').path('/x').check('get')");
    expect(a.seen.at(-1)!.user).toEqual({ username: "system:serviceaccount:ns:sa", groups: ["system:serviceaccounts", "system:serviceaccounts:ns"] });
    run("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('app in (a, b)').check('list')");
    const last = a.seen.at(-1)!;
    expect(last.fieldSelector?.raw).toBe("spec.nodeName=n1");
    expect(last.fieldSelector?.requirements?.length).toBe(1);
    expect(last.labelSelector?.raw).toBe("app in (a, b)");
    expect(last.labelSelector?.requirements?.length).toBe(1);
    run("authorizer.group('').resource('pods').labelSelector('a b c').check('list')");
    expect(a.seen.at(-1)!.labelSelector?.error).toBeTruthy();
  });

  it("charges upstream's check cost and honours the budget", () => {
    const p = compileCel("authorizer.path('/healthz').check('get').allowed()", env);
    expect(p.estimatedCost.max).toBeGreaterThanOrEqual(350000);
    expect(p.eval(vars).cost).toBeGreaterThanOrEqual(350000);
    expect(() => p.eval(vars, { costLimit: 1000 })).toThrow("operation cancelled: actual cost limit exceeded");
  });

  it("asynchronous authorizers: pending, then answered from the memo", async () => {
    const slow: CelAuthorizer = { check: async (a) => ({ decision: a.verb === "get" ? "allow" : "deny", reason: "" }) };
    const memo = memoizingAuthorizer(slow);
    const p = compileCel("authorizer.path('/a').check('get').allowed() && !authorizer.path('/a').check('put').allowed()", env);
    const evalOnce = () => p.eval({ ...vars, authorizer: authorizerValue(memo, user) }).value;
    let runs = 0;
    let result: CelValue | undefined;
    for (;;) {
      runs++;
      try {
        result = evalOnce();
        break;
      } catch (e) {
        expect(e).toBeInstanceOf(CelPendingAuthorization);
        await (e as CelPendingAuthorization).pending;
      }
    }
    expect(result).toBe(true);
    expect(runs).toBe(3);
  });
});

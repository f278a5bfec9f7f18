// Each CEL user's environment compiles the expressions upstream's accepts, with the variables typed
// as upstream types them, and refuses what upstream refuses.
import { describe, expect, it } from "vitest";
import { toCel } from "./convert.js";
import {
  admissionPolicyEnvironment,
  authorizationMatchEnvironment,
  claimsEnvironment,
  crdRuleEnvironment,
  userEnvironment,
  admissionRequestType,
  userInfoType,
  subjectAccessReviewSpecType,
} from "./environments.js";
import { authorizerValue, memoizingAuthorizer, requestResourceValue, type AuthorizationAttributes } from "./library/authz.js";
import { CelCompileError, compileCel } from "./program.js";
import { selfTypeOf } from "./schema/index.js";
import { formatType } from "./types.js";

const compileMessage = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof CelCompileError) return e.message;
    throw e;
  }
  return "";
};

describe("environments", () => {
  it("CRD rules: self and oldSelf typed from the schema; optionalOldSelf makes oldSelf optional", () => {
    const self = selfTypeOf({ type: "object", properties: { replicas: { type: "integer" } } })!;
    const env = crdRuleEnvironment(self);
    const p = compileCel("self.replicas >= oldSelf.replicas", env);
    expect(p.eval({ self: toCel({ replicas: 3 }, self), oldSelf: toCel({ replicas: 2 }, self) }).value).toBe(true);
    const optional = crdRuleEnvironment(self, { optionalOldSelf: true });
    const q = compileCel("oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : true", optional);
    expect(formatType(q.resultType)).toBe("bool");
  });

  it("admission policies: object, oldObject, request, params, namespaceObject, authorizer, variables", async () => {
    const env = admissionPolicyEnvironment({ hasParams: true, hasAuthorizer: true });
    const expr =
      "request.operation == 'CREATE' && object.metadata.name.startsWith(params.prefix) && " +
      "namespaceObject.metadata.labels['env'] == 'prod' && request.userInfo.username != '' && " +
      "authorizer.group('apps').resource('deployments').namespace(request.namespace).check('create').allowed() && " +
      "!authorizer.requestResource.check('delete').allowed()";
    const program = compileCel(expr, env);
    expect(formatType(program.resultType)).toBe("bool");
    const seen: AuthorizationAttributes[] = [];
    // An asynchronous authorizer, as kapi's are: the program waits for its answers.
    const service = memoizingAuthorizer({
      check: async (attrs) => {
        seen.push(attrs);
        return attrs.verb === "create" ? { decision: "allow", reason: "rbac" } : { decision: "no-opinion", reason: "" };
      },
    });
    const user = { username: "alice", groups: ["devs"] };
    const vars = {
      object: toCel({ metadata: { name: "app-1" } }),
      oldObject: null,
      params: toCel({ prefix: "app-" }),
      namespaceObject: toCel({ metadata: { name: "team", labels: { env: "prod" } } }, env.variables.namespaceObject),
      request: toCel(
        {
          operation: "CREATE",
          namespace: "team",
          name: "app-1",
          kind: { group: "apps", version: "v1", kind: "Deployment" },
          resource: { group: "apps", version: "v1", resource: "deployments" },
          requestKind: { group: "apps", version: "v1", kind: "Deployment" },
          requestResource: { group: "apps", version: "v1", resource: "deployments" },
          userInfo: { username: "alice", groups: ["devs"] },
        },
        admissionRequestType,
      ),
      authorizer: authorizerValue(service, user),
      "authorizer.requestResource": requestResourceValue(service, user, { group: "apps", resource: "deployments", namespace: "team", name: "app-1" }),
    };
    expect(() => program.eval(vars)).toThrow("authorization check pending");
    expect((await program.evalAsync(vars)).value).toBe(true);
    expect(seen.map((a) => `${a.verb} ${a.apiGroup}/${a.resource} ${a.namespace}/${a.name} as ${a.user?.username}`)).toEqual([
      "create apps/deployments team/ as alice",
      "delete apps/deployments team/app-1 as alice",
    ]);
    // Without params or an authorizer, those variables are not declared.
    const bare = admissionPolicyEnvironment({ hasParams: false, hasAuthorizer: false });
    expect(compileMessage(() => compileCel("params.x == 1", bare))).toContain("undeclared reference to 'params'");
    expect(compileMessage(() => compileCel("request.operatio == ''", bare))).toContain("undefined field 'operatio'");
  });

  it("authentication: claims (a map of dyn) and user (kubernetes.UserInfo)", () => {
    const claims = compileCel("claims.email_verified == true && claims.sub.startsWith('u-') ? 'user:' + claims.sub : ''", claimsEnvironment);
    expect(claims.eval({ claims: toCel({ sub: "u-1", email_verified: true }) }).value).toBe("user:u-1");
    const user = compileCel("!user.username.startsWith('system:') && !('system:masters' in user.groups)", userEnvironment);
    expect(user.eval({ user: toCel({ username: "bob", groups: ["devs"], uid: "", extra: {} }, userInfoType) }).value).toBe(true);
    expect(compileMessage(() => compileCel("user.name == ''", userEnvironment))).toContain("undefined field 'name'");
  });

  it("authorization match conditions: request is a SubjectAccessReviewSpec; selectors behind AuthorizeWithSelectors", () => {
    const env = authorizationMatchEnvironment(true);
    const p = compileCel(
      "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system' && " +
        "!(has(request.resourceAttributes.fieldSelector) && request.resourceAttributes.fieldSelector.rawSelector != '')",
      env,
    );
    const spec = { user: "bob", groups: [], uid: "", extra: {}, resourceAttributes: { namespace: "kube-system", verb: "get", group: "", version: "v1", resource: "pods", subresource: "", name: "" } };
    expect(p.eval({ request: toCel(spec, subjectAccessReviewSpecType(true)) }).value).toBe(true);
    const without = authorizationMatchEnvironment(false);
    expect(compileMessage(() => compileCel("has(request.resourceAttributes.fieldSelector)", without))).toContain("undefined field 'fieldSelector'");
  });
});

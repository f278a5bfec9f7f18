// A PUT or an apply that creates the object was authorized by the filter as update/patch; the
// create itself must be allowed too (upstream's withAuthorization around create validation in
// the update and patch handlers): the same attributes with verb "create", asked once. Allowed →
// go on; an evaluation error without allow → 500; otherwise 403 `<resource> "<name>" is forbidden: <reason>`.
import { forbidden, internalError } from "../apimachinery/errors.js";
import type { ResourceRequest } from "./context.js";
import type { AuthzResult } from "../authz/authorizer.js";

export function createAuthorization(r: ResourceRequest): (() => Promise<void>) | undefined {
  const z = r.parts.authorizer;
  if (!z) return undefined;
  let asked: Promise<AuthzResult> | undefined;
  return async () => {
    const { info, user } = r;
    asked ??= Promise.resolve(
      z.authorize({
        user,
        verb: "create",
        isResourceRequest: true,
        path: info.path,
        namespace: info.namespace,
        apiGroup: r.type.group,
        apiVersion: r.type.version,
        resource: r.type.resource,
        subresource: info.subresource,
        name: info.name,
      }),
    );
    const res = await asked;
    if (res.decision === "allow") return;
    if (res.error) throw internalError(new Error(res.error));
    throw forbidden({ group: r.type.group, resource: r.type.resource }, info.name, res.reason);
  };
}

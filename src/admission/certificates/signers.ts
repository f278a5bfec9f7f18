// Permission on a signer (upstream pkg/certauthorization IsAuthorizedForSignerName): `verb` on the
// synthetic resource certificates.k8s.io "signers" named after the signer, or failing that on
// "<domain>/*" — the signer name's part before its first "/" — so one grant covers a domain's
// signers. An authorizer error counts as no permission (upstream logs it and goes on).
import type { UserInfo } from "../../apimachinery/user.js";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";

export async function isAuthorizedForSignerName(authz: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  if (await allowed(authz, signerAttributes(user, verb, signerName))) return true;
  const domain = signerName.split("/")[0];
  return allowed(authz, signerAttributes(user, verb, `${domain}/*`));
}

export function signerAttributes(user: UserInfo, verb: string, name: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace: "",
    apiGroup: "certificates.k8s.io",
    apiVersion: "*",
    resource: "signers",
    subresource: "",
    name,
  };
}

async function allowed(authz: Authorizer, a: Attributes): Promise<boolean> {
  try {
    return (await authz.authorize(a)).decision === "allow";
  } catch {
    return false;
  }
}

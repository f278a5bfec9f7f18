import type { UserInfo } from "../authn/user.js";

export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

export type Decision = "allow" | "deny" | "no-opinion";

export interface AuthzResult {
  decision: Decision;
  reason: string;
}

export interface Authorizer {
  authorize(a: Attributes): AuthzResult | Promise<AuthzResult>;
}

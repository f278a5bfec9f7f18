import type { Authorizer } from "./authorizer.js";

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: "allow", reason: "" }) };
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: "deny", reason: "Everything is forbidden." }) };

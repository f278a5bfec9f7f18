export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const anonymousUser = "system:anonymous";
export const unauthenticatedGroup = "system:unauthenticated";
export const authenticatedGroup = "system:authenticated";
export const mastersGroup = "system:masters";

/** Every authenticated (non-anonymous) user is in system:authenticated, once. */
export function withAuthenticatedGroup(u: UserInfo): UserInfo {
  if (u.name === anonymousUser || u.groups.includes(authenticatedGroup)) return u;
  return { ...u, groups: [...u.groups, authenticatedGroup] };
}

// Printers for the rbac.authorization.k8s.io API group.
// Roles and ClusterRoles have no dedicated printer upstream: they use the default one.
import { age, ageColumn, arr, col, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export function subjectStrings(subjects: unknown): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of arr(subjects)) {
    switch (s?.kind) {
      case "ServiceAccount":
        serviceAccounts.push(`${str(s.namespace)}/${str(s.name)}`);
        break;
      case "User":
        users.push(str(s.name));
        break;
      case "Group":
        groups.push(str(s.name));
        break;
    }
  }
  return { users, groups, serviceAccounts };
}

function bindingPrinter(what: string): Printer {
  return {
    columns: [
      nameColumn(),
      col("Role", "string", "Kind and name of the referenced role."),
      ageColumn(),
      col("Users", "string", `Users bound by the ${what}.`, 1),
      col("Groups", "string", `Groups bound by the ${what}.`, 1),
      col("ServiceAccounts", "string", `Service accounts bound by the ${what}.`, 1),
    ],
    cells(b, now) {
      const s = subjectStrings(b?.subjects);
      return [
        name(b),
        `${str(b?.roleRef?.kind)}/${str(b?.roleRef?.name)}`,
        age(b, now),
        s.users.join(", "),
        s.groups.join(", "),
        s.serviceAccounts.join(", "),
      ];
    },
  };
}

export const roleBindingPrinter = bindingPrinter("role binding");
export const clusterRoleBindingPrinter = bindingPrinter("cluster role binding");

// Printers for the coordination.k8s.io API group.
import { age, ageColumn, col, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export const leasePrinter: Printer = {
  columns: [nameColumn(), col("Holder", "string", "Identity currently holding the lease."), ageColumn()],
  cells(lease, now) {
    return [name(lease), str(lease?.spec?.holderIdentity), age(lease, now)];
  },
};

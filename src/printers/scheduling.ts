// Printers for the scheduling.k8s.io API group.
import { age, ageColumn, col, int, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export const priorityClassPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Value", "integer", "Priority given to pods of this class."),
    col("Global-Default", "boolean", "Whether this class applies to pods without a class."),
    ageColumn(),
    // Upstream registers this column without the wide priority, but only fills it in wide mode,
    // which is always the case for server-side tables.
    col("PreemptionPolicy", "string", "Whether pods of this class may preempt others."),
  ],
  cells(pc, now) {
    return [name(pc), int(pc?.value), pc?.globalDefault === true, age(pc, now), str(pc?.preemptionPolicy)];
  },
};

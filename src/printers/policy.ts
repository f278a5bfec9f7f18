// Printers for the policy API group.
import { age, ageColumn, col, int, intOrString, name, nameColumn } from "./helpers.js";
import type { Printer } from "./types.js";

function optionalIntOrString(v: unknown): string {
  return v === undefined || v === null ? "N/A" : intOrString(v);
}

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Min Available", "string", "Pods that must stay available."),
    col("Max Unavailable", "string", "Pods that may be unavailable."),
    col("Allowed Disruptions", "integer", "Pod disruptions currently allowed."),
    ageColumn(),
  ],
  cells(pdb, now) {
    return [
      name(pdb),
      optionalIntOrString(pdb?.spec?.minAvailable),
      optionalIntOrString(pdb?.spec?.maxUnavailable),
      int(pdb?.status?.disruptionsAllowed),
      age(pdb, now),
    ];
  },
};

// Printers for the apiregistration.k8s.io API group (served by kube-aggregator).
import { age, arr, col, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export const apiServicePrinter: Printer = {
  columns: [
    nameColumn(),
    col("Service", "string", "Service backing this API, or Local."),
    col("Available", "string", "Availability of the API."),
    col("Age", "string", "Time elapsed since the object was created."),
  ],
  cells(svc, now) {
    const ref = svc?.spec?.service;
    const service = ref ? `${str(ref.namespace)}/${str(ref.name)}` : "Local";
    let available = "Unknown";
    const c = arr(svc?.status?.conditions).find((x) => x?.type === "Available");
    if (c) {
      if (c.status === "True") available = "True";
      else if (str(c.reason).length > 0) available = `${str(c.status)} (${str(c.reason)})`;
      else available = str(c.status);
    }
    return [name(svc), service, available, age(svc, now)];
  },
};

// Printers for the networking.k8s.io API group.
import { age, ageColumn, arr, col, formatLabelSelector, loadBalancerString, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export function formatIngressHosts(rules: unknown): string {
  const list = arr(rules);
  const hosts: string[] = [];
  const max = 3;
  let more = false;
  for (const rule of list) {
    if (hosts.length === max) more = true;
    if (!more && str(rule?.host) !== "") hosts.push(str(rule.host));
  }
  if (hosts.length === 0) return "*";
  const joined = hosts.join(",");
  return more ? `${joined} + ${list.length - max} more...` : joined;
}

export const ingressPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Class", "string", "IngressClass handling this ingress."),
    col("Hosts", "string", "Host names matched by the rules."),
    col("Address", "string", "Load-balancer addresses of the ingress."),
    col("Ports", "string", "Ports served (443 when TLS is configured)."),
    ageColumn(),
  ],
  cells(ing, now) {
    const spec = ing?.spec ?? {};
    return [
      name(ing),
      typeof spec.ingressClassName === "string" ? spec.ingressClassName : "<none>",
      formatIngressHosts(spec.rules),
      loadBalancerString(ing?.status?.loadBalancer),
      arr(spec.tls).length !== 0 ? "80, 443" : "80",
      age(ing, now),
    ];
  },
};

export const ingressClassPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Controller", "string", "Controller implementing the class."),
    col("Parameters", "string", "Resource holding extra parameters for the controller."),
    ageColumn(),
  ],
  cells(ic, now) {
    const p = ic?.spec?.parameters;
    let parameters = "<none>";
    if (p) {
      parameters = str(p.kind);
      if (typeof p.apiGroup === "string") parameters += "." + p.apiGroup;
      parameters += "/" + str(p.name);
    }
    return [name(ic), str(ic?.spec?.controller), parameters, age(ic, now)];
  },
};

export const networkPolicyPrinter: Printer = {
  columns: [nameColumn(), col("Pod-Selector", "string", "Pods the policy applies to."), ageColumn()],
  cells(np, now) {
    return [name(np), formatLabelSelector(np?.spec?.podSelector ?? {}), age(np, now)];
  },
};

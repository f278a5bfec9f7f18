import { since } from "./duration.js";
import type { TableColumnDefinition } from "./types.js";

export { since };

/** Builds a column definition. */
export function col(
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = "",
): TableColumnDefinition {
  return { name, type, format, description, priority };
}

export const nameColumn = (): TableColumnDefinition =>
  col("Name", "string", "Unique name of the object within its namespace or cluster.", 0, "name");
export const ageColumn = (): TableColumnDefinition =>
  col("Age", "string", "Time elapsed since the object was created.");
export const containersColumn = (priority = 1): TableColumnDefinition =>
  col("Containers", "string", "Container names from the pod template.", priority);
export const imagesColumn = (priority = 1): TableColumnDefinition =>
  col("Images", "string", "Container images from the pod template.", priority);
export const selectorColumn = (priority = 1): TableColumnDefinition =>
  col("Selector", "string", "Label selector used to find the managed pods.", priority);

export function arr<T = any>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

export function int(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0;
}

export function name(obj: any): string {
  return str(obj?.metadata?.name);
}

export function age(obj: any, now: Date): string {
  return since(obj?.metadata?.creationTimestamp, now);
}

export function objectKeysCount(v: unknown): number {
  return v && typeof v === "object" ? Object.keys(v).length : 0;
}

/** Comma-joined container names and images, as one line each. */
export function containerCells(containers: unknown): [string, string] {
  const list = arr(containers);
  return [list.map((c) => str(c?.name)).join(","), list.map((c) => str(c?.image)).join(",")];
}

/** "k=v,k2=v2" with sorted keys; "" for an empty map. */
export function labelSetString(labels: unknown): string {
  if (!labels || typeof labels !== "object") return "";
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${str((labels as Record<string, unknown>)[k])}`)
    .join(",");
}

/** labels.FormatLabels: "<none>" when empty. */
export function formatLabels(labels: unknown): string {
  return labelSetString(labels) || "<none>";
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * String form of a metav1.LabelSelector converted to a labels.Selector.
 * Returns undefined when the selector is invalid. A nil or empty selector gives "".
 */
export function labelSelectorString(selector: any): string | undefined {
  if (!selector || typeof selector !== "object") return "";
  const reqs: { key: string; text: string }[] = [];
  const matchLabels = selector.matchLabels ?? {};
  for (const key of Object.keys(matchLabels)) {
    reqs.push({ key, text: `${key}=${str(matchLabels[key])}` });
  }
  for (const expr of arr(selector.matchExpressions)) {
    const key = str(expr?.key);
    const values = arr<string>(expr?.values).map(str);
    switch (expr?.operator) {
      case "In":
      case "NotIn": {
        if (values.length === 0) return undefined;
        const op = expr.operator === "In" ? " in " : " notin ";
        reqs.push({ key, text: `${key}${op}(${[...values].sort(cmp).join(",")})` });
        break;
      }
      case "Exists":
        if (values.length !== 0) return undefined;
        reqs.push({ key, text: key });
        break;
      case "DoesNotExist":
        if (values.length !== 0) return undefined;
        reqs.push({ key, text: `!${key}` });
        break;
      default:
        return undefined;
    }
  }
  return reqs
    .sort((a, b) => cmp(a.key, b.key))
    .map((r) => r.text)
    .join(",");
}

/** metav1.FormatLabelSelector: "<error>" when invalid, "<none>" when empty. */
export function formatLabelSelector(selector: any): string {
  const s = labelSelectorString(selector);
  if (s === undefined) return "<error>";
  return s || "<none>";
}

/** intstr.IntOrString String(). */
export function intOrString(v: unknown): string {
  if (typeof v === "number") return String(Math.trunc(v));
  return str(v);
}

/** "True" / "False" / "<unset>" for an optional boolean. */
export function boolPtr(v: unknown): string {
  if (typeof v !== "boolean") return "<unset>";
  return v ? "True" : "False";
}

/** net.JoinHostPort: brackets around IPv6 hosts. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** "a,b,c + N more..." with "<unset>" for an empty list. */
export function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const joined = list.join(",");
  if (more) return `${joined} + ${count - max} more...`;
  return joined === "" ? "<unset>" : joined;
}

/** Sorted, de-duplicated IPs/hostnames of load-balancer ingress points. */
export function loadBalancerString(status: any): string {
  const set = new Set<string>();
  for (const ing of arr(status?.ingress)) {
    if (str(ing?.ip) !== "") set.add(str(ing.ip));
    else if (str(ing?.hostname) !== "") set.add(str(ing.hostname));
  }
  return [...set].sort(cmp).join(",");
}

export function sortStrings(values: string[]): string[] {
  return [...values].sort(cmp);
}

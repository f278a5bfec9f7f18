// Table output of a custom resource: Name, then the version's additionalPrinterColumns (or Age
// when it declares none), each cell found by the column's simple JSONPath and shaped by its type
// as apiextensions-apiserver's table convertor does.
import type { TableColumnDefinition, TablePrinter } from "../registry/table-printer.js";
import { humanDuration } from "../printers/duration.js";

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const nameDescription =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const creationTimestampDescription =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** The columns a version without additionalPrinterColumns gets. */
export const defaultPrinterColumns: readonly PrinterColumn[] = [{ name: "Age", type: "date", description: creationTimestampDescription, jsonPath: ".metadata.creationTimestamp" }];

type Step = { kind: "field"; name: string } | { kind: "index"; index: number } | { kind: "all" };

/** Parses the simple JSONPath printer columns and selectable fields use (`.a.b`, `['a.b']`, `[0]`, `[*]`, `{...}`). */
export function parseJsonPath(path: string): Step[] {
  let p = path.trim();
  if (p.startsWith("{") && p.endsWith("}")) p = p.slice(1, -1);
  if (p.startsWith("$")) p = p.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < p.length) {
    if (p[i] === ".") {
      i++;
      let j = i;
      while (j < p.length && p[j] !== "." && p[j] !== "[") j++;
      if (j > i) steps.push({ kind: "field", name: p.slice(i, j) });
      i = j;
    } else if (p[i] === "[") {
      const end = p.indexOf("]", i);
      if (end < 0) throw new Error(`unclosed [ in ${path}`);
      const inner = p.slice(i + 1, end).trim();
      if (inner === "*") steps.push({ kind: "all" });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: "index", index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: "field", name: inner.slice(1, -1) });
      else throw new Error(`unsupported JSONPath step [${inner}] in ${path}`);
      i = end + 1;
    } else {
      let j = i;
      while (j < p.length && p[j] !== "." && p[j] !== "[") j++;
      steps.push({ kind: "field", name: p.slice(i, j) });
      i = j;
    }
  }
  return steps;
}

/** Every value the path reaches. */
export function findValues(obj: unknown, steps: readonly Step[]): unknown[] {
  let cur: unknown[] = [obj];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (s.kind === "field") {
        if (v && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, s.name)) next.push((v as Record<string, unknown>)[s.name]);
      } else if (Array.isArray(v)) {
        if (s.kind === "all") next.push(...v);
        else {
          const k = s.index < 0 ? v.length + s.index : s.index;
          if (k >= 0 && k < v.length) next.push(v[k]);
        }
      }
    }
    cur = next;
  }
  return cur;
}

function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys((v as Record<string, unknown>)[k])]));
  return v;
}

function cellFor(type: string, value: unknown, now: Date): unknown {
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? value : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "string":
      // As kubectl's JSONPath printer: scalars as text, maps and lists as JSON (keys sorted, as Go's encoder).
      if (value === null || value === undefined) return null;
      return typeof value === "object" ? JSON.stringify(sortedKeys(value)) : String(value);
    case "date": {
      if (typeof value !== "string") return null;
      const ms = Date.parse(value);
      if (Number.isNaN(ms)) return "<invalid>";
      return humanDuration(now.getTime() - ms);
    }
  }
  return null;
}

/** The Table printer of one version's columns. */
export function customResourcePrinter(declared: readonly PrinterColumn[] | undefined): TablePrinter {
  const cols = declared && declared.length > 0 ? declared : defaultPrinterColumns;
  const paths = cols.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  const columns: TableColumnDefinition[] = [
    { name: "Name", type: "string", format: "name", description: nameDescription, priority: 0 },
    ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 })),
  ];
  return {
    columns,
    cells(obj, now) {
      const name = obj?.metadata?.name;
      return [
        typeof name === "string" ? name : "",
        ...cols.map((c, i) => {
          const steps = paths[i];
          if (!steps) return null;
          const found = findValues(obj, steps);
          if (found.length === 0 || found[0] === undefined) return null;
          return cellFor(c.type, found[0], now);
        }),
      ];
    },
  };
}

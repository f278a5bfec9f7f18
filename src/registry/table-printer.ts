// Server-side Table output (meta.k8s.io Table) of a type: its column definitions and the cells
// of one row per object. Each type declares its printer; this module owns the shape and the
// fallback kube-apiserver uses for types without a dedicated one.

/** One column of a server-side meta.k8s.io Table. */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  /** 0 = always shown; 1 = only shown by clients in wide mode. */
  priority: number;
}

/**
 * Produces Table column definitions and the cells of one row for one object. Cells always
 * include the wide (priority 1) columns, as kube-apiserver does: clients hide them unless asked
 * for wide output.
 */
export interface TablePrinter {
  columns: TableColumnDefinition[];
  cells(obj: any, now: Date): unknown[];
}

/** Go's zero time, which is what an unset creationTimestamp formats as. */
const zeroTime = "0001-01-01T00:00:00Z";

/** RFC 3339 in UTC with whole seconds, like Go's time.RFC3339 layout. */
function rfc3339(value: unknown): string {
  if (typeof value !== "string" || value === "") return zeroTime;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return zeroTime;
  return new Date(ms).toISOString().slice(0, 19) + "Z";
}

/** What kube-apiserver uses for types without a dedicated printer: name and creation time. */
export const defaultTablePrinter: TablePrinter = {
  columns: [
    { name: "Name", type: "string", format: "name", description: "Unique name of the object within its namespace or cluster.", priority: 0 },
    { name: "Created At", type: "date", format: "", description: "Time the object was created, in UTC.", priority: 0 },
  ],
  cells(obj) {
    const name = obj?.metadata?.name;
    return [typeof name === "string" ? name : name === undefined || name === null ? "" : String(name), rfc3339(obj?.metadata?.creationTimestamp)];
  },
};

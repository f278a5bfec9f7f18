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
 * Produces Table column definitions and the cells of one row for one object.
 * Cells always include the wide (priority 1) columns, as kube-apiserver does:
 * clients hide them unless asked for wide output.
 */
export interface Printer {
  columns: TableColumnDefinition[];
  cells(obj: any, now: Date): unknown[];
}

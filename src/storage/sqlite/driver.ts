// The few calls the sqlite backend makes on a database, so it can run on either synchronous
// driver: better-sqlite3 (a native addon built at install, any Node from 20) or Node's built-in
// node:sqlite (22.13+ without a flag). Both are synchronous, which the backend's gap-free watch
// relies on (sqlite-storage.ts). Each driver is loaded only when chosen: node:sqlite does not
// exist on Node 20, and better-sqlite3's addon may be built for another Node's ABI.
export type SqlValue = string | number | null;

export interface SqlStatement<P extends SqlValue[] = SqlValue[], R = unknown> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  run(...params: P): void;
}

export interface SqlDatabase {
  readonly driver: SqliteDriverName;
  prepare<P extends SqlValue[] = SqlValue[], R = unknown>(sql: string): SqlStatement<P, R>;
  exec(sql: string): void;
  /** Runs fn in one transaction: committed if it returns, rolled back if it throws. */
  transaction(fn: () => void): void;
  close(): void;
}

export type SqliteDriverName = "better-sqlite3" | "node:sqlite";

export interface SqliteDriver {
  readonly name: SqliteDriverName;
  /** Why the driver cannot run in this process, or undefined when it can. */
  unavailable(): string | undefined;
  open(path: string, opts?: { readonly?: boolean }): SqlDatabase;
}

// Anchor for create and update: raw SQLite (the driver kapi picks on this Node) in its own process, one single-row INSERT per
// transaction, WAL + synchronous=FULL (an fsync per commit, as kapi's durability promises).
// This is the rate a naive "one commit per request" server could reach on this disk; kapi's
// group commit should beat it by batching many requests into one fsync.
import { sqliteDriver } from "../../src/storage/sqlite/drivers.js";
import { rmSync } from "node:fs";
import { cpuPct, serveIpc } from "../core/child.js";

export interface CommitsJob {
  path: string;
  durationMs: number;
  /** Value size per row: the stored pod's size, so the bytes per fsync match kapi's. */
  rowBytes: number;
}

export interface CommitsResult {
  commits: number;
  elapsedMs: number;
  cpuPct: number;
}

serveIpc({
  run(job: CommitsJob): CommitsResult {
    for (const f of ["", "-wal", "-shm"]) rmSync(job.path + f, { force: true });
    const db = sqliteDriver().open(job.path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO kv (key, value) VALUES (?, ?)");
    const value = "x".repeat(job.rowBytes);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + job.durationMs;
    let commits = 0;
    // Autocommit: every run() is its own durable transaction.
    while (performance.now() < end) insert.run(`/registry/pods/default/p-${commits++}`, value);
    const elapsedMs = performance.now() - t0;
    const cpu = cpuPct(c0, process.cpuUsage(), elapsedMs);
    db.close();
    for (const f of ["", "-wal", "-shm"]) rmSync(job.path + f, { force: true });
    return { commits, elapsedMs, cpuPct: cpu };
  },
});

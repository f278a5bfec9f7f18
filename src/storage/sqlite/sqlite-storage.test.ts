import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { runStorageConformance } from "../conformance.testkit.js";
import { sqliteHarness } from "./sqlite-harness.testkit.js";
import { SqliteStorage } from "./sqlite-storage.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "kapi-sqlite-"));
  dirs.push(dir);
  return join(dir, "kapi.db");
}

runStorageConformance("sqlite", sqliteHarness, { ownEventWindow: false });

describe("SqliteStorage", () => {
  const open: SqliteStorage[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("group commit: a burst of 200 creates shares few transactions, each with its own revision", async () => {
    const s = SqliteStorage.open({ path: tempPath() });
    open.push(s);
    const kvs = await Promise.all(Array.from({ length: 200 }, (_, i) => s.create(`/b/${i}`, `${i}`)));
    expect(new Set(kvs.map((k) => k.modRevision)).size).toBe(200);
    const { commits, writes } = s.stats();
    expect(writes).toBe(200);
    expect(commits).toBeLessThan(writes);
    expect(commits).toBeLessThanOrEqual(2);
  });

  it("a failing write in a batch fails alone", async () => {
    const s = SqliteStorage.open({ path: tempPath() });
    open.push(s);
    const results = await Promise.allSettled([
      s.create("/a", "1"),
      s.create("/a", "dup"),
      s.update("/missing", "x", 0),
      s.create("/b", "2"),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(s.stats().commits).toBe(1);
    expect((await s.range("/")).items.map((i) => `${i.key}@${i.modRevision}`)).toEqual(["/a@1", "/b@2"]);
  });

  it("a write has been committed to the file when its promise resolves", async () => {
    const path = tempPath();
    const s = SqliteStorage.open({ path });
    open.push(s);
    await s.create("/durable", "yes");
    // A second connection only sees committed data.
    const other = new Database(path, { readonly: true });
    try {
      const row = other.prepare("SELECT key, value FROM log WHERE id = 1").get();
      expect(row).toEqual({ key: "/durable", value: "yes" });
      expect(other.pragma("journal_mode", { simple: true })).toBe("wal");
      // The highest revision is stored explicitly, not only implied by the newest log row.
      expect(other.prepare("SELECT value FROM meta WHERE name = 'revision'").get()).toEqual({ value: 1 });
    } finally {
      other.close();
    }
  });
});

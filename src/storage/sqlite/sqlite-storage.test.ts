import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runStorageConformance } from "../conformance.testkit.js";
import { betterSqlite3Driver } from "./driver-better-sqlite3.js";
import { nodeSqliteDriver } from "./driver-node-sqlite.js";
import { availableSqliteDrivers, sqliteDriver } from "./drivers.js";
import { sqliteHarnesses } from "./sqlite-harness.testkit.js";
import { SqliteStorage } from "./sqlite-storage.js";

const dirs: string[] = [];
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "kapi-sqlite-"));
  dirs.push(dir);
  return join(dir, "kapi.db");
}

for (const { name, harness } of sqliteHarnesses()) runStorageConformance(name, harness, { ownEventWindow: false });

const nodeMajor = Number(process.versions.node.split(".")[0]);

describe("sqlite drivers", () => {
  it("runs on every Node kapi supports: node:sqlite from 22.13, better-sqlite3 wherever its addon matches", () => {
    const names = availableSqliteDrivers().map((d) => d.name);
    expect(names.length).toBeGreaterThan(0);
    const disabled = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => a.includes("--no-experimental-sqlite"));
    const hasNodeSqlite = !disabled && (nodeMajor > 22 || (nodeMajor === 22 && Number(process.versions.node.split(".")[1]) >= 13));
    expect(names.includes("node:sqlite")).toBe(hasNodeSqlite);
    if (!hasNodeSqlite) expect(nodeSqliteDriver.unavailable()).toMatch(/node:sqlite is not available in Node 20\./);
  });

  it("an unknown or unavailable driver asked for by name is a clear error", () => {
    expect(() => sqliteDriver("sqlite3" as never)).toThrow(/unknown sqlite driver "sqlite3"; known: node:sqlite, better-sqlite3/);
    for (const d of [nodeSqliteDriver, betterSqlite3Driver]) {
      const why = d.unavailable();
      if (why) expect(() => sqliteDriver(d.name)).toThrow(why);
      else expect(sqliteDriver(d.name)).toBe(d);
    }
  });
});

for (const driver of availableSqliteDrivers().map((d) => d.name)) {
  describe(`SqliteStorage (${driver})`, () => {
    const open: SqliteStorage[] = [];
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });
    const openStore = (path = tempPath()) => {
      const s = SqliteStorage.open({ path, driver });
      open.push(s);
      return s;
    };

    it("group commit: a burst of 200 creates shares few transactions, each with its own revision", async () => {
      const s = openStore();
      expect(s.driver).toBe(driver);
      const kvs = await Promise.all(Array.from({ length: 200 }, (_, i) => s.create(`/b/${i}`, `${i}`)));
      expect(new Set(kvs.map((k) => k.modRevision)).size).toBe(200);
      const { commits, writes } = s.stats();
      expect(writes).toBe(200);
      expect(commits).toBeLessThan(writes);
      expect(commits).toBeLessThanOrEqual(2);
    });

    it("a failing write in a batch fails alone", async () => {
      const s = openStore();
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
      const s = openStore(path);
      await s.create("/durable", "yes");
      // A second connection only sees committed data.
      const other = sqliteDriver(driver).open(path, { readonly: true });
      try {
        expect({ ...(other.prepare("SELECT key, value FROM log WHERE id = 1").get() as object) }).toEqual({ key: "/durable", value: "yes" });
        expect({ ...(other.prepare("PRAGMA journal_mode").get() as object) }).toEqual({ journal_mode: "wal" });
        // The highest revision is stored explicitly, not only implied by the newest log row.
        expect({ ...(other.prepare("SELECT value FROM meta WHERE name = 'revision'").get() as object) }).toEqual({ value: 1 });
      } finally {
        other.close();
      }
    });

    /** The log rows of one key, read through a second connection. */
    const rowsOf = (path: string, key: string): { id: number; deleted: number }[] => {
      const other = sqliteDriver(driver).open(path, { readonly: true });
      try {
        return other.prepare("SELECT id, deleted FROM log WHERE key = ? ORDER BY id").all(key).map((r) => ({ ...(r as { id: number; deleted: number }) }));
      } finally {
        other.close();
      }
    };

    it("keeps no history of a key written with a TTL: a put replaces its row, a delete leaves one deletion row", async () => {
      const path = tempPath();
      const s = openStore(path);
      const first = await s.create("/ev", "v0", { ttlSeconds: 3600 });
      let rev = first.modRevision;
      for (let i = 1; i <= 5; i++) rev = (await s.update("/ev", `v${i}`, rev, { ttlSeconds: 3600 })).modRevision;
      expect(rowsOf(path, "/ev")).toEqual([{ id: rev, deleted: 0 }]);
      // Its past reads as if compacted: the replaced values are gone.
      expect(await s.get("/ev", { revision: first.modRevision })).toBeUndefined();
      const replay: string[] = [];
      const w = s.watch("/ev", { afterRevision: 0 }, (e) => replay.push(`${e.type} ${e.kv.value}`));
      await new Promise((r) => setImmediate(r));
      w.stop();
      expect(replay).toEqual(["put v5"]);
      const gone = await s.delete("/ev");
      expect(rowsOf(path, "/ev")).toEqual([{ id: gone.modRevision, deleted: 1 }]);
      // A key without a TTL keeps its history until compaction.
      let k = await s.create("/cm", "v0");
      for (let i = 1; i <= 5; i++) k = await s.update("/cm", `v${i}`, k.modRevision);
      expect(rowsOf(path, "/cm")).toHaveLength(6);
      // Compaction then removes the deletion row like any other.
      await s.compact(await s.currentRevision());
      expect(rowsOf(path, "/ev")).toEqual([]);
    });

    it("keeps expiries across a reopen, and a rolled-back transaction leaves them as they were", async () => {
      const path = tempPath();
      const s = openStore(path);
      await s.create("/exp", "v", { ttlSeconds: 1 });
      await s.create("/taken", "v");
      await expect(s.transaction([{ kind: "create", key: "/x", value: "v", ttlSeconds: 1 }, { kind: "create", key: "/taken", value: "v" }])).rejects.toMatchObject({ code: "KeyExists" });
      // /x written without a TTL keeps its history: the rolled-back TTL left no trace.
      let x = await s.create("/x", "0");
      x = await s.update("/x", "1", x.modRevision);
      expect(rowsOf(path, "/x")).toHaveLength(2);
      await s.close();
      const again = openStore(path);
      expect(await again.expiry.sweep(Date.now() + 2000)).toBe(1);
      expect((await again.range("/")).items.map((kv) => kv.key)).toEqual(["/taken", "/x"]);
    });

    it("a transaction that throws leaves nothing behind", () => {
      const db = sqliteDriver(driver).open(tempPath());
      try {
        db.exec("CREATE TABLE t (v INTEGER)");
        const insert = db.prepare<[number]>("INSERT INTO t (v) VALUES (?)");
        expect(() =>
          db.transaction(() => {
            insert.run(1);
            throw new Error("abandon");
          }),
        ).toThrow("abandon");
        db.transaction(() => insert.run(2));
        expect(db.prepare("SELECT v FROM t").all().map((r) => (r as { v: number }).v)).toEqual([2]);
      } finally {
        db.close();
      }
    });
  });
}

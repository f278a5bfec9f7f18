import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backupTime, RotatingFile } from "./rotating-file.js";

const MB = 1024 * 1024;
const line = (c: string) => c.repeat(MB / 4 - 1) + "\n"; // a quarter of a megabyte

describe("the audit log file's rotation", () => {
  it("moves a full file aside under lumberjack's name, keeping every line once", () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-rotate-"));
    let now = Date.UTC(2025, 4, 6, 7, 8, 9, 10);
    const f = new RotatingFile(join(dir, "audit.log"), { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0, compress: false }, () => now);
    for (const c of "abcd") f.write(line(c));
    now += 1000;
    f.write(line("e"));
    f.close();
    expect(readdirSync(dir).sort()).toEqual(["audit-2025-05-06T07-08-10.010.log", "audit.log"]);
    expect(backupTime(now)).toBe("2025-05-06T07-08-10.010");
    expect(readFileSync(join(dir, "audit-2025-05-06T07-08-10.010.log"), "utf8")).toBe("abcd".split("").map(line).join(""));
    expect(readFileSync(join(dir, "audit.log"), "utf8")).toBe(line("e"));
    expect(statSync(join(dir, "audit.log")).mode & 0o777).toBe(0o600);
    expect(() => f.write("x".repeat(MB + 1))).toThrow(`write length ${MB + 1} exceeds maximum file size ${MB}`);
  });

  it("appends to an existing file, and rotates it first when the write would fill it", () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-rotate-"));
    writeFileSync(join(dir, "a.log"), "old\n");
    const f = new RotatingFile(join(dir, "a.log"), { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0, compress: false });
    f.write("new\n");
    expect(readFileSync(join(dir, "a.log"), "utf8")).toBe("old\nnew\n");
    f.write("x".repeat(MB - 7)); // one byte more than the file can take
    f.close();
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("keeps --audit-log-maxbackup backups, drops those older than --audit-log-maxage, gzips with --audit-log-compress", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-rotate-"));
    const day = 24 * 3600 * 1000;
    let now = Date.UTC(2025, 0, 10);
    writeFileSync(join(dir, `audit-${backupTime(now - 20 * day)}.log`), "ancient\n");
    const f = new RotatingFile(join(dir, "audit.log"), { maxSizeMB: 1, maxBackups: 2, maxAgeDays: 7, compress: true }, () => now);
    for (let i = 0; i < 4; i++) {
      now += 1000;
      for (const c of "abcd") f.write(line(c));
    }
    f.close();
    await f.settled(); // compression runs in the background
    const names = readdirSync(dir).sort();
    expect(names).toHaveLength(3);
    expect(names.filter((n) => n.endsWith(".log.gz"))).toHaveLength(2);
    expect(existsSync(join(dir, `audit-${backupTime(Date.UTC(2025, 0, 10) - 20 * day)}.log`))).toBe(false);
  });
});

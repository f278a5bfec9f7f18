import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pruneOtherBuilds, readOwned } from "./owned-cache-dir.js";

describe("the owned cache directory", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), "kapi-owned-"));
    dirs.push(d);
    return d;
  };
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
  const put = (d: string, name: string, at: Date) => {
    writeFileSync(join(d, name), "x");
    utimesSync(join(d, name), at, at);
  };

  it("keeps the files of the builds used most recently and the current one, and removes the rest", () => {
    const d = dir();
    // Build b0 was used an hour ago … b5 six hours ago; "cafe0000" (current) long ago.
    for (let i = 0; i < 6; i++) {
      put(d, `b${i}b${i}b${i}b${i}-v20.20.2-x64-serve.cache`, hoursAgo(i + 1));
      put(d, `b${i}b${i}b${i}b${i}-bootstrap-0123456789abcdef.json`, hoursAgo(i + 1));
    }
    put(d, "cafe0000-v20.20.2-x64-serve.cache", hoursAgo(100));
    put(d, "not-a-build.txt", hoursAgo(100));
    put(d, "b0b0b0b0-v20.20.2-x64-serve.cache.123.abc.tmp", hoursAgo(48));
    pruneOtherBuilds(d, "cafe0000", 3);
    expect(readdirSync(d).sort()).toEqual([
      "b0b0b0b0-bootstrap-0123456789abcdef.json",
      "b0b0b0b0-v20.20.2-x64-serve.cache",
      "b1b1b1b1-bootstrap-0123456789abcdef.json",
      "b1b1b1b1-v20.20.2-x64-serve.cache",
      "cafe0000-v20.20.2-x64-serve.cache",
      "not-a-build.txt",
    ]);
  });

  it("marks a file read as in use, at most once an hour", () => {
    const d = dir();
    put(d, "aaaa0000-x.cache", hoursAgo(5));
    put(d, "bbbb0000-x.cache", new Date(Date.now() - 60_000));
    expect(readOwned(join(d, "aaaa0000-x.cache"))?.toString()).toBe("x");
    expect(readOwned(join(d, "bbbb0000-x.cache"))?.toString()).toBe("x");
    expect(Date.now() - statSync(join(d, "aaaa0000-x.cache")).mtimeMs).toBeLessThan(60_000);
    expect(Date.now() - statSync(join(d, "bbbb0000-x.cache")).mtimeMs).toBeGreaterThanOrEqual(59_000);
  });
});

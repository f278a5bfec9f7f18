// `npx tsx bench/sqlite-drivers.ts [rounds]`: the sqlite backend (SqliteStorage) on each driver
// this Node can run, better-sqlite3 and node:sqlite. Each round runs every driver in a fresh child
// process, alternating, so that module loading is measured cold and one driver's page cache or
// heap does not help the other; the medians over the rounds are printed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { SqliteDriverName } from "../src/storage/sqlite/driver.js";

const ROWS = 10_000;
const BURST = 100; // concurrent writes per group commit, as a busy server queues them
const SEQUENTIAL = 300; // writes awaited one by one: one commit (and fsync) each
const RANGES = 20;

type Figures = Record<string, number>;

async function measure(driver: SqliteDriverName): Promise<Figures> {
  const f: Figures = {};
  const [{ SqliteStorage }, { sqliteDriver }] = await Promise.all([import("../src/storage/sqlite/sqlite-storage.js"), import("../src/storage/sqlite/drivers.js")]);
  let t = performance.now();
  sqliteDriver(driver); // loads the driver (better-sqlite3: its module and addon) and opens :memory:
  f["load driver ms"] = performance.now() - t;
  const dir = mkdtempSync(join(tmpdir(), "kapi-sqlite-bench-"));
  const path = join(dir, "kapi.db");
  try {
    let s = SqliteStorage.open({ path, driver });
    const value = (i: number) => JSON.stringify({ kind: "ConfigMap", metadata: { name: `cm-${i}`, namespace: "bench" }, data: { k: "v".repeat(400), i: String(i) } });
    const key = (i: number) => `/registry/configmaps/bench/cm-${String(i).padStart(6, "0")}`;

    t = performance.now();
    for (let i = 0; i < ROWS; i += BURST) await Promise.all(Array.from({ length: BURST }, (_, j) => s.create(key(i + j), value(i + j))));
    f["create, bursts of 100: writes/s"] = ROWS / ((performance.now() - t) / 1000);

    t = performance.now();
    for (let i = 0; i < ROWS; i += BURST) {
      await Promise.all(Array.from({ length: BURST }, async (_, j) => {
        const cur = await s.get(key(i + j));
        await s.update(key(i + j), value(i + j + 1), cur!.modRevision);
      }));
    }
    f["get+update, bursts of 100: writes/s"] = ROWS / ((performance.now() - t) / 1000);

    t = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await s.create(`/registry/secrets/bench/s-${i}`, value(i));
    f["create, one commit each: ms/write"] = (performance.now() - t) / SEQUENTIAL;

    t = performance.now();
    for (let i = 0; i < RANGES; i++) {
      const r = await s.range("/registry/configmaps/bench/");
      if (r.items.length !== ROWS) throw new Error(`range read ${r.items.length} rows, wanted ${ROWS}`);
    }
    f["range of 10k rows: ms"] = (performance.now() - t) / RANGES;

    t = performance.now();
    for (let i = 0; i < RANGES; i++) {
      let after: string | undefined;
      let n = 0;
      for (;;) {
        const r = await s.range("/registry/configmaps/bench/", { limit: 500, startAfter: after });
        n += r.items.length;
        if (!r.more) break;
        after = r.items[r.items.length - 1]!.key;
      }
      if (n !== ROWS) throw new Error(`paged range read ${n} rows`);
    }
    f["range of 10k rows in pages of 500: ms"] = (performance.now() - t) / RANGES;

    const old = ROWS; // the revision at which all configmaps had just been created
    t = performance.now();
    for (let i = 0; i < 5; i++) await s.range("/registry/configmaps/bench/", { revision: old });
    f["range of 10k rows at an old revision: ms"] = (performance.now() - t) / 5;

    await s.close();
    t = performance.now();
    s = SqliteStorage.open({ path, driver });
    await s.get(key(0));
    f["reopen with 20k log rows: ms"] = performance.now() - t;
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return f;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const child = process.argv.indexOf("--child");
  if (child >= 0) {
    process.stdout.write(JSON.stringify(await measure(process.argv[child + 1] as SqliteDriverName)));
    return;
  }
  const rounds = Number(process.argv[2] ?? 3);
  const { availableSqliteDrivers } = await import("../src/storage/sqlite/drivers.js");
  const drivers = availableSqliteDrivers().map((d) => d.name);
  const runs = new Map<SqliteDriverName, Figures[]>(drivers.map((d) => [d, []]));
  for (let r = 0; r < rounds; r++) {
    for (const d of r % 2 ? [...drivers].reverse() : drivers) {
      const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, "--child", d], { encoding: "utf8" });
      runs.get(d)!.push(JSON.parse(out));
    }
  }
  process.stdout.write(`Node ${process.versions.node}, ${rounds} rounds, medians\n`);
  const names = Object.keys(runs.get(drivers[0]!)![0]!);
  process.stdout.write(`${"".padEnd(42)}${drivers.map((d) => d.padStart(16)).join("")}\n`);
  for (const n of names) {
    const cells = drivers.map((d) => median(runs.get(d)!.map((f) => f[n]!)));
    process.stdout.write(`${n.padEnd(42)}${cells.map((c) => (c >= 100 ? c.toFixed(0) : c.toFixed(2)).padStart(16)).join("")}\n`);
  }
}

await main();
